#!/usr/bin/env bash
# CommonMark block-structure pass rate of the markdown extractor over the spec's examples
# (chapters Tabs, Leaf blocks, Container blocks). Writes benches/MARKDOWN.md.
# The spec comes from the npm registry (commonmark-spec 0.31.2), sha256-verified.
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/facts.sh
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/mitra-target}/plugins-native"
cache="${MITRA_BENCH_CACHE:-$HOME/.cache/mitra-bench}/commonmark-spec-0.31.2"
sha=588280df96c211f7ce9db0b7943ded34ac4b8ba321e2fdf9c03d188ec0f01fea
if [ ! -f "$cache/package/spec.txt" ]; then
  mkdir -p "$cache"
  (cd "$cache" && npm pack --silent commonmark-spec@0.31.2 >/dev/null)
  echo "$sha  $cache/commonmark-spec-0.31.2.tgz" | sha256sum -c --quiet
  tar xzf "$cache/commonmark-spec-0.31.2.tgz" -C "$cache"
fi
(cd plugins && cargo build --locked -q -p markdown-extractor --example spec_blocks)
out=benches/MARKDOWN.md
{
  echo "# Markdown extractor: CommonMark block structure"
  echo
  run_facts
  echo "- command: bash benches/run_commonmark.sh (spec: commonmark-spec 0.31.2 from npm)"
  echo
  echo '```'
  python3 benches/commonmark_blocks.py "$cache/package/spec.txt" \
    "$CARGO_TARGET_DIR/debug/examples/spec_blocks" "${MITRA_COMMONMARK_FAILURES:-/dev/null}"
  echo '```'
} > "$out"
cat "$out"
