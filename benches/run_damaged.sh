#!/usr/bin/env bash
# Damaged documents through the sandboxed extractors, more of them than CI runs: the test
# `damaged::damaged_documents_end_as_extractions_or_per_document_errors` with N per format
# (default 1000; CI runs 150). Writes benches/DAMAGED.md.
#   bash benches/run_damaged.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/facts.sh
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/mitra-target}"
N="${1:-1000}"
log=$(mktemp)
MITRA_DAMAGED_DOCS="$N" cargo test --locked -q -p mitra --test integration damaged:: -- --nocapture 2>&1 | tee "$log"
out=benches/DAMAGED.md
{
  echo "# Damaged documents through the sandboxed extractors"
  echo
  run_facts
  echo "- command: bash benches/run_damaged.sh $N (plugin limits: 5 s, 256 MiB, 16 MiB output per document)"
  echo
  echo '```'
  grep -E "^(damaged documents|pdf:|html:|markdown:)" "$log"
  echo '```'
} > "$out"
cat "$out"
rm -f "$log"
