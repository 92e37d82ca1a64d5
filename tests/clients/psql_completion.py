"""psql tab completion against Mitra, in a pseudo-terminal: `\\df bm<TAB>` completes to the
retrieval function, `SELECT * FROM doc<TAB>` to the table. Exits non-zero on failure.
Usage: psql_completion.py PORT"""
import sys

import pexpect

port = sys.argv[1]
psql = pexpect.spawn(
    "psql", ["-X", f"postgresql://physicist@127.0.0.1:{port}/mitra"], encoding="utf-8", timeout=20
)
psql.expect("=> ")


def completed(prefix, want):
    psql.send(prefix + "\t")
    psql.expect(want)
    psql.sendcontrol("c")
    psql.expect("=> ")


completed("\\df bm", "bm25 ")
completed("\\df hyb", "hybrid ")
completed("SELECT * FROM doc", "documents ")
completed("SELECT * FROM ingest", "ingest_runs ")
psql.sendline("\\q")
print("psql completion OK")
