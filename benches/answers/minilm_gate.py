#!/usr/bin/env python3
"""Could the sentence encoder gate abstention? Read off one `mitra eval --answerer llm` trace.

Like gate_table.py: run the set once with the relevance bar out of the way
(`MITRA_LLM_MIN_RELEVANCE=-100`, every question reaches generation with all its passages shown),
then a gate "abstain unless the best evidence passage scores at least S" changes only the
abstention, so its outcome is read off the trace exactly. The score here is all-MiniLM-L6-v2's
cosine between the question and the best sentence (or the best two-sentence window, or the
whole passage) of each evidence passage, computed with sentence-transformers; the language
model judge's best score is tabulated beside it; outcomes are counted by gate_table.py's `table`.

  python3 benches/answers/minilm_gate.py --traces T.jsonl --questions Q.jsonl \
      --corpus two_tier/corpus.jsonl --model ~/.cache/mitra-models/all-MiniLM-L6-v2
"""
import argparse
import json
import re

from sentence_transformers import SentenceTransformer

from gate_table import load_rows, table  # same folder: the outcome of a gate, as mitra eval counts


def features(model, question, text):
    """Cosine of the question to the best sentence, best 2-sentence window and the passage."""
    sents = [s for s in re.split(r"(?<=[.!?])\s+|\n+", text) if len(s.split()) >= 3] or [text]
    windows = [" ".join(sents[i : i + 2]) for i in range(len(sents))]
    q = model.encode([question], normalize_embeddings=True)[0]
    best = lambda xs: float((model.encode(xs, normalize_embeddings=True) @ q).max())
    return {"sent": best(sents), "win": best(windows), "doc": best([text])}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--traces", required=True)
    ap.add_argument("--questions", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--model", required=True)
    a = ap.parse_args()
    model = SentenceTransformer(a.model, device="cpu")
    docs = {}
    for line in open(a.corpus, encoding="utf-8"):
        d = json.loads(line)
        docs[d["_id"]] = d.get("title", "") + ". " + d["text"]
    rows = load_rows(a.traces, a.questions)
    for r in rows:
        r["minilm"] = [features(model, r["question"], docs[c.split("@")[0]]) for c in r["evidence"]]

    print("| gate | answered (ans.) | abstained (unans.) | key points |")
    print("|---|---|---|---|")

    def line(name, gate):
        t = table(rows, gate)
        print(f"| {name} | {t['answered']} | {t['abstained']} | {t['key_points']} |")

    line("none", lambda r: True)
    for t in (0.25, 0.5, 0.75):
        line(f"judge best ≥ {t}", lambda r, t=t: r["best"] >= t)
    for key in ("sent", "win", "doc"):
        for s in (0.3, 0.35, 0.4, 0.45, 0.5):
            line(f"MiniLM {key} ≥ {s}", lambda r, k=key, s=s: max(f[k] for f in r["minilm"]) >= s)


if __name__ == "__main__":
    main()
