#!/usr/bin/env python3
"""Consistency checks for the realistic2 held-out set (standard library only).

- counts: 5 analyses, 2 docs each, 10 questions each (6 answerable / 4 not),
  kinds per analysis as specified in the brief;
- every doc in notes.jsonl exists; every key point occurs verbatim in every gold doc;
- lexical overlap: for each answerable question, the fraction of its distinct
  content words found in the best-matching block (paragraph / table / list,
  i.e. text between blank lines) of its best gold doc. Mean must stay < 0.35.
"""
import json
import os
import re
import sys
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
NOTES = os.path.join(HERE, "notes")
MAX_MEAN_OVERLAP = 0.35

STOP = set("""
a an the and or of to in on at for by with from as is are was were be been being
do does did done we our us you your i it its this that these those there here
what which who whom whose how why when where whether if then than so such
can could should would will shall may might must need needs have has had
not no nor any all each per into onto over under up down out about after before
between also only just still now get got use used using one s t
""".split())


def load_jsonl(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def content_words(text):
    return {w for w in re.findall(r"\w+", text.lower()) if w not in STOP}


def blocks(text):
    return [b for b in re.split(r"\n\s*\n", text) if b.strip()]


def main():
    errors = []
    notes = load_jsonl("notes.jsonl")
    analyses = load_jsonl("analyses.jsonl")
    questions = load_jsonl("questions.jsonl")

    aids = [a["analysis_id"] for a in analyses]
    if len(aids) != 5 or len(set(aids)) != 5:
        errors.append(f"expected 5 distinct analyses, got {aids}")
    for a in analyses:
        for k in ("title", "abstract", "tags"):
            if not a.get(k):
                errors.append(f"analysis {a.get('analysis_id')} lacks {k}")

    docs_by_aid = defaultdict(list)
    texts = {}
    for n in notes:
        path = os.path.join(NOTES, n["doc"])
        if not os.path.isfile(path):
            errors.append(f"missing doc {n['doc']}")
            continue
        if n["analysis_id"] not in aids:
            errors.append(f"doc {n['doc']} has unknown analysis {n['analysis_id']}")
        if not n["doc"].startswith(n["analysis_id"] + "-"):
            errors.append(f"doc name {n['doc']} does not start with its analysis id")
        docs_by_aid[n["analysis_id"]].append(n["doc"])
        with open(path, encoding="utf-8") as f:
            texts[n["doc"]] = f.read()
    for aid in aids:
        ds = docs_by_aid[aid]
        if len(ds) != 2 or f"{aid}-an.md" not in ds:
            errors.append(f"{aid}: expected <id>-an.md plus one other doc, got {ds}")
    for d, t in texts.items():
        if not t.startswith("# "):
            errors.append(f"{d}: first line is not a '# ' title")
        words = len([w for w in t.split() if re.search(r"\w", w)])
        lo, hi = (900, 1300) if d.endswith("-an.md") else (450, 800)
        if not lo <= words <= hi:
            errors.append(f"{d}: {words} words outside [{lo}, {hi}]")

    ids = [q["_id"] for q in questions]
    if len(ids) != 50 or len(set(ids)) != 50:
        errors.append(f"expected 50 distinct question ids, got {len(set(ids))}")
    by_aid = defaultdict(list)
    for q in questions:
        by_aid[q["analysis_id"]].append(q)
        if q.get("split") != "hold":
            errors.append(f"{q['_id']}: split must be 'hold'")
        if not q["_id"].startswith(q["analysis_id"] + "-q"):
            errors.append(f"{q['_id']}: id does not match analysis")
        unans = q["kind"] in ("absent", "other-analysis")
        if q["answerable"] == unans:
            errors.append(f"{q['_id']}: answerable flag inconsistent with kind {q['kind']}")
        if unans:
            if q["key_points"] or q["gold_docs"]:
                errors.append(f"{q['_id']}: unanswerable question with key points / gold docs")
            continue
        if not 1 <= len(q["key_points"]) <= 3:
            errors.append(f"{q['_id']}: needs 1-3 key points")
        if not q["gold_docs"]:
            errors.append(f"{q['_id']}: no gold docs")
        for d in q["gold_docs"]:
            if d not in docs_by_aid[q["analysis_id"]]:
                errors.append(f"{q['_id']}: gold doc {d} not a doc of its analysis")
                continue
            for kp in q["key_points"]:
                if kp not in texts[d]:
                    errors.append(f"{q['_id']}: key point {kp!r} not verbatim in {d}")

    for aid in aids:
        qs = by_aid[aid]
        kinds = Counter(q["kind"] for q in qs)
        n_ans = sum(q["answerable"] for q in qs)
        if len(qs) != 10 or n_ans != 6:
            errors.append(f"{aid}: {len(qs)} questions, {n_ans} answerable (want 10 / 6)")
        if kinds["number"] < 3:
            errors.append(f"{aid}: fewer than 3 number questions")
        if kinds["name"] + kinds["list"] + kinds["reason"] < 1:
            errors.append(f"{aid}: no name/list/reason question")
        if kinds["stale"] != 1:
            errors.append(f"{aid}: want exactly 1 stale (updated-value) question")
        if kinds["absent"] < 2 or kinds["other-analysis"] < 1 or kinds["absent"] + kinds["other-analysis"] != 4:
            errors.append(f"{aid}: unanswerable mix wrong {dict(kinds)}")
        if any(aid in q["text"] for q in qs):
            errors.append(f"{aid}: a question names the analysis id")

    # lexical overlap
    overlaps = []
    print(f"{'question':24s} overlap  best block (doc)")
    for q in questions:
        if not q["answerable"]:
            continue
        qw = content_words(q["text"])
        best, best_doc = 0.0, None
        for d in q["gold_docs"]:
            if d not in texts:
                continue
            for b in blocks(texts[d]):
                frac = len(qw & content_words(b)) / max(1, len(qw))
                if frac > best:
                    best, best_doc = frac, d
        overlaps.append(best)
        print(f"{q['_id']:24s} {best:6.2f}   {best_doc}")
    mean = sum(overlaps) / len(overlaps)
    mx = max(overlaps)
    print(f"\nanswerable: {len(overlaps)}  mean overlap: {mean:.3f}  max overlap: {mx:.3f}")
    print("kinds:", dict(Counter(q["kind"] for q in questions)))
    if mean >= MAX_MEAN_OVERLAP:
        errors.append(f"mean overlap {mean:.3f} >= {MAX_MEAN_OVERLAP}")

    if errors:
        print("\nFAILED:")
        for e in errors:
            print("  -", e)
        sys.exit(1)
    print("\nOK")


if __name__ == "__main__":
    main()
