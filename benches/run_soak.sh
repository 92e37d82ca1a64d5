#!/usr/bin/env bash
# The soak of the operations issue: 64 clients for SECONDS (default 600) against `mitra serve`
# over 300 Cranfield documents with all-MiniLM-L6-v2 vectors, a mix of bm25, hybrid, joins,
# SELECT * pages and answer() on SmolLM2-135M, while `mitra ingest` adds 400 documents and
# `mitra maintain` runs once; then SIGKILL of the server 60 s before the end and a restart.
# Usage: bash benches/run_soak.sh [SECONDS]   (OUT=/tmp/soak; MITRA=path of the binary)
# Figures: $OUT/soak.json (throughput, p50/p99 per type, errors, RSS every 5 s, restart time).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-600}
m=${MITRA:-$HOME/.cache/mitra-target/debug/mitra}
w=${OUT:-/tmp/soak}
port=${PORT:-55600}
ds=../shared/datasets/cranfield
rm -rf "$w"
mkdir -p "$w/base" "$w/more"
head -n 300 "$ds/corpus.jsonl" > "$w/base/corpus.jsonl"
sed -n 301,700p "$ds/corpus.jsonl" > "$w/more/corpus.jsonl"
export MITRA_DATA="$w/data" MITRA_LISTEN="127.0.0.1:$port"
export MITRA_EMBEDDING_MODELS_DIR="${MITRA_TEST_MODELS:-$HOME/.cache/mitra-models}"
export MITRA_LLM_MODEL=smollm2-135m-instruct-q4_1 MITRA_LLM_MAX_NEW_TOKENS=48
"$m" ingest --no-progress --beir "$w/base"
"$m" serve > "$w/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 120); do
  psql "host=127.0.0.1 port=$port dbname=mitra user=soak" -XAtc "SELECT 1" >/dev/null 2>&1 && break
  sleep 0.5
done
(
  sleep 60
  /usr/bin/time -f "ingest %e s" "$m" ingest --no-progress --beir "$w/more" > "$w/ingest.log" 2>&1
  sleep 20
  /usr/bin/time -f "maintain %e s" "$m" maintain --retention-hours 0 > "$w/maintain.log" 2>&1
) &
python3 benches/soak.py --port "$port" --pid "$pid" --seconds "$secs" --kill-at $((secs - 60)) \
  --serve-cmd "$m serve" --json "$w/soak.json"
wait
cat "$w/ingest.log" "$w/maintain.log"
"$m" status | grep -E "^table|^storage"
