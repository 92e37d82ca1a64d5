#!/usr/bin/env bash
# Dense benchmark: Mitra (dev profile, see README) against sentence-transformers on the same
# machine in the same run. Writes benches/DENSE.md.
# Usage: bash benches/run_dense.sh [SIZES]   (default "10000 100000 1000000" generated chunks)
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/facts.sh
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/mitra-target}"
export MITRA_EMBEDDING_MODELS_DIR="${MITRA_EMBEDDING_MODELS_DIR:-$HOME/.cache/mitra-models}"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
DATASETS="$(cd .. && pwd)/shared/datasets"
SIZES="${1:-10000 100000 1000000}"
python3 -c "import sentence_transformers, bm25s, Stemmer, pytrec_eval" 2>/dev/null ||
  python3 -m pip install -q sentence-transformers==6.2.0 bm25s==0.3.16 PyStemmer pytrec-eval-terrier
cargo build --profile dev --benches --bins --locked -q
cargo run --locked -q --bin mitra -- models fetch --dir "$MITRA_EMBEDDING_MODELS_DIR"
MODEL="$MITRA_EMBEDDING_MODELS_DIR/all-MiniLM-L6-v2"
out=benches/DENSE.md
{
  echo "# Dense retrieval benchmark"
  echo
  run_facts
  echo "- command: bash benches/run_dense.sh $SIZES"
  echo "- Mitra runs in the dev profile with candle/gemm/tokenizers/lance-index optimised (README, Build profiles)."
  echo
  echo "## Encoder throughput (Cranfield, title + text, batch 32, all cores)"
  echo '```'
} > "$out"
cargo bench --profile dev --bench dense --locked -q -- --throughput "$DATASETS/cranfield" | tee -a "$out"
python3 benches/dense_reference.py "$DATASETS/cranfield" --throughput-only --model "$MODEL" | tail -1 | tee -a "$out"
{ echo '```'; echo; echo "## Quality (mitra eval, whole documents, stemming + stop words)"; echo '```'; } >> "$out"
for ds in cranfield cisi; do
  MITRA_BM25_STEMMING=true MITRA_BM25_STOPWORDS=true MITRA_CHUNKING_MAX_CHARS=8000 MITRA_CHUNKING_OVERLAP_CHARS=800 \
    cargo run --locked -q --bin mitra -- eval --dataset "$DATASETS/$ds" --retriever dense,hybrid,hybrid:0.5/0.5,bm25 | tee -a "$out"
done
python3 benches/dense_reference.py "$DATASETS/cranfield" "$DATASETS/cisi" --model "$MODEL" | tee -a "$out"
{ echo '```'; echo; echo "## Latency, ANN build and recall (generated vectors, MiniLM-encoded questions)"; echo '```'; } >> "$out"
for n in $SIZES; do
  cargo bench --profile dev --bench dense --locked -q -- --generate "$n" | tee -a "$out"
done
echo '```' >> "$out"
