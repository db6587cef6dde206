#!/usr/bin/env bash
# The whole-model demo (docs/whole-model.md): a tiny 4-layer Qwen3-MoE-style model
# (test/gen/configs/qwen3_moe_tiny3.json: dense and MoE layers mixed by mlp_only_layers) on 4
# chips, 2 pipeline stages x 2 replicas with 2 micro-batches each: `tilefw gen --model` writes
# every step's streams and the CDMA transfers between stages, `tilefw validate` checks every
# stream, `tilefw run --strict` runs the slots on the multi-chip simulator hazard-free, and the
# logits and next tokens are checked against the independent float64 whole-model reference
# (test/gen/ref/model_ref_check). Then a decode step fed the prefill's caches and its next
# tokens, checked the same way.
# Usage: scripts/demo_model.sh [BUILD_DIR] (default: build). Fails when any step fails.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
cfg=test/gen/configs/qwen3_moe_tiny3.json
tmp=${TMPDIR:-/tmp}/tilefw-model-demo
rm -rf "$tmp" && mkdir -p "$tmp"
chips=(--chips 4 --pp 2 --dp 2 --microbatches 2)
"$build/tools/tilefw" gen --config "$cfg" --out "$tmp/prefill" --model --batch 4 --seq 6 "${chips[@]}"
"$build/tools/tilefw" validate --manifest "$tmp/prefill/manifest.json" | tail -1
"$build/tools/tilefw" run --manifest "$tmp/prefill/manifest.json" --out "$tmp/prefill.run" --strict \
  --report "$tmp/prefill.json" | grep -E '^total'
"$build/test/gen/model_ref_check" --config "$cfg" --gen "$tmp/prefill" --run "$tmp/prefill.run"
# Decode: the prefill's caches become the past, its next tokens the new input ids.
"$build/tools/tilefw" gen --config "$cfg" --out "$tmp/decode" --model --phase decode --batch 4 --kv-len 6 "${chips[@]}"
cp "$tmp/prefill.run/next_token.dat" "$tmp/decode/input_ids.bin"
for f in "$tmp"/prefill.run/present_*.dat; do
  n=$(basename "$f" .dat)
  cp "$f" "$tmp/decode/past_${n#present_}.bin"
done
"$build/tools/tilefw" run --manifest "$tmp/decode/manifest.json" --out "$tmp/decode.run" --strict \
  --report "$tmp/decode.json" | grep -E '^total'
"$build/test/gen/model_ref_check" --config "$cfg" --gen "$tmp/decode" --run "$tmp/decode.run"
python3 - "$tmp" <<'PY'
import json, sys
for phase in ("prefill", "decode"):
    r = json.load(open(f"{sys.argv[1]}/{phase}.json"))
    print(f"{phase}: {r['seconds'] * 1e3:.3f} ms simulated, communication {r['comm_seconds'] * 1e6:.1f} us, "
          f"bubble {r['bubble_seconds'] * 1e3:.3f} ms, control core {r['control_seconds'] * 1e3:.3f} ms")
PY
echo "outputs: $tmp/prefill.run, $tmp/decode.run"
