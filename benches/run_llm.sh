#!/usr/bin/env bash
# Generation speed, Mitra against llama.cpp, on the same GGUF files and prompt tokens, in one run:
#   bash benches/run_llm.sh [--prompt-tokens 1500] [--gen 64] [--threads 2]
# Needs the models fetched (`mitra models fetch ...`) and a venv with xllamacpp (created under
# $HOME/.cache/mitra-bench-venv on first use; a benchmark tool only, never a Mitra dependency).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/mitra-target}"
MODELS="${MITRA_TEST_MODELS:-$HOME/.cache/mitra-models}"
N=1500; GEN=64; THREADS=2
while [ $# -gt 0 ]; do
  case "$1" in
    --prompt-tokens) N="$2"; shift 2 ;;
    --gen) GEN="$2"; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
VENV="$HOME/.cache/mitra-bench-venv"
[ -x "$VENV/bin/python" ] || { python3 -m venv "$VENV"; "$VENV/bin/pip" install -q xllamacpp; }
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem/ {print $2}') GiB"
cargo bench --profile dev --bench llm --no-run -q 2>/dev/null || cargo bench --profile dev --bench llm --no-run
for m in smollm2-135m-instruct-q4_1/SmolLM2-135M-Instruct.Q4_1.gguf qwen2.5-coder-1.5b-instruct-q4_k_m/model.gguf; do
  f="$MODELS/$m"
  ids=$(mktemp)
  echo "== $m"
  RAYON_NUM_THREADS=$THREADS cargo bench --profile dev -q --bench llm -- --model "$f" --prompt-tokens "$N" --gen "$GEN" --ids-out "$ids" 2>/dev/null
  "$VENV/bin/python" benches/llm/llamacpp.py --model "$f" --prompt-ids "$ids" --gen "$GEN" --threads "$THREADS" 2>/dev/null
  rm -f "$ids"
done
