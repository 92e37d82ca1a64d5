#!/usr/bin/env bash
# Drives Apache Superset (PyPI apache-superset 6.1.0) headless against a Postgres-wire server on
# 127.0.0.1:<port> (dbname=mitra user=physicist) through the REST endpoints its web UI calls.
#   benches/superset/run.sh 55433 [--capture FILE]
# The venv lives in ~/.cache/mitra-venvs/superset (created on first use, ~1.5 min); SUPERSET_HOME
# is a fresh temp dir per run (SQLite metadata), removed afterwards.
set -euo pipefail
port=${1:?usage: run.sh PORT [--capture FILE]}
shift
here=$(cd "$(dirname "$0")" && pwd)
venv=${SUPERSET_VENV:-$HOME/.cache/mitra-venvs/superset}
if [ ! -x "$venv/bin/superset" ]; then
    python3 -m venv "$venv"
    start=$(date +%s)
    "$venv/bin/pip" install -q apache-superset psycopg2-binary rich cachetools "flask-caching==2.3.0"
    echo "superset venv installed in $(( $(date +%s) - start ))s" >&2
fi
export SUPERSET_HOME=$(mktemp -d /tmp/superset-home.XXXXXX)
trap 'rm -rf "$SUPERSET_HOME"' EXIT
export SUPERSET_CONFIG_PATH=$SUPERSET_HOME/superset_config.py
cat > "$SUPERSET_CONFIG_PATH" <<PY
SECRET_KEY = "mitra-superset-check-not-secret-0123456789"
SQLALCHEMY_DATABASE_URI = "sqlite:///$SUPERSET_HOME/superset.db"
WTF_CSRF_ENABLED = False
TALISMAN_ENABLED = False
RATELIMIT_ENABLED = False
FEATURE_FLAGS = {"ESTIMATE_QUERY_COST": True}
CACHE_CONFIG = {"CACHE_TYPE": "NullCache"}
DATA_CACHE_CONFIG = {"CACHE_TYPE": "NullCache"}
SQLLAB_CTAS_NO_LIMIT = True
PY
export FLASK_APP=superset
{
    "$venv/bin/superset" db upgrade
    "$venv/bin/superset" fab create-admin --username admin --firstname Ad --lastname Min \
        --email admin@example.invalid --password admin
    "$venv/bin/superset" init
} > "$SUPERSET_HOME/setup.log" 2>&1 || { cat "$SUPERSET_HOME/setup.log" >&2; exit 2; }
"$venv/bin/python" "$here/superset_check.py" "$port" "$@"
