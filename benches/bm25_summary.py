"""Appends a summary table to benches/BM25.md from the JSON lines that run_bm25.sh wrote into it."""
import json
import sys

path = sys.argv[1]
lines = [l for l in open(path) if l.startswith("{")]
mitra = [json.loads(l) for l in lines if '"collection"' in l]
ref = {json.loads(l)["dataset"]: json.loads(l) for l in lines if '"bm25s_qps_single_thread"' in l}
out = ["", "## Summary", "",
       "| collection | chunks | ingest docs/s | ingest chunks/s | in-process p50 / p99 ms | pgwire p50 / p99 ms | peak RSS MiB | Mitra q/s | bm25s q/s | ratio |",
       "|---|---|---|---|---|---|---|---|---|---|"]
for m in mitra:
    r = ref.get(m["collection"])
    bq = r["bm25s_qps_single_thread"] if r else None
    ratio = f"{m['inproc_qps_single_thread'] / bq:.1f}x" if bq else "-"
    out.append(
        f"| {m['collection']} | {m['chunks']} | {m['ingest_docs_per_s']:.0f} | {m['ingest_chunks_per_s']:.0f} | "
        f"{m['inproc_p50_ms']} / {m['inproc_p99_ms']} | {m['pgwire_p50_ms']} / {m['pgwire_p99_ms']} | "
        f"{m['peak_rss_mib']:.0f} | {m['inproc_qps_single_thread']:.0f} | {bq if bq else '-'} | {ratio} |")
out += ["", "Both sides take query text and return the top 10 on one thread (bm25s: tokenize + retrieve,",
        "batched; Mitra: analyze + score + ids, one query at a time). The generated corpus has no bm25s row."]
open(path, "a").write("\n".join(out) + "\n")
