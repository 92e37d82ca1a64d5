"""Python driver matrix for Mitra: psycopg2, asyncpg, SQLAlchemy 2 (+ pandas). Each driver reads
every table of a store with vectors, runs a retrieval join with bound parameters, a
timestamp-parameter query and an error. Prints '<driver> OK' per driver; exits non-zero on failure.
Usage: python_matrix.py PORT"""
import asyncio
import datetime
import sys

port = int(sys.argv[1])
TABLES = ["documents", "chunks", "ingest_runs", "analyses"]
EMPTY = ("ingest_runs", "analyses")  # the demo store has neither runs of its own nor analyses
SINCE = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
DSN = f"host=127.0.0.1 port={port} dbname=mitra user=physicist"


def check_psycopg2():
    import psycopg2
    import psycopg2.errors

    conn = psycopg2.connect(DSN)
    cur = conn.cursor()
    for t in TABLES:
        cur.execute(f"SELECT * FROM {t}")
        cur.fetchall()
    cur.execute("SELECT embedding FROM chunks LIMIT 1")
    vec = cur.fetchone()[0]
    assert isinstance(vec, list) and len(vec) in (16, 384), vec
    cur.execute(
        "SELECT d.title, b.rank FROM bm25(%s, %s) b JOIN documents d USING (doc_id) ORDER BY b.rank",
        ("muon", 3),
    )
    assert len(cur.fetchall()) == 3
    cur.execute("SELECT count(*) FROM documents WHERE ingested_at > %s", (SINCE,))
    assert cur.fetchone()[0] == 5
    try:
        cur.execute("SELECT * FROM bm25(%s, %s)", ("muon", 0))
        raise AssertionError("k = 0 must fail")
    except psycopg2.Error as e:
        assert e.pgcode == "22023", e.pgcode
    conn.rollback()
    # A named cursor (DECLARE ... CURSOR, FETCH in batches), as SQLAlchemy stream_results does.
    named = conn.cursor(name="stream")
    named.itersize = 2
    named.execute("SELECT chunk_id FROM chunks ORDER BY chunk_id")
    assert len(list(named)) > 5
    named.close()
    conn.commit()
    conn.close()
    print("psycopg2 OK")


async def check_asyncpg():
    import asyncpg

    conn = await asyncpg.connect(host="127.0.0.1", port=port, database="mitra", user="physicist")
    # Every table whole, vectors included: asyncpg decodes `real[]` only after its type
    # introspection (a recursive catalog query with an `oid[]` parameter) has run.
    for t in TABLES:
        rows = await conn.fetch(f"SELECT * FROM {t}")
        assert rows or t in EMPTY, t
    vec = await conn.fetchval("SELECT embedding FROM chunks WHERE embedding IS NOT NULL LIMIT 1")
    assert isinstance(vec, list) and len(vec) >= 8 and all(isinstance(x, float) for x in vec), vec
    stmt = await conn.prepare("SELECT embedding FROM chunks LIMIT 1")
    assert stmt.get_attributes()[0].type.name == "float4[]", stmt.get_attributes()
    row = await conn.fetchrow("SELECT ingested_at FROM chunks c JOIN documents d USING (doc_id) LIMIT 1")
    assert row["ingested_at"].tzinfo is not None, row
    rows = await conn.fetch(
        "SELECT d.title, b.rank FROM bm25($1, $2) b JOIN documents d USING (doc_id) ORDER BY b.rank",
        "muon",
        3,
    )
    assert len(rows) == 3
    n = await conn.fetchval("SELECT count(*) FROM documents WHERE ingested_at > $1", SINCE)
    assert n == 5, n
    try:
        await conn.fetch("SELECT * FROM bm25($1, $2)", "muon", 0)
        raise AssertionError("k = 0 must fail")
    except asyncpg.PostgresError as e:
        assert e.sqlstate == "22023", e.sqlstate
    await conn.close()
    # A pool resets each connection it takes back (pg_advisory_unlock_all, UNLISTEN, RESET).
    pool = await asyncpg.create_pool(
        host="127.0.0.1", port=port, database="mitra", user="physicist", min_size=1, max_size=2
    )
    for _ in range(3):
        async with pool.acquire() as c:
            assert await c.fetchval("SELECT count(*) FROM bm25($1, 2)", "muon") == 2
    await pool.close()
    print("asyncpg OK")


def check_sqlalchemy():
    import pandas as pd
    import sqlalchemy as sa

    for driver in ["psycopg", "psycopg2"]:
        engine = sa.create_engine(f"postgresql+{driver}://physicist@127.0.0.1:{port}/mitra")
        insp = sa.inspect(engine)
        assert "public" in insp.get_schema_names()
        assert set(TABLES) <= set(insp.get_table_names()), insp.get_table_names()
        # Reflection: columns (correlated scalar subqueries in CASE), keys and indexes.
        cols = {c["name"]: c for c in insp.get_columns("chunks")}
        assert isinstance(cols["embedding"]["type"], sa.ARRAY), cols["embedding"]
        assert not cols["chunk_id"]["nullable"], cols["chunk_id"]
        docs = {c["name"]: c for c in insp.get_columns("documents")}
        assert isinstance(docs["ingested_at"]["type"], sa.TIMESTAMP), docs["ingested_at"]
        assert docs["ingested_at"]["type"].timezone, docs["ingested_at"]
        assert insp.get_pk_constraint("chunks")["constrained_columns"] == []
        assert insp.get_indexes("chunks") == []
        assert insp.get_unique_constraints("chunks") == []
        table = sa.Table("documents", sa.MetaData(), autoload_with=engine)
        assert "title" in table.c
        for t in TABLES:
            df = pd.read_sql_table(t, engine)
            assert len(df) > 0 or t in EMPTY, t
        with engine.connect() as conn:
            n = conn.execute(sa.select(sa.func.count()).select_from(table)).scalar()
            assert n == 5, n
            for t in TABLES:
                df = pd.read_sql(sa.text(f"SELECT * FROM {t}"), conn)
                assert len(df) > 0 or t in EMPTY, t
            df = pd.read_sql(
                sa.text("SELECT b.rank, d.title FROM bm25(:q, :k) b JOIN documents d USING (doc_id) ORDER BY b.rank"),
                conn,
                params={"q": "muon", "k": 3},
            )
            assert len(df) == 3, df
            df = pd.read_sql(
                sa.text("SELECT count(*) AS n FROM documents WHERE ingested_at > :since"),
                conn,
                params={"since": SINCE},
            )
            assert int(df["n"][0]) == 5, df
            # Streaming results through a server-side cursor.
            res = conn.execute(
                sa.text("SELECT chunk_id FROM chunks ORDER BY chunk_id"),
                execution_options={"stream_results": True, "max_row_buffer": 4},
            )
            assert len(res.fetchall()) > 5
            # A savepoint (begin_nested) and an error that rolls back to it.
            with conn.begin_nested() as sp:
                try:
                    conn.execute(sa.text("SELECT * FROM bm25('muon', 0)"))
                    raise AssertionError("k = 0 must fail")
                except sa.exc.DBAPIError as e:
                    assert "22023" in str(getattr(e.orig, "sqlstate", "") or getattr(e.orig, "pgcode", "")), e
                    sp.rollback()
            assert conn.execute(sa.text("SELECT 1")).scalar() == 1
        engine.dispose()
    print("sqlalchemy+pandas OK")


check_psycopg2()
asyncio.run(check_asyncpg())
check_sqlalchemy()
print("python matrix OK")
