#!/usr/bin/env python3
"""Consistency checks for the realistic22 held-out set: benches/answers/check_set.py
with the expectations it shares with realistic3 (check_set.FIVE_BY_TEN)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import check_set  # noqa: E402

if __name__ == "__main__":
    sys.exit(check_set.main([HERE, *check_set.FIVE_BY_TEN, *sys.argv[1:]]))
