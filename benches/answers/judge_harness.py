"""What the offline judge-prompt scripts share: the judge's system prompt, JSON-lines input,
the prompt harness's output, the pairwise AUC and the two-step command line.

The harness is `prompt_harness` in `appliance/llm/src/parity_tests.rs`; it prints one
`HARNESS {"id": …, "score": …}` line per case.
"""
import argparse
import json

# grounding::JUDGE, the system prompt of the relevance and support steps.
JUDGE = "You check facts in physics analysis notes. Read carefully and reply with Yes or No only."


def load(path):
    """The rows of a JSON-lines file."""
    return [json.loads(line) for line in open(path, encoding="utf-8")]


def scores(path):
    """Case id → the judge's yes/no log-odds, from the harness's `HARNESS {...}` lines."""
    out = {}
    for line in open(path, encoding="utf-8"):
        r = json.loads(line.split(" ", 1)[1])
        out[r["id"]] = r["score"]
    return out


def auc(pos, neg):
    """Pairwise AUC of `pos` over `neg` (ties count half); NaN when either is empty."""
    if not pos or not neg:
        return float("nan")
    return sum((x > y) + 0.5 * (x == y) for x in pos for y in neg) / (len(pos) * len(neg))


def run(doc, cases, report):
    """`SCRIPT cases …` prints harness cases, `SCRIPT auc …` reads the harness output back."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("step", choices=["cases", "auc"])
    ap.add_argument("--traces", required=True)
    ap.add_argument("--questions")
    ap.add_argument("--corpus")
    ap.add_argument("--out")
    args = ap.parse_args()
    cases(args) if args.step == "cases" else report(args)
