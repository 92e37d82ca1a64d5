"""psycopg 3 client check for Mitra: server-side bound parameters, joins, SQLSTATEs."""
import sys

import psycopg

port = int(sys.argv[1])
with psycopg.connect(f"host=127.0.0.1 port={port} dbname=mitra user=physicist") as conn:
    cur = conn.cursor()
    cur.execute("SELECT chunk_id, score, rank FROM bm25(%s, %s) ORDER BY rank", ("muon collider nozzles", 3))
    rows = cur.fetchall()
    assert len(rows) == 3, rows
    assert [r[2] for r in rows] == [1, 2, 3], rows
    assert rows[0][0].startswith("demo-notes/muon-collider-bib.md@1#"), rows
    cur.execute(
        "SELECT d.title, b.score FROM bm25(%s, %s) b JOIN documents d ON d.doc_id = b.doc_id "
        "WHERE b.rank <= %s ORDER BY b.rank",
        ("Z+jets", 5, 1),
    )
    title, _ = cur.fetchone()
    assert title == "Z+jets background estimate for the monojet search", title
    # Prepared explicitly (server-side statement reused).
    for q in ["dark photon", "b-tagging"]:
        cur.execute("SELECT count(*) FROM bm25(%s, %s)", (q, 5), prepare=True)
        assert cur.fetchone()[0] > 0
    try:
        cur.execute("SELECT * FROM bm25(%s, %s)", ("muon", 0))
        raise AssertionError("k = 0 must fail")
    except psycopg.errors.InvalidParameterValue as e:
        assert e.sqlstate == "22023"
    conn.rollback()
    cur.execute("DEALLOCATE ALL")
    cur.execute("SELECT count(*) FROM bm25(%s, %s)", ("muon", 5), prepare=True)
    assert cur.fetchone()[0] > 0
    try:
        cur.execute("SELECT * FROM nowhere")
        raise AssertionError("unknown table must fail")
    except psycopg.errors.UndefinedTable as e:
        assert e.sqlstate == "42P01"
print("psycopg OK")
