#!/usr/bin/env python3
"""Reference tokenizations and chat renderings for Mitra's parity test.

For each GGUF given, builds the tokenizer the way transformers does from the same file
(transformers.integrations.gguf: convert_gguf_tokenizer over the file's tokenizer.ggml.*
metadata, read here with the `gguf` package) and renders the file's tokenizer.chat_template
with Python jinja2 under transformers' settings (trim_blocks, lstrip_blocks, loopcontrols).
Writes tests/fixtures/llm/parity.json; the Rust test compares Mitra's tokenizer and template
engine against it.

    pip install gguf transformers jinja2 tokenizers
    python3 benches/llm/parity.py --out tests/fixtures/llm/parity.json NAME=FILE.gguf ...

`NAME=FILE.gguf@ARCH` reads the file as if its general.architecture were ARCH (transformers picks
the SentencePiece builder by architecture: Llama/Mistral, Phi-3, Gemma). `--spm-model NAME`:
entries named NAME or NAME@ARCH come from a tokenizer-only GGUF written by spm_tokenizer_gguf.py
from the registry's tokenizer.model NAME; the Rust test builds that GGUF itself from the same
file, so the fixture records the registry name and the chat template. Templates without a system role are rendered with the system text folded into the
first user turn, as Mitra's ChatTemplate::render_instruction does.
"""
import argparse
import hashlib
import json

import gguf
import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment
from transformers.integrations.gguf.gguf_tokenizer_mapping import (
    GGUF_TOKENIZER_MAPPING,
    convert_gguf_tokenizer,
)

STRINGS = [
    "H→μμ at √s = 13.6 TeV",
    "Muons with pT > 26 GeV and |η| < 2.4",
    "The Z+jets background is 2×10⁻⁴ of the total; σ(pp→tt̄H) = 507 fb.",
    "Run 3 (2022–2025) collected 180 fb⁻¹; BR(H→μμ) ≈ 2.18×10⁻⁴.",
    "E_T^miss > 250 GeV, Δφ(j, E_T^miss) > 0.5 rad",
    "  leading  spaces,\ttabs and\nnew lines\n\n",
    "Numbers: 0.5, 1e-3, 12345678, v2.3.1, HIG-19-006",
    "<|im_start|>user\nIs this a special token?<|im_end|>",
    "日本語のテキスト and ελληνικά: αβγ",
    "",
]

CONVERSATION = [
    {"role": "system", "content": "You answer from the passages only."},
    {"role": "user", "content": "Passages:\n[1] (chunk a#1#0) Muons need pT > 26 GeV.\n\nQuestion: What is the muon pT cut?"},
    {"role": "assistant", "content": "The cut is pT > 26 GeV [1]."},
    {"role": "user", "content": "And for |η|?"},
]


def raise_exception(msg):
    raise jinja2.exceptions.TemplateError(msg)


def fold_system(conversation):
    """The system message put before the first user message, as Mitra folds it."""
    system = conversation[0]["content"]
    rest = [dict(m) for m in conversation[1:]]
    rest[0]["content"] = f"{system}\n\n{rest[0]['content']}"
    return rest


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--spm-model", default="")
    ap.add_argument("models", nargs="+", help="NAME=FILE.gguf")
    a = ap.parse_args()
    out = {"strings": STRINGS, "conversation": CONVERSATION, "models": {}}
    for spec in a.models:
        name, path = spec.split("=", 1)
        path, _, arch = path.partition("@")
        r = gguf.GGUFReader(path)
        md = {k: f.contents() for k, f in r.fields.items() if not k.startswith("GGUF.")}
        if arch:
            md["general.architecture"] = arch
        tok = {
            n: md[f"tokenizer.{k}"]
            for k, n in GGUF_TOKENIZER_MAPPING["tokenizer"].items()
            if f"tokenizer.{k}" in md
        }
        backend, _ = convert_gguf_tokenizer(md["general.architecture"], tok)
        ids = [backend.encode(s, add_special_tokens=False).ids for s in STRINGS]
        tokens = md["tokenizer.ggml.tokens"]
        bos = md.get("tokenizer.ggml.bos_token_id")
        eos = md.get("tokenizer.ggml.eos_token_id")
        env = ImmutableSandboxedEnvironment(
            trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"]
        )
        env.globals["raise_exception"] = raise_exception
        t = env.from_string(md["tokenizer.chat_template"])
        ctx = dict(
            bos_token=tokens[bos] if bos is not None else "",
            eos_token=tokens[eos] if eos is not None else "",
        )
        conversation, folded = CONVERSATION, False
        try:
            t.render(messages=conversation, add_generation_prompt=True, **ctx)
        except jinja2.exceptions.TemplateError:
            conversation, folded = fold_system(CONVERSATION), True
        rendered = {
            "with_generation_prompt": t.render(messages=conversation, add_generation_prompt=True, **ctx),
            # The first exchange (system, user, assistant; or the folded user and assistant).
            "without": t.render(messages=conversation[: 2 if folded else 3], add_generation_prompt=False, **ctx),
        }
        prompt_ids = backend.encode(rendered["with_generation_prompt"], add_special_tokens=False).ids
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        decoded = [backend.decode(i, skip_special_tokens=False) for i in ids]
        entry = {"sha256": h.hexdigest(), "ids": ids, "decoded": decoded, "rendered": rendered, "prompt_ids": prompt_ids}
        if folded:
            entry["system_folded"] = True
        if a.spm_model and name.split("@")[0] == a.spm_model:
            entry["spm_model"] = a.spm_model
            entry["chat_template"] = md["tokenizer.chat_template"]
        if arch:
            entry["architecture"] = arch
        out["models"][name] = entry
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
