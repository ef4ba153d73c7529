#!/usr/bin/env bash
# Sets up, builds and runs occam's main job on a built-in default:
# DeepSeek-V3 planned on 2048 H800 GPUs and on a 2048-chip TPU v5p slice.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
for cluster in h800 tpu-v5p; do
  echo "=== DeepSeek-V3 on 2048 x ${cluster} ==="
  ./build/occam plan --model deepseek-v3 --cluster "$cluster" --chips 2048 \
    --seq-len 4096 --global-batch-tokens 16M --top 5
  echo
done
