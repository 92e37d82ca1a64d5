#!/usr/bin/env bash
# Reranking benchmark (benches/RERANK.md), all in one run on this machine:
#  1. speed: 50 pairs of ~256 word pieces, cross-encoder with ms-marco-MiniLM-L-6-v2's shape
#     (random weights), Mitra (`cargo bench --bench rerank`) against sentence-transformers'
#     CrossEncoder on the same pairs and the same model directory;
#  2. encoder throughput (Cranfield) against sentence-transformers, as benches/run_dense.sh;
#  3. quality and latency of the LLM reranker over the wire: hybrid() top DEPTH against the same
#     candidates ordered by rerank(…, 'llm') on a fixed subset of Cranfield, CISI and CACM queries
#     (benches/rerank_quality.py), with the configured language model.
# Parts 1 and 2 run Mitra's default forward pass (packed, appliance/embed/src/packed.rs) and
# candle's padded BertModel (`--kernel candle`, `MITRA_EMBEDDING_KERNEL=candle`) in the same run.
# Usage: [PARTS=123] bash benches/run_rerank.sh [QUERIES (default 10)] [DEPTH (default 30)]
# (PARTS=12: the speed parts only.)
# Needs the models (`mitra models fetch all-MiniLM-L6-v2`, `mitra models fetch
# qwen2.5-coder-1.5b-instruct-q4_k_m`); makes a venv with sentence-transformers at $ST_VENV.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/mitra-target}"
export MITRA_EMBEDDING_MODELS_DIR="${MITRA_EMBEDDING_MODELS_DIR:-$HOME/.cache/mitra-models}"
DATASETS="${MITRA_TEST_DATASETS:-$(cd .. && pwd)/shared/datasets}"
QUERIES="${1:-10}" DEPTH="${2:-30}" PARTS="${PARTS:-123}"
ST_VENV="${ST_VENV:-$HOME/.cache/mitra-venvs/st}"
[ -x "$ST_VENV/bin/python" ] || { python3 -m venv "$ST_VENV"; "$ST_VENV/bin/pip" install -q sentence-transformers==6.2.0; }
"$ST_VENV/bin/python" -c "import psycopg2, bm25s, Stemmer, pytrec_eval" 2>/dev/null ||
  "$ST_VENV/bin/pip" install -q psycopg2-binary bm25s==0.3.16 PyStemmer pytrec-eval-terrier
PY="$ST_VENV/bin/python"
WORK="${WORK:-$(mktemp -d)}"
cargo build --locked -q --bin mitra
cargo bench --profile dev --locked -q --bench rerank --no-run
M="$CARGO_TARGET_DIR/debug/mitra"

echo "## machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), commit $(git rev-parse --short HEAD)"
echo "## 1. cross-encoder, 50 pairs"
[ -d "$WORK/msmarco-shape" ] || "$PY" benches/rerank_speed.py make "$WORK/msmarco-shape" "$MITRA_EMBEDDING_MODELS_DIR/all-MiniLM-L6-v2"
[ -f "$WORK/pairs.json" ] || "$PY" benches/rerank_speed.py pairs "$DATASETS/cranfield" "$WORK/pairs.json" "$WORK/msmarco-shape" 2>/dev/null
for kernel in auto candle; do
  cargo bench --profile dev --locked -q --bench rerank -- --model "$WORK/msmarco-shape" --pairs "$WORK/pairs.json" --kernel "$kernel"
done
"$PY" benches/rerank_speed.py time "$WORK/msmarco-shape" "$WORK/pairs.json" 2>/dev/null

echo "## 2. encoder throughput (Cranfield, title + text, batch 32)"
for kernel in auto candle; do
  echo "# kernel $kernel"
  MITRA_EMBEDDING_KERNEL=$kernel cargo bench --profile dev --locked -q --bench dense -- --throughput "$DATASETS/cranfield"
done
"$PY" benches/dense_reference.py "$DATASETS/cranfield" --throughput-only \
  --model "$MITRA_EMBEDDING_MODELS_DIR/all-MiniLM-L6-v2" 2>/dev/null | tail -1

[[ "$PARTS" == *3* ]] || { echo "work directory: $WORK"; exit 0; }
echo "## 3. LLM reranker: hybrid top $DEPTH, first $QUERIES judged queries"
port=55440
for ds in cranfield cisi cacm; do
  data="$WORK/$ds"
  [ -d "$data" ] || MITRA_EMBEDDING_ENABLED=true "$M" --data "$data" ingest --beir "$DATASETS/$ds" --no-progress >/dev/null
  "$M" --data "$data" serve --listen "127.0.0.1:$port" > "$WORK/$ds.serve.log" 2>&1 &
  pid=$!
  for _ in $(seq 60); do "$PY" -c "import psycopg2;psycopg2.connect(host='127.0.0.1',port=$port,dbname='mitra',user='x')" 2>/dev/null && break; sleep 1; done
  "$PY" benches/rerank_quality.py --port "$port" --dataset "$DATASETS/$ds" --queries "$QUERIES" \
    --depth "$DEPTH" --reranker llm --json "$WORK/$ds.rerank.json"
  kill "$pid"; wait "$pid" 2>/dev/null || true
done
echo "work directory: $WORK"
