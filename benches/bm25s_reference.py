"""Reference BM25 run with bm25s 0.3.16 + pytrec_eval, as specified in issue #2.

Lucene BM25 (k1 1.2, b 0.75), bm25s's English stop words (Lucene's 33), Snowball English stemming
(PyStemmer), document = title + " " + text, top 100. Prints nDCG@10 and MRR per collection, and
optionally the query throughput (single thread) for the benchmark.

    python3 benches/bm25s_reference.py ../shared/datasets/cranfield ../shared/datasets/cisi
"""
import json
import os
import sys
import time

import bm25s
import pytrec_eval
import Stemmer


def load(ds):
    corpus = [json.loads(l) for l in open(os.path.join(ds, "corpus.jsonl"))]
    queries = {}
    for l in open(os.path.join(ds, "queries.jsonl")):
        q = json.loads(l)
        queries[str(q["_id"])] = q["text"]
    qrels = {}
    with open(os.path.join(ds, "qrels", "test.tsv")) as f:
        for i, line in enumerate(f):
            parts = line.rstrip("\n").split("\t")
            if i == 0 and not parts[2].lstrip("-").isdigit():
                continue
            qrels.setdefault(parts[0], {})[parts[1]] = int(parts[2])
    return corpus, queries, qrels


def run(ds, repeat_timing=0):
    corpus, queries, qrels = load(ds)
    stemmer = Stemmer.Stemmer("english")
    ids = [str(d["_id"]) for d in corpus]
    texts = [(d.get("title") or "") + " " + d["text"] for d in corpus]
    tokens = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)
    retriever = bm25s.BM25(method="lucene", k1=1.2, b=0.75)
    retriever.index(tokens, show_progress=False)
    qids = [q for q in queries if q in qrels]
    qtok = bm25s.tokenize([queries[q] for q in qids], stopwords="en", stemmer=stemmer, show_progress=False)
    docs, scores = retriever.retrieve(qtok, k=100, show_progress=False, n_threads=1)
    run = {}
    for i, q in enumerate(qids):
        run[q] = {ids[d]: float(s) for d, s in zip(docs[i], scores[i])}
    ev = pytrec_eval.RelevanceEvaluator({q: qrels[q] for q in qids}, {"ndcg_cut_10", "recip_rank"})
    res = ev.evaluate(run)
    ndcg = sum(r["ndcg_cut_10"] for r in res.values()) / len(res)
    mrr = sum(r["recip_rank"] for r in res.values()) / len(res)
    out = {"dataset": os.path.basename(ds.rstrip("/")), "ndcg@10": round(ndcg, 4), "mrr": round(mrr, 4), "queries": len(res)}
    if repeat_timing:
        t = time.perf_counter()
        n = 0
        for _ in range(repeat_timing):
            retriever.retrieve(qtok, k=10, show_progress=False, n_threads=1)
            n += len(qids)
        out["bm25s_qps_single_thread"] = round(n / (time.perf_counter() - t), 1)
    return out


if __name__ == "__main__":
    timing = int(os.environ.get("BM25S_TIMING_REPEAT", "0"))
    for ds in sys.argv[1:]:
        print(json.dumps(run(ds, timing)))
