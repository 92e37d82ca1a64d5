#!/usr/bin/env python3
"""Abstention gates read off one `mitra eval --answerer llm` trace, offline.

Run the set once with the relevance bar out of the way (`MITRA_LLM_MIN_RELEVANCE=-100`): every
question then reaches generation and the support checks, with all its passages shown in order
of relevance, and its trace keeps the relevance judge's score of each passage. A gate "abstain
unless the best passage scores at least T" changes nothing else in that pipeline, so its
outcome for any T is the traced outcome or an abstention, and this script tabulates it exactly:
answered when answerable, abstained when unanswerable, key points of the answered ones and
citation precision (the same definitions as `mitra eval`; traces of `mitra eval` from before
`gold_citations` was recorded need a rerun).

  python3 benches/answers/gate_table.py --traces T.jsonl --questions Q.jsonl
"""
import argparse
import json


def table(rows, gate):
    """Outcome of `gate(row) -> bool` (True: may answer) over the traced rows."""
    ans = [r for r in rows if r["answerable"]]
    una = [r for r in rows if not r["answerable"]]
    answered = [r for r in rows if gate(r) and not r["abstained"]]
    a_ok = [r for r in answered if r["answerable"]]
    kp = [r.get("key_point_coverage", 0.0) for r in a_ok if r["key_points"]]
    # Citation precision counts the citations of answers to questions with gold documents; the
    # trace says which of them are gold (`gold_citations`, by `mitra eval`'s rule; traces from
    # before it was recorded give "—").
    with_gold = [r for r in answered if r["gold_docs"]]
    cites = [c in r.get("gold_citations", ()) for r in with_gold for c in r["citations"]]
    precision = round(sum(cites) / len(cites), 3) if cites else 0.0
    return {
        "answered": f"{len(a_ok)}/{len(ans)}",
        "abstained": f"{len(una) - sum(1 for r in answered if not r['answerable'])}/{len(una)}",
        "key_points": round(sum(kp) / len(kp), 3) if kp else 0.0,
        "citation_precision": precision
        if all("gold_citations" in r for r in with_gold)
        else "—",
    }


def load_rows(traces, questions):
    """The traced rows, each with its question's key points, gold documents and kind, and the
    best relevance score of its passages."""
    qs = {q["_id"]: q for q in map(json.loads, open(questions, encoding="utf-8"))}
    rows = [json.loads(l) for l in open(traces, encoding="utf-8") if l.strip()]
    for r in rows:
        q = qs[r["id"]]
        r["key_points"], r["gold_docs"], r["kind"] = q["key_points"], q["gold_docs"], q["kind"]
        r["best"] = max(r["relevance"]) if r["relevance"] else float("-inf")
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--traces", required=True)
    ap.add_argument("--questions", required=True)
    a = ap.parse_args()
    rows = load_rows(a.traces, a.questions)
    print("| gate | answered (ans.) | abstained (unans.) | key points | citation precision |")
    print("|---|---|---|---|---|")

    def line(name, gate):
        t = table(rows, gate)
        print(f"| {name} | {t['answered']} | {t['abstained']} | {t['key_points']} | "
              f"{t['citation_precision']} |")

    line("none (as traced)", lambda r: True)
    for t in [-0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0]:
        line(f"best relevance ≥ {t}", lambda r, t=t: r["best"] >= t)
    print()
    print("best relevance by question (answerable first):")
    for r in sorted(rows, key=lambda r: (not r["answerable"], r["id"])):
        kp = r.get("key_point_coverage")
        print(f"  {r['id']:<22} {r['kind']:<15} best {r['best']:6.2f}"
              + f"  {'answered' if r['abstention'] == 'no' else r['abstention']}"
              + (f" kp {kp:.2f}" if kp is not None and r["answerable"] else ""))


if __name__ == "__main__":
    main()
