#!/usr/bin/env bash
# Installs what building and testing Mitra needs on a fresh Debian machine (idempotent).
# - protoc (Lance's build), the Postgres clients used by the tests (psql, JDBC, psycopg).
set -euo pipefail

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

need=()
command -v protoc >/dev/null || need+=(protobuf-compiler)
if [ "${MITRA_SETUP_CLIENTS:-1}" = 1 ]; then
  command -v psql >/dev/null || need+=(postgresql-client)
  [ -f /usr/share/java/postgresql.jar ] || need+=(libpostgresql-jdbc-java)
  command -v javac >/dev/null || need+=(default-jdk-headless)
fi
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

if [ "${MITRA_SETUP_CLIENTS:-1}" = 1 ] && ! python3 -c "import psycopg" 2>/dev/null; then
  echo "setup: installing psycopg"
  python3 -m pip install -q "psycopg[binary]>=3.1"
fi
command -v cargo >/dev/null || { echo "setup: cargo (Rust toolchain) is required" >&2; exit 1; }
