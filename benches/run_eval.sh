#!/usr/bin/env bash
# Retrieval quality on cranfield, cisi and cacm: `mitra eval` for every available retriever, with
# the reference tools (bm25s + pytrec_eval) in the same table, same machine, same run.
# Writes benches/RESULTS.md. Usage: bash benches/run_eval.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/mitra-target}"
DATASETS="${MITRA_TEST_DATASETS:-$(cd .. && pwd)/shared/datasets}"
python3 -c "import bm25s, Stemmer, pytrec_eval" 2>/dev/null || python3 -m pip install -q bm25s==0.3.16 PyStemmer pytrec-eval-terrier
cargo build --locked -q --bin mitra
MITRA="$CARGO_TARGET_DIR/debug/mitra"
tmp=$(mktemp -d)
# The reference configuration: Lucene BM25 k1 1.2 b 0.75, stemming, Lucene stop words, whole documents.
export MITRA_BM25_STEMMING=true MITRA_BM25_STOPWORDS=true MITRA_CHUNKING_MAX_CHARS=8000 MITRA_CHUNKING_OVERLAP_CHARS=800
for ds in cranfield cisi cacm; do
  "$MITRA" eval --dataset "$DATASETS/$ds" --retriever bm25 --json "$tmp/$ds.mitra.json" > "$tmp/$ds.mitra.txt"
  python3 benches/bm25s_reference.py "$DATASETS/$ds" > "$tmp/$ds.bm25s.json"
done
python3 - "$tmp" > benches/RESULTS.md <<'PY'
import json, os, platform, subprocess, sys
tmp = sys.argv[1]
cols = ["nDCG@5", "nDCG@10", "gNDCG@5", "MRR", "P@1", "P@3", "P@5", "R@1", "R@3", "R@5", "R@100", "MAP", "Hit@5"]
key = {"nDCG@5": "ndcg_5", "nDCG@10": "ndcg_10", "gNDCG@5": "graded_ndcg_5", "MRR": "mrr", "P@1": "p_1",
       "P@3": "p_3", "P@5": "p_5", "R@1": "r_1", "R@3": "r_3", "R@5": "r_5", "R@100": "r_100", "MAP": "map", "Hit@5": "hit_5"}
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.machine())
commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
print("# Retrieval quality\n")
print(f"- machine: {os.cpu_count()} cores, {cpu}")
print(f"- commit: {commit}")
print("- command: `bash benches/run_eval.sh`")
print("- configuration: Lucene BM25 k1 1.2, b 0.75, Snowball stemming, Lucene stop words, document = title + text,")
print("  top 100 documents (max over chunks); metrics as trec_eval (see appliance/eval/src/metrics.rs).")
print("- reference rows: bm25s 0.3.16 with PyStemmer, evaluated by pytrec_eval, in the same run.\n")
print("| collection | system | queries | " + " | ".join(cols) + " | p50 ms | p99 ms |")
print("|" + "---|" * (len(cols) + 5))
for ds in ["cranfield", "cisi", "cacm"]:
    m = json.load(open(f"{tmp}/{ds}.mitra.json"))
    for row in m["rows"]:
        vals = " | ".join(f"{row['mean'][key[c]]:.4f}" for c in cols)
        p50, p99 = row["latency_ms"]
        print(f"| {ds} | mitra {row['retriever']} | {row['queries']} | {vals} | {p50:.3f} | {p99:.3f} |")
    r = json.loads(open(f"{tmp}/{ds}.bm25s.json").read().strip().splitlines()[-1])
    vals = " | ".join(f"{r['metrics'][c]:.4f}" for c in cols)
    print(f"| {ds} | bm25s (reference) | {r['queries']} | {vals} | | |")
print("\nDense and hybrid rows will appear here when those retrievers exist; `mitra eval --retriever`")
print("lists what is available.")
PY
rm -rf "$tmp"
cat benches/RESULTS.md
