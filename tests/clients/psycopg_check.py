"""psycopg 3 client check for Mitra: server-side bound parameters, joins, SQLSTATEs, every table
in text and binary, timestamp and untyped NULL parameters, untyped arrays, named cursors, COPY,
refused writes."""
import datetime
import sys

import psycopg

port = int(sys.argv[1])


def fails_with(conn, cur, sql, params, sqlstate):
    """Runs `sql`, which must fail with `sqlstate`, then rolls the transaction back."""
    try:
        cur.execute(sql, params)
    except psycopg.Error as e:
        assert e.sqlstate == sqlstate, (sql, e.sqlstate)
    else:
        raise AssertionError(f"{sql} must fail with {sqlstate}")
    conn.rollback()


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
    fails_with(conn, cur, "SELECT * FROM bm25(%s, %s)", ("muon", 0), "22023")
    cur.execute("DEALLOCATE ALL")
    cur.execute("SELECT count(*) FROM bm25(%s, %s)", ("muon", 5), prepare=True)
    assert cur.fetchone()[0] > 0
    fails_with(conn, cur, "SELECT * FROM nowhere", None, "42P01")
    # Every table, text and binary results (vectors are real[] -> list of floats).
    for table in ["documents", "chunks", "ingest_runs"]:
        for binary in (False, True):
            c2 = conn.cursor(binary=binary)
            c2.execute(f"SELECT * FROM {table}")
            c2.fetchall()
    cur.execute("SELECT ingested_at FROM documents LIMIT 1")
    ts = cur.fetchone()[0]
    assert isinstance(ts, datetime.datetime) and ts.tzinfo is not None, ts
    # A timestamptz parameter and an untyped NULL (psycopg sends NULL with type oid 0).
    since = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
    cur.execute("SELECT count(*) FROM documents WHERE ingested_at > %s", (since,))
    assert cur.fetchone()[0] > 0
    for binary in (False, True):
        c3 = conn.cursor(binary=binary)
        c3.execute("SELECT %s AS d", (datetime.date(2024, 1, 2),))
        assert c3.fetchone()[0] == datetime.date(2024, 1, 2)
        c3.execute("SELECT count(*) FROM documents WHERE ingested_at > %s", (datetime.date(2024, 1, 2),))
        assert c3.fetchone()[0] == 5
    cur.execute("SELECT %s IS NULL", (None,))
    assert cur.fetchone()[0] is True
    cur.execute("SELECT count(*) FROM bm25(%s::text, %s::int)", ("muon", 3))
    assert cur.fetchone()[0] == 3
    # A named (server-side) cursor.
    with conn.transaction():
        named = conn.cursor(name="mitra_named")
        named.execute("SELECT chunk_id, rank FROM bm25(%s, %s) ORDER BY rank", ("muon", 4))
        first = named.fetchmany(2)
        rest = named.fetchall()
        assert len(first) == 2 and len(rest) == 2, (first, rest)
        named.close()
    # COPY TO STDOUT.
    with cur.copy("COPY (SELECT doc_id, title FROM documents ORDER BY doc_id) TO STDOUT WITH (FORMAT csv)") as copy:
        data = b"".join(bytes(b) for b in copy)
    assert data.count(b"\n") == 5, data
    # The SQL surface is read-only.
    fails_with(conn, cur, "DROP TABLE documents", None, "42501")
    cur.execute("SELECT count(*) FROM documents")
    assert cur.fetchone()[0] == 5
    # A list of strings travels as an untyped array: `= ANY(%s)` and `<> ALL(%s)` take it as
    # PostgreSQL does (pgcli's completion refresher sends `c.relkind = ANY(%s)`).
    ids = ["demo-notes/hmumu-run3.md", "demo-notes/tth-bb.md"]
    cur.execute("SELECT count(*) FROM documents WHERE doc_id = ANY(%s)", (ids,))
    assert cur.fetchone()[0] == 2
    cur.execute("SELECT count(*) FROM documents WHERE doc_id <> ALL(%s)", (ids,))
    assert cur.fetchone()[0] == 3
    cur.execute("SELECT count(*) FROM documents WHERE version = ANY(%s)", ([1, 2],))
    assert cur.fetchone()[0] == 5
print("psycopg OK")
