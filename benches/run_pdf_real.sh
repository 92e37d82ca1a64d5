#!/usr/bin/env bash
# The PDF extractor on real LaTeX-made PDFs (Debian's texlive-publishers-doc: 426 sample PDFs
# beside their LaTeX sources) against pdftotext and the \section titles, in one run (#13 item 2).
# Writes benches/PDF_REAL.md.
#   bash benches/run_pdf_real.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/facts.sh
main_target="${CARGO_TARGET_DIR:-$HOME/.cache/mitra-target}"
export CARGO_TARGET_DIR="$main_target/plugins-native"
cache="${MITRA_BENCH_CACHE:-$HOME/.cache/mitra-bench}/texlive-publishers-doc"
. benches/deb.sh
fetch_deb texlive-publishers-doc 2022.20230122-4 "$(cat benches/pdf/texlive-publishers-doc.sha256)" "$cache"
(cd plugins && cargo build --locked -q --release -p pdf-extractor --example pdf_blocks)
# The chunk measures run the sandboxed wasm extractor and the chunker through `mitra plugins
# extract --chunks` (the dev build the tests use).
CARGO_TARGET_DIR="$main_target" cargo build --locked -q --bin mitra
out=benches/PDF_REAL.md
{
  echo "# PDF extractor on real documents (texlive-publishers-doc)"
  echo
  run_facts
  echo "- command: bash benches/run_pdf_real.sh (Debian texlive-publishers-doc 2022.20230122-4; $(pdftotext -v 2>&1 | head -1))"
  echo
  echo '```'
  python3 benches/pdf_real.py "$cache/root/usr/share/doc/texlive-doc" \
    "$CARGO_TARGET_DIR/release/examples/pdf_blocks" --tables-sample "$cache/tables-sample.json" \
    --mitra "$main_target/debug/mitra"
  echo '```'
} > "$out"
cat "$out"
