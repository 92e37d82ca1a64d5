#!/usr/bin/env python3
"""What the relevance judge reads, compared offline on one `mitra eval --answerer llm` trace.

For the first-look passages (the first 5) of every traced question, writes prompts for the
prompt harness (`prompt_harness` in `appliance/llm/src/parity_tests.rs`) in the relevance
step's wording: `window` is the passage's two paragraphs sharing most content words with the
question, in text order (`locate::window`, re-implemented here with focus.rs's word list);
`paragraph` is each paragraph alone. Passages of two paragraphs or fewer need no prompt (their
window is the whole passage, whose score the trace holds). Then reads the harness output back
and prints, for the whole passage (the trace's scores), the window, the best paragraph and the
lexically first paragraph: the question-level AUC of the best first-look score (answerable
against unanswerable), the passage-level AUC (gold passage of an answerable question against
the rest), and how many questions pass at a few bars.

  python3 benches/answers/relevance_window.py cases --traces T.jsonl --corpus C.jsonl > cases.jsonl
  MITRA_HARNESS_MODEL=qwen2.5-coder-1.5b-instruct-q4_k_m MITRA_HARNESS_CASES=cases.jsonl \
      MITRA_TEST_MODELS=~/.cache/mitra-models cargo test --locked --workspace --lib \
      -- prompt_harness --ignored --nocapture | grep '^HARNESS ' > out.txt
  python3 benches/answers/relevance_window.py auc --traces T.jsonl --questions Q.jsonl \
      --corpus C.jsonl --out out.txt
"""
import json
import os
import re

from judge_harness import JUDGE, auc, load, run, scores  # same folder

PROMPT = (
    "Excerpt from the analysis notes: {t}\n{p}\n\nQuestion: {q}\n\nCan the question be answered "
    "from this excerpt alone? Reply Yes only if the excerpt states the requested fact itself, "
    "for the same object the question names. Reply Yes or No."
)
FOCUS = os.path.join(os.path.dirname(__file__), "../../appliance/llm/src/focus.rs")
FILLER = set(
    re.findall(r'"([^"]+)"', re.search(r"const FILLER[^=]*= &\[(.*?)\];",
                                       open(FOCUS, encoding="utf-8").read(), re.S).group(1))
)
FIRST_LOOK = 5


def content(s):
    """focus::content: content words, case folded, a plural s dropped, filler left out."""
    out = set()
    for w in re.split(r"[^\w\-.]", s):
        w = w.strip("-.").lower()
        if w and (any(c.isdigit() for c in w) or (len(w) >= 3 and w not in FILLER)):
            if w.endswith("s") and not w.endswith("ss") and len(w) >= 4:
                w = w[:-1]
            out.add(w)
    return out


def paragraphs(doc):
    """locate::paragraphs of the chunk text of a generated note (its title, a space, its text):
    blocks between blank lines, a block of fewer than 30 words read with the blocks after it."""
    out, open_ = [], False
    for b in (p.strip() for p in (doc["title"] + " " + doc["text"]).split("\n\n")):
        if not b:
            continue
        if out and open_:
            out[-1] += "\n\n" + b
        else:
            out.append(b)
        open_ = len(out[-1].split()) < 30
    if open_ and len(out) >= 2:
        out[-2] += "\n\n" + out.pop()
    return out


def ranked(question, paras):
    """Paragraph indexes, most content words shared with the question first (ties: earlier)."""
    q = content(question)
    return sorted(range(len(paras)), key=lambda j: (-len(q & content(paras[j])), j))


def cases(args):
    docs = {d["_id"]: d for d in load(args.corpus)}
    for t in load(args.traces):
        for i, e in enumerate(t["evidence"][:FIRST_LOOK]):
            doc = docs[e.split("@")[0]]
            paras = paragraphs(doc)
            if len(paras) <= 2:
                continue
            window = "\n\n".join(paras[j] for j in sorted(ranked(t["question"], paras)[:2]))
            texts = [("window", window)] + [(f"paragraph{j}", p) for j, p in enumerate(paras)]
            for name, text in texts:
                user = PROMPT.format(t=doc["title"], p=text, q=t["question"])
                print(json.dumps({"id": f"{t['id']}|{i}|{name}", "system": JUDGE, "user": user}))


def report(args):
    docs = {d["_id"]: d for d in load(args.corpus)}
    questions = {q["_id"]: q for q in load(args.questions)}
    judged = scores(args.out)
    variants = {"whole": [], "window": [], "best paragraph": [], "first-ranked paragraph": []}
    passages = {k: ([], []) for k in variants}
    for t in load(args.traces):
        q = questions[t["id"]]
        best = {k: float("-inf") for k in variants}
        for i, e in enumerate(t["evidence"][:FIRST_LOOK]):
            doc = docs[e.split("@")[0]]
            paras = paragraphs(doc)
            whole = t["relevance"][i]
            key = f"{t['id']}|{i}|"
            if len(paras) <= 2:
                v = dict.fromkeys(variants, whole)
            else:
                each = [judged[key + f"paragraph{j}"] for j in range(len(paras))]
                v = {
                    "whole": whole,
                    "window": judged[key + "window"],
                    "best paragraph": max(each),
                    "first-ranked paragraph": each[ranked(t["question"], paras)[0]],
                }
            gold = q["answerable"] and e.split("@")[0] in q["gold_docs"]
            for k, x in v.items():
                best[k] = max(best[k], x)
                passages[k][0 if gold else 1].append(x)
        for k in variants:
            variants[k].append((q["answerable"], best[k]))
    for k, rows in variants.items():
        a = [x for ans, x in rows if ans]
        u = [x for ans, x in rows if not ans]
        bars = ", ".join(
            f"≥{b}: {sum(x >= b for x in a)}/{len(a)} answerable pass, "
            f"{sum(x < b for x in u)}/{len(u)} unanswerable stopped"
            for b in (0.3, 0.5)
        )
        print(f"{k:24} question AUC {auc(a, u):.3f}  passage AUC "
              f"{auc(*passages[k]):.3f}  {bars}")


if __name__ == "__main__":
    run(__doc__, cases, report)
