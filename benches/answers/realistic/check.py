"""Checks benches/answers/realistic: counts per analysis and split, every key point verbatim in
its gold note, and the word overlap of each answerable question with its best-matching block
of the note (content words, stop words left out).

    python3 benches/answers/realistic/check.py
"""
import json, os, re, collections
R = os.path.dirname(os.path.abspath(__file__))
STOP = set("""a an the of in on at to for from by with and or but is are was were be been being do does did done
have has had it its this that these those what which who whom whose when where why how whether i they them their
there here we you your he she his her our us my me as into than then so such not no can could would should will
shall may might must need needs any all each every some more most much many other only also just about over under
up down out if do get gets got s t de per vs via alone i.e e.g whats what's""".split())
tok = lambda s: re.findall(r"\w+", s.lower())
def content(s): return [w for w in tok(s) if w not in STOP and not (len(w) == 1 and w.isascii() and w.isalpha())]
ok = True
A = [json.loads(l) for l in open(f"{R}/analyses.jsonl")]
Q = [json.loads(l) for l in open(f"{R}/questions.jsonl")]
ids = {a["analysis_id"] for a in A}
assert len(A) == 8 and len(Q) == 64, (len(A), len(Q))
assert sum(q["answerable"] for q in Q) == 40
per = collections.defaultdict(list)
for q in Q: per[q["analysis_id"]].append(q)
for aid, qs in per.items():
    assert aid in ids
    assert sum(q["answerable"] for q in qs) == 5
    assert sum(q["kind"] == "absent" for q in qs) == 2 and sum(q["kind"] == "other-analysis" for q in qs) == 1
    assert sum(q["split"] == "dev" for q in qs) == 4
    for s in ("dev", "hold"):
        sub = [q["answerable"] for q in qs if q["split"] == s]
        assert any(sub) and not all(sub), (aid, s)
    assert sum(q["kind"] == "number" for q in qs if q["answerable"]) >= 2, aid
for f in sorted(os.listdir(f"{R}/notes")):
    print(f, len(open(f"{R}/notes/{f}").read().split()), "words")
ov = []
for q in Q:
    if not q["answerable"]:
        assert q["key_points"] == [] and q["gold_docs"] == []
        continue
    (g,) = q["gold_docs"]; p = f"{R}/notes/{g}"
    assert os.path.exists(p), p
    txt = open(p).read()
    for k in q["key_points"]:
        if k.lower() not in txt.lower():
            ok = False; print("MISSING KEY", q["_id"], k)
    paras = [b for b in re.split(r"\n\s*\n", txt) if b.strip()]
    cw = set(content(q["text"]))
    best = max(len(cw & set(tok(b))) / len(cw) for b in paras)
    ov.append(best)
    flag = "  <-- >0.5" if best > 0.5 else ""
    print(f"{q['_id']:28s} {best:.2f}{flag}")
print("answerable:", len(ov), "mean overlap: %.3f" % (sum(ov) / len(ov)), "max: %.2f" % max(ov))
print("ALL OK" if ok else "ERRORS")
