#!/usr/bin/env bash
# Installs what building and testing Mitra needs on a fresh Debian machine (idempotent).
# - protoc (Lance's build), the Postgres clients used by the tests (psql, JDBC, psycopg 3,
#   psycopg2, asyncpg, SQLAlchemy with pandas) and the SQL tools (pgcli, Harlequin, SQLAlchemy
#   1.4, in venvs),
# - the wasm32-wasip2 target (the built-in plugins are compiled for it when mitra builds),
# - Tesseract (OCR of image-only PDF pages) and poppler-utils (pdftoppm for the OCR test,
#   pdftotext for the PDF benchmark).
set -euo pipefail

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

need=()
command -v protoc >/dev/null || need+=(protobuf-compiler)
if [ "${MITRA_SETUP_OCR:-1}" = 1 ]; then
  command -v tesseract >/dev/null || need+=(tesseract-ocr tesseract-ocr-eng)
  command -v pdftoppm >/dev/null || need+=(poppler-utils)
fi
if [ "${MITRA_SETUP_CLIENTS:-1}" = 1 ]; then
  command -v psql >/dev/null || need+=(postgresql-client)
  # Test certificates for TLS.
  command -v openssl >/dev/null || need+=(openssl)
  [ -f /usr/share/java/postgresql.jar ] || need+=(libpostgresql-jdbc-java)
  command -v javac >/dev/null || need+=(default-jdk-headless)
fi
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

# The Python driver matrix: psycopg 3, psycopg2, asyncpg, SQLAlchemy 2 with pandas (and pexpect
# for psql tab completion).
if [ "${MITRA_SETUP_CLIENTS:-1}" = 1 ] \
  && ! python3 -c "import psycopg, psycopg2, asyncpg, sqlalchemy, pandas, pexpect" 2>/dev/null; then
  echo "setup: installing psycopg, psycopg2, asyncpg, sqlalchemy, pandas, pexpect"
  python3 -m pip install -q "psycopg[binary]>=3.1" psycopg2-binary asyncpg "sqlalchemy>=2" pandas pexpect
fi
# The SQL tools people open, each in its own venv (they pin what the drivers above do not):
# pgcli 4.7, Harlequin 2.17 with its Postgres adapter, SQLAlchemy 1.4 (what Superset pins).
if [ "${MITRA_SETUP_CLIENTS:-1}" = 1 ]; then
  venvs="${MITRA_VENVS:-$HOME/.cache/mitra-venvs}"
  tool_venv() {
    local name=$1 probe=$2
    shift 2
    if ! "$venvs/$name/bin/python" -c "$probe" 2>/dev/null; then
      echo "setup: installing $* into $venvs/$name"
      python3 -m venv "$venvs/$name"
      "$venvs/$name/bin/pip" install -q "$@"
    fi
  }
  tool_venv pgcli "import pgcli, pgspecial" "pgcli==4.7.*"
  tool_venv harlequin "import harlequin_postgres" "harlequin[postgres]==2.17.*"
  tool_venv sqla14 "import sqlalchemy, psycopg2, pandas; assert sqlalchemy.__version__.startswith('1.4')" \
    "sqlalchemy>=1.4,<2" psycopg2-binary "pandas<2.2" "numpy<2"
fi
command -v cargo >/dev/null || { echo "setup: cargo (Rust toolchain) is required" >&2; exit 1; }
if command -v rustup >/dev/null && ! rustup target list --installed | grep -qx wasm32-wasip2; then
  echo "setup: adding the wasm32-wasip2 target"
  rustup target add wasm32-wasip2
fi
