#!/usr/bin/env bash
# The generator demo: a tiny Llama-style layer (test/gen/configs/llama_gqa.json: hidden 64,
# 4 heads over 2 kv heads, SwiGLU 160) becomes 8-core SG2260 streams (`tilefw gen`), runs on
# the simulator with the hazard checker in strict mode (`tilefw run --strict`), and its output
# is checked against the independent float64 reference (test/gen/ref) within its stated bound;
# then the same for a decode step against a 9-position KV cache.
# Usage: scripts/demo_gen.sh [BUILD_DIR] (default: build). Fails when any step fails.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
cfg=test/gen/configs/llama_gqa.json
tmp=${TMPDIR:-/tmp}/tilefw-gen-demo
mkdir -p "$tmp"
for phase in "prefill --seq 5" "decode --kv-len 9 --batch 2"; do
  name=${phase%% *}
  out=$tmp/$name
  # shellcheck disable=SC2086
  "$build/tools/tilefw" gen --config "$cfg" --out "$out" --force --phase $phase
  mkdir -p "$out.run"
  "$build/tools/tilefw" run --manifest "$out/manifest.json" --out "$out.run" --strict \
    --report "$out.report.json" | tail -1
  "$build/test/gen/gen_ref_check" --config "$cfg" --gen "$out" --run "$out.run"
  echo "streams, manifest and tensors: $out; run report: $out.report.json"
  echo
done
