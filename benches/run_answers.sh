#!/usr/bin/env bash
# Answer quality on the development question set (benches/answers/gen_questions.py) over the
# generated two-tier corpus, or (`--set` any benches/answers/realistic* set) on the
# hand-written notes and questions of benches/answers/<set>: `mitra eval --answerer llm`,
# each question scoped to its analysis, with per-question traces. Writes the report lines and
# the traces under $OUT (default ./answers-run).
#   bash benches/run_answers.sh [--set generated|realistic|realistic2|…]
#       [--split tune|measure|dev|hold] [--limit N] [--ingest-only] [extra `mitra eval` flags]
# (--ingest-only: build the store under $OUT/data and stop, for benches/run_evidence_recall.sh)
# The model is llm.model (MITRA_LLM_MODEL; default qwen2.5-coder-1.5b-instruct-q4_k_m).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/mitra-target}"
export MITRA_EMBEDDING_MODELS_DIR="${MITRA_EMBEDDING_MODELS_DIR:-$HOME/.cache/mitra-models}"
OUT="${OUT:-./answers-run}"
split="" limit="" set="generated" ingest_only=""
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --set) set="$2"; shift 2 ;;
    --split) split="$2"; shift 2 ;;
    --limit) limit="$2"; shift 2 ;;
    --ingest-only) ingest_only=1; shift ;;
    *) extra+=("$1"); shift ;;
  esac
done
cargo build --locked -q -p mitra --bin mitra
M="$CARGO_TARGET_DIR/debug/mitra"
mkdir -p "$OUT"
corpus="$OUT/two_tier"
data="$OUT/data"
case "$set" in realistic*) real="benches/answers/$set" ;; esac
case "$set" in
  generated)
    if [ ! -d "$data" ]; then
      python3 benches/two_tier/gen_corpus.py --out "$corpus" >/dev/null
      MITRA_EMBEDDING_ENABLED=true "$M" --data "$data" analyses import "$corpus/analyses.jsonl"
      MITRA_EMBEDDING_ENABLED=true "$M" --data "$data" ingest --beir "$corpus" --no-progress
    fi
    python3 benches/answers/gen_questions.py --out "$OUT/questions.jsonl" >/dev/null
    q="$OUT/questions.jsonl"
    ;;
  realistic*)
    [ -f "$real/questions.jsonl" ] || {
      echo "--set $set: no $real/questions.jsonl" >&2
      exit 2
    }
    if [ ! -d "$data" ]; then
      MITRA_EMBEDDING_ENABLED=true "$M" --data "$data" analyses import "$real/analyses.jsonl"
      # Each note with its analysis: as notes.jsonl lists them, else the one its questions
      # name as gold.
      python3 - "$real" <<'PY' |
import json, os, sys
notes = {}
listed = os.path.join(sys.argv[1], "notes.jsonl")
if os.path.exists(listed):
    for line in open(listed, encoding="utf-8"):
        n = json.loads(line)
        notes[n["doc"]] = n["analysis_id"]
else:
    for line in open(os.path.join(sys.argv[1], "questions.jsonl"), encoding="utf-8"):
        q = json.loads(line)
        for d in q["gold_docs"]:
            notes[d] = q["analysis_id"]
for note, analysis in sorted(notes.items()):
    print(note, analysis)
PY
      while read -r note analysis; do
        MITRA_EMBEDDING_ENABLED=true "$M" --data "$data" ingest --analysis-id "$analysis" \
          --no-progress "$real/notes/$note"
      done
    fi
    q="$real/questions.jsonl"
    ;;
  *) echo "--set is generated or a set of benches/answers/realistic*, not $set" >&2; exit 2 ;;
esac
[ -z "$ingest_only" ] || exit 0
if [ -n "$limit" ]; then
  # The first N questions of the split (answerable and unanswerable alike, in file order).
  python3 - "$q" "$split" "$limit" > "$OUT/questions.limited.jsonl" <<'PY'
import json, sys
path, split, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = [json.loads(l) for l in open(path, encoding="utf-8")]
rows = [r for r in rows if not split or r.get("split") == split]
for r in rows[:n]:
    print(json.dumps(r, ensure_ascii=False))
PY
  q="$OUT/questions.limited.jsonl"
fi
tag="${split:-all}"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; commit $(git rev-parse --short HEAD)"
MITRA_EMBEDDING_ENABLED=true "$M" --data "$data" eval --questions "$q" --answerer llm \
  ${split:+--split "$split"} --traces "$OUT/traces.$tag.jsonl" --json "$OUT/report.$tag.json" "${extra[@]}"
