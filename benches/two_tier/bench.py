#!/usr/bin/env python3
"""Two-tier retrieval benchmark against a running Mitra server (psycopg 3).

Tier 1 routes a question to an analysis:
    SELECT analysis_id, title, status, score, rank FROM abstracts(q, k [, w_dense, w_sparse])
Tier 2 retrieves chunks, unscoped or scoped to one analysis for the session:
    SET mitra.analysis = 'ID' / RESET mitra.analysis
    SELECT chunk_id, doc_id, score, rank FROM bm25(q, k) | dense(q, k) | hybrid(q, k)

For the corpus written by benches/two_tier/gen_corpus.py --out DIR it reports, per
retrieval function: document-level P@5 and nDCG@10 unscoped vs scoped to the question's
analysis, the share of unscoped top-5 documents from a wrong analysis, the latency (median
and p95) of abstracts() and of every function unscoped and scoped; and tier-1 routing top-1
and top-3 accuracy for a sweep of fusion weights (w_dense, w_sparse).

Chunk results are deduplicated by doc_id in rank order (the first, best-ranked chunk of a
document gives its rank), which is why --fetch chunks (default 50) are asked for to get --k
documents. nDCG@k is trec_eval's ndcg_cut_k: gain = relevance grade, discount log2(rank + 1),
ideal ranking from the qrels. P@5 is trec_eval's P_5: relevant documents in the top 5 over 5.
A failing query is printed to stderr and left out of the means (the error count is reported).
"""
import argparse
import json
import math
import os
import statistics
import sys
import time
from collections import defaultdict

try:
    import psycopg
    from psycopg import sql
except ImportError:  # pragma: no cover - the message is the point
    psycopg = None
    sql = None

WEIGHTS = [(1.0, 0.0), (0.0, 1.0), (1.0, 1.0), (1.0, 0.5), (0.5, 1.0), (0.25, 1.0), (2.0, 1.0), (1.0, 2.0)]


# ---------------------------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------------------------

def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def read_qrels(path):
    """BEIR qrels TSV (header query-id, corpus-id, score) -> {qid: {doc_id: rel}}."""
    qrels = defaultdict(dict)
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f):
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 3:
                continue
            if i == 0 and not parts[2].lstrip("-").isdigit():
                continue  # header
            qrels[parts[0]][parts[1]] = int(parts[2])
    return qrels


# ---------------------------------------------------------------------------------------------
# Metrics (trec_eval semantics)
# ---------------------------------------------------------------------------------------------

def dedupe_docs(rows):
    """Chunk rows (chunk_id, doc_id, score, rank) -> doc ids in rank order, first occurrence wins."""
    seen, docs = set(), []
    for r in sorted(rows, key=lambda r: r[3]):
        if r[1] not in seen:
            seen.add(r[1])
            docs.append(r[1])
    return docs


def precision_at(docs, rel, n):
    """trec_eval P_n: relevant (rel > 0) documents among the first n, divided by n."""
    return sum(1 for d in docs[:n] if rel.get(d, 0) > 0) / n


def ndcg_at(docs, rel, n):
    """trec_eval ndcg_cut_n: DCG = sum over ranks i = 1..n of gain / log2(i + 1), gain = rel
    (grades <= 0 count 0), normalised by the DCG of the ideal ranking of the judged documents."""
    dcg = 0.0
    for i, d in enumerate(docs[:n], start=1):
        g = rel.get(d, 0)
        if g > 0:
            dcg += g / math.log2(i + 1)
    ideal = sorted((g for g in rel.values() if g > 0), reverse=True)[:n]
    idcg = sum(g / math.log2(i + 1) for i, g in enumerate(ideal, start=1))
    return dcg / idcg if idcg > 0 else 0.0


def pct(values, p):
    """Nearest-rank percentile."""
    if not values:
        return None
    s = sorted(values)
    return s[max(0, math.ceil(p / 100 * len(s)) - 1)]


def mean(values):
    return sum(values) / len(values) if values else None


def med(values):
    return statistics.median(values) if values else None


# ---------------------------------------------------------------------------------------------
# Server access
# ---------------------------------------------------------------------------------------------

class Client:
    def __init__(self, dsn):
        self.dsn = dsn
        self.conn = None
        self.errors = defaultdict(int)
        self.connect()

    def connect(self):
        if self.conn is not None:
            try:
                self.conn.close()
            except Exception:
                pass
        self.conn = psycopg.connect(self.dsn, autocommit=True)

    def run(self, what, qid, query, params=None):
        """Runs a query; returns (rows, milliseconds) or (None, None) after printing the error."""
        try:
            with self.conn.cursor() as cur:
                t0 = time.perf_counter()
                cur.execute(query, params)
                rows = cur.fetchall() if cur.description is not None else []
                ms = (time.perf_counter() - t0) * 1000.0
            return rows, ms
        except psycopg.Error as e:
            self.errors[what] += 1
            state = getattr(e, "sqlstate", None) or "-----"
            msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            print(f"{qid} {what}: [{state}] {msg}", file=sys.stderr)
            if self.conn.closed or self.conn.broken:
                try:
                    self.connect()
                except psycopg.Error as e2:
                    print(f"{qid} reconnect failed: {e2}", file=sys.stderr)
                    raise SystemExit(2)
            else:
                try:
                    self.conn.rollback()  # harmless in autocommit; clears a failed transaction otherwise
                except psycopg.Error:
                    pass
            return None, None

    def scope(self, qid, analysis_id):
        q = sql.SQL("SET mitra.analysis = {}").format(sql.Literal(analysis_id))
        rows, _ = self.run("set-scope", qid, q)
        return rows is not None

    def unscope(self, qid):
        rows, _ = self.run("reset-scope", qid, "RESET mitra.analysis")
        return rows is not None


# ---------------------------------------------------------------------------------------------
# Benchmark
# ---------------------------------------------------------------------------------------------

def fmt(v, digits=3):
    if v is None:
        return "n/a"
    return f"{v:.{digits}f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dsn", default="host=127.0.0.1 port=5433 dbname=mitra user=bench")
    ap.add_argument("--data", required=True, help="the corpus directory (gen_corpus.py --out)")
    ap.add_argument("--k", type=int, default=10, help="documents per question for nDCG@k (default 10)")
    ap.add_argument("--fetch", type=int, default=50, help="chunks asked of each function (default 50)")
    ap.add_argument("--functions", default="bm25,dense,hybrid")
    ap.add_argument("--routed", action="store_true",
                    help="also run each function scoped to the tier-1 top-1 analysis (default weights)")
    ap.add_argument("--limit", type=int, default=0, help="only the first N questions")
    ap.add_argument("--json", metavar="FILE", help="write the results (and per-question details) as JSON")
    args = ap.parse_args()

    if psycopg is None:
        print("bench.py needs psycopg 3 (pip install 'psycopg[binary]')", file=sys.stderr)
        return 2

    functions = [f.strip() for f in args.functions.split(",") if f.strip()]
    for f in functions:
        if not f.isidentifier():
            print(f"bad function name {f!r}", file=sys.stderr)
            return 2
    analyses = read_jsonl(os.path.join(args.data, "analyses.jsonl"))
    queries = read_jsonl(os.path.join(args.data, "queries.jsonl"))
    qrels = read_qrels(os.path.join(args.data, "qrels", "test.tsv"))
    doc_analysis = {}
    corpus_path = os.path.join(args.data, "corpus.jsonl")
    if os.path.exists(corpus_path):
        for d in read_jsonl(corpus_path):
            doc_analysis[d["_id"]] = d.get("analysis_id")
    if args.limit:
        queries = queries[: args.limit]
    n_an = len(analyses)

    def analysis_of(doc_id):
        if doc_id in doc_analysis:
            return doc_analysis[doc_id]
        head, _, tail = str(doc_id).rpartition("-")  # "<analysis>-<nn>"
        return head if tail.isdigit() else None

    client = Client(args.dsn)

    # Accumulators.
    lat = defaultdict(list)                      # key -> [ms]
    metric = defaultdict(list)                   # (fn, scope, "p5"|"ndcg") -> [value]
    wrong = defaultdict(lambda: [0, 0])          # (fn, scope) -> [wrong docs, docs] over top 5
    leaks = defaultdict(int)                     # fn -> scoped results from another analysis
    routing = defaultdict(lambda: [0, 0, 0])     # weights label -> [top1, top3, n]
    per_query = []
    seen_analyses = set()                        # every analysis_id abstracts() returned

    weight_runs = [("default", None)] + [(f"{wd:g},{ws:g}", (wd, ws)) for wd, ws in WEIGHTS]

    def retrieve(fn, scope_label, q, target):
        rows, ms = client.run(f"{fn}-{scope_label}", q["_id"],
                              f"SELECT chunk_id, doc_id, score, rank FROM {fn}(%s, %s)",
                              (q["text"], args.fetch))
        if rows is None:
            return None
        lat[(fn, scope_label)].append(ms)
        docs = dedupe_docs(rows)[: args.k]
        rel = qrels.get(q["_id"], {})
        p5 = precision_at(docs, rel, 5)
        nd = ndcg_at(docs, rel, args.k)
        metric[(fn, scope_label, "p5")].append(p5)
        metric[(fn, scope_label, "ndcg")].append(nd)
        top5 = docs[:5]
        w = sum(1 for d in top5 if analysis_of(d) != q["analysis_id"])
        wrong[(fn, scope_label)][0] += w
        wrong[(fn, scope_label)][1] += len(top5)
        if target is not None:
            leaks[(fn, scope_label)] += sum(1 for d in docs if analysis_of(d) not in (target, None))
        return {"docs": docs, "p5": p5, "ndcg": nd, "ms": ms}

    t_start = time.time()
    for qi, q in enumerate(queries, 1):
        qid, target = q["_id"], q["analysis_id"]
        detail = {"id": qid, "analysis_id": target, "routing": {}, "unscoped": {}, "scoped": {}}
        if qid not in qrels:
            print(f"{qid}: no qrels, skipped", file=sys.stderr)
            continue

        # Tier 1: routing over the abstracts, default fusion and the weight sweep.
        top1_default = None
        for label, w in weight_runs:
            if w is None:
                rows, ms = client.run("abstracts", qid,
                                      "SELECT analysis_id, title, status, score, rank FROM abstracts(%s, %s)",
                                      (q["text"], n_an))
            else:
                rows, ms = client.run(f"abstracts[{label}]", qid,
                                      "SELECT analysis_id, title, status, score, rank "
                                      "FROM abstracts(%s, %s, %s, %s)",
                                      (q["text"], n_an, float(w[0]), float(w[1])))
            if rows is None:
                continue
            lat[("abstracts", label)].append(ms)
            order = [r[0] for r in sorted(rows, key=lambda r: r[4])]
            seen_analyses.update(order)
            acc = routing[label]
            acc[0] += bool(order) and order[0] == target
            acc[1] += target in order[:3]
            acc[2] += 1
            detail["routing"][label] = order[:3]
            if w is None and order:
                top1_default = order[0]

        # Tier 2 unscoped.
        client.unscope(qid)
        for fn in functions:
            r = retrieve(fn, "unscoped", q, None)
            if r:
                detail["unscoped"][fn] = r

        # Tier 2 scoped to the intended analysis.
        if client.scope(qid, target):
            for fn in functions:
                r = retrieve(fn, "scoped", q, target)
                if r:
                    detail["scoped"][fn] = r
            client.unscope(qid)

        # Tier 2 scoped to the routed analysis (the real two-tier pipeline).
        if args.routed and top1_default is not None:
            detail["routed"] = {"analysis_id": top1_default}
            if client.scope(qid, top1_default):
                for fn in functions:
                    r = retrieve(fn, "routed", q, top1_default)
                    if r:
                        detail["routed"][fn] = r
                client.unscope(qid)

        per_query.append(detail)
        if qi % 20 == 0:
            print(f"... {qi}/{len(queries)} questions", file=sys.stderr)
    elapsed = time.time() - t_start

    # ------------------------------------------------------------------ report
    scopes = ["unscoped", "scoped"] + (["routed"] if args.routed else [])
    k = args.k
    results = {"dsn": args.dsn, "data": args.data, "questions": len(queries), "k": k, "fetch": args.fetch,
               "elapsed_s": round(elapsed, 2), "functions": {}, "routing": [], "latency_ms": {},
               "errors": dict(client.errors)}

    print(f"\n## Two-tier retrieval: {len(queries)} questions, {n_an} analyses, "
          f"{args.fetch} chunks -> {k} documents\n")
    head = ["function"]
    for s in scopes:
        head += [f"P@5 {s}"]
    for s in scopes:
        head += [f"nDCG@{k} {s}"]
    head += ["wrong-analysis top-5 (unscoped)", "scope leaks", "n"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for fn in functions:
        row = [fn]
        entry = {}
        for s in scopes:
            v = mean(metric[(fn, s, "p5")])
            row.append(fmt(v))
            entry.setdefault(s, {})["P@5"] = v
        for s in scopes:
            v = mean(metric[(fn, s, "ndcg")])
            row.append(fmt(v))
            entry[s][f"nDCG@{k}"] = v
            entry[s]["n"] = len(metric[(fn, s, "ndcg")])
        wu = wrong[(fn, "unscoped")]
        frac = wu[0] / wu[1] if wu[1] else None
        entry["wrong_analysis_top5_unscoped"] = frac
        for s in scopes[1:]:
            ws = wrong[(fn, s)]
            entry[s]["wrong_analysis_top5"] = ws[0] / ws[1] if ws[1] else None
            entry[s]["scope_leaks"] = leaks[(fn, s)]
        row.append(fmt(frac, 2))
        row.append(str(leaks[(fn, "scoped")]))
        row.append("/".join(str(len(metric[(fn, s, "ndcg")])) for s in scopes))
        print("| " + " | ".join(row) + " |")
        results["functions"][fn] = entry

    print("\n## Tier-1 routing over the abstracts\n")
    print("| w_dense | w_sparse | top-1 | top-3 | n |")
    print("|---|---|---|---|---|")
    for label, w in weight_runs:
        t1, t3, n = routing[label]
        wd, ws = ("default", "default") if w is None else (f"{w[0]:g}", f"{w[1]:g}")
        print(f"| {wd} | {ws} | {fmt(t1 / n if n else None, 2)} | {fmt(t3 / n if n else None, 2)} | {n} |")
        results["routing"].append({"w_dense": None if w is None else w[0], "w_sparse": None if w is None else w[1],
                                   "top1": t1 / n if n else None, "top3": t3 / n if n else None, "n": n})

    print("\n## Latency over the question set (ms)\n")
    print("| call | median | p95 | n |")
    print("|---|---|---|---|")
    lat_rows = [("abstracts()", ("abstracts", "default"))]
    for label, w in weight_runs[1:]:
        lat_rows.append((f"abstracts({label})", ("abstracts", label)))
    for fn in functions:
        for s in scopes:
            lat_rows.append((f"{fn}() {s}", (fn, s)))
    for name, key in lat_rows:
        v = lat[key]
        print(f"| {name} | {fmt(med(v), 1)} | {fmt(pct(v, 95), 1)} | {len(v)} |")
        results["latency_ms"][name] = {"median": med(v), "p95": pct(v, 95), "n": len(v)}

    unseen = sorted({a["analysis_id"] for a in analyses} - seen_analyses)
    if unseen and routing["default"][2]:
        # Draft and in-review analyses are visible only to members of their groups.
        print("\nWarning: abstracts() never returned " + ", ".join(unseen)
              + " (not imported, or not readable by this user: draft/in-review need group membership)")
        results["unseen_analyses"] = unseen
    if client.errors:
        print("\nErrors: " + ", ".join(f"{k}: {v}" for k, v in sorted(client.errors.items())))
    print(f"\n{elapsed:.1f} s in all.")

    if args.json:
        results["per_query"] = per_query
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1, ensure_ascii=False)
        print(f"wrote {args.json}")
    try:
        client.conn.close()
    except Exception:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
