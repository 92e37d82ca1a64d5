#!/usr/bin/env python3
"""Support-judge prompts compared offline on one `mitra eval --answerer llm` trace.

For the first cited sentence with a number of each traced answer, writes one prompt per
variant for the prompt harness (`prompt_harness` in `appliance/llm/src/parity_tests.rs`):
`whole` is the support step's prompt (the cited passages whole, the question, the sentence);
`located` gives only the sentences of the cited passages that write the answer's numbers and
asks whether they answer the question. Then reads the harness output back and prints the
pairwise AUC of each variant's yes/no log-odds: right answers (an answerable question, key
points > 0) against the rest, and against answers to unanswerable questions.

  python3 benches/answers/support_prompts.py cases --traces T.jsonl --questions Q.jsonl \
      --corpus two_tier/corpus.jsonl > cases.jsonl
  MITRA_HARNESS_MODEL=qwen2.5-coder-1.5b-instruct-q4_k_m MITRA_HARNESS_CASES=cases.jsonl \
      MITRA_TEST_MODELS=~/.cache/mitra-models cargo test --locked --workspace --lib \
      -- prompt_harness --ignored --nocapture | grep '^HARNESS ' > out.txt
  python3 benches/answers/support_prompts.py auc --traces T.jsonl --questions Q.jsonl --out out.txt
"""
import json
import re

from judge_harness import JUDGE, auc, load, run, scores  # same folder

VARIANTS = {
    "whole": "Excerpts from the analysis notes:\n\n{p}\n\nQuestion: {q}\nProposed answer: {a}\n\n"
    "Do the excerpts state this answer, every number, name and claim in it, for the same "
    "object the question names? Reply Yes or No.",
    "located": "Sentence from the analysis notes:\n{p}\n\nQuestion: {q}\n\nDoes this sentence "
    "answer the question, for the very thing the question asks about (not a different quantity "
    "or object)? Reply Yes or No.",
}
NUMBER = re.compile(r"\d+(?:\.\d+)?")
MARKS = re.compile(r"\s*\[\d+(?:,\s*\d+)*\]")


def labels(traces, questions):
    """Per trace id: (right answer, answerable)."""
    q = {r["_id"]: r for r in questions}
    return {
        t["id"]: (q[t["id"]]["answerable"] and (t.get("key_point_coverage") or 0) > 0,
                  q[t["id"]]["answerable"])
        for t in traces
    }


def cases(args):
    docs = {d["_id"]: d["text"] for d in load(args.corpus)}
    for t in load(args.traces):
        for s in t["sentences"]:
            text = MARKS.sub("", s["text"]).strip()
            nums = NUMBER.findall(text)
            if not nums or not s["cites"]:
                continue
            cited = [docs[c.split("@")[0]] for c in s["cites"]]
            located = [
                x.strip()
                for d in cited
                for x in re.split(r"(?<=[.;])\s+", d)
                if any(re.search(r"(?<![\d.])" + re.escape(n) + r"(?!\d)", x) for n in nums)
            ]
            if not located:
                continue
            for name, tmpl in VARIANTS.items():
                p = "\n\n".join(d.strip() for d in cited) if name == "whole" else "\n".join(located)
                user = tmpl.format(p=p, q=t["question"], a=text)
                print(json.dumps({"id": f"{name}:{t['id']}", "system": JUDGE, "user": user}))
            break


def report(args):
    lab = labels(load(args.traces), load(args.questions))
    by_variant = {}
    for case, score in scores(args.out).items():
        name, tid = case.split(":", 1)
        by_variant.setdefault(name, {})[tid] = score
    for name, s in by_variant.items():
        right = [v for k, v in s.items() if lab[k][0]]
        rest = [v for k, v in s.items() if not lab[k][0]]
        unans = [v for k, v in s.items() if not lab[k][1]]
        print(f"{name:8s} right vs rest {auc(right, rest):.3f}  right vs unanswerable "
              f"{auc(right, unans):.3f}  (right {len(right)}, rest {len(rest)}, "
              f"unanswerable {len(unans)})")


if __name__ == "__main__":
    run(__doc__, cases, report)
