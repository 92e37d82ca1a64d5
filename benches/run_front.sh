#!/usr/bin/env bash
# SQL-front benchmark: the long wire fuzz run (panics, RSS over the run) and pgwire overhead per
# query (BM25 on Cranfield in-process vs over pgwire, same run). Writes benches/FRONT.md.
# Usage: bash benches/run_front.sh [FUZZ_SESSIONS]   (default 150000, about 1,000,000 messages)
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/facts.sh
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/mitra-target}"
export MITRA_TEST_DATASETS="${MITRA_TEST_DATASETS:-$(cd .. && pwd)/shared/datasets}"
SESSIONS="${1:-150000}"
out=benches/FRONT.md
{
  echo "# SQL front benchmark"
  echo
  run_facts
  echo "- command: bash benches/run_front.sh $SESSIONS (dev profile)"
  echo
  echo "## Wire fuzz (seeded mutations of startup, simple and extended message streams)"
  echo
  echo '```'
} > "$out"
MITRA_FUZZ_SESSIONS="$SESSIONS" cargo test --locked --test integration -- --nocapture \
  wire_fuzz::mutated_wire_sessions 2>&1 | grep -E "wire fuzz:|test result" | tee -a "$out"
{
  echo '```'
  echo
  echo "## pgwire overhead (bm25, k = 10, one client, extended protocol, prepared statement)"
  echo
  echo '```'
} >> "$out"
cargo bench --profile dev --bench bm25 --locked -q -- --dataset "$MITRA_TEST_DATASETS/cranfield" --repeat 20 \
  | tee -a "$out"
echo '```' >> "$out"
