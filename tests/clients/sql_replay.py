"""Replays the statements a client check sent to PostgreSQL against another server (Mitra), one
by one, so that every statement the tool would send is tried, not just the first that fails in
each check (later statements of a check often depend on an earlier one succeeding).

Record with MITRA_SQL_LOG=statements.jsonl (pgcli_check.py, harlequin_check.py,
sqlalchemy_reflect.py write JSON lines: tool, driver, check, sql, params, error), then:
Usage: sql_replay.py PORT statements.jsonl [--all]
Prints `FAIL check: [sqlstate] error` and the SQL for each distinct statement that failed on PORT
but succeeded when recorded (--all: every statement's result); exits non-zero if any failed.
Literal OIDs in the statements are PostgreSQL's, so replies may differ; only errors matter."""
import json
import sys

port = int(sys.argv[1])
path = sys.argv[2]
show_all = "--all" in sys.argv[3:]

seen = set()
entries = []
for line in open(path):
    e = json.loads(line)
    key = (e["driver"], e["sql"], json.dumps(e["params"], sort_keys=True))
    if key in seen or e.get("error"):
        continue
    seen.add(key)
    entries.append(e)


def run_psycopg(sql, params):
    import psycopg

    with psycopg.connect(host="127.0.0.1", port=port, dbname="mitra", user="physicist", autocommit=True) as c:
        with c.cursor() as cur:
            cur.execute(sql, params)
            if cur.description:
                cur.fetchall()


def run_psycopg2(sql, params):
    import psycopg2

    c = psycopg2.connect(host="127.0.0.1", port=port, dbname="mitra", user="physicist")
    c.autocommit = True
    try:
        with c.cursor() as cur:
            cur.execute(sql, params)
            if cur.description:
                cur.fetchall()
    finally:
        c.close()


failed = 0
for e in entries:
    runner = run_psycopg2 if e["driver"] == "psycopg2" else run_psycopg
    params = e["params"]
    if isinstance(params, list) and e["driver"] == "psycopg2":
        params = tuple(params)
    try:
        runner(e["sql"], params)
        if show_all:
            print(f"PASS {e['tool']} {e['check']}")
    except Exception as ex:  # noqa: BLE001
        failed += 1
        code = getattr(ex, "sqlstate", None) or getattr(ex, "pgcode", None)
        msg = " ".join(str(ex).split())
        print(f"FAIL {e['tool']} {e['check']}: [{code}] {msg}")
        print(f"    params={params!r}")
        print("    " + e["sql"].strip().replace("\n", "\n    "))
print(f"{len(entries)} distinct statements, {failed} failed")
sys.exit(1 if failed else 0)
