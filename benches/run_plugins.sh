#!/usr/bin/env bash
# Plugin benchmark: call overhead, PDF pages/s against pdftotext (poppler-utils) on the same
# files in the same run, end-to-end plugin ingest docs/s. Writes benches/PLUGINS.md.
# Usage: bash benches/run_plugins.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/facts.sh
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/mitra-target}"
export MITRA_EMBEDDING_MODELS_DIR="${MITRA_EMBEDDING_MODELS_DIR:-$HOME/.cache/mitra-models}"
bash scripts/setup.sh
cargo build --profile dev --benches --bins --locked -q
cargo run --locked -q --bin mitra -- models fetch --dir "$MITRA_EMBEDDING_MODELS_DIR"
out=benches/PLUGINS.md
{
  echo "# Plugin benchmark"
  echo
  run_facts
  echo "- command: bash benches/run_plugins.sh"
  echo "- mitra in the dev profile (README, Build profiles); plugins are release wasm32-wasip2 components"
  echo "  compiled by wasmtime/cranelift at first use; $(pdftotext -v 2>&1 | head -1)"
  echo
  echo '```'
} > "$out"
cargo bench --profile dev --bench plugins --locked -q -- --calls 500 --pdfs 200 --docs 600 --vector-docs 60 | tee -a "$out"
echo '```' >> "$out"
