"""Per-query metrics of a TREC run with pytrec_eval, in Mitra's metric names (for parity tests).

    python3 benches/pytrec_parity.py RUN QRELS OUT.json

Graded nDCG@5 (gain 2^rel - 1) is pytrec_eval's ndcg_cut_5 on qrels with grades mapped to 2^rel - 1.
Means are over the judged queries present in the run (what `mitra eval` evaluates).
"""
import json
import sys

import pytrec_eval

MEASURES = {"ndcg_cut.5,10", "recip_rank", "P.1,3,5", "recall.1,3,5,100", "map", "success.5"}
NAMES = {
    "ndcg_5": "ndcg_cut_5", "ndcg_10": "ndcg_cut_10", "mrr": "recip_rank", "p_1": "P_1", "p_3": "P_3",
    "p_5": "P_5", "r_1": "recall_1", "r_3": "recall_3", "r_5": "recall_5", "r_100": "recall_100",
    "map": "map", "hit_5": "success_5",
}


def read_qrels(path):
    qrels = {}
    with open(path) as f:
        for i, line in enumerate(f):
            p = line.rstrip("\n").split("\t")
            if len(p) < 3 or (i == 0 and not p[2].lstrip("-").isdigit()):
                continue
            qrels.setdefault(p[0], {})[p[1]] = int(p[2])
    return qrels


def read_run(path):
    run = {}
    with open(path) as f:
        for line in f:
            qid, _, doc, _, score, _ = line.split()
            run.setdefault(qid, {})[doc] = float(score)
    return run


def main(run_path, qrels_path, out_path):
    qrels, run = read_qrels(qrels_path), read_run(run_path)
    qrels = {q: r for q, r in qrels.items() if q in run}
    res = pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(run)
    graded = {q: {d: (2 ** g - 1 if g > 0 else 0) for d, g in r.items()} for q, r in qrels.items()}
    gres = pytrec_eval.RelevanceEvaluator(graded, {"ndcg_cut.5"}).evaluate(run)
    out = {}
    for q, m in res.items():
        row = {ours: m[theirs] for ours, theirs in NAMES.items()}
        row["graded_ndcg_5"] = gres[q]["ndcg_cut_5"]
        out[q] = row
    with open(out_path, "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)


if __name__ == "__main__":
    main(*sys.argv[1:4])
