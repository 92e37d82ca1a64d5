"""Replays the SQL Apache Superset 6.1 sent while a database, datasets on `documents` and
`chunks`, SQL Lab queries over bm25()/hybrid(), a virtual dataset, a day time-series chart with
a time-range filter and a cost estimate were made (recorded by benches/superset/run.sh
--capture into fixtures/superset_sql.txt), through psycopg2 as Superset sends it.

Usage: superset_replay.py PORT FIXTURE
Prints `FAIL n: [sqlstate] error` and the statement for each statement that fails and
`superset replay OK (N statements)` when none does; exits non-zero otherwise. Literal oids are
the recording server's, so rows may differ; only errors matter. The EXPLAIN statement must
answer a first line with `cost=S..T` (Superset's estimate parses it)."""
import re
import sys

import psycopg2

port, path = int(sys.argv[1]), sys.argv[2]
statements = [s.strip() for s in open(path).read().split("\n-- next\n") if s.strip()]
conn = psycopg2.connect(host="127.0.0.1", port=port, dbname="mitra", user="physicist")
conn.autocommit = True
failed = 0
for n, sql in enumerate(statements, 1):
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            if cur.description is not None:
                rows = cur.fetchall()
                if sql.upper().startswith("EXPLAIN"):
                    first = rows[0][0] if rows else ""
                    if not re.search(r"cost=([\d.]+)\.\.([\d.]+)", first):
                        raise RuntimeError(f"EXPLAIN's first line has no cost: {first!r}")
    except Exception as e:  # noqa: BLE001 - every failure is reported the same way
        failed += 1
        code = getattr(e, "pgcode", None)
        print(f"FAIL {n}: [{code}] {' '.join(str(e).split())}\n  {' '.join(sql.split())[:400]}")
conn.close()
if failed:
    print(f"superset replay: {failed} of {len(statements)} failed")
    sys.exit(1)
print(f"superset replay OK ({len(statements)} statements)")
