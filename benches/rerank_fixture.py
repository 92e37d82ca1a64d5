"""Generate the committed cross-encoder test fixtures under tests/data/rerank/.

  bert-ce/   tiny BertForSequenceClassification (hidden 32, 2 layers, one label: the
             ms-marco-MiniLM-L-6-v2 layout) with a WordPiece tokenizer ([CLS] q [SEP] p [SEP]).
  xlmr-ce/   tiny XLMRobertaForSequenceClassification (same sizes, one label: the
             bge-reranker layout) with a Unigram tokenizer (<s> q </s></s> p </s>).
             each: config.json, tokenizer.json, tokenizer_config.json and weights.json; the
             weights are not committed: the Rust tests regenerate them bit for bit from the LCG
             stream that weights.json describes (tests/integration/common.rs, lcg_model).
  rerank_golden.json  the logits of `transformers`' AutoModelForSequenceClassification for each
             (query, passage) pair, encoded with truncation="only_second" at max_length, and
             the token counts after truncation.

    HF_HUB_OFFLINE=1 python3 benches/rerank_fixture.py
(needs torch, transformers and tokenizers; `benches/run_rerank.sh` makes such a venv.)
"""
import json
import os
import sys
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np
import torch
import transformers
from safetensors import safe_open
from tokenizers import Tokenizer, decoders, normalizers, pre_tokenizers, processors
from tokenizers.models import Unigram
from transformers import (AutoModelForSequenceClassification, AutoTokenizer, BertConfig,
                          BertForSequenceClassification, XLMRobertaConfig,
                          XLMRobertaForSequenceClassification, XLMRobertaTokenizerFast)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from embed_fixture import VOCAB, lcg_fill, long_text, r7, tiny_tokenizer  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "rerank")
MAX_LEN = 64

QUERIES = [
    "What is the luminosity of the detector?",
    "muon track efficiency",
    "How is the Z+jets background estimated?",
]
PASSAGES = [
    "The Z+jets background is estimated from a control region enriched in Drell-Yan events.",
    "The muon collider at 10 TeV",
    "",
    "Calorimeter energy resolution improves, H→μμ, Café crème",
    "b-tagging efficiency measured with top quark pairs",
    long_text(300),  # longer than the limit: the passage is cut, the query kept
]

# Word pieces for the Unigram model: the words of the texts above, then characters.
UNI_WORDS = sorted({w.strip("?,.") for t in QUERIES + PASSAGES for w in t.split()} - {""})
UNI_CHARS = sorted({c for t in QUERIES + PASSAGES for c in t if not c.isspace()})


def xlmr_tokenizer(d):
    """A small cased Unigram tokenizer with XLM-R's specials, pieces and template
    (<s> A </s></s> B </s>)."""
    specials = ["<s>", "<pad>", "</s>", "<unk>"]
    pieces = [(s, 0.0) for s in specials]
    pieces += [("\u2581" + w, -2.0 - 0.01 * i) for i, w in enumerate(UNI_WORDS)]
    pieces += [("\u2581", -3.0)]
    pieces += [(c, -5.0 - 0.01 * i) for i, c in enumerate(UNI_CHARS)]
    seen, uniq = set(), []
    for p in pieces:
        if p[0] not in seen:
            seen.add(p[0])
            uniq.append(p)
    tok = Tokenizer(Unigram(uniq, unk_id=3, byte_fallback=False))
    tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="\u2581", prepend_scheme="always")
    tok.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0))
    fast = XLMRobertaTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>",
                                   sep_token="</s>", cls_token="<s>", unk_token="<unk>",
                                   pad_token="<pad>", mask_token="<unk>", model_max_length=MAX_LEN)
    fast.save_pretrained(d)
    return len(uniq)


def build(name):
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    common = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                  intermediate_size=64, hidden_act="gelu", num_labels=1)
    if name == "bert-ce":
        tiny_tokenizer([d])
        with open(os.path.join(d, "tokenizer_config.json")) as f:
            tc = json.load(f)
        tc["model_max_length"] = MAX_LEN
        with open(os.path.join(d, "tokenizer_config.json"), "w") as f:
            json.dump(tc, f, indent=2)
        for extra in ("vocab.txt", "special_tokens_map.json"):
            if os.path.exists(os.path.join(d, extra)):
                os.remove(os.path.join(d, extra))
        model = BertForSequenceClassification(BertConfig(
            vocab_size=len(VOCAB), max_position_embeddings=MAX_LEN, pad_token_id=0, **common))
    else:
        vocab = xlmr_tokenizer(d)
        for extra in ("sentencepiece.bpe.model", "special_tokens_map.json"):
            if os.path.exists(os.path.join(d, extra)):
                os.remove(os.path.join(d, extra))
        model = XLMRobertaForSequenceClassification(XLMRobertaConfig(
            vocab_size=vocab, max_position_embeddings=MAX_LEN + 2, type_vocab_size=1,
            pad_token_id=1, bos_token_id=0, eos_token_id=2, **common))
    model = model.eval()
    spec = lcg_fill(model, scale=1.0)  # wide enough that the logits differ by pair
    with tempfile.TemporaryDirectory() as tmp:  # only config.json is kept, not the weights
        model.save_pretrained(tmp, safe_serialization=True)
        with safe_open(os.path.join(tmp, "model.safetensors"), "pt") as f:
            stored = sorted(f.keys())
        with open(os.path.join(tmp, "config.json")) as f:
            config = f.read()
        # What a user's directory holds: reload both through the Auto classes.
        model = AutoModelForSequenceClassification.from_pretrained(tmp).eval()
    spec["tensors"] = [t for t in spec["tensors"] if t["name"] in stored]
    assert stored == [t["name"] for t in spec["tensors"]], (stored, spec)
    with open(os.path.join(d, "config.json"), "w") as f:
        f.write(config)
    with open(os.path.join(d, "weights.json"), "w") as f:
        json.dump(spec, f, indent=1)
        f.write("\n")
    tok = AutoTokenizer.from_pretrained(d)
    # What transformers tokenizes with (it may rebuild parts of a tokenizer from its class):
    # the fixture's tokenizer.json is that, so both sides read the same definition.
    tok.backend_tokenizer.save(os.path.join(d, "tokenizer.json"))
    pairs = [(q, p) for q in QUERIES for p in PASSAGES]
    enc = tok([q for q, _ in pairs], [p for _, p in pairs], truncation="only_second",
              max_length=MAX_LEN, padding=True, return_tensors="pt")
    with torch.no_grad():
        logits = model(**enc).logits[:, 0].numpy()
    single = tok([q for q, _ in pairs], [p for _, p in pairs], truncation="only_second",
                 max_length=MAX_LEN)
    counts = [len(ids) for ids in single["input_ids"]]
    print(f"{name}: {len(stored)} tensors, logits {np.round(logits[:6], 4)}, counts {counts[:6]}")
    return {"layout": name, "max_length": MAX_LEN, "token_counts": counts, "logits": r7(logits),
            "input_ids_first": single["input_ids"][0]}


if __name__ == "__main__":
    golden = {"generator": f"transformers {transformers.__version__}, torch {torch.__version__}",
              "queries": QUERIES, "passages": PASSAGES,
              "models": {n: build(n) for n in ("bert-ce", "xlmr-ce")}}
    path = os.path.join(OUT, "rerank_golden.json")
    with open(path, "w") as f:
        json.dump(golden, f, ensure_ascii=False)
        f.write("\n")
    print(f"wrote {os.path.normpath(path)} ({os.path.getsize(path)} bytes)")
