#!/usr/bin/env bash
# ask() against answer()'s single retrieval (benches/ask/bench.py) on the ask question set
# (benches/ask/gen_multipart.py: multi-part questions over two documents of one analysis, and
# the answers set's single-fact questions) over the generated two-tier corpus, with the
# default language model (MITRA_LLM_MODEL; qwen2.5-coder-1.5b-instruct-q4_k_m).
#   bash benches/run_ask.sh [--answers N] [--limit N] [--skip-pools] [--answer-split tune|measure]
# Reuses $OUT/data when present (default OUT ./ask-run; the store of benches/run_answers.sh
# serves as well: OUT=./answers-run).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/mitra-target}"
export MITRA_EMBEDDING_MODELS_DIR="${MITRA_EMBEDDING_MODELS_DIR:-$HOME/.cache/mitra-models}"
OUT="${OUT:-./ask-run}"
PORT="${PORT:-55440}"
cargo build --locked -q -p mitra --bin mitra
M="$CARGO_TARGET_DIR/debug/mitra"
mkdir -p "$OUT"
data="$OUT/data"
if [ ! -d "$data" ]; then
  python3 benches/two_tier/gen_corpus.py --out "$OUT/two_tier" >/dev/null
  MITRA_EMBEDDING_ENABLED=true "$M" --data "$data" analyses import "$OUT/two_tier/analyses.jsonl"
  MITRA_EMBEDDING_ENABLED=true "$M" --data "$data" ingest --beir "$OUT/two_tier" --no-progress
fi
python3 benches/ask/gen_multipart.py --out "$OUT/ask_questions.jsonl" --check
# The answers set: its unanswerable questions join the answers part (--answers N).
# (the file benches/run_answers.sh writes, so a shared OUT holds one copy).
python3 benches/answers/gen_questions.py --out "$OUT/questions.jsonl" >/dev/null
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; commit $(git rev-parse --short HEAD)"
MITRA_EMBEDDING_ENABLED=true MITRA_LLM_RECORD_ANSWERS=false "$M" --data "$data" serve --listen "127.0.0.1:$PORT" >"$OUT/serve.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 100); do sleep 0.2; grep -q "serving" "$OUT/serve.log" && break; done
python3 benches/ask/bench.py --dsn "host=127.0.0.1 port=$PORT dbname=mitra user=mitra" \
  --questions "$OUT/ask_questions.jsonl" --json "$OUT/ask_report.json" --traces "$OUT/ask_traces.jsonl" \
  --unanswerable "$OUT/questions.jsonl" "$@"
