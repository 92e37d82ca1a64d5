"""sentence-transformers' CrossEncoder on the pairs of the cross-encoder speed benchmark.

    python3 benches/rerank_speed.py make MODEL_DIR TOKENIZER_DIR   # random ms-marco-MiniLM-L-6 shape
    python3 benches/rerank_speed.py pairs DATASET_DIR PAIRS.json MODEL_DIR [--n 50] [--tokens 256]
    python3 benches/rerank_speed.py time MODEL_DIR PAIRS.json [--reps 5] [--batch 64]

`make` writes a BertForSequenceClassification with cross-encoder/ms-marco-MiniLM-L-6-v2's shape
(6 layers, hidden 384, 12 heads, one label) and random weights (seed 0), with the BERT uncased
tokenizer of TOKENIZER_DIR (all-MiniLM-L6-v2 has the same vocabulary). `pairs` takes passages
from a BEIR corpus, each extended with the next documents and cut to about `--tokens` word
pieces as a pair with the query. `time` prints one JSON line like `cargo bench --bench rerank`.
"""
import json
import os
import shutil
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def make(model_dir, tok_dir):
    import torch
    from transformers import BertConfig, BertForSequenceClassification
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=30522, hidden_size=384, num_hidden_layers=6, num_attention_heads=12,
                     intermediate_size=1536, max_position_embeddings=512, num_labels=1)
    BertForSequenceClassification(cfg).eval().save_pretrained(model_dir, safe_serialization=True)
    for f in ("tokenizer.json", "vocab.txt", "special_tokens_map.json"):
        if os.path.exists(os.path.join(tok_dir, f)):
            shutil.copy(os.path.join(tok_dir, f), os.path.join(model_dir, f))
    tc = json.load(open(os.path.join(tok_dir, "tokenizer_config.json")))
    tc["model_max_length"] = 512
    json.dump(tc, open(os.path.join(model_dir, "tokenizer_config.json"), "w"), indent=1)


def pairs(dataset, out, model_dir, n=50, tokens=256):
    from transformers import AutoTokenizer
    tok = AutoTokenizer.from_pretrained(model_dir)
    docs = [json.loads(l) for l in open(os.path.join(dataset, "corpus.jsonl"))]
    query = json.loads(open(os.path.join(dataset, "queries.jsonl")).readline())["text"]
    q_len = len(tok(query)["input_ids"]) - 1  # [CLS] q [SEP]
    passages, i = [], 0
    while len(passages) < n:
        text = ""
        while len(tok(text, add_special_tokens=False)["input_ids"]) < tokens - q_len:
            text += (" " if text else "") + (docs[i % len(docs)].get("title", "") + ". " + docs[i % len(docs)]["text"])
            i += 1
        ids = tok(text, add_special_tokens=False)["input_ids"][: tokens - q_len - 1]
        passages.append(tok.decode(ids))
    json.dump({"query": query, "passages": passages}, open(out, "w"))


def time_it(model_dir, pairs_file, reps=5, batch=64):
    import torch
    import sentence_transformers
    from sentence_transformers import CrossEncoder
    spec = json.load(open(pairs_file))
    p = [(spec["query"], x) for x in spec["passages"]]
    ce = CrossEncoder(model_dir, max_length=512, device="cpu")
    lens = [len(ce.tokenizer(q, x, truncation="only_second", max_length=512)["input_ids"]) for q, x in p]
    ce.predict(p, batch_size=batch)
    ms = []
    for _ in range(reps):
        t = time.perf_counter()
        s = ce.predict(p, batch_size=batch)
        ms.append((time.perf_counter() - t) * 1000)
    ms.sort()
    print(json.dumps({"system": f"sentence-transformers {sentence_transformers.__version__} (torch {torch.__version__}, {torch.get_num_threads()} threads)",
                      "pairs": len(p), "tokens_per_pair": sum(lens) / len(lens), "ms_median": ms[len(ms) // 2],
                      "ms_best": ms[0], "batch_size": batch, "scores_head": [float(x) for x in s[:3]]}))


if __name__ == "__main__":
    cmd, rest = sys.argv[1], sys.argv[2:]
    opt = lambda k, d: type(d)(rest[rest.index(k) + 1]) if k in rest else d
    if cmd == "make":
        make(rest[0], rest[1])
    elif cmd == "pairs":
        pairs(rest[0], rest[1], rest[2], opt("--n", 50), opt("--tokens", 256))
    elif cmd == "time":
        time_it(rest[0], rest[1], opt("--reps", 5), opt("--batch", 64))
