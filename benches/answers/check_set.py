#!/usr/bin/env python3
"""Consistency checks for a held-out answers set (standard library only).

Usage:
  python3 benches/answers/check_set.py SETDIR [options]

SETDIR holds analyses.jsonl, notes.jsonl, questions.jsonl and notes/.
Checks (all driven by the options below):
- counts: N analyses, D docs each (one of them <id>-an.md), Q questions each,
  A answerable per analysis; kind rules per analysis (--kinds);
- every doc in notes.jsonl exists, is named after its analysis, starts with a
  '# ' title and has a word count inside the given ranges;
- every key point occurs verbatim in every gold doc; gold docs belong to the
  question's analysis; unanswerable questions have no key points / gold docs;
- no question names its analysis id;
- optional (--stale-old FILE, JSON {question_id: old_value}): for each stale
  question the old value is still present in <id>-an.md, and a non-an doc is gold;
- lexical overlap: for each answerable question, the fraction of its distinct
  content words found in the best-matching block (paragraph / table / list,
  i.e. text between blank lines) of its best gold doc. The mean must stay below
  --max-mean-overlap; with --max-overlap no single question may exceed it.

Kind rules (--kinds) are comma-separated terms  KIND[+KIND...](=|>=|<=)N,
evaluated per analysis, e.g. "number>=3,name+list+reason>=1,stale=1".
"""
import argparse
import json
import os
import re
import sys
from collections import Counter, defaultdict

UNANSWERABLE_KINDS = ("absent", "other-analysis")

STOP = set("""
a an the and or of to in on at for by with from as is are was were be been being
do does did done we our us you your i it its this that these those there here
what which who whom whose how why when where whether if then than so such
can could should would will shall may might must need needs have has had
not no nor any all each per into onto over under up down out about after before
between also only just still now get got use used using one s t
""".split())


def load_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def content_words(text):
    return {w for w in re.findall(r"\w+", text.lower()) if w not in STOP}


def blocks(text):
    return [b for b in re.split(r"\n\s*\n", text) if b.strip()]


def word_count(text):
    return len([w for w in text.split() if re.search(r"\w", w)])


def parse_range(s):
    lo, hi = s.split("-")
    return int(lo), int(hi)


def parse_kinds(spec):
    rules = []
    for term in filter(None, (t.strip() for t in spec.split(","))):
        m = re.fullmatch(r"([\w+-]+?)(>=|<=|=)(\d+)", term)
        if not m:
            raise SystemExit(f"bad kind rule {term!r}")
        rules.append((m.group(1).split("+"), m.group(2), int(m.group(3)), term))
    return rules


def overlap(q, texts):
    qw = content_words(q["text"])
    best, best_doc = 0.0, None
    for d in q["gold_docs"]:
        if d not in texts:
            continue
        for b in blocks(texts[d]):
            frac = len(qw & content_words(b)) / max(1, len(qw))
            if frac > best:
                best, best_doc = frac, d
    return best, best_doc


def check(args):
    here = os.path.abspath(args.setdir)
    notes_dir = os.path.join(here, "notes")
    errors = []
    notes = load_jsonl(os.path.join(here, "notes.jsonl"))
    analyses = load_jsonl(os.path.join(here, "analyses.jsonl"))
    questions = load_jsonl(os.path.join(here, "questions.jsonl"))

    aids = [a["analysis_id"] for a in analyses]
    if len(aids) != args.analyses or len(set(aids)) != args.analyses:
        errors.append(f"expected {args.analyses} distinct analyses, got {aids}")
    for a in analyses:
        for k in ("title", "abstract", "tags"):
            if not a.get(k):
                errors.append(f"analysis {a.get('analysis_id')} lacks {k}")
        # The statuses `mitra analyses import` accepts.
        if a.get("status", "draft") not in ("draft", "in-review", "approved", "public"):
            errors.append(f"analysis {a.get('analysis_id')}: unknown status {a.get('status')!r}")
        if args.abstract_words:
            lo, hi = parse_range(args.abstract_words)
            n = word_count(a.get("abstract", ""))
            if not lo <= n <= hi:
                errors.append(f"analysis {a.get('analysis_id')}: abstract {n} words outside [{lo}, {hi}]")

    docs_by_aid = defaultdict(list)
    texts = {}
    for n in notes:
        path = os.path.join(notes_dir, n["doc"])
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
        if len(ds) != args.docs_per_analysis or f"{aid}-an.md" not in ds:
            errors.append(f"{aid}: expected <id>-an.md plus {args.docs_per_analysis - 1} other doc(s), got {ds}")
    an_lo, an_hi = parse_range(args.an_words)
    ot_lo, ot_hi = parse_range(args.other_words)
    for d, t in texts.items():
        if not t.startswith("# "):
            errors.append(f"{d}: first line is not a '# ' title")
        words = word_count(t)
        lo, hi = (an_lo, an_hi) if d.endswith("-an.md") else (ot_lo, ot_hi)
        if not lo <= words <= hi:
            errors.append(f"{d}: {words} words outside [{lo}, {hi}]")

    n_q = args.analyses * args.per_analysis
    ids = [q["_id"] for q in questions]
    if len(ids) != n_q or len(set(ids)) != n_q:
        errors.append(f"expected {n_q} distinct question ids, got {len(set(ids))} distinct of {len(ids)}")
    by_aid = defaultdict(list)
    for q in questions:
        by_aid[q["analysis_id"]].append(q)
        if q.get("split") != args.split:
            errors.append(f"{q['_id']}: split must be {args.split!r}")
        if not q["_id"].startswith(q["analysis_id"] + "-q"):
            errors.append(f"{q['_id']}: id does not match analysis")
        unans = q["kind"] in UNANSWERABLE_KINDS
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

    rules = parse_kinds(args.kinds)
    for aid in aids:
        qs = by_aid[aid]
        kinds = Counter(q["kind"] for q in qs)
        n_ans = sum(q["answerable"] for q in qs)
        if len(qs) != args.per_analysis or n_ans != args.answerable:
            errors.append(f"{aid}: {len(qs)} questions, {n_ans} answerable "
                          f"(want {args.per_analysis} / {args.answerable})")
        for names, op, n, term in rules:
            got = sum(kinds[k] for k in names)
            ok = got == n if op == "=" else got >= n if op == ">=" else got <= n
            if not ok:
                errors.append(f"{aid}: kind rule {term} violated (got {got}; {dict(kinds)})")
        if any(aid in q["text"] for q in qs):
            errors.append(f"{aid}: a question names the analysis id")

    if args.stale_old:
        with open(os.path.join(here, args.stale_old), encoding="utf-8") as f:
            stale_old = json.load(f)
        for q in questions:
            if q["kind"] != "stale":
                continue
            aid = q["analysis_id"]
            old = stale_old.get(q["_id"])
            an = f"{aid}-an.md"
            if old is None:
                errors.append(f"{q['_id']}: stale question without an old value in {args.stale_old}")
            elif an in texts and old not in texts[an]:
                errors.append(f"{q['_id']}: old value {old!r} not present in {an}")
            if not any(d != an for d in q["gold_docs"]):
                errors.append(f"{q['_id']}: stale question must have the updating doc as gold")
            for kp in q["key_points"]:
                if old is not None and kp == old:
                    errors.append(f"{q['_id']}: key point equals the old value")

    overlaps = []
    print(f"{'question':24s} overlap  best block (doc)")
    for q in questions:
        if not q["answerable"]:
            continue
        best, best_doc = overlap(q, texts)
        overlaps.append(best)
        print(f"{q['_id']:24s} {best:6.2f}   {best_doc}")
        if args.max_overlap is not None and best > args.max_overlap:
            errors.append(f"{q['_id']}: overlap {best:.2f} > {args.max_overlap}")
    mean = sum(overlaps) / len(overlaps) if overlaps else 0.0
    mx = max(overlaps) if overlaps else 0.0
    print(f"\nanswerable: {len(overlaps)}  mean overlap: {mean:.3f}  max overlap: {mx:.3f}")
    print("kinds:", dict(Counter(q["kind"] for q in questions)))
    if mean >= args.max_mean_overlap:
        errors.append(f"mean overlap {mean:.3f} >= {args.max_mean_overlap}")
    return errors


def build_parser():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("setdir")
    p.add_argument("--analyses", type=int, default=5)
    p.add_argument("--docs-per-analysis", type=int, default=2)
    p.add_argument("--per-analysis", type=int, default=10)
    p.add_argument("--answerable", type=int, default=6)
    p.add_argument("--kinds", default="number>=3,name+list+reason>=1,stale=1,"
                   "absent>=2,other-analysis>=1,absent+other-analysis=4")
    p.add_argument("--an-words", default="900-1300", help="word range of <id>-an.md")
    p.add_argument("--other-words", default="450-800", help="word range of the other docs")
    p.add_argument("--abstract-words", default=None, help="optional word range of abstracts")
    p.add_argument("--max-mean-overlap", type=float, default=0.35)
    p.add_argument("--max-overlap", type=float, default=None)
    p.add_argument("--stale-old", default=None, help="JSON file in SETDIR: {question_id: old value}")
    p.add_argument("--split", default="hold")
    return p


# The expectations of realistic3 and realistic4 (each set's check.py passes them): 5
# analyses, 2 docs each, 10 questions each (3 number, 1 name, 1 list/reason, 1 stale,
# 3 absent, 1 other-analysis), mean overlap < 0.30, none above 0.40, and the old value of
# every stale question still present in <id>-an.md.
FIVE_BY_TEN = [
    "--analyses", "5", "--docs-per-analysis", "2",
    "--per-analysis", "10", "--answerable", "6",
    "--kinds", "number=3,name=1,list+reason=1,stale=1,absent=3,other-analysis=1",
    "--an-words", "900-1200", "--other-words", "400-800",
    "--abstract-words", "80-120",
    "--max-mean-overlap", "0.30", "--max-overlap", "0.40",
    "--stale-old", "stale_old.json",
]


def main(argv=None):
    args = build_parser().parse_args(argv)
    errors = check(args)
    if errors:
        print("\nFAILED:")
        for e in errors:
            print("  -", e)
        return 1
    print("\nOK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
