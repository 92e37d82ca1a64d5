#!/usr/bin/env python3
"""Deterministic question set for ask(): multi-part questions whose facts sit in two different
documents of one analysis, beside the single-fact questions of the answers set.

Writes --out FILE (JSONL), one question per line:
  {"_id", "text", "analysis_id", "answerable": true, "kind": "multi" | <single kind>,
   "parts": [ids of the single-fact questions combined], "gold_groups": [[doc ids], ...],
   "gold_docs": [...], "key_points": [...], "split": "tune" | "measure", "overlap": 0.xx}

Built on benches/answers/gen_questions.py (imported, so it replays the same corpus and the same
paraphrased questions): per analysis and phrasing family, pairs of its single-fact questions
whose gold documents are disjoint (no document states both facts) are joined into one question
the way a physicist asks two things at once ("Two things: ... And ..."). Family A pairs form
the tune split, family B pairs the measure split, as in the answers set, so measured phrasings
were never seen while tuning. gold_groups holds one list of gold documents per part: a pool
"holds both" when it has a chunk of a document of every group. The single-fact questions are
the answers set's answerable ones, with one group each.

overlap is gen_questions' content-word overlap of the question against the best document of
each group, averaged over the groups (the combined question's words spread over two notes).

Standard library only; byte-identical output from run to run. --check prints counts.
"""
import argparse
import json
import os
import re
import statistics
import sys
from itertools import combinations

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "answers"))
import gen_questions as gq  # noqa: E402

JOINS = [
    "Two things: {a} And {b}",
    "{a} Also, {b}",
    "Quick double question. {a} Plus, {b}",
]
PAIRS_PER_FAMILY = 3


def strip_hint(text):
    return re.sub(r" \([^)]*\)$", "", text)


def lower_first(text):
    return text[0].lower() + text[1:] if text[:1].isupper() and not text[:2].isupper() else text


def build():
    corpus, questions = gq.build()
    for q in questions:
        q["split"] = "tune" if q["fam"] == "A" else "measure"
    by_an = {}
    for q in questions:
        by_an.setdefault(q["analysis_id"], []).append(q)
    docs_of = {d["_id"]: d for d in corpus}
    out, n_join = [], 0
    for aid in sorted(by_an):
        answerable = sorted((q for q in by_an[aid] if q["answerable"]), key=lambda q: q["_id"])
        for fam in "AB":
            fam_qs = [q for q in answerable if q["fam"] == fam]
            pairs = [(a, b) for a, b in combinations(fam_qs, 2)
                     if not {d["_id"] for d in a["gold"]} & {d["_id"] for d in b["gold"]}]
            used, chosen = {}, []
            # Greedy: pairs whose parts were used least, in a fixed order.
            while pairs and len(chosen) < PAIRS_PER_FAMILY:
                pairs.sort(key=lambda p: (used.get(p[0]["_id"], 0) + used.get(p[1]["_id"], 0),
                                          p[0]["_id"], p[1]["_id"]))
                a, b = pairs.pop(0)
                chosen.append((a, b))
                for q in (a, b):
                    used[q["_id"]] = used.get(q["_id"], 0) + 1
            for a, b in chosen:
                text = JOINS[n_join % len(JOINS)].format(a=strip_hint(a["text"]),
                                                         b=lower_first(strip_hint(b["text"])))
                n_join += 1
                groups = [sorted(d["_id"] for d in a["gold"]), sorted(d["_id"] for d in b["gold"])]
                ov = statistics.mean(max(gq.overlap(text, docs_of[i]["text"]) for i in g) for g in groups)
                out.append({"_id": f"{aid}-m{len([o for o in out if o['analysis_id'] == aid]) + 1:02d}",
                            "text": text, "analysis_id": aid, "answerable": True, "kind": "multi",
                            "parts": [a["_id"], b["_id"]], "gold_groups": groups,
                            "gold_docs": sorted(set(groups[0]) | set(groups[1])),
                            "key_points": a["key_points"] + b["key_points"],
                            "split": "tune" if fam == "A" else "measure", "overlap": round(ov, 2)})
    for q in questions:
        if q["answerable"]:
            g = sorted(d["_id"] for d in q["gold"])
            out.append({"_id": q["_id"], "text": q["text"], "analysis_id": q["analysis_id"],
                        "answerable": True, "kind": q["kind"], "parts": [q["_id"]],
                        "gold_groups": [g], "gold_docs": g, "key_points": q["key_points"],
                        "split": q["split"], "overlap": q["overlap"]})
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    rows = build()
    with open(args.out, "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    multi = [r for r in rows if r["kind"] == "multi"]
    print(f"wrote {len(rows)} questions ({len(multi)} multi-part, {len(rows) - len(multi)} single-fact) to {args.out}")
    if args.check:
        for split in ("tune", "measure"):
            m = [r for r in multi if r["split"] == split]
            s = [r for r in rows if r["kind"] != "multi" and r["split"] == split]
            print(f"{split:8} multi {len(m):3} (overlap mean {statistics.mean(r['overlap'] for r in m):.3f})"
                  f"  single {len(s):3} (overlap mean {statistics.mean(r['overlap'] for r in s):.3f})")
        for r in multi[:4]:
            print(" ", r["_id"], r["text"], r["gold_groups"])


if __name__ == "__main__":
    main()
