#!/usr/bin/env bash
# The main demo: run the real 8-core SG2260 MatMul (test/data/sg2260-mm0) on the host
# simulator through the rt layer, check the output bit for bit against the reference, and
# leave a trace to open; then run the a2a3 row softmax (examples/row_softmax.cpp: PTO tile
# instructions on the simulated AI Core, checked bit for bit and for pipe hazards).
# Usage: scripts/demo.sh [BUILD_DIR] (default: build). Fails when either part fails.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${TMPDIR:-/tmp}/mm0
data=test/data/sg2260-mm0
"$build/tools/tilefw" run --manifest "$data/manifest.json" --out "$out" \
  --trace "$out.trace.json" --svg "$out.svg"
cmp "$out/4_f32.dat" "$data/output_ref_data.dat"
echo "bit-exact: $out/4_f32.dat equals $data/output_ref_data.dat (32x34 f32)"
echo "open $out.trace.json in https://ui.perfetto.dev (or chrome://tracing), or $out.svg in a browser"
echo
"$build/examples/row_softmax"
