"""SQLAlchemy reflection against Mitra, under SQLAlchemy 1.4 and 2.x: the Inspector's methods
for every table, MetaData().reflect(), Table(..., autoload_with=engine), and pandas reading a
table and a bm25() join. Uses postgresql+psycopg2, and also postgresql+psycopg under 2.x.

1.4: a venv with `pip install "sqlalchemy<2" psycopg2-binary "pandas<2.2" "numpy<2"` (pandas 2.2+
needs SQLAlchemy 2 and fails with 1.4 engines); 2.x: SQLAlchemy 2 with
psycopg2-binary, psycopg 3 and pandas.
Usage: sqlalchemy_reflect.py PORT [--mitra] [--driver psycopg2|psycopg]
Prints `PASS name` / `FAIL name: error` per check (and, on stderr, the SQL that failed) and
`sqlalchemy OK` when every check passed; exits non-zero otherwise."""
import json
import os
import sys
import traceback
import warnings

import sqlalchemy as sa
from sqlalchemy import event, inspect

port = int(sys.argv[1])
args = sys.argv[2:]
mitra = "--mitra" in args or os.environ.get("MITRA") == "1"
sa2 = int(sa.__version__.split(".")[0]) >= 2
if "--driver" in args:
    drivers = [args[args.index("--driver") + 1]]
else:
    drivers = ["psycopg2", "psycopg"] if sa2 else ["psycopg2"]
sql_log = open(os.environ["MITRA_SQL_LOG"], "a") if os.environ.get("MITRA_SQL_LOG") else None

TABLES = ["analyses", "answers", "chunks", "documents", "ingest_runs"]
failures = []
current = {"name": None, "sent": [], "driver": None}


def check(name, fn):
    current.update(name=name, sent=[])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", sa.exc.SAWarning)  # e.g. "Did not recognize type"
            fn()
    except Exception as e:  # noqa: BLE001
        msg = " ".join(str(e).split("\n[SQL:")[0].split()) or type(e).__name__
        print(f"FAIL {name}: {type(e).__name__}: {msg[:600]}", flush=True)
        failures.append(name)
        if current["sent"]:
            sql, params = current["sent"][-1]
            print(f"--- {name}: last SQL sent (params={params!r})\n{sql.strip()}\n", file=sys.stderr)
        if not isinstance(e, (sa.exc.DBAPIError, AssertionError, sa.exc.SAWarning)):
            traceback.print_exc(file=sys.stderr)
    else:
        print(f"PASS {name}", flush=True)


def make_engine(driver):
    engine = sa.create_engine(f"postgresql+{driver}://physicist@127.0.0.1:{port}/mitra")

    @event.listens_for(engine, "before_cursor_execute")
    def record(conn, cursor, statement, parameters, context, executemany):
        current["sent"].append((statement, parameters))

    @event.listens_for(engine, "handle_error")
    def record_error(ctx):
        if sql_log:
            e = ctx.original_exception
            code = getattr(e, "pgcode", None) or getattr(e, "sqlstate", None)
            sql_log.write(json.dumps({"tool": f"sqlalchemy{sa.__version__}", "driver": driver, "check": current["name"],
                                      "sql": ctx.statement, "params": ctx.parameters,
                                      "error": f"[{code}] {e}"}, default=str) + "\n")

    @event.listens_for(engine, "after_cursor_execute")
    def log_ok(conn, cursor, statement, parameters, context, executemany):
        if sql_log:
            sql_log.write(json.dumps({"tool": f"sqlalchemy{sa.__version__}", "driver": driver, "check": current["name"],
                                      "sql": statement, "params": parameters, "error": None}, default=str) + "\n")

    return engine


def has(items, *want):
    missing = [w for w in want if w not in items]
    assert not missing, f"missing {missing} in {sorted(items)[:40]}"


for driver in drivers:
    tag = f"sa{sa.__version__}+{driver}"
    engine = make_engine(driver)
    state = {}

    def connect():
        with engine.connect() as c:
            assert c.execute(sa.text("SELECT 1")).scalar() == 1
        state["insp"] = inspect(engine)

    check(f"{tag} connect+inspect", connect)
    insp = state.get("insp")
    if insp is None:
        continue

    check(f"{tag} get_schema_names", lambda: has(insp.get_schema_names(), "public"))
    check(f"{tag} default_schema_name", lambda: has([insp.default_schema_name], "public"))
    check(f"{tag} get_table_names", lambda: has(insp.get_table_names(), *TABLES))
    check(f"{tag} get_view_names", lambda: insp.get_view_names())
    check(f"{tag} get_sequence_names", lambda: insp.get_sequence_names())
    if hasattr(insp, "get_materialized_view_names"):
        check(f"{tag} get_materialized_view_names", lambda: insp.get_materialized_view_names())
    check(f"{tag} has_table(chunks)", lambda: has([insp.has_table("chunks")], True))
    check(f"{tag} get_enums", lambda: insp.get_enums())
    check(f"{tag} get_foreign_table_names", lambda: insp.get_foreign_table_names())

    def columns(t):
        cols = {c["name"]: c for c in insp.get_columns(t)}
        if t == "chunks":
            has(cols, "chunk_id", "doc_id", "version", "embedding")
            assert isinstance(cols["embedding"]["type"], sa.ARRAY), cols["embedding"]["type"]
            assert isinstance(cols["chunk_id"]["type"], sa.Text), cols["chunk_id"]["type"]
            assert cols["chunk_id"]["nullable"] is False, cols["chunk_id"]
            assert cols["heading"]["nullable"] is True, cols["heading"]
        if t == "documents":
            assert isinstance(cols["ingested_at"]["type"], sa.DateTime) and cols["ingested_at"]["type"].timezone, \
                cols["ingested_at"]["type"]

    for t in TABLES:
        check(f"{tag} get_columns({t})", lambda t=t: columns(t))
        check(f"{tag} get_pk_constraint({t})", lambda t=t: insp.get_pk_constraint(t))
        check(f"{tag} get_foreign_keys({t})", lambda t=t: insp.get_foreign_keys(t))
        check(f"{tag} get_indexes({t})", lambda t=t: insp.get_indexes(t))
        check(f"{tag} get_unique_constraints({t})", lambda t=t: insp.get_unique_constraints(t))
        check(f"{tag} get_check_constraints({t})", lambda t=t: insp.get_check_constraints(t))
        check(f"{tag} get_table_comment({t})", lambda t=t: insp.get_table_comment(t))
        check(f"{tag} get_table_options({t})", lambda t=t: insp.get_table_options(t))

    if sa2:
        # 2.x batch ("multi") reflection, which MetaData.reflect uses
        check(f"{tag} get_multi_columns", lambda: has([k[1] for k in insp.get_multi_columns()], *TABLES))
        check(f"{tag} get_multi_pk_constraint", lambda: insp.get_multi_pk_constraint())
        check(f"{tag} get_multi_foreign_keys", lambda: insp.get_multi_foreign_keys())
        check(f"{tag} get_multi_indexes", lambda: insp.get_multi_indexes())
        check(f"{tag} get_multi_unique_constraints", lambda: insp.get_multi_unique_constraints())
        check(f"{tag} get_multi_check_constraints", lambda: insp.get_multi_check_constraints())
        check(f"{tag} get_multi_table_comment", lambda: insp.get_multi_table_comment())

    def reflect_all():
        md = sa.MetaData()
        md.reflect(bind=engine)
        has(md.tables, *TABLES)
        has(md.tables["chunks"].c, "chunk_id", "embedding")

    check(f"{tag} MetaData.reflect", reflect_all)

    def autoload(t):
        table = sa.Table(t, sa.MetaData(), autoload_with=engine)
        assert len(table.c) > 0
        with engine.connect() as c:
            c.execute(sa.select(table).limit(2)).fetchall()

    for t in TABLES:
        check(f"{tag} Table({t}, autoload_with)", lambda t=t: autoload(t))

    def pandas_table():
        import pandas as pd

        df = pd.read_sql_table("documents", engine)
        assert len(df) > 0 and "title" in df.columns, df.columns

    check(f"{tag} pandas.read_sql_table(documents)", pandas_table)

    def pandas_query():
        import pandas as pd

        q = sa.text("SELECT b.rank, b.score, d.title, c.heading FROM bm25(:q, :k) b "
                    "JOIN chunks c ON c.chunk_id = b.chunk_id JOIN documents d ON d.doc_id = b.doc_id ORDER BY b.rank")
        df = pd.read_sql_query(q, engine, params={"q": "muon momentum scale", "k": 5})
        assert 0 < len(df) <= 5 and list(df["rank"])[0] == 1, df

    check(f"{tag} pandas.read_sql_query(bm25 join)", pandas_query)

    def core_select():
        md = sa.MetaData()
        chunks = sa.Table("chunks", md, autoload_with=engine)
        documents = sa.Table("documents", md, autoload_with=engine)
        q = (sa.select(chunks.c.chunk_id, documents.c.title)
             .join_from(chunks, documents, chunks.c.doc_id == documents.c.doc_id)
             .where(chunks.c.kind.is_not(None)).limit(3))
        with engine.connect() as c:
            assert len(c.execute(q).fetchall()) == 3

    check(f"{tag} select on reflected tables", core_select)
    engine.dispose()

if failures:
    print(f"sqlalchemy: {len(failures)} failed: {', '.join(failures)}")
    sys.exit(1)
print("sqlalchemy OK")
