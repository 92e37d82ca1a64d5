"""psycopg 3 against a Mitra server with logins: SCRAM-SHA-256, the session scope across
statements (server-side bound parameters too), reconnects, refused scopes and passwords."""
import sys

import psycopg

port = int(sys.argv[1])
dsn = f"host=127.0.0.1 port={port} dbname=mitra"
QUERY = "dominant background in the dimuon signal region"

with psycopg.connect(dsn, user="alice", password="alice's pass", autocommit=True) as conn:
    cur = conn.cursor()
    cur.execute("SET mitra.analysis = 'tth-mumu'")
    cur.execute("SHOW mitra.analysis")
    assert cur.fetchone()[0] == "tth-mumu"
    for _ in range(6):
        cur.execute(
            "SELECT DISTINCT c.analysis_id FROM hybrid(%s, %s) h JOIN chunks c USING (chunk_id)",
            (QUERY, 50),
            prepare=True,
        )
        assert [r[0] for r in cur.fetchall()] == ["tth-mumu"]
    cur.execute("SELECT count(*) FROM bm25(%s, %s, %s)", (QUERY, 50, "hmumu-run2"))
    assert cur.fetchone()[0] > 0
    try:
        cur.execute("SET mitra.analysis = 'wprime-munu'")
        raise AssertionError("a draft of another group must be refused")
    except psycopg.Error as e:
        assert e.sqlstate == "22023", e.sqlstate
        assert str(e).startswith('analysis "wprime-munu" does not exist'), str(e)
    cur.execute("SHOW mitra.analysis")
    assert cur.fetchone()[0] == "tth-mumu", "a refused SET keeps the scope"

with psycopg.connect(dsn, user="alice", password="alice's pass") as conn:
    cur = conn.cursor()
    cur.execute("SHOW mitra.analysis")
    assert cur.fetchone()[0] == "", "a new connection starts unscoped"

for user, password in (("alice", "not it"), ("nobody", "x")):
    try:
        psycopg.connect(dsn, user=user, password=password).close()
        raise AssertionError("wrong password accepted")
    except psycopg.OperationalError as e:
        assert f'password authentication failed for user "{user}"' in str(e), str(e)
        assert e.sqlstate in (None, "28P01"), e.sqlstate

print("psycopg SCRAM OK")
