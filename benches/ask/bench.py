#!/usr/bin/env python3
"""ask() against answer()'s single retrieval on the ask question set (gen_multipart.py), over
the wire from a running Mitra server (psycopg 3), each question scoped to its analysis.

Pools (no generation but the plan):
    ask():    SELECT pool, found_by, sub_queries, class, plan_notes, ms_plan, ms_retrieval
              FROM ask_plan(q, 10, analysis)
    answer(): SELECT chunk_id FROM hybrid(q, 10, analysis) ORDER BY rank  (what answer() reads)
For each, gold-document recall at 5 and 10: "all" = the pool's first N chunks hold a document
of every gold group (both facts of a multi-part question), "per group" = the mean share of
groups held. Reported per kind (multi / single) and split.

Answers (--answers N: the first N multi-part and N single-fact questions of --answer-split,
and with --unanswerable FILE the first N unanswerable questions of that split from the answers
set FILE, gen_questions.py's output): ask(q, 5, analysis) and answer(q, 5, analysis) with the
server's model; key-point coverage (gen_questions.covers, the matching of `mitra eval`),
answered share (for the unanswerable ones, the abstained share is 1 − that), and the time of each step
(ms_plan, ms_retrieval, ms_rerank, ms_prefill, ms_decode from the row, wall clock).
--skip-pools leaves out the pools part.

Writes a JSON report (--json) and one JSONL trace per question (--traces).
"""
import argparse
import json
import os
import statistics
import sys
import time

import psycopg

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "answers"))
import gen_questions as gq  # noqa: E402


def lit(text):
    return "'" + text.replace("'", "''") + "'"


def held(pool, doc_of, groups, n):
    docs = {doc_of.get(c) for c in pool[:n]}
    hits = [bool(docs & set(g)) for g in groups]
    return all(hits), sum(hits) / len(hits)


def coverage(answer, kps):
    if not kps:
        return None
    return sum(gq.covers(answer, kp) for kp in kps) / len(kps)


def kind_of(q):
    """multi, unanswerable, or single (the answers set's kinds of answerable question)."""
    return q["kind"] if q["kind"] in ("multi", "unanswerable") else "single"


def mean(xs):
    xs = [x for x in xs if x is not None]
    return round(statistics.mean(xs), 3) if xs else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--questions", required=True)
    ap.add_argument("--answers", type=int, default=0)
    ap.add_argument("--answer-split", default="measure")
    ap.add_argument("--limit", type=int, default=0, help="pool questions (0 = all)")
    ap.add_argument("--skip-pools", action="store_true")
    ap.add_argument("--unanswerable", help="the answers set (gen_questions.py output)")
    ap.add_argument("--json")
    ap.add_argument("--traces")
    a = ap.parse_args()
    qs = [json.loads(l) for l in open(a.questions, encoding="utf-8")]
    if a.limit:
        qs = qs[: a.limit]
    conn = psycopg.connect(a.dsn, autocommit=True)
    doc_of = dict(conn.execute("SELECT chunk_id, doc_id FROM chunks").fetchall())
    traces = open(a.traces, "w", encoding="utf-8") if a.traces else None
    rows = []
    for i, q in enumerate([] if a.skip_pools else qs, 1):
        aid = q["analysis_id"]
        t = time.perf_counter()
        pool, found_by, subs, cls, notes, ms_plan, ms_ret = conn.execute(
            "SELECT pool, found_by, sub_queries, class, plan_notes, ms_plan, ms_retrieval "
            "FROM ask_plan(%s, 10, %s)", (q["text"], aid)).fetchone()
        wall = time.perf_counter() - t
        # The scope inline: hybrid()'s third parameter is typed as its weight (float8).
        single = [r[0] for r in conn.execute(
            f"SELECT chunk_id FROM hybrid(%s, 10, {lit(aid)}) ORDER BY rank", (q["text"],)).fetchall()]
        r = {"_id": q["_id"], "kind": kind_of(q),
             "split": q["split"], "class": cls, "sub_queries": subs, "plan_notes": notes,
             "ms_plan": ms_plan, "ms_retrieval": ms_ret, "wall_s": round(wall, 2)}
        for name, p in (("ask", pool), ("answer", single)):
            for n in (5, 10):
                both, part = held(p, doc_of, q["gold_groups"], n)
                r[f"{name}_all@{n}"], r[f"{name}_group@{n}"] = both, part
        r["pool"], r["found_by"], r["single"] = pool, found_by, single
        rows.append(r)
        if traces:
            traces.write(json.dumps(r, ensure_ascii=False) + "\n")
            traces.flush()
        print(f"[{i}/{len(qs)}] {q['_id']} {cls} subs={len(subs)} ask@10={r['ask_all@10']} "
              f"answer@10={r['answer_all@10']} plan {ms_plan / 1000:.1f}s", file=sys.stderr)
    report = {"pools": {}}
    for kind in ("multi", "single"):
        for split in ("tune", "measure", "all"):
            sel = [r for r in rows if r["kind"] == kind and (split == "all" or r["split"] == split)]
            if not sel:
                continue
            e = {"n": len(sel)}
            for name in ("ask", "answer"):
                for n in (5, 10):
                    e[f"{name} all@{n}"] = mean([float(r[f"{name}_all@{n}"]) for r in sel])
                    e[f"{name} group@{n}"] = mean([r[f"{name}_group@{n}"] for r in sel])
            e["expanded share"] = mean([float(len(r["sub_queries"]) > 1) for r in sel])
            e["sub-queries mean"] = mean([len(r["sub_queries"]) for r in sel])
            e["ms_plan median"] = round(statistics.median(r["ms_plan"] for r in sel))
            e["ms_retrieval median"] = round(statistics.median(r["ms_retrieval"] for r in sel), 1)
            report["pools"][f"{kind}/{split}"] = e
    if a.answers:
        picked = ([q for q in qs if q["kind"] == "multi" and q["split"] == a.answer_split][: a.answers]
                  + [q for q in qs if q["kind"] != "multi" and q["split"] == a.answer_split][: a.answers])
        if a.unanswerable:
            un = [json.loads(l) for l in open(a.unanswerable, encoding="utf-8")]
            picked += [dict(q, kind="unanswerable", key_points=[], gold_groups=[]) for q in un
                       if not q["answerable"] and q["split"] == a.answer_split][: a.answers]
        arows = []
        for i, q in enumerate(picked, 1):
            aid = q["analysis_id"]
            out = {"_id": q["_id"], "kind": kind_of(q)}
            for name, sql in (
                ("ask", "SELECT answer, abstained, citations, ms_plan, ms_retrieval, ms_rerank, "
                        "ms_prefill, ms_decode, sub_queries FROM ask(%s, 5, %s)"),
                ("answer", "SELECT answer, abstained, citations, 0::real, 0::real, 0::real, "
                           "ms_prefill, ms_decode, ARRAY[]::text[] FROM answer(%s, 5, %s)")):
                t = time.perf_counter()
                ans, abst, cites, mp, mr, mk, mpre, mdec, subs = conn.execute(sql, (q["text"], aid)).fetchone()
                wall = time.perf_counter() - t
                cited_docs = {doc_of.get(c) for c in cites}
                out[name] = {"answer": ans, "abstained": abst, "citations": cites,
                             # An abstention covers none of an answerable question's key points.
                             "coverage": 0.0 if abst and q["key_points"] else coverage(ans, q["key_points"]),
                             "cited_groups": (sum(bool(cited_docs & set(g)) for g in q["gold_groups"])
                                              / len(q["gold_groups"])) if q["gold_groups"] else None,
                             "ms_plan": mp, "ms_retrieval": mr, "ms_rerank": mk, "ms_prefill": mpre,
                             "ms_decode": mdec, "wall_s": round(wall, 2), "sub_queries": subs}
            arows.append(out)
            if traces:
                traces.write(json.dumps(out, ensure_ascii=False) + "\n")
                traces.flush()
            print(f"[answers {i}/{len(picked)}] {q['_id']} ask cov={out['ask']['coverage']} "
                  f"answer cov={out['answer']['coverage']}", file=sys.stderr)
        report["answers"] = {}
        for kind in ("multi", "single", "unanswerable"):
            sel = [r for r in arows if r["kind"] == kind]
            if not sel:
                continue
            e = {"n": len(sel), "split": a.answer_split}
            for name in ("ask", "answer"):
                e[f"{name} key points"] = mean([r[name]["coverage"] for r in sel])
                e[f"{name} answered"] = mean([float(not r[name]["abstained"]) for r in sel])
                e[f"{name} cited groups"] = mean([r[name]["cited_groups"] for r in sel])
                for k in ("ms_plan", "ms_retrieval", "ms_rerank", "ms_prefill", "ms_decode"):
                    e[f"{name} {k} median"] = round(statistics.median(r[name][k] for r in sel))
                e[f"{name} wall s median"] = round(statistics.median(r[name]["wall_s"] for r in sel), 1)
            report["answers"][kind] = e
    print(json.dumps(report, indent=1))
    if a.json:
        json.dump(report, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
