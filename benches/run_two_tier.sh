#!/usr/bin/env bash
# Two-tier benchmark (benches/TWO_TIER.md): context confusion and tier-1 routing on the generated
# two-tier corpus (tests/data/two_tier, MiniLM vectors), BM25 scope vs global statistics, then
# scoped vs unscoped latency at 100 analyses x 1,000 chunks and at 1 analysis of 100k among 1M.
#   bash benches/run_two_tier.sh [--quick]     (--quick: skip the 1M store)
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/mitra-target}"
export MITRA_EMBEDDING_MODELS_DIR="${MITRA_EMBEDDING_MODELS_DIR:-$HOME/.cache/mitra-models}"
cargo build --locked -q -p mitra --bin mitra
M="$CARGO_TARGET_DIR/debug/mitra"
work="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; commit $(git rev-parse --short HEAD)"
MITRA_EMBEDDING_ENABLED=true "$M" --data "$work/data" analyses import tests/data/two_tier/analyses.jsonl
MITRA_EMBEDDING_ENABLED=true "$M" --data "$work/data" ingest --beir tests/data/two_tier --no-progress
for stats in scope global; do
  port=$((5600 + RANDOM % 300))
  MITRA_BM25_SCOPE_STATISTICS=$stats "$M" --data "$work/data" serve --listen "127.0.0.1:$port" >"$work/serve.log" 2>&1 &
  pid=$!
  for _ in $(seq 50); do sleep 0.2; grep -q "serving" "$work/serve.log" && break; done
  echo "## bm25.scope_statistics = $stats"
  python3 benches/two_tier/bench.py --dsn "host=127.0.0.1 port=$port dbname=mitra user=bench" --json "$work/two_tier_$stats.json"
  kill "$pid"; wait "$pid" 2>/dev/null || true
done
cargo bench --locked --profile dev --bench two_tier -- --analyses 100 --per 1000
if [ "${1:-}" != "--quick" ]; then
  cargo bench --locked --profile dev --bench two_tier -- --analyses 10 --per 100000 --total 1000000
fi
