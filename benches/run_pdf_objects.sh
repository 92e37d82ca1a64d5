#!/usr/bin/env bash
# Mitra's PDF object layer (xref, object streams, filters, encryption) against lopdf's on the
# same files (#13 item 3): the 810 PDFs of Debian's texlive-publishers-doc, pdfgen's encrypted
# papers (RC4, AES-128, AES-256) and 1,000 damaged variants (fixed seed). Writes
# benches/PDF_OBJECTS.md.
#   bash benches/run_pdf_objects.sh [DAMAGED [SEED]]
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/facts.sh
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/mitra-target}/plugins-native"
cache="${MITRA_BENCH_CACHE:-$HOME/.cache/mitra-bench}/texlive-publishers-doc"
n="${1:-1000}"
seed="${2:-13}"
. benches/deb.sh
fetch_deb texlive-publishers-doc 2022.20230122-4 "$(cat benches/pdf/texlive-publishers-doc.sha256)" "$cache"
(cd plugins && cargo build --locked -q --release -p pdf-extractor --example object_layer)
out=benches/PDF_OBJECTS.md
{
  echo "# PDF object layer: Mitra's against lopdf's"
  echo
  run_facts
  echo "- command: bash benches/run_pdf_objects.sh $n $seed (lopdf $(grep -A1 'name = "lopdf"' plugins/Cargo.lock | sed -n 's/version = "\(.*\)"/\1/p'), default features off; both native, release, one process)"
  echo
  echo '```'
  find "$cache/root" -name '*.pdf' | sort | python3 -c 'import json, sys; print(json.dumps([l.strip() for l in sys.stdin]))' \
    | "$CARGO_TARGET_DIR/release/examples/object_layer" --damaged "$n" "$seed"
  echo '```'
} > "$out"
cat "$out"
