#!/usr/bin/env bash
# HTML extractor on real pages: main-content share and headings on Debian's python3.11-doc
# (Sphinx, scored against the reST sources it ships) and on TWiki pattern-skin topics, against
# all body text as the reference, in one run. Writes benches/HTML.md.
#   bash benches/run_html.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/facts.sh
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/mitra-target}/plugins-native"
cache="${MITRA_BENCH_CACHE:-$HOME/.cache/mitra-bench}/python3.11-doc"
. benches/deb.sh
fetch_deb python3.11-doc 3.11.2-6+deb12u9 "$(cat benches/html/python3.11-doc.sha256)" "$cache"
(cd plugins && cargo build --locked -q --release -p html-extractor --example page_blocks)
out=benches/HTML.md
{
  echo "# HTML extractor: main content and headings on real pages"
  echo
  run_facts
  echo "- command: bash benches/run_html.sh (Debian python3.11-doc 3.11.2-6+deb12u9, native release build of the extractor)"
  echo
  echo '```'
  python3 benches/html_main_content.py "$cache/root/usr/share/doc/python3.11/html" \
    "$CARGO_TARGET_DIR/release/examples/page_blocks"
  echo '```'
} > "$out"
cat "$out"
