#!/usr/bin/env bash
# BM25 benchmark: Mitra (dev profile, see README) against bm25s on the same machine, same run.
# Writes benches/BM25.md. Usage: bash benches/run_bm25.sh [GENERATED_CHUNKS]   (default 1000000)
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/facts.sh
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/mitra-target}"
DATASETS="$(cd .. && pwd)/shared/datasets"
GEN="${1:-1000000}"
python3 -c "import bm25s, Stemmer, pytrec_eval" 2>/dev/null || python3 -m pip install -q bm25s==0.3.16 PyStemmer pytrec-eval-terrier
cargo build --profile dev --benches --locked -q
out=benches/BM25.md
{
  echo "# BM25 benchmark"
  echo
  run_facts
  echo "- command: bash benches/run_bm25.sh $GEN"
  echo "- Mitra runs in the dev profile with the text path optimised (see README, Build profiles);"
  echo "  queries are single-threaded, k = 10, stemming + Lucene stop words on."
  echo
  echo '```'
} > "$out"
for ds in cranfield cisi; do
  cargo bench --profile dev --bench bm25 --locked -q -- --dataset "$DATASETS/$ds" --repeat 20 | tee -a "$out"
  BM25S_TIMING_REPEAT=20 python3 benches/bm25s_reference.py "$DATASETS/$ds" | tee -a "$out"
done
cargo bench --profile dev --bench bm25 --locked -q -- --generate "$GEN" --repeat 1 --pg-queries 1000 | tee -a "$out"
echo '```' >> "$out"
python3 benches/bm25_summary.py "$out"
