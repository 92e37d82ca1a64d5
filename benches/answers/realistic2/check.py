#!/usr/bin/env python3
"""Consistency checks for the realistic2 held-out set: thin wrapper around
benches/answers/check_set.py with realistic2's expectations (5 analyses,
2 docs each, 10 questions each with 6 answerable, mean overlap < 0.35)."""
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
        "--kinds", "number>=3,name+list+reason>=1,stale=1,absent>=2,"
                   "other-analysis>=1,absent+other-analysis=4",
        "--an-words", "900-1300", "--other-words", "450-800",
        "--max-mean-overlap", "0.35",
    ] + sys.argv[1:]))
