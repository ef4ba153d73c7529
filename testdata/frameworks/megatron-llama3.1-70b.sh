#!/bin/bash
# Llama 3.1 70B pretraining with Megatron-LM on 8 nodes x 8 H100.
# Written for occam's tests in the style of a launch script (not copied).
torchrun --nnodes 8 --nproc-per-node 8 --rdzv-backend c10d --rdzv-endpoint "$MASTER_ADDR:29500" \
  pretrain_gpt.py \
  --tensor-model-parallel-size 8 --sequence-parallel \
  --pipeline-model-parallel-size 2 \
  --num-layers-per-virtual-pipeline-stage 5 \
  --context-parallel-size 1 \
  --use-distributed-optimizer --overlap-grad-reduce --overlap-param-gather \
  --micro-batch-size 1 --global-batch-size 256 --seq-length 8192 \
  --max-position-embeddings 131072 \
  --num-layers 80 --hidden-size 8192 --ffn-hidden-size 28672 --num-attention-heads 64 \
  --group-query-attention --num-query-groups 8 --kv-channels 128 \
  --swiglu --normalization RMSNorm --position-embedding-type rope --rotary-base 500000 \
  --untie-embeddings-and-output-weights --disable-bias-linear --vocab-size 128256 \
  --recompute-granularity selective \
  --bf16 \
  --lr 1.5e-4 --min-lr 1.5e-5 --lr-decay-style cosine --train-iters 100000 \
  --data-path "$DATA" --tokenizer-type HuggingFaceTokenizer \
  --tokenizer-model meta-llama/Llama-3.1-70B \
  --save "$CKPT" --log-interval 10
