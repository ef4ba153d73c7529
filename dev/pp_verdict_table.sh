#!/usr/bin/env bash
# The PP verdict for DeepSeek-V3 and Kimi K2 on 2048 and 16384 chips of TPU v5p,
# GB200 (64-GPU NVLink domains, from data/clusters/gb200.yaml), H100 and H800:
# one markdown row per case (verdict, pp_margin, pp_error_band, both best
# layouts) and the verdict sentence. Usage: dev/pp_verdict_table.sh [occam-binary] [batch]
# batch: "16M" (default: 16M tokens per step for both models) or "published": each model's
# published pre-training batch at 4,096 tokens, DeepSeek-V3 15,360 sequences (DeepSeek-V3
# report, arXiv 2412.19437 §4.2) and Kimi K2 67M tokens, 16,384 sequences (Kimi K2 report,
# arXiv 2507.20534 §2.5).
set -euo pipefail
cd "$(dirname "$0")/.."
OCCAM="${1:-build/occam}"
BATCH="${2:-16M}"
batch_flags() {
  case "$BATCH:$1" in
    16M:*) echo --global-batch-tokens 16M ;;
    published:deepseek-v3) echo --global-batch-seqs 15360 ;;
    published:kimi-k2) echo --global-batch-seqs 16384 ;;
    *) echo "unknown batch '$BATCH' (16M or published)" >&2; exit 2 ;;
  esac
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for n in 2048 16384; do
  sed -e "s/num_chips: 1152/num_chips: $n/" -e "s/size: 72$/size: 64/" -e "s/size: 1152/size: $n/" \
    -e "s/name: gb200$/name: gb200-64/" data/clusters/gb200.yaml | sed '/^sizing:/,$d' \
    > "$tmp/gb200-64-$n.yaml"
done
echo "| model | chips | cluster | verdict | margin | band | best without PP | best with PP |"
echo "|---|---|---|---|---|---|---|---|"
for model in deepseek-v3 kimi-k2; do
  for n in 2048 16384; do
    for c in tpu-v5p gb200 h100 h800; do
      if [[ $c == gb200 ]]; then cl=(--cluster "$tmp/gb200-64-$n.yaml"); else cl=(--cluster "$c" --chips "$n"); fi
      "$OCCAM" plan --model "$model" "${cl[@]}" --seq-len 4096 $(batch_flags "$model") --top 1 --json |
        python3 -c '
import json, sys
r = json.load(sys.stdin)
lay = lambda l: l["plan"] if l else "-"
m = r["pp_margin"]
print("| %s | %s | %s | %s | %s | %.0f%% | %s | %s |" % (sys.argv[1], sys.argv[2], sys.argv[3],
      "needed" if r["pp_needed"] else "not needed", "-" if m is None else "%+.1f%%" % (100 * m),
      100 * r["pp_error_band"], lay(r["best_without_pp"]), lay(r["best_with_pp"])))
print("  ", r["pp_verdict"])' "$model" "$n" "$c"
    done
  done
done
