#!/usr/bin/env python3
"""Writes a tokenizer-only GGUF with a SentencePiece vocabulary, as llama.cpp's converter writes
Mistral-7B-Instruct's (`tokenizer.ggml.model = "llama"`: pieces, scores, token types, no merges).

The vocabulary is Mistral's own `tokenizer.model` (v1: Mistral-7B v0.1/v0.2, 32,000 pieces), the
registry's `mistral-v1-tokenizer` (`mitra models fetch mistral-v1-tokenizer`, sha256-verified);
the chat template is Mistral-7B-Instruct-v0.2's (no system role). No tensors: the file is the
input of `parity.py` only. The Rust parity test builds the same file from the same
tokenizer.model (`parity_tests::spm_gguf`), so nothing generated is committed.

    pip install gguf sentencepiece
    python3 benches/llm/spm_tokenizer_gguf.py MODELS/mistral-v1-tokenizer/tokenizer.model.v1 /tmp/mistral-v1.gguf
"""
import hashlib
import sys
import tempfile

import gguf
import sentencepiece

MODEL_SHA256 = "dadfd56d766715c61d2ef780a525ab43b8e6da4de6865bda3d95fdef5e134055"

# Mistral-7B-Instruct-v0.2's tokenizer_config.json chat_template.
TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}"
    "{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}"
    "{% endif %}{% if message['role'] == 'user' %}{{ '[INST] ' + message['content'] + ' [/INST]' }}"
    "{% elif message['role'] == 'assistant' %}{{ message['content'] + eos_token}}"
    "{% else %}{{ raise_exception('Only user and assistant roles are supported!') }}{% endif %}"
    "{% endfor %}"
)


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def main():
    src, out = sys.argv[1], sys.argv[2]
    with open(src, "rb") as f:
        model = f.read()
    assert sha256(model) == MODEL_SHA256, "tokenizer.model.v1 does not match its pin"
    with tempfile.NamedTemporaryFile(suffix=".model") as tmp:
        tmp.write(model)
        tmp.flush()
        sp = sentencepiece.SentencePieceProcessor(model_file=tmp.name)
    tokens, scores, types = [], [], []
    for i in range(sp.vocab_size()):
        tokens.append(sp.id_to_piece(i).encode("utf-8"))
        scores.append(sp.get_score(i))
        # llama.cpp's convert_hf_to_gguf.py _create_vocab_sentencepiece
        if sp.is_unknown(i):
            t = gguf.TokenType.UNKNOWN
        elif sp.is_control(i):
            t = gguf.TokenType.CONTROL
        elif sp.is_unused(i):
            t = gguf.TokenType.UNUSED
        elif sp.is_byte(i):
            t = gguf.TokenType.BYTE
        else:
            t = gguf.TokenType.NORMAL
        types.append(t)
    w = gguf.GGUFWriter(out, "llama")
    w.add_name("Mistral-7B-Instruct-v0.2 tokenizer")
    w.add_context_length(32768)
    w.add_embedding_length(4096)
    w.add_block_count(32)
    w.add_feed_forward_length(14336)
    w.add_head_count(32)
    w.add_head_count_kv(8)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_rope_freq_base(1000000.0)
    w.add_tokenizer_model("llama")
    w.add_tokenizer_pre("default")
    w.add_token_list(tokens)
    w.add_token_scores(scores)
    w.add_token_types(types)
    w.add_bos_token_id(sp.bos_id())
    w.add_eos_token_id(sp.eos_id())
    w.add_unk_token_id(sp.unk_id())
    w.add_add_bos_token(True)
    w.add_add_eos_token(False)
    w.add_chat_template(TEMPLATE)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


if __name__ == "__main__":
    main()
