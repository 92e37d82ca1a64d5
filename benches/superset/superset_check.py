"""Apache Superset (6.1, SQLAlchemy 1.4 + psycopg2) driven headless against a Postgres-wire server.

Run through run.sh (which sets up SUPERSET_HOME and the venv):
    superset_check.py PORT [--capture FILE]

The Flask app's test client, logged in as admin, calls the REST endpoints the web UI calls: database
test/create, schema/table listing and table metadata, dataset create, dataset samples, SQL Lab execute,
a virtual (SQL) dataset, time-series chart data and the SQL Lab cost estimate. Each step prints
`PASS step` or `FAIL step: error`; the last line is `superset: N passed, M failed` (exit 1 on failures).

Every statement psycopg2 sends (client-side interpolated, so exactly the text the server receives) is
recorded through a psycopg2 connection/cursor factory; statements the server rejected are printed per
step, and --capture FILE writes the distinct statements, first-seen order, separated by `-- next` lines.
"""
import json
import sys
import time
import traceback
import uuid

import psycopg2
import psycopg2.extensions as ext

PORT = int(sys.argv[1])
CAPTURE = sys.argv[sys.argv.index("--capture") + 1] if "--capture" in sys.argv else None
URI = f"postgresql+psycopg2://physicist@127.0.0.1:{PORT}/mitra"

# ---------------------------------------------------------------------------------------------
# Statement capture: every psycopg2 connection gets a cursor class that records what was sent.
# psycopg2 sends BEGIN itself before the first statement of a transaction (autocommit off) and
# COMMIT/ROLLBACK from connection methods; those are recorded too.
SENT = []  # (step, sql, error or None)
STEP = ["setup"]


def _record(sql, err):
    if isinstance(sql, bytes):
        sql = sql.decode("utf-8", "replace")
    SENT.append((STEP[0], sql, err))


class CapCursor(ext.cursor):
    def _before(self):
        conn = self.connection
        if not conn.autocommit and conn.status == ext.STATUS_READY:
            _record("BEGIN", None)

    def execute(self, query, vars=None):
        self._before()
        try:
            result = super().execute(query, vars)
        except Exception as e:  # noqa: BLE001
            sent = self.query
            if sent is None:
                try:
                    sent = self.mogrify(query, vars)
                except Exception:  # noqa: BLE001
                    sent = query
            _record(sent, f"{type(e).__name__}: {getattr(e, 'pgcode', None) or ''} {str(e).strip()}")
            raise
        _record(self.query, None)
        return result

    def executemany(self, query, vars_list):
        for v in vars_list:
            self.execute(query, v)


class CapConn(ext.connection):
    def cursor(self, *args, **kwargs):
        # Also wrap explicit factories (psycopg2.extras' hstore probe passes its own).
        factory = kwargs.get("cursor_factory") or CapCursor
        if not issubclass(factory, CapCursor):
            factory = type(f"Cap{factory.__name__}", (CapCursor, factory), {})
        kwargs["cursor_factory"] = factory
        return super().cursor(*args, **kwargs)

    def commit(self):
        if self.status != ext.STATUS_READY:
            _record("COMMIT", None)
        return super().commit()

    def rollback(self):
        if self.status != ext.STATUS_READY and not self.closed:
            _record("ROLLBACK", None)
        return super().rollback()


_connect = psycopg2.connect


def _capturing_connect(*args, **kwargs):
    kwargs.setdefault("connection_factory", CapConn)
    return _connect(*args, **kwargs)


psycopg2.connect = _capturing_connect

# ---------------------------------------------------------------------------------------------
from superset.app import create_app  # noqa: E402

app = create_app()
client = app.test_client()
RESULTS = []
STATE = {}


def step(name):
    def deco(fn):
        STEP[0] = name
        mark = len(SENT)
        try:
            fn()
        except Exception as e:  # noqa: BLE001
            msg = str(e).strip().replace("\n", " | ")
            if not isinstance(e, AssertionError):
                msg = f"{type(e).__name__}: {msg}\n{traceback.format_exc()}"
            RESULTS.append((name, False, msg))
            print(f"FAIL {name}: {msg[:3000]}", flush=True)
        else:
            RESULTS.append((name, True, None))
            print(f"PASS {name}", flush=True)
        for _, sql, err in SENT[mark:]:
            if err:
                print(f"    server rejected: {sql!r}\n      -> {err}", flush=True)
        return fn

    return deco


def call(method, url, expect=(200, 201), **kw):
    rv = getattr(client, method)(url, **kw)
    try:
        body = rv.get_json()
    except Exception:  # noqa: BLE001
        body = None
    if rv.status_code not in expect:
        text = json.dumps(body)[:2000] if body is not None else rv.get_data(as_text=True)[:2000]
        raise AssertionError(f"{method.upper()} {url} -> HTTP {rv.status_code}: {text}")
    return body


def need(key):
    if key not in STATE:
        raise AssertionError(f"skipped: no {key} (an earlier step failed)")
    return STATE[key]


# Log in through the form the UI uses (session cookie; CSRF is off in superset_config).
with app.app_context():
    rv = client.post("/login/", data={"username": "admin", "password": "admin"})
    assert rv.status_code in (200, 302), rv.status_code
    me = client.get("/api/v1/me/")
    assert me.status_code == 200, ("login failed", me.status_code)

EXTRA = json.dumps(
    {
        "cost_estimate_enabled": True,
        "allows_virtual_table_explore": True,
        "metadata_params": {},
        "engine_params": {},
        "schemas_allowed_for_file_upload": [],
    }
)
SUFFIX = uuid.uuid4().hex[:6]


@step("1a database_test_connection")
def _():
    call(
        "post",
        "/api/v1/database/test_connection/",
        json={"sqlalchemy_uri": URI, "database_name": f"mitra-{PORT}", "extra": EXTRA, "impersonate_user": False},
    )


@step("1b database_create")
def _():
    body = call(
        "post",
        "/api/v1/database/",
        json={
            "database_name": f"mitra-{PORT}-{SUFFIX}",
            "sqlalchemy_uri": URI,
            "expose_in_sqllab": True,
            "allow_run_async": False,
            "allow_ctas": False,
            "allow_cvas": False,
            "allow_dml": False,
            "allow_file_upload": False,
            "extra": EXTRA,
        },
    )
    STATE["db"] = body["id"]
    call("get", f"/api/v1/database/{body['id']}/connection")


@step("2a list_schemas")
def _():
    db = need("db")
    body = call("get", f"/api/v1/database/{db}/schemas/?q=(force:!t)")
    assert "public" in body["result"], f"public not in schemas: {body['result']}"


@step("2b list_tables")
def _():
    db = need("db")
    body = call("get", f"/api/v1/database/{db}/tables/?q=(force:!t,schema_name:public)")
    names = {t["value"] for t in body["result"]}
    for t in ("documents", "chunks"):
        assert t in names, f"{t} not in tables: {sorted(names)}"


for table in ("documents", "chunks"):

    @step(f"2c table_metadata[{table}]")
    def _(table=table):
        db = need("db")
        body = call("get", f"/api/v1/database/{db}/table_metadata/?name={table}&schema=public")
        cols = [c["name"] for c in body["columns"]]
        assert "doc_id" in cols, f"columns: {cols}"
        STATE[f"cols_{table}"] = body["columns"]
        call("get", f"/api/v1/database/{db}/table_metadata/extra/?name={table}&schema=public")
        call("get", f"/api/v1/database/{db}/select_star/{table}/public/")

    @step(f"2d dataset_create[{table}]")
    def _(table=table):
        db = need("db")
        body = call("post", "/api/v1/dataset/", json={"database": db, "schema": "public", "table_name": table})
        STATE[f"ds_{table}"] = body["id"]
        ds = call("get", f"/api/v1/dataset/{body['id']}")
        cols = [c["column_name"] for c in ds["result"]["columns"]]
        assert "doc_id" in cols, f"dataset columns: {cols}"


def direct(sql):
    """A value straight from the server, on a connection that is not captured."""
    with _connect(f"host=127.0.0.1 port={PORT} dbname=mitra user=physicist") as conn:
        cur = conn.cursor()
        cur.execute(sql)
        value = cur.fetchone()[0]
    conn.close()
    return value


def dataset(table):
    """The physical dataset from step 2d or, when that failed, one made through Superset's ORM
    (columns from the table_metadata answer) so the later steps still run."""
    if f"ds_{table}" in STATE:
        return STATE[f"ds_{table}"]
    db = need("db")
    cols = STATE.get(f"cols_{table}")
    if not cols:
        raise AssertionError(f"skipped: no dataset and no table metadata for {table}")
    from superset.connectors.sqla.models import SqlaTable, TableColumn
    from superset.extensions import db as metadb

    with app.app_context():
        t = SqlaTable(table_name=table, schema="public", database_id=db)
        t.columns = [
            TableColumn(column_name=c["name"], type=c["type"], is_dttm="TIME" in c["type"].upper() or "DATE" in c["type"].upper())
            for c in cols
        ]
        metadb.session.add(t)
        metadb.session.commit()
        STATE[f"ds_{table}"] = t.id
    print(f"    (dataset {table} made through the ORM since 2d failed)", flush=True)
    return STATE[f"ds_{table}"]


def samples(ds_id, min_rows):
    body = call(
        "post",
        f"/datasource/samples?force=true&datasource_type=table&datasource_id={ds_id}&per_page=100&page=1",
        json={},
    )
    data = body["result"]["data"]
    assert len(data) >= min_rows, f"{len(data)} sample rows, expected >= {min_rows}"
    return body["result"]


for table in ("documents", "chunks"):

    @step(f"3 dataset_samples[{table}]")
    def _(table=table):
        samples(dataset(table), 1)


QUERIES = {
    "hybrid": "SELECT h.rank, d.title FROM hybrid('muon detector', 5) h JOIN documents d USING (doc_id) ORDER BY h.rank",
    "bm25": "SELECT h.rank, d.title FROM bm25('muon detector', 5) h JOIN documents d USING (doc_id) ORDER BY h.rank",
}


def sqllab(sql):
    db = need("db")
    body = call(
        "post",
        "/api/v1/sqllab/execute/",
        json={
            "database_id": db,
            "sql": sql,
            "runAsync": False,
            "schema": "public",
            "tab": "Untitled Query",
            "client_id": uuid.uuid4().hex[:10],
            "sql_editor_id": "1",
            "select_as_cta": False,
            "ctas_method": "TABLE",
            "queryLimit": 1000,
            "expand_data": True,
        },
    )
    assert body.get("status") == "success", json.dumps(body)[:2000]
    return body


for fn, sql in QUERIES.items():

    @step(f"4 sqllab[{fn}]")
    def _(sql=sql):
        body = sqllab(sql)
        ranks = [row["rank"] for row in body["data"]]
        assert ranks == [1, 2, 3, 4, 5], f"ranks {ranks}; executed: {body['query'].get('executedSql')}"


@step("5a virtual_dataset_create")
def _():
    db = need("db")
    body = call(
        "post",
        "/api/v1/dataset/",
        json={"database": db, "schema": "public", "table_name": f"bm25_muon_{SUFFIX}", "sql": "SELECT * FROM bm25('muon', 10)"},
    )
    STATE["ds_virtual"] = body["id"]
    ds = call("get", f"/api/v1/dataset/{body['id']}")
    cols = [c["column_name"] for c in ds["result"]["columns"]]
    assert "chunk_id" in cols and "rank" in cols, f"virtual dataset columns: {cols}"


@step("5b virtual_dataset_samples")
def _():
    expected = direct("SELECT count(*) FROM bm25('muon', 10)")
    res = samples(need("ds_virtual"), 1)
    assert len(res["data"]) == expected, f"{len(res['data'])} rows, the server has {expected}"


def chart_data(time_range, min_rows):
    ds = dataset("documents")
    metric = {"expressionType": "SQL", "sqlExpression": "COUNT(*)", "label": "COUNT(*)"}
    x_axis = {
        "timeGrain": "P1D",
        "columnType": "BASE_AXIS",
        "sqlExpression": "ingested_at",
        "label": "ingested_at",
        "expressionType": "SQL",
    }
    form_data = {
        "datasource": f"{ds}__table",
        "viz_type": "echarts_timeseries_line",
        "x_axis": "ingested_at",
        "time_grain_sqla": "P1D",
        "metrics": [metric],
        "groupby": [],
        "adhoc_filters": [
            {"clause": "WHERE", "subject": "ingested_at", "operator": "TEMPORAL_RANGE", "comparator": time_range, "expressionType": "SIMPLE"}
        ],
        "row_limit": 10000,
    }
    body = call(
        "post",
        "/api/v1/chart/data",
        json={
            "datasource": {"id": ds, "type": "table"},
            "force": True,
            "queries": [
                {
                    "filters": [{"col": "ingested_at", "op": "TEMPORAL_RANGE", "val": time_range}],
                    "extras": {"having": "", "where": ""},
                    "applied_time_extras": {},
                    "columns": [x_axis],
                    "metrics": [metric],
                    "orderby": [[metric, False]],
                    "annotation_layers": [],
                    "row_limit": 10000,
                    "series_columns": [],
                    "series_limit": 0,
                    "order_desc": True,
                    "url_params": {},
                    "custom_params": {},
                    "custom_form_data": {},
                    "time_offsets": [],
                    "post_processing": [
                        {
                            "operation": "pivot",
                            "options": {
                                "index": ["ingested_at"],
                                "columns": [],
                                "aggregates": {"COUNT(*)": {"operator": "mean"}},
                                "drop_missing_columns": False,
                            },
                        },
                        {"operation": "flatten"},
                    ],
                }
            ],
            "form_data": form_data,
            "result_format": "json",
            "result_type": "full",
        },
    )
    res = body["result"][0]
    assert not res.get("error"), res.get("error")
    assert res.get("status") == "success", json.dumps(res)[:2000]
    assert res["rowcount"] >= min_rows, f"{res['rowcount']} rows; query: {res.get('query')}"
    return res


@step("6a chart_data_timeseries[2000-01-01 : 2100-01-01]")
def _():
    res = chart_data("2000-01-01 : 2100-01-01", 1)
    total = sum(r["COUNT(*)"] for r in res["data"] if r.get("COUNT(*)") is not None)
    expected = direct("SELECT count(*) FROM documents")
    assert total == expected, f"COUNT(*) sums to {total}, the server has {expected} documents: {res['data']}"


@step("6b chart_data_timeseries[Last year]")
def _():
    chart_data("Last year", 0)


@step("7 sqllab_cost_estimate")
def _():
    db = need("db")
    body = call(
        "post",
        "/api/v1/sqllab/estimate/",
        json={"database_id": db, "sql": QUERIES["bm25"], "template_params": {}, "schema": "public"},
    )
    result = body["result"]
    assert result and result[0].get("Total cost"), f"no cost parsed from EXPLAIN: {result}"


# ---------------------------------------------------------------------------------------------
failed = [r for r in RESULTS if not r[1]]
rejected = [(s, q, e) for s, q, e in SENT if e]
print(f"\n{len(SENT)} statements sent, {len(rejected)} rejected by the server")
if CAPTURE:
    seen, distinct = set(), []
    for _, sql, _ in SENT:
        if sql not in seen:
            seen.add(sql)
            distinct.append(sql)
    with open(CAPTURE, "w") as f:
        f.write("\n-- next\n".join(s.strip() for s in distinct) + "\n")
    print(f"wrote {len(distinct)} distinct statements to {CAPTURE}")
print(f"superset: {len(RESULTS) - len(failed)} passed, {len(failed)} failed")
sys.exit(1 if failed else 0)
