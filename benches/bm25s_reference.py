"""Reference BM25 run with bm25s 0.3.16 + pytrec_eval, as specified in issue #2.

Lucene BM25 (k1 1.2, b 0.75), bm25s's English stop words (Lucene's 33), Snowball English stemming
(PyStemmer), document = title + " " + text, top 100. Prints one JSON line per collection with
the metrics of `mitra eval` (pytrec_eval), and with BM25S_TIMING_REPEAT=N the single-threaded
throughput over all queries, query text in (tokenisation included), top 10 out.

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
    measures = {"ndcg_cut.5,10", "recip_rank", "P.1,3,5", "recall.1,3,5,100", "map", "success.5"}
    judged = {q: qrels[q] for q in qids}
    res = pytrec_eval.RelevanceEvaluator(judged, measures).evaluate(run)
    graded = {q: {d: (2 ** g - 1 if g > 0 else 0) for d, g in r.items()} for q, r in judged.items()}
    gres = pytrec_eval.RelevanceEvaluator(graded, {"ndcg_cut.5"}).evaluate(run)
    mean = lambda m, r=res: round(sum(v[m] for v in r.values()) / len(r), 4)
    out = {
        "dataset": os.path.basename(ds.rstrip("/")),
        "queries": len(res),
        "ndcg@10": mean("ndcg_cut_10"),
        "mrr": mean("recip_rank"),
        "metrics": {
            "nDCG@5": mean("ndcg_cut_5"), "nDCG@10": mean("ndcg_cut_10"), "gNDCG@5": mean("ndcg_cut_5", gres),
            "MRR": mean("recip_rank"), "P@1": mean("P_1"), "P@3": mean("P_3"), "P@5": mean("P_5"),
            "R@1": mean("recall_1"), "R@3": mean("recall_3"), "R@5": mean("recall_5"),
            "R@100": mean("recall_100"), "MAP": mean("map"), "Hit@5": mean("success_5"),
        },
    }
    if repeat_timing:
        # Every query of the collection, text in, top 10 out: tokenisation + stemming + retrieval.
        texts = list(queries.values())
        t = time.perf_counter()
        for _ in range(repeat_timing):
            tok = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)
            retriever.retrieve(tok, k=10, show_progress=False, n_threads=1)
        out["bm25s_qps_single_thread"] = round(repeat_timing * len(texts) / (time.perf_counter() - t), 1)
        out["timed_queries"] = len(texts)
    return out


if __name__ == "__main__":
    timing = int(os.environ.get("BM25S_TIMING_REPEAT", "0"))
    for ds in sys.argv[1:]:
        print(json.dumps(run(ds, timing)))
