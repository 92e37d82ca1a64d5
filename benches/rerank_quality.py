"""Second-stage quality over the wire: hybrid() top N against the same candidates reordered by
rerank(), on a BEIR collection served by `mitra serve`, one fixed subset of queries.

    python3 benches/rerank_quality.py --port 55440 --dataset DIR [--queries 10] [--depth 30]
        [--reranker llm] [--json OUT]

Candidates are chunks (`hybrid(q, depth)`); documents are ranked by their best chunk (the
first occurrence in the ordered list), as `mitra eval` pools them. The subset: the first
`--queries` query ids (numeric order) that have judgments. Metrics: nDCG@10 with the qrels'
graded gains (trec_eval's formula, log2 discount, ideal over all judged documents) and MRR (first
document with a positive judgment), over the same queries for every row. A third row fuses the
two orders by equal-weight reciprocal rank fusion (K = 60); the JSON keeps every candidate's
score for other combinations.
"""
import argparse
import json
import math
import time

import psycopg2


def read_qrels(path):
    q = {}
    with open(path) as f:
        next(f)
        for line in f:
            qid, did, s = line.rstrip("\n").split("\t")
            q.setdefault(qid, {})[did] = int(s)
    return q


def read_queries(path):
    out = {}
    with open(path) as f:
        for line in f:
            o = json.loads(line)
            out[o["_id"]] = o["text"]
    return out


def docs_in_order(pairs):
    seen, out = set(), []
    for d in pairs:
        if d not in seen:
            seen.add(d)
            out.append(d)
    return out


def ndcg10(ranked, rels):
    dcg = sum(rels.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:10]) if rels.get(d, 0) > 0)
    ideal = sorted((r for r in rels.values() if r > 0), reverse=True)[:10]
    idcg = sum(r / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def mrr(ranked, rels):
    for i, d in enumerate(ranked):
        if rels.get(d, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--queries", type=int, default=10)
    ap.add_argument("--depth", type=int, default=30)
    ap.add_argument("--reranker", default="llm")
    ap.add_argument("--json")
    a = ap.parse_args()
    qrels = read_qrels(f"{a.dataset}/qrels/test.tsv")
    queries = read_queries(f"{a.dataset}/queries.jsonl")
    ids = sorted((q for q in qrels if q in queries), key=lambda x: (len(x), x))[: a.queries]
    conn = psycopg2.connect(host="127.0.0.1", port=a.port, dbname="mitra", user="physicist")
    conn.autocommit = True
    cur = conn.cursor()
    fused_name = f"rrf(hybrid, rerank:{a.reranker})"
    rows = {"hybrid": [], f"hybrid+rerank:{a.reranker}": [], fused_name: []}
    candidates = {}
    ms = []
    for qid in ids:
        q = queries[qid]
        cur.execute("SELECT c.doc_id FROM hybrid(%s, %s) h JOIN chunks c USING (chunk_id) "
                    "ORDER BY h.rank", (q, a.depth))
        base = docs_in_order([r[0] for r in cur.fetchall()])
        t = time.perf_counter()
        cur.execute("SELECT c.doc_id, rerank(%s, c.text, %s) AS s, h.rank FROM hybrid(%s, %s) h "
                    "JOIN chunks c USING (chunk_id) ORDER BY s DESC, h.rank", (q, a.reranker, q, a.depth))
        got = cur.fetchall()
        ms.append((time.perf_counter() - t) * 1000)
        candidates[qid] = [{"doc": d, "score": s, "hybrid_rank": r} for d, s, r in got]
        rr = docs_in_order([r[0] for r in got])
        # Equal-weight reciprocal rank fusion (K = 60) of the hybrid order and the reranker's.
        fused = {}
        for ranking in (base, rr):
            for i, d in enumerate(ranking):
                fused[d] = fused.get(d, 0.0) + 1.0 / (60 + i + 1)
        fz = sorted(fused, key=lambda d: -fused[d])
        for name, ranked in (("hybrid", base), (f"hybrid+rerank:{a.reranker}", rr), (fused_name, fz)):
            rows[name].append({"qid": qid, "ndcg10": ndcg10(ranked, qrels[qid]), "mrr": mrr(ranked, qrels[qid])})
    out = {"dataset": a.dataset.rstrip("/").split("/")[-1], "queries": ids, "depth": a.depth,
           "reranker": a.reranker, "ms_per_query": sorted(ms)[len(ms) // 2] if ms else None,
           "candidates_per_query": a.depth,
           "rows": {k: {"ndcg10": sum(r["ndcg10"] for r in v) / len(v), "mrr": sum(r["mrr"] for r in v) / len(v),
                        "per_query": v} for k, v in rows.items()},
           "candidates": candidates}
    for k, v in out["rows"].items():
        print(f"{out['dataset']:10} {k:24} n={len(ids)} nDCG@10 {v['ndcg10']:.4f} MRR {v['mrr']:.4f}")
    print(f"{out['dataset']:10} rerank p50 {out['ms_per_query']:.0f} ms per query ({a.depth} candidates)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
