#!/usr/bin/env bash
# Evidence recall of answer()'s scoped retrieval on the realistic sets (benches/answers/
# evidence_recall.py): the rank of the passage writing each answerable question's key point
# under bm25, dense and several hybrid weights; the figures behind the `[hybrid]` defaults.
#   bash benches/run_evidence_recall.sh [SET ...]     (default: realistic, realistic2 … realistic11)
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/mitra-target}"
export MITRA_EMBEDDING_MODELS_DIR="${MITRA_EMBEDDING_MODELS_DIR:-$HOME/.cache/mitra-models}"
sets=("$@")
[ ${#sets[@]} -gt 0 ] || sets=(realistic realistic2 realistic3 realistic4 realistic5 realistic6 realistic7 realistic8 realistic9 realistic10 realistic11)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; commit $(git rev-parse --short HEAD)"
for s in "${sets[@]}"; do
  OUT="$work/$s" bash benches/run_answers.sh --set "$s" --ingest-only >/dev/null 2>&1
  mkdir -p "$work/stores" && mv "$work/$s/data" "$work/stores/$s"
done
python3 benches/answers/evidence_recall.py --mitra "$CARGO_TARGET_DIR/debug/mitra" --stores "$work/stores" "${sets[@]}"
