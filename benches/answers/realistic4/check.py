#!/usr/bin/env python3
"""Consistency checks for the realistic4 held-out set: thin wrapper around
benches/answers/check_set.py with realistic4's expectations (5 analyses,
2 docs each, 10 questions each: 3 number, 1 name, 1 list/reason, 1 stale,
3 absent, 1 other-analysis; mean overlap < 0.30, none above 0.40; the old
value of every stale question still present in <id>-an.md)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import check_set  # noqa: E402

if __name__ == "__main__":
    sys.exit(check_set.main([
        HERE,
        "--analyses", "5", "--docs-per-analysis", "2",
        "--per-analysis", "10", "--answerable", "6",
        "--kinds", "number=3,name=1,list+reason=1,stale=1,absent=3,other-analysis=1",
        "--an-words", "900-1200", "--other-words", "400-800",
        "--abstract-words", "80-120",
        "--max-mean-overlap", "0.30", "--max-overlap", "0.40",
        "--stale-old", "stale_old.json",
    ] + sys.argv[1:]))
