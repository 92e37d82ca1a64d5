"""psycopg 3, psycopg2 and asyncpg over TLS against a Mitra server with server.tls = required:
sslmode=require with channel binding required (SCRAM-SHA-256-PLUS), verify-full against the
test's CA, and a plaintext connection refused before authentication (SQLSTATE 28000).
Usage: tls_check.py PORT CA_PEM"""
import asyncio
import ssl
import sys

import asyncpg
import psycopg
import psycopg2

port, ca = int(sys.argv[1]), sys.argv[2]
dsn = f"host=127.0.0.1 port={port} dbname=mitra user=alice"
PASSWORD = "alice's pass"

with psycopg.connect(dsn + " sslmode=require channel_binding=require", password=PASSWORD) as conn:
    assert conn.info.pgconn.ssl_in_use
    assert conn.execute("SELECT 1").fetchone() == (1,)
    print("psycopg require + channel binding OK")

conn = psycopg2.connect(
    f"host=localhost port={port} dbname=mitra user=alice sslmode=verify-full sslrootcert={ca}",
    password=PASSWORD,
)
cur = conn.cursor()
cur.execute("SELECT 2")
assert cur.fetchone() == (2,)
conn.close()
print("psycopg2 verify-full OK")

try:
    psycopg.connect(dsn + " sslmode=disable", password=PASSWORD).close()
    raise AssertionError("a plaintext connection was accepted")
except psycopg.OperationalError as e:
    assert "accepts TLS connections only" in str(e), str(e)
    print("plaintext refused")


async def with_asyncpg():
    ctx = ssl.create_default_context(cafile=ca)
    conn = await asyncpg.connect(
        host="localhost", port=port, user="alice", password=PASSWORD,
        database="mitra", ssl=ctx,
    )
    assert await conn.fetchval("SELECT 3") == 3
    await conn.close()
    try:
        await asyncpg.connect(
            host="127.0.0.1", port=port, user="alice", password=PASSWORD,
            database="mitra", ssl=False,
        )
        raise AssertionError("asyncpg plaintext accepted")
    except asyncpg.PostgresError as e:
        assert e.sqlstate == "28000", e.sqlstate


asyncio.run(with_asyncpg())
print("asyncpg verify-full OK")
print("TLS clients OK")
