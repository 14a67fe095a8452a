"""Named numbers and counters read from real lines of the world's training frameworks
(engine/reading/numbers.py), and the names they map onto (engine/reading/vocabulary.py).

Every line is quoted as published; the comment above it names where it was found.
"""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accelbench.engine.core.events import Throughput
from accelbench.engine.core.summary import GENERIC_ALIASES
from accelbench.engine.reading.numbers import columns, counters, named_numbers, rule, table_row
from accelbench.engine.reading.vocabulary import Canon, canonical, metric_name, not_a_figure
from tests.helpers import FIXTURES

NAN = math.nan

# (line, its named numbers as (key, value, unit), its counters as (what, n, total), the
# canonical figures its keys name as (key, figure, scale))
CASES = [
    # https://github.com/epfLLM/Megatron-LLM/issues/11 (Megatron-LM)
    ((" iteration      122/  250000 | consumed samples:       124928 | elapsed time per "
      "iteration (ms): 86545.2 | learning rate: 9.150E-06 | global batch size:  1024 | lm "
      "loss: 2.504220E+00 | loss scale: 1.0 | grad norm: 0.231 | number of skipped iterations: "
      "  0 | number of nan iterations:   0 |"),
     [("consumed samples", 124928.0, ""), ("elapsed time per iteration (ms)", 86545.2, "ms"),
      ("learning rate", 9.15e-06, ""), ("global batch size", 1024.0, ""),
      ("lm loss", 2.50422, ""), ("loss scale", 1.0, ""), ("grad norm", 0.231, ""),
      ("number of skipped iterations", 0.0, ""), ("number of nan iterations", 0.0, "")],
     [("step", 122, 250000)],
     [("elapsed time per iteration (ms)", "step_time_s", 0.001), ("learning rate", "lr", 1.0),
      ("lm loss", "loss", 1.0), ("grad norm", "grad_norm", 1.0)]),
    # https://github.com/NVIDIA/Megatron-LM/issues/756
    ((" [2024-04-06 03:02:12] iteration       71/     100 | consumed samples:         9088 | "
      "elapsed time per iteration (ms): 5361.6 | throughput per GPU (TFLOP/s/GPU): 243.6 | "
      "learning rate: 1.420000E-05 | global batch size:   128 | lm loss: 1.818812E+00 | "
      "load_balancing_loss: 1.013377E+00 | loss scale: 1.0 | grad norm: 1.300 | num zeros: 0.0 "
      "| number of skipped iterations:   0 | number of nan iterations:   0 |"),
     [("consumed samples", 9088.0, ""), ("elapsed time per iteration (ms)", 5361.6, "ms"),
      ("throughput per GPU (TFLOP/s/GPU)", 243.6, "TFLOP/s/GPU"),
      ("learning rate", 1.42e-05, ""), ("global batch size", 128.0, ""),
      ("lm loss", 1.818812, ""), ("load_balancing_loss", 1.013377, ""), ("loss scale", 1.0, ""),
      ("grad norm", 1.3, ""), ("num zeros", 0.0, ""), ("number of skipped iterations", 0.0, ""),
      ("number of nan iterations", 0.0, "")],
     [("step", 71, 100)],
     [("elapsed time per iteration (ms)", "step_time_s", 0.001),
      ("throughput per GPU (TFLOP/s/GPU)", "tflops", 1.0), ("learning rate", "lr", 1.0),
      ("lm loss", "loss", 1.0), ("grad norm", "grad_norm", 1.0)]),
    # https://github.com/bigscience-workshop/Megatron-DeepSpeed/issues/396
    ((" iteration     5426/  250000 | consumed samples:        43408 | consumed tokens:     "
      "88899584 | elapsed time per iteration (ms): 4247.9 | learning rate: 2.999E-04 | global "
      "batch size:     8 | loss scale: 1.0 | grad norm: nan | actual seqlen:  2048 | number of "
      "skipped iterations:   0 | number of nan iterations:   0 | samples per second: 1.883 | "
      "TFLOPs: 78.36 |"),
     [("consumed samples", 43408.0, ""), ("consumed tokens", 88899584.0, ""),
      ("elapsed time per iteration (ms)", 4247.9, "ms"), ("learning rate", 0.0002999, ""),
      ("global batch size", 8.0, ""), ("loss scale", 1.0, ""), ("grad norm", NAN, ""),
      ("actual seqlen", 2048.0, ""), ("number of skipped iterations", 0.0, ""),
      ("number of nan iterations", 0.0, ""), ("samples per second", 1.883, ""),
      ("TFLOPs", 78.36, "")],
     [("step", 5426, 250000)],
     [("elapsed time per iteration (ms)", "step_time_s", 0.001), ("learning rate", "lr", 1.0),
      ("grad norm", "grad_norm", 1.0), ("samples per second", "samples_per_s", 1.0),
      ("TFLOPs", "tflops", 1.0)]),
    # https://github.com/NVIDIA/nccl/issues/743
    (("time (ms) | forward-compute: 193.77 | backward-compute: 73.02 | "
      "backward-params-all-reduce: 20.10 | backward-layernorm-all-reduce: 0.02 | "
      "backward-embedding-all-reduce: 0.04 | backward-reduce-model-grads: 20.22 | "
      "optimizer-copy-to-main-grad: 12.19 | optimizer-unscale-and-check-inf: 50.71 | "
      "optimizer: 63.01 | batch-generator: 25.27"),
     [("forward-compute", 193.77, "ms"), ("backward-compute", 73.02, "ms"),
      ("backward-params-all-reduce", 20.1, "ms"), ("backward-layernorm-all-reduce", 0.02, "ms"),
      ("backward-embedding-all-reduce", 0.04, "ms"),
      ("backward-reduce-model-grads", 20.22, "ms"), ("optimizer-copy-to-main-grad", 12.19, "ms"),
      ("optimizer-unscale-and-check-inf", 50.71, "ms"), ("optimizer", 63.01, "ms"),
      ("batch-generator", 25.27, "ms")],
     [],
     []),
    # https://github.com/NVIDIA/nccl/issues/743
    ("> elapsed time for building blendable dataset indices: 0.00 (sec)",
     [("elapsed time for building blendable dataset indices", 0.0, "sec")],
     [],
     []),
    # https://github.com/deepspeedai/DeepSpeed/issues/3742
    (("[2023-07-25 21:03:17,269] [INFO] [timer.py:215:stop] "
      "epoch=0/micro_step=34/global_step=34, RunningAvgSamplesPerSec=7.864669709950182, "
      "CurrSamplesPerSec=8.00912418308922, MemAllocated=59.65GB, MaxMemAllocated=63.31GB"),
     [("epoch", 0.0, ""), ("RunningAvgSamplesPerSec", 7.864669709950182, ""),
      ("CurrSamplesPerSec", 8.00912418308922, ""), ("MemAllocated", 59.65, "GB"),
      ("MaxMemAllocated", 63.31, "GB")],
     [],
     [("epoch", "epoch", 1.0), ("RunningAvgSamplesPerSec", "samples_per_s", 1.0),
      ("MemAllocated", "memory_gib", 1.0), ("MaxMemAllocated", "memory_gib", 1.0)]),
    # https://github.com/deepspeedai/DeepSpeed/issues/3742
    ((" samples/sec: 7.799 | iteration       34/   10000 | elapsed time per iteration (ms): "
      "4103.1 | learning rate: 2.111E-06 | approx flops per GPU: 112.9TFLOPS | lm_loss: "
      "1.118665E+01 | number of skipped iterations:   0 | number of nan iterations:   0 |"),
     [("samples/sec", 7.799, ""), ("elapsed time per iteration (ms)", 4103.1, "ms"),
      ("learning rate", 2.111e-06, ""), ("approx flops per GPU", 112.9, "TFLOPS"),
      ("lm_loss", 11.18665, ""), ("number of skipped iterations", 0.0, ""),
      ("number of nan iterations", 0.0, "")],
     [("step", 34, 10000)],
     [("samples/sec", "samples_per_s", 1.0),
      ("elapsed time per iteration (ms)", "step_time_s", 0.001), ("learning rate", "lr", 1.0),
      ("approx flops per GPU", "tflops", 1.0), ("lm_loss", "loss", 1.0)]),
    # https://github.com/deepspeedai/DeepSpeed/issues/3742
    (("[2023-07-25 21:03:21,037] [INFO] [logging.py:96:log_dist] [Rank 0] step=35, skipped=0, "
      "lr=[2.1731931451279077e-06, 2.1731931451279077e-06], mom=[[0.9, 0.95], [0.9, 0.95]]"),
     [("step", 35.0, ""), ("skipped", 0.0, ""), ("lr", 2.1731931451279077e-06, "")],
     [],
     [("step", "step", 1.0), ("lr", "lr", 1.0)]),
    # https://github.com/deepspeedai/DeepSpeed/issues/3742
    (("[2023-07-25 21:03:17,269] [INFO] [logging.py:96:log_dist] [Rank 0] rank=0 time (ms) | "
      "forward: 652.41 | backward: 2164.52 | backward_inner: 2001.89 | backward_allreduce: "
      "162.60 | step: 1172.13"),
     [("forward", 652.41, "ms"), ("backward", 2164.52, "ms"), ("backward_inner", 2001.89, "ms"),
      ("backward_allreduce", 162.6, "ms"), ("step", 1172.13, "ms")],
     [],
     []),
    # https://github.com/deepspeedai/DeepSpeed/issues/1825
    (("[2022-03-11 02:06:58,985] [INFO] [timer.py:189:stop] 0/40, "
      "SamplesPerSec=83.48609168106144, MemAllocated=0.26GB, MaxMemAllocated=9.02GB"),
     [("SamplesPerSec", 83.48609168106144, ""), ("MemAllocated", 0.26, "GB"),
      ("MaxMemAllocated", 9.02, "GB")],
     [],
     [("SamplesPerSec", "samples_per_s", 1.0), ("MemAllocated", "memory_gib", 1.0),
      ("MaxMemAllocated", "memory_gib", 1.0)]),
    # https://github.com/deepspeedai/DeepSpeed/pull/849
    (("[2021-03-10 15:27:46,894] [INFO] [utils.py:556:see_memory_usage] MA 0.06 GB         "
      "Max_MA 0.26 GB         CA 0.71 GB         Max_CA 1 GB"),
     [("MA", 0.06, "GB"), ("Max_MA", 0.26, "GB"), ("CA", 0.71, "GB"), ("Max_CA", 1.0, "GB")],
     [],
     []),
    # https://github.com/deepspeedai/DeepSpeed/pull/849
    (("[2021-03-10 15:27:46,895] [INFO] [utils.py:564:see_memory_usage] CPU Virtual Memory:  "
      "used = 62.62 GB, percent = 49.8%"),
     [("used", 62.62, "GB"), ("percent", 49.8, "%")],
     [],
     []),
    # https://github.com/karpathy/nanoGPT/issues/178
    ("iter 0: loss 4.2648, time 9371.81ms, mfu -100.00%",
     [("iter", 0.0, ""), ("loss", 4.2648, ""), ("time", 9371.81, "ms"), ("mfu", -100.0, "%")],
     [],
     [("iter", "step", 1.0), ("loss", "loss", 1.0), ("time", "step_time_s", 0.001),
      ("mfu", "mfu_percent", 1.0)]),
    # https://github.com/karpathy/nanoGPT/issues/178
    ("iter 110: loss 2.3950, time 892.77ms, mfu 16.60%",
     [("iter", 110.0, ""), ("loss", 2.395, ""), ("time", 892.77, "ms"), ("mfu", 16.6, "%")],
     [],
     [("iter", "step", 1.0), ("loss", "loss", 1.0), ("time", "step_time_s", 0.001),
      ("mfu", "mfu_percent", 1.0)]),
    # https://github.com/karpathy/nanoGPT/issues/178
    ("step 250: train loss 1.5440, val loss 1.7220",
     [("step", 250.0, ""), ("train loss", 1.544, ""), ("val loss", 1.722, "")],
     [],
     [("step", "step", 1.0), ("train loss", "loss", 1.0), ("val loss", "eval_loss", 1.0)]),
    # https://github.com/karpathy/nanoGPT/issues/215
    ("2023-03-22 09:33:02 iter 3020: loss nan, time 1015.95ms, mfu 14.36%",
     [("iter", 3020.0, ""), ("loss", NAN, ""), ("time", 1015.95, "ms"), ("mfu", 14.36, "%")],
     [],
     [("iter", "step", 1.0), ("loss", "loss", 1.0), ("time", "step_time_s", 0.001),
      ("mfu", "mfu_percent", 1.0)]),
    # https://github.com/pytorch/torchtitan/pull/2389
    (("[titan] 2026-02-24 19:46:17,508 - root - INFO - step:  4  loss:  7.62585  grad_norm: "
      "26.6250  memory: 66.91GiB(37.51%)  tps: 10,050  tflops: 314.71  mfu: 13.99%"),
     [("step", 4.0, ""), ("loss", 7.62585, ""), ("grad_norm", 26.625, ""),
      ("memory", 66.91, "GiB"), ("tps", 10050.0, ""), ("tflops", 314.71, ""), ("mfu", 13.99, "%")],
     [],
     [("step", "step", 1.0), ("loss", "loss", 1.0), ("grad_norm", "grad_norm", 1.0),
      ("memory", "memory_gib", 1.0), ("tps", "tokens_per_s", 1.0), ("tflops", "tflops", 1.0),
      ("mfu", "mfu_percent", 1.0)]),
    # https://github.com/pytorch/torchtitan/pull/1287
    (("[rank0]:[titan] 2025-06-16 22:30:50,322 - root - INFO - step: 200  loss:  6.1384  "
      "memory: 49.66GiB(52.28%)  tps: 5,856  tflops: 339.16  mfu: 34.29%"),
     [("step", 200.0, ""), ("loss", 6.1384, ""), ("memory", 49.66, "GiB"), ("tps", 5856.0, ""),
      ("tflops", 339.16, ""), ("mfu", 34.29, "%")],
     [],
     [("step", "step", 1.0), ("loss", "loss", 1.0), ("memory", "memory_gib", 1.0),
      ("tps", "tokens_per_s", 1.0), ("tflops", "tflops", 1.0), ("mfu", "mfu_percent", 1.0)]),
    # tests/fixtures/real/generic/tqdm_lightning_3866.txt (Lightning-AI/pytorch-lightning#3866)
    ("Epoch 0:  97% 1651/1702 [13:00<00:24,  2.11it/s, loss=0.158, v_num=0, train_loss=0.149]",
     [("Epoch", 0.0, ""), ("loss", 0.158, ""), ("train_loss", 0.149, "")],
     [("step", 1651, 1702)],
     [("Epoch", "epoch", 1.0), ("loss", "loss", 1.0), ("train_loss", "loss", 1.0)]),
    # https://github.com/official-stockfish/nnue-pytorch/issues/83 (Lightning)
    (("Epoch 1:  39%|█████████▍              | 4846/12331 [05:59<09:15, 13.47it/s, "
      "loss=0.0136, v_num=1]"),
     [("Epoch", 1.0, ""), ("loss", 0.0136, "")],
     [("step", 4846, 12331)],
     [("Epoch", "epoch", 1.0), ("loss", "loss", 1.0)]),
    # tests/fixtures/real/generic/tqdm_set_postfix_rich_2991.txt (Textualize/rich#2991)
    (("Training Epoch 1 / 1: 13%  218/1700 [00:22<01:48, 13.70it/s, all_loss=0.361, "
      "ctr_loss=0.361] "),
     [("all_loss", 0.361, ""), ("ctr_loss", 0.361, "")],
     [("epoch", 1, 1), ("step", 218, 1700)],
     []),
    # https://github.com/NVIDIA/NeMo-Framework-Launcher/issues/55 (NeMo)
    (("Epoch 0:   1%|          | 795/77225 [9:07:58<878:01:48, 41.36s/it, loss=3.1, v_num=, "
      "reduced_train_loss=3.090, global_step=794.0, consumed_samples=1.63e+6]"),
     [("Epoch", 0.0, ""), ("loss", 3.1, ""), ("reduced_train_loss", 3.09, ""),
      ("global_step", 794.0, ""), ("consumed_samples", 1630000.0, "")],
     [("step", 795, 77225)],
     [("Epoch", "epoch", 1.0), ("loss", "loss", 1.0), ("reduced_train_loss", "loss", 1.0),
      ("global_step", "step", 1.0)]),
    # https://github.com/NVIDIA-BioNeMo/bionemo-recipes/pull/740 (NeMo 2)
    (("Training epoch 0, iteration 120/149 | lr: 3e-05 | consumed_samples: 121 | "
      "global_batch_size: 1 | global_step: 120 | reduced_train_loss: 1.233 | train_step_timing "
      "in s: 0.03146 | val_loss: 4.106"),
     [("Training epoch", 0.0, ""), ("lr", 3e-05, ""), ("consumed_samples", 121.0, ""),
      ("global_batch_size", 1.0, ""), ("global_step", 120.0, ""),
      ("reduced_train_loss", 1.233, ""), ("train_step_timing in s", 0.03146, "s"),
      ("val_loss", 4.106, "")],
     [("step", 120, 149)],
     [("Training epoch", "epoch", 1.0), ("lr", "lr", 1.0), ("global_step", "step", 1.0),
      ("reduced_train_loss", "loss", 1.0), ("train_step_timing in s", "step_time_s", 1.0),
      ("val_loss", "eval_loss", 1.0)]),
    # tests/fixtures/real/trainium/optimum_llama3_nan_issue658.log (HF Trainer)
    ("{'loss': nan, 'learning_rate': 4.796747967479675e-05, 'epoch': 0.12}",
     [("loss", NAN, ""), ("learning_rate", 4.796747967479675e-05, ""), ("epoch", 0.12, "")],
     [],
     [("loss", "loss", 1.0), ("learning_rate", "lr", 1.0), ("epoch", "epoch", 1.0)]),
    # tests/fixtures/real/trainium/optimum_tinyllama_npc_nan.log (HF Trainer)
    (("{'train_runtime': 36.3738, 'train_samples_per_second': 175.951, "
      "'train_steps_per_second': 0.275, 'train_loss': nan, 'epoch': 0.0}"),
     [("train_runtime", 36.3738, ""), ("train_samples_per_second", 175.951, ""),
      ("train_steps_per_second", 0.275, ""), ("train_loss", NAN, ""), ("epoch", 0.0, "")],
     [],
     [("train_samples_per_second", "samples_per_s", 1.0), ("train_loss", "loss", 1.0),
      ("epoch", "epoch", 1.0)]),
    # https://github.com/huggingface/transformers/issues/14531 (HF Trainer)
    ("{'loss': 6.2645, 'learning_rate': 0.001, 'epoch': 0.02}",
     [("loss", 6.2645, ""), ("learning_rate", 0.001, ""), ("epoch", 0.02, "")],
     [],
     [("loss", "loss", 1.0), ("learning_rate", "lr", 1.0), ("epoch", "epoch", 1.0)]),
    # https://github.com/facebookresearch/fairseq/issues/940
    (("| epoch 001:    450 / 1891 loss=11.521, nll_loss=10.881, ppl=1886.05, wps=52922, "
      "ups=0.5, wpb=104928, bsz=5325, num_updates=445, lr=8.90889e-05, gnorm=1.543, clip=0%, "
      "oom=0, loss_scale=2.000, wall=882, train_wall=756"),
     [("epoch", 1.0, ""), ("loss", 11.521, ""), ("nll_loss", 10.881, ""), ("ppl", 1886.05, ""),
      ("wps", 52922.0, ""), ("ups", 0.5, ""), ("wpb", 104928.0, ""), ("bsz", 5325.0, ""),
      ("num_updates", 445.0, ""), ("lr", 8.90889e-05, ""), ("gnorm", 1.543, ""),
      ("clip", 0.0, "%"), ("oom", 0.0, ""), ("loss_scale", 2.0, ""), ("wall", 882.0, ""),
      ("train_wall", 756.0, "")],
     [("step", 450, 1891)],
     [("epoch", "epoch", 1.0), ("loss", "loss", 1.0), ("num_updates", "step", 1.0),
      ("lr", "lr", 1.0), ("gnorm", "grad_norm", 1.0)]),
    # https://github.com/facebookresearch/fairseq/issues/940
    (("| epoch 001 | valid on 'valid' subset | valid_loss 8.11425 | valid_nll_loss 6.8834 | "
      "valid_ppl 118.06 | num_updates 600"),
     [("epoch", 1.0, ""), ("valid_loss", 8.11425, ""), ("valid_nll_loss", 6.8834, ""),
      ("valid_ppl", 118.06, ""), ("num_updates", 600.0, "")],
     [],
     [("epoch", "epoch", 1.0), ("valid_loss", "eval_loss", 1.0), ("num_updates", "step", 1.0)]),
    # huggingface/optimum-habana@0965d8f examples/pytorch-image-models/README.md (timm's
    # train.py: a count a second that nothing names is of samples; not the average after it)
    (("Train: 1 [  50/73 ( 70%)]  Loss: 3.23 (3.76)  Time: 0.160s,  798.85/s  (0.148s,  "
      "863.22/s)  LR: 1.001e-02  Data: 0.053 (0.051)"),
     [("Train", 1.0, ""), ("Loss", 3.23, ""), ("Time", 0.16, "s"), ("", 798.85, "/s"),
      ("LR", 0.01001, ""), ("Data", 0.053, "")],
     [("step", 50, 73)],
     [("Loss", "loss", 1.0), ("Time", "step_time_s", 1.0), ("", "samples_per_s", 1.0),
      ("LR", "lr", 1.0)]),
    # the same (timm's validate(): a line led by "Test" gives the evaluation's figures, each
    # the running average after its value)
    (("Test: [  30/30]  Time: 0.022 (0.126)  Loss:   1.462 ( 1.867)  Acc@1:  63.529 ( 39.261)  "
      "Acc@5:  83.529 ( 85.096)"),
     [("Test/Time", 0.126, ""), ("Test/Loss", 1.867, ""), ("Test/Acc@1", 39.261, ""),
      ("Test/Acc@5", 85.096, "")],
     [("step", 30, 30)],
     [("Test/Loss", "eval_loss", 1.0), ("Test/Acc@1", "accuracy", 1.0)]),
    # argonne-lcf/ai-testbed-userdocs@23407d6 docs/sambanova/Example-Programs.md (logreg)
    ("Test Accuracy: 90.07 Loss: 0.3361",
     [("Test Accuracy", 90.07, ""), ("Test/Loss", 0.3361, "")],
     [],
     [("Test Accuracy", "accuracy", 1.0), ("Test/Loss", "eval_loss", 1.0)]),
    # https://github.com/facebookresearch/audiocraft/issues/318 (an epoch's count stays its own)
    ("Valid Summary | Epoch 5 | ce=3.660 | ppl=39.211 | duration=237.640",
     [("Epoch", 5.0, ""), ("Valid/ce", 3.66, ""), ("Valid/ppl", 39.211, ""),
      ("Valid/duration", 237.64, "")],
     [],
     [("Epoch", "epoch", 1.0)]),
    # aws-samples/awsome-distributed-training@7217859 3.test_cases/megatron/megatron-lm/slurm/
    # gpt3/README.md (Megatron's dataset sizes: a key that is the leading word stays as it is)
    ("       test:       11520",
     [("test", 11520.0, "")],
     [],
     []),
    # https://github.com/OpenNMT/OpenNMT-py/issues/966 (a field of a time and its unit only)
    (("[2018-09-20 19:26:51,217 INFO] Step 510000/1000000; acc:  36.21; ppl: 52.56; xent: 3.96; "
      "lr: 0.00000; 2052/1240 tok/s;  15842 sec"),
     [("acc", 36.21, ""), ("ppl", 52.56, ""), ("xent", 3.96, ""), ("lr", 0.0, ""),
      ("sec", 15842.0, "sec")],
     [("step", 510000, 1000000)],
     [("acc", "accuracy", 1.0), ("lr", "lr", 1.0)]),
    # https://github.com/awslabs/sockeye/issues/694 (counts in brackets after their word)
    (("[INFO:sockeye.training] Epoch[0] Batch [2900]   Speed: 186.94 samples/sec 8556.4  0 "
      "tokens/sec 1.59 updates/sec   perplexity=38.950971"),
     [("Epoch", 0.0, ""), ("Batch", 2900.0, ""), ("Speed", 186.94, "samples/sec"),
      ("tokens/sec", 0.0, ""), ("perplexity", 38.950971, "")],
     [],
     [("Epoch", "epoch", 1.0), ("Batch", "step", 1.0), ("Speed", "samples_per_s", 1.0),
      ("tokens/sec", "tokens_per_s", 1.0)]),
    # https://github.com/espnet/espnet/issues/2674 (ESPnet2: a count glued before its word; a
    # range of batches is none, "(trainer:486)" a module's line)
    (("[PC] 2020-11-11 16:36:59,487 (trainer:486) INFO: 5epoch:train:5251-5625batch: "
      "iter_time=0.001, forward_time=0.005, loss=1.717, backward_time=0.005, "
      "optim_step_time=2.064e-04, lr_0=0.100, train_time=0.014"),
     [("epoch", 5.0, ""), ("iter_time", 0.001, ""),
      ("forward_time", 0.005, ""), ("loss", 1.717, ""), ("backward_time", 0.005, ""),
      ("optim_step_time", 0.0002064, ""), ("lr_0", 0.1, ""), ("train_time", 0.014, "")],
     [],
     [("epoch", "epoch", 1.0), ("iter_time", "step_time_s", 1.0),
      ("loss", "loss", 1.0), ("lr_0", "lr", 1.0), ("train_time", "step_time_s", 1.0)]),
    # aws-samples/awsome-distributed-training 3.test_cases/pytorch/FSDP/slurm/README.md (a
    # batch counted is the step)
    (("0: 2025-06-17 16:25:08 I [train.py:103] Batch 5 Loss: 14.34635, Speed: 8.98 "
      "samples/sec, lr: 0.000099"),
     [("Batch", 5.0, ""), ("Loss", 14.34635, ""), ("Speed", 8.98, "samples/sec"),
      ("lr", 9.9e-05, "")],
     [],
     [("Batch", "step", 1.0), ("Loss", "loss", 1.0), ("Speed", "samples_per_s", 1.0),
      ("lr", "lr", 1.0)]),
    # https://github.com/facebookresearch/fairseq/issues/301 (the steps of an epoch after it)
    (("| epoch 011  3000 / 8223 loss=0.75 (1.35), wps=963, wpb=916, bsz=32, lr=0.001, "
      "clip=100%, gnorm=2.0545"),
     [("epoch", 11.0, ""), ("loss", 0.75, ""), ("wps", 963.0, ""), ("wpb", 916.0, ""),
      ("bsz", 32.0, ""), ("lr", 0.001, ""), ("clip", 100.0, "%"), ("gnorm", 2.0545, "")],
     [("step", 3000, 8223)],
     [("epoch", "epoch", 1.0), ("loss", "loss", 1.0), ("lr", "lr", 1.0),
      ("gnorm", "grad_norm", 1.0)]),
    # pypi nlpia2-0.2.0 nlpia2/ch08/rnn_word/checkpoint_notes/model_RNN_RELU_epochs_5.md
    # (pytorch/examples word_language_model: the batches of an epoch after it)
    ("| epoch   1 |   600/ 2983 batches | lr 20.0000 | ms/batch 11.47 | loss   nan | ppl      nan",
     [("epoch", 1.0, ""), ("lr", 20.0, ""), ("ms/batch", 11.47, ""), ("loss", NAN, ""),
      ("ppl", NAN, "")],
     [("step", 600, 2983)],
     [("epoch", "epoch", 1.0), ("lr", "lr", 1.0), ("ms/batch", "step_time_s", 0.001),
      ("loss", "loss", 1.0)]),
    # https://github.com/facebookresearch/fairseq/issues/301
    (("| epoch 010 | train loss 1.44 | train ppl 2.72 | s/checkpoint    7747 | words/s    961 "
      "| words/batch    906 | bsz    32 | lr 0.001000 | clip 100% | gnorm 2.1113"),
     [("epoch", 10.0, ""), ("train loss", 1.44, ""), ("train ppl", 2.72, ""),
      ("s/checkpoint", 7747.0, ""), ("words/s", 961.0, ""), ("words/batch", 906.0, ""),
      ("bsz", 32.0, ""), ("lr", 0.001, ""), ("clip", 100.0, "%"), ("gnorm", 2.1113, "")],
     [],
     [("epoch", "epoch", 1.0), ("train loss", "loss", 1.0), ("lr", "lr", 1.0),
      ("gnorm", "grad_norm", 1.0)]),
    # https://github.com/facebookresearch/fairseq/issues/233
    (('{"epoch": 25, "loss": "3.097", "nll_loss": "1.328", "ppl": "2.51", "wps": 1667443, '
      '"ups": "2.7", "wpb": 617156, "bsz": 16626, "num_updates": 53749, "lr": '
      '0.00019096019143386865, "gnorm": "0.194", "clip": "100%", "oom": 0.02612141621239465, '
      '"loss_scale": "4.000", "wall": 20721}'),
     [("epoch", 25.0, ""), ("loss", 3.097, ""), ("nll_loss", 1.328, ""), ("ppl", 2.51, ""),
      ("wps", 1667443.0, ""), ("ups", 2.7, ""), ("wpb", 617156.0, ""), ("bsz", 16626.0, ""),
      ("num_updates", 53749.0, ""), ("lr", 0.00019096019143386865, ""), ("gnorm", 0.194, ""),
      ("clip", 100.0, "%"), ("oom", 0.02612141621239465, ""), ("loss_scale", 4.0, ""),
      ("wall", 20721.0, "")],
     [],
     [("epoch", "epoch", 1.0), ("loss", "loss", 1.0), ("num_updates", "step", 1.0),
      ("lr", "lr", 1.0), ("gnorm", "grad_norm", 1.0)]),
    # https://github.com/facebookresearch/fairseq/issues/2338
    (("2020-07-17 07:11:02 | INFO | train_inner | epoch 001:   2800 / 160368 loss=9.255, "
      "ppl=611.12, wps=57.3, ups=0.04, wpb=1613, bsz=80, num_updates=2800, lr=2.8e-05, "
      "gnorm=3.23, train_wall=13, wall=1236"),
     [("epoch", 1.0, ""), ("loss", 9.255, ""), ("ppl", 611.12, ""), ("wps", 57.3, ""),
      ("ups", 0.04, ""), ("wpb", 1613.0, ""), ("bsz", 80.0, ""), ("num_updates", 2800.0, ""),
      ("lr", 2.8e-05, ""), ("gnorm", 3.23, ""), ("train_wall", 13.0, ""), ("wall", 1236.0, "")],
     [("step", 2800, 160368)],
     [("epoch", "epoch", 1.0), ("loss", "loss", 1.0), ("num_updates", "step", 1.0),
      ("lr", "lr", 1.0), ("gnorm", "grad_norm", 1.0)]),
    # https://github.com/open-mmlab/OpenPCDet/pull/1229 (timm style)
    (("2023-01-05 16:34:37,748   INFO  Train:    1/3 ( 33%) [   0/323 (  0%)]  Loss: 516.7 "
      "(517.)  LR: 1.000e-04  Time cost: 00:04/21:46 [00:04/1:05:18]  Acc_iter 1           "
      "Data time: 0.87(0.87)  Forward time: 3.18(3.18)  Batch time: 4.04(4.04)"),
     [("Loss", 516.7, ""), ("LR", 0.0001, ""), ("Acc_iter", 1.0, ""), ("Data time", 0.87, ""),
      ("Forward time", 3.18, ""), ("Batch time", 4.04, "")],
     [("step", 0, 323)],
     [("Loss", "loss", 1.0), ("LR", "lr", 1.0), ("Batch time", "step_time_s", 1.0)]),
    # https://github.com/open-mmlab/mmengine/pull/155 (mmengine)
    (("04/21 21:03:53 - mmengine - INFO - Epoch(train) [1][30/90]  lr: 1.000e-02  eta: 0:00:09 "
      " time: 0.004  data_time: 0.000  memory: 0  loss: -6.0185"),
     [("Epoch", 1.0, ""), ("lr", 0.01, ""), ("time", 0.004, ""), ("data_time", 0.0, ""),
      ("memory", 0.0, ""),
      ("loss", -6.0185, "")],
     [("step", 30, 90)],
     [("Epoch", "epoch", 1.0), ("lr", "lr", 1.0), ("time", "step_time_s", 1.0),
      ("loss", "loss", 1.0)]),
    # https://github.com/open-mmlab/mmdetection/issues/2672 (mmcv)
    (("2020-05-08 18:56:16,649 - mmdet - INFO - Epoch [1][2400/7517]\tlr: 0.00125, eta: "
      "4:33:09, time: 0.595, data_time: 0.032, memory: 6836, loss_rpn_cls: 0.0989, "
      "loss_rpn_bbox: 0.0477, loss_cls: 0.1939, acc: 93.4961, loss_bbox: 0.1484, loss: 0.4890"),
     [("Epoch", 1.0, ""), ("lr", 0.00125, ""), ("time", 0.595, ""), ("data_time", 0.032, ""),
      ("memory", 6836.0, ""),
      ("loss_rpn_cls", 0.0989, ""), ("loss_rpn_bbox", 0.0477, ""), ("loss_cls", 0.1939, ""),
      ("acc", 93.4961, ""), ("loss_bbox", 0.1484, ""), ("loss", 0.489, "")],
     [("step", 2400, 7517)],
     [("Epoch", "epoch", 1.0), ("lr", "lr", 1.0), ("time", "step_time_s", 1.0),
      ("acc", "accuracy", 1.0),
      ("loss", "loss", 1.0)]),
    # https://github.com/open-mmlab/mmengine/issues/380
    (('{"coco/bbox_mAP": 0.22, "coco/bbox_mAP_50": 0.367, "coco/bbox_mAP_75": 0.23, '
      '"coco/bbox_mAP_s": 0.121, "coco/bbox_mAP_m": 0.253, "coco/bbox_mAP_l": 0.277, "step": 1}'),
     [("coco/bbox_mAP", 0.22, ""), ("coco/bbox_mAP_50", 0.367, ""),
      ("coco/bbox_mAP_75", 0.23, ""), ("coco/bbox_mAP_s", 0.121, ""),
      ("coco/bbox_mAP_m", 0.253, ""), ("coco/bbox_mAP_l", 0.277, ""), ("step", 1.0, "")],
     [],
     [("step", "step", 1.0)]),
    # https://github.com/k2-fsa/icefall/pull/204
    (("INFO [train.py:529] (0/2) Epoch 11, batch 1200, loss[ctc_loss=0.1893, att_loss=0.3245, "
      "loss=0.2974, over 2450.00 frames.], tot_loss[ctc_loss=0.1494, att_loss=0.2807, "
      "loss=0.2544, over 465668.99 frames.], batch size: 7"),
     [("Epoch", 11.0, ""), ("batch", 1200.0, ""), ("ctc_loss", 0.1893, ""),
      ("att_loss", 0.3245, ""), ("loss", 0.2974, ""), ("ctc_loss", 0.1494, ""),
      ("att_loss", 0.2807, ""), ("loss", 0.2544, ""), ("batch size", 7.0, "")],
     [],
     [("Epoch", "epoch", 1.0), ("batch", "step", 1.0), ("loss", "loss", 1.0),
      ("loss", "loss", 1.0)]),
    # https://github.com/hiyouga/LlamaFactory/issues/774 (trainer_log.jsonl)
    (('{"current_steps": 3200, "total_steps": 3235, "loss": 4.4671, "eval_loss": null, '
      '"predict_loss": null, "reward": null, "learning_rate": 1.4439610072863874e-08, "epoch": '
      '0.99, "percentage": 98.92, "elapsed_time": "5:13:22", "remaining_time": "0:03:25"}'),
     [("current_steps", 3200.0, ""), ("total_steps", 3235.0, ""), ("loss", 4.4671, ""),
      ("learning_rate", 1.4439610072863874e-08, ""), ("epoch", 0.99, ""),
      ("percentage", 98.92, "")],
     [],
     [("current_steps", "step", 1.0), ("total_steps", "total_steps", 1.0), ("loss", "loss", 1.0),
      ("learning_rate", "lr", 1.0), ("epoch", "epoch", 1.0)]),
    # https://github.com/yuhuan-wu/P2T/issues/13 (DeiT-style log.txt)
    (('{"train_lr": 0.0005101835331375457, "train_loss": 3.592105409271902, "test_loss": '
      '1.110040875336596, "test_acc1": 74.15000254882813, "test_acc5": 92.4580026171875, '
      '"epoch": 150, "n_parameters": 11590840}'),
     [("train_lr", 0.0005101835331375457, ""), ("train_loss", 3.592105409271902, ""),
      ("test_loss", 1.110040875336596, ""), ("test_acc1", 74.15000254882813, ""),
      ("test_acc5", 92.4580026171875, ""), ("epoch", 150.0, ""), ("n_parameters", 11590840.0, "")],
     [],
     [("train_lr", "lr", 1.0), ("train_loss", "loss", 1.0), ("test_loss", "eval_loss", 1.0),
      ("test_acc1", "accuracy", 1.0), ("epoch", "epoch", 1.0)]),
    # tests/fixtures/real/generic/keras_16906.txt (keras-team/keras#16906)
    (("125/125 [==============================] - 7s 30ms/step - loss: 3.9305 - "
      "sparse_categorical_accuracy: 0.2280"),
     [("ms/step", 30.0, ""), ("loss", 3.9305, ""), ("sparse_categorical_accuracy", 0.228, "")],
     [],
     [("ms/step", "step_time_s", 0.001), ("loss", "loss", 1.0)]),
    # https://github.com/jiwoon-ahn/irn/issues/13
    ("step: 100/ 3305 loss:0.1896 imps:25.8 lr: 0.0973 etc:Tue Sep 17 15:01:01 2019",
     [("loss", 0.1896, ""), ("imps", 25.8, ""), ("lr", 0.0973, "")],
     [("step", 100, 3305)],
     [("loss", "loss", 1.0), ("lr", "lr", 1.0)]),
    # https://github.com/caiyuanhao1998/MST/issues/7
    (("2022-07-20 06:20:37,047 - INFO: ===> Epoch 102: testing psnr = 34.14, ssim = 0.934, "
      "time: 0.02"),
     [("Epoch", 102.0, ""), ("testing psnr", 34.14, ""), ("ssim", 0.934, ""), ("time", 0.02, "")],
     [],
     [("Epoch", "epoch", 1.0), ("time", "step_time_s", 1.0)]),
    # tests/fixtures/real/trainium/nxd_llama3_70b_16nodes_awsome.log (NxD: key value pairs)
    (("step 1 step_time 433.9763135910034s throughput 2.3233670754725364 seq/s loss "
      "1.686337987310253 grad norm 10.75"),
     [("step", 1.0, ""), ("step_time", 433.9763135910034, "s"),
      ("throughput", 2.3233670754725364, "seq/s"), ("loss", 1.686337987310253, ""),
      ("grad norm", 10.75, "")],
     [],
     [("step", "step", 1.0), ("step_time", "step_time_s", 1.0),
      ("throughput", "samples_per_s", 1.0), ("loss", "loss", 1.0),
      ("grad norm", "grad_norm", 1.0)]),
    # tests/fixtures/real/trainium/nxd_llama3_70b_nan_notes.log
    (("step 66 step_time 5.986423969268799s throughput 113.87963815345755 seq/s loss nan "
      "val-loss: None current_lr: 3.98522e-06 grad norm nan"),
     [("step", 66.0, ""), ("step_time", 5.986423969268799, "s"),
      ("throughput", 113.87963815345755, "seq/s"), ("loss", NAN, ""),
      ("current_lr", 3.98522e-06, ""), ("grad norm", NAN, "")],
     [],
     [("step", "step", 1.0), ("step_time", "step_time_s", 1.0),
      ("throughput", "samples_per_s", 1.0), ("loss", "loss", 1.0), ("current_lr", "lr", 1.0),
      ("grad norm", "grad_norm", 1.0)]),
    # tests/fixtures/real/cerebras/tf_fc_mnist_html.log (TF Estimator, in an HTML page)
    ("<td><strong>INFO:tensorflow:global step 99800: loss = 0.0 (1400.41 steps/sec)<br />",
     [("global step", 99800.0, ""), ("loss", 0.0, "")],
     [],
     [("global step", "step", 1.0), ("loss", "loss", 1.0)]),
    # gaggenwaschke/NoProp logs/log_cifar100.md (space-separated keys between "|")
    ("Epoch 10 loss 12.3880 | train 2.1s | Acc 9.32% | infer 4.4s",
     [("Epoch", 10.0, ""), ("loss", 12.388, ""), ("train", 2.1, "s"), ("Acc", 9.32, "%"),
      ("infer", 4.4, "s")],
     [],
     [("Epoch", "epoch", 1.0), ("loss", "loss", 1.0), ("Acc", "accuracy", 1.0)]),
    # CaryBond/data-science-project test_result_CGCNN/R2_0.9384/readme_output_aws.txt
    (("2025-07-07 13:55:26.649 INFO: Epoch [001/300] - Train Loss: 145.13359, Valid Loss: "
      "70.66399, LR: [0.001]"),
     [("Train Loss", 145.13359, ""), ("Valid Loss", 70.66399, ""), ("LR", 0.001, "")],
     [("epoch", 1, 300)],
     [("Train Loss", "loss", 1.0), ("Valid Loss", "eval_loss", 1.0), ("LR", "lr", 1.0)]),
    # tests/fixtures/real/sambanova/ffn_mnist_output.log
    ("Epoch [1/1], Step [10000/60000], Loss: 0.5563",
     [("Loss", 0.5563, "")],
     [("epoch", 1, 1), ("step", 10000, 60000)],
     [("Loss", "loss", 1.0)]),
    # tests/fixtures/real/generic/keras_16906.txt (keras-team/keras#16906)
    ("Epoch 1/200",
     [],
     [("epoch", 1, 200)],
     []),
    # pytorch-lightning@0240556 tests/tests_pytorch/trainer/logging_/test_eval_loop_logging.py
    ("│       extra:log3        │            7            │                          │",
     [("extra:log3", 7.0, "")],
     [],
     []),
    # pytorch-lightning@0240556 tests/tests_pytorch/trainer/logging_/test_eval_loop_logging.py
    ("│    performance:log:1    │            0            │                          │",
     [("performance:log:1", 0.0, "")],
     [],
     []),
    # pytorch-lightning@0240556 tests/tests_pytorch/trainer/logging_/test_eval_loop_logging.py
    ("│        log        │         5         │         5         │        5         │",
     [("log", 5.0, "")],
     [],
     []),
    # aws-samples/awsome-distributed-training@7217859 3.test_cases/pytorch/picotron/SmolLM-1.7B/ec2
    (("    [rank 2] Step: 3     | Loss: 8.9219 | Global batch size:   2.05K | Tokens/s:  "
      "10.61K | Tokens/s/GPU:   1.33K | Tokens:   6.14K | MFU:  0.43% | Memory usage:   1.75GB"),
     [("Step", 3.0, ""), ("Loss", 8.9219, ""), ("Global batch size", 2.05, "K"),
      ("Tokens/s", 10.61, "K"), ("Tokens/s/GPU", 1.33, "K"), ("Tokens", 6.14, "K"),
      ("MFU", 0.43, "%"), ("Memory usage", 1.75, "GB")],
     [],
     [("Step", "step", 1.0), ("Loss", "loss", 1.0), ("Tokens/s", "tokens_per_s", 1000.0),
      ("Tokens/s/GPU", "tokens_per_s", 1000.0), ("MFU", "mfu_percent", 1.0),
      ("Memory usage", "memory_gib", 1.0)]),
    # https://github.com/huggingface/nanotron/issues/390 (K/G multiples)
    (("10/17/2025 16:31:56 [INFO|DP=0|PP=0|TP=0]: iteration: 327281 / 378950 | "
      "consumed_tokens: 85.8G | elapsed_time_per_iteration_ms: 11.5K | tokens_per_sec: 22.8K | "
      "tokens_per_sec_per_gpu: 11.4K | global_batch_size: 64 | lm_loss: 2.38 | lr: 1e-05 | "
      "model_tflops_per_gpu: 38.3 | hardware_tflops_per_gpu: 38.3 | grad_norm: 1.25"),
     [("consumed_tokens", 85.8, "G"), ("elapsed_time_per_iteration_ms", 11.5, "K"),
      ("tokens_per_sec", 22.8, "K"), ("tokens_per_sec_per_gpu", 11.4, "K"),
      ("global_batch_size", 64.0, ""), ("lm_loss", 2.38, ""), ("lr", 1e-05, ""),
      ("model_tflops_per_gpu", 38.3, ""), ("hardware_tflops_per_gpu", 38.3, ""),
      ("grad_norm", 1.25, "")],
     [("step", 327281, 378950)],
     [("elapsed_time_per_iteration_ms", "step_time_s", 1.0),
      ("tokens_per_sec", "tokens_per_s", 1000.0),
      ("tokens_per_sec_per_gpu", "tokens_per_s", 1000.0),
      ("lm_loss", "loss", 1.0), ("lr", "lr", 1.0), ("model_tflops_per_gpu", "tflops", 1.0),
      ("grad_norm", "grad_norm", 1.0)]),
    # https://github.com/facebookresearch/detectron2/issues/195 (max_mem in MiB, as "3961M")
    (("[11/01 11:27:04 d2.utils.events]: eta: 8:05:12  iter: 1259  total_loss: 1.012  "
      "loss_cls: 0.714  loss_box_reg: 0.291  time: 0.3322  data_time: 0.0334  lr: 0.010000  "
      "max_mem: 3961M"),
     [("iter", 1259.0, ""), ("total_loss", 1.012, ""), ("loss_cls", 0.714, ""),
      ("loss_box_reg", 0.291, ""), ("time", 0.3322, ""), ("data_time", 0.0334, ""),
      ("lr", 0.01, ""), ("max_mem", 3961.0, "M")],
     [],
     [("iter", "step", 1.0), ("total_loss", "loss", 1.0), ("time", "step_time_s", 1.0),
      ("lr", "lr", 1.0), ("max_mem", "memory_gib", 2.0**-10)]),
    # https://github.com/tensorflow/models/issues/2980 (a value its unit names)
    ("INFO:tensorflow:global step 1: loss = 79.3501 (57.126 sec/step)",
     [("global step", 1.0, ""), ("loss", 79.3501, ""), ("sec/step", 57.126, "")],
     [],
     [("global step", "step", 1.0), ("loss", "loss", 1.0), ("sec/step", "step_time_s", 1.0)]),
    # https://github.com/OpenNMT/OpenNMT-py/issues/709
    (("Epoch  1, 12900/37527; acc:   4.48; ppl: 35173.75; xent:  10.47; 3599 src tok/s; 3678 "
      "tgt tok/s;   9861 s elapsed"),
     [("Epoch", 1.0, ""), ("acc", 4.48, ""), ("ppl", 35173.75, ""), ("xent", 10.47, ""),
      ("src tok/s", 3599.0, ""), ("tgt tok/s", 3678.0, ""), ("elapsed", 9861.0, "s")],
     [("step", 12900, 37527)],
     [("Epoch", "epoch", 1.0), ("acc", "accuracy", 1.0), ("src tok/s", "tokens_per_s", 1.0)]),
    # https://github.com/hpcaitech/ColossalAI/issues/1400 (a bar's postfix)
    (("[Epoch 5 / Train]: 100%|██████████| 1/1 [00:00<00:00,  2.05it/s, loss=107, lr=0.00015, "
      "throughput=8.2047 sample_per_sec, 7.6092 Tflops]"),
     [("loss", 107.0, ""), ("lr", 0.00015, ""), ("throughput", 8.2047, "sample_per_sec"),
      ("Tflops", 7.6092, "")],
     [("step", 1, 1)],
     [("loss", "loss", 1.0), ("lr", "lr", 1.0), ("throughput", "samples_per_s", 1.0),
      ("Tflops", "tflops", 1.0)]),
    # tests/fixtures/real/cerebras/csx_r20_bert.log (a rate its unit names as samples)
    (("2023-11-29 20:08:14,365 INFO:   | Train Device=CSX, Step=100, Loss=9.50000, "
      "Rate=4088.28 samples/sec, GlobalRate=4088.26 samples/sec"),
     [("Step", 100.0, ""), ("Loss", 9.5, ""), ("Rate", 4088.28, "samples/sec"),
      ("GlobalRate", 4088.26, "samples/sec")],
     [],
     [("Step", "step", 1.0), ("Loss", "loss", 1.0), ("Rate", "samples_per_s", 1.0),
      ("GlobalRate", "samples_per_s", 1.0)]),
    # github.com/pacman100/accelerate-aws-sagemaker/README.md (mpirun's prefix: a rank glued
    # to its word is no figure)
    ("[1,mpirank:0,algo-1]<stdout>:epoch 2: {'accuracy': 0.75, 'f1': 0.838095238095238}",
     [("epoch", 2.0, ""), ("accuracy", 0.75, ""), ("f1", 0.838095238095238, "")],
     [],
     [("epoch", "epoch", 1.0), ("accuracy", "accuracy", 1.0)]),
    # https://github.com/facebookresearch/detectron2/issues/1563 (a time a step, spaced, in
    # parentheses: its unit names it)
    (("[06/09 11:05:25 d2.engine.hooks]: Overall training speed: 22 iterations in 0:01:02 "
      "(2.8448 s / it)"),
     [("Overall training speed", 22.0, ""), ("s / it", 2.8448, "")],
     [],
     [("s / it", "step_time_s", 1.0)]),
    # https://github.com/Open-Athena/MarinFold/issues/160 (Levanter: a key that is no
    # figure's, and a time a step as its unit)
    ("Progress on:train 586it/2.06kit rate:5.5s/it remaining:2:16:02 elapsed:55:45 loss=2.45",
     [("rate", 5.5, "s/it"), ("loss", 2.45, "")],
     [],
     [("rate", "step_time_s", 1.0), ("loss", "loss", 1.0)]),
    # https://github.com/unslothai/unsloth/issues/1140 (transformers' notebook bar: "[n/N
    # elapsed < remaining, ...]"; detectron2's "[06/09 11:05:25" above is a date: no counter)
    ("[ 22/290 02:50 < 38:04, 0.12 it/s, Epoch 0.36/5]",
     [],
     [("step", 22, 290)],
     []),
    # https://github.com/jiesutd/NCRFpp/issues/100 (a key's count of a total and their ratio:
    # the ratio is the key's; the count of the total is no step counter)
    ("     Instance: 12500; Time: 5.25s; loss: 367.3678; acc: 141830/170170=0.8335",
     [("Instance", 12500.0, ""), ("Time", 5.25, "s"), ("loss", 367.3678, ""), ("acc", 0.8335, "")],
     [],
     [("Time", "step_time_s", 1.0), ("loss", "loss", 1.0), ("acc", "accuracy", 1.0)]),
    # https://github.com/google/flax/issues/3364 (clu's logging writer: the step in brackets
    # leads the key=value pairs)
    (("I1002 21:43:14.805023 139917864867392 logging_writer.py:35] [936] "
      "eval_accuracy=0.005859375, eval_loss=6.6112446784973145"),
     [("step", 936.0, ""), ("eval_accuracy", 0.005859375, ""),
      ("eval_loss", 6.6112446784973145, "")],
     [],
     [("step", "step", 1.0), ("eval_accuracy", "accuracy", 1.0), ("eval_loss", "eval_loss", 1.0)]),
    # https://github.com/flairNLP/flair/issues/517 (a dev set's line, led by its word after the
    # logged date: its keys are the evaluation's; the epoch's line before it is the training's)
    ("2019-02-19 18:37:12,571 DEV  : loss 0.03877527 - f-score 0.5586 - acc 0.5586",
     [("DEV/loss", 0.03877527, ""), ("DEV/f-score", 0.5586, ""), ("DEV/acc", 0.5586, "")],
     [],
     [("DEV/loss", "eval_loss", 1.0), ("DEV/acc", "accuracy", 1.0)]),
    ("2019-02-19 18:37:12,097 EPOCH 1 done: loss 0.0350 - lr 0.1000 - bad epochs 0",
     [("EPOCH", 1.0, ""), ("loss", 0.035, ""), ("lr", 0.1, ""), ("bad epochs", 0.0, "")],
     [],
     [("EPOCH", "epoch", 1.0), ("loss", "loss", 1.0), ("lr", "lr", 1.0)]),
]


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def _printed(line: str, named) -> float:
    """The value of ``named``'s text in ``line`` (``11.5`` of ``11.5K``)."""
    return float(line[named.start:named.end].replace(",", ""))


@pytest.mark.parametrize(("line", "named", "counted", "figures"), CASES)
def test_named_numbers_of_real_lines(line, named, counted, figures):
    found = [(n.key, n.value, n.unit) for n in named_numbers(line)]
    assert [(k, u) for k, _, u in found] == [(k, u) for k, _, u in named]
    assert all(_same(a, b) for (_, a, _), (_, b, _) in zip(found, named, strict=True))


@pytest.mark.parametrize(("line", "named", "counted", "figures"), CASES)
def test_counters_of_real_lines(line, named, counted, figures):
    assert [(c.what, c.n, c.total) for c in counters(line)] == counted


@pytest.mark.parametrize(("line", "named", "counted", "figures"), CASES)
def test_canonical_figures_of_real_lines(line, named, counted, figures):
    assert [(n.key, c.name, c.scale) for n in named_numbers(line)
            if (c := canonical(n.key, n.unit))] == figures


@pytest.mark.parametrize(("line", "named", "counted", "figures"), CASES)
def test_spans_are_the_numbers_texts(line, named, counted, figures):
    for n in named_numbers(line):
        assert _same(_printed(line, n), n.value)
    for c in counters(line):
        assert (int(line[c.start:c.end]), int(line[c.total_start:c.total_end])) == (c.n, c.total)


NOT_FIGURES = [
    # https://github.com/hiyouga/LlamaFactory/issues/5211 (versions)
    "- PyTorch version: 2.4.0+cu121 (GPU)",
    "- Python version: 3.8.19",
    "- Platform: Linux-5.15.0-25-generic-x86_64-with-glibc2.17",
    "- `llamafactory` version: 0.8.4.dev0",
    # https://github.com/hiyouga/LlamaFactory/issues/7032 (torchrun's failure summary)
    "  time      : 2025-02-21_20:07:38",
    "  host      : iZl4v544jr5cejwaqci3xvZ",
    "  rank      : 0 (local_rank: 0)",
    "  exitcode  : 1 (pid: 14661)",
    # https://github.com/lzhxmu/CPPO/issues/6
    "  traceback : Signal 9 (SIGKILL) received by PID 14750",
    # https://github.com/dhcode-cpp/X-R1/issues/23 (glog prefix: date, time, pid, file:line)
    ("E0217 16:43:29.165000 355419 torch/distributed/elastic/multiprocessing/api.py:869] "
     "failed (exitcode: 1) local_rank: 1 (pid: 355716) of binary: /usr/bin/python3.11"),
    ("W0217 16:43:26.140000 355419 torch/distributed/elastic/multiprocessing/api.py:897] "
     "Sending process 355718 closing signal SIGTERM"),
    # https://github.com/xiuqhou/Salience-DETR/issues/4
    ("[2024-05-08 08:47:31,261] torch.distributed.elastic.multiprocessing.api: [WARNING] "
     "Sending process 5938 closing signal SIGTERM"),
    # https://github.com/facebookresearch/MetaICL/issues/8
    "Child process 17057 (local_rank 0) FAILED (exitcode 1)",
    # https://github.com/pytorch/pytorch/issues/116974 (IP and port, errno, ranks)
    ("[W socket.cpp:426] [c10d] The server socket has failed to bind to 0.0.0.0:29500 "
     "(errno: 98 - Address already in use)."),
    "  master_port=49936",
    "  group_rank=0",
    "  local_ranks=[0, 1]",
    # https://github.com/pytorch/pytorch/issues/22531 (host:pid:tid, IP, hex, NCCL version)
    "ZBOX-EN1080K:10379:10379 [0] NCCL INFO NET/Socket : Using [0]eth0:30.4.241.186<0>",
    "NCCL version 2.4.2+cuda10.0",
    ("ZBOX-EN1080K:10379:10390 [0] NCCL INFO comm 0x7ff1c0001920 rank 0 nranks 2 cudaDev 0 "
     "nvmlDev 0"),
    # https://github.com/facebookresearch/deit/issues/28
    "| distributed init (rank 3): env://",
    # https://github.com/Facico/Chinese-Vicuna/issues/113 (a traceback's file and line)
    '  File "/home/changquan/anaconda3/envs/lang/bin/torchrun", line 8, in <module>',
    # https://github.com/NVIDIA/nccl/issues/743 (a date and a time of day)
    "[after dataloaders are built] datetime: 2022-10-31 08:35:51 ",
    # https://github.com/pytorch/torchtitan/pull/1287 (a bare number, ranks in brackets)
    ("[rank0]:[titan] 2025-06-16 22:30:48,735 - root - INFO - [GC] Peforming periodical GC "
     "collection. 0.06 seconds."),
    # https://github.com/jiwoon-ahn/irn/issues/13 (a date after a name)
    "step.train_cam: Tue Sep 17 14:26:39 2019",
    # CaryBond/data-science-project test_result_CGCNN/R2_0.9384/readme_output_aws.txt
    "2025-07-07 13:50:09.939 INFO: torch version: 2.7.1+cu126",
    "2025-07-07 13:55:26.653 INFO:   [SAVE] Best model at epoch 1.",
    # pytorch-lightning@0240556 tests/tests_pytorch/trainer/logging_/test_eval_loop_logging.py
    # (a rich table's header; a metric logged on the second dataloader only)
    "┃       Test metric       ┃      DataLoader 0       ┃       DataLoader 1       ┃",
    "│     different value     │                         │           1.5            │",
    # https://github.com/espnet/espnet/issues/2674 (a file named for its epoch; a module's line)
    ("[PC] 2020-11-11 16:41:04,632 (trainer:306) INFO: The model files were removed: "
     "exp/lm_train_lm_bpe250/6epoch.pth"),
    "[PC] 2020-11-11 16:41:04,630 (trainer:286) INFO: The best model has been updated: valid.loss",
]


# (fixture under tests/fixtures/real, line number): lines of logs kept there
NOT_FIGURES_IN_FIXTURES = [
    ("groq/minilm.log", 25),  # a tqdm bar's percentage: "Downloading data files:   0%|"
    ("slurm/sacct_text_private.txt", 4),  # a table's columns: "root          1  COMPLETED"
    ("sambanova/sambatune_uno_failed_ccle.log", 116),  # "Deprecated in NumPy 1.20; for ..."
    ("sambanova/bert_large_min_throughput_assertion.log", 27),  # "at least 560000.0, ..."
    ("sambanova/bert_large_min_throughput_assertion.log", 29),  # "Terminating job step 30399.0"
]


@pytest.mark.parametrize("line", NOT_FIGURES)
def test_ids_versions_dates_and_bare_numbers_are_not_figures(line):
    assert named_numbers(line) == []
    assert counters(line) == []


def test_a_bars_time_an_iteration_is_not_named():
    """A tqdm bar's ``8.70s/it]`` is its bar's (tests/fixtures/real/ipu/resnet50_pod4_poprun.log,
    line 38); detectron2's spaced ``(2.8448 s / it)`` is named by its unit (CASES)."""
    line = (FIXTURES / "real" / "ipu/resnet50_pod4_poprun.log").read_text(
        encoding="utf-8").splitlines()[37]
    assert [(n.key, n.value) for n in named_numbers(line)] == [("Loss", 6.7508),
                                                               ("Accuracy", 0.61)]


@pytest.mark.parametrize(("path", "number"), NOT_FIGURES_IN_FIXTURES)
def test_bar_percentages_table_columns_and_prose_are_not_named(path, number):
    line = (FIXTURES / "real" / path).read_text(encoding="utf-8").splitlines()[number - 1]
    assert named_numbers(line) == []


def test_colours_are_read_through_and_spans_stay_the_lines():
    # torchtitan colours its step line (pytorch/torchtitan torchtitan/train.py's
    # color.red/green/... around each field): the same line as PR #2389's, coloured
    line = ("[titan] 2026-02-24 19:46:17,508 - root - INFO - \x1b[31mstep:  4  \x1b[32mloss:  "
            "7.62585  \x1b[33mmemory: 66.91GiB(37.51%)  \x1b[34mtps: 10,050  \x1b[36mtflops: "
            "314.71  \x1b[35mmfu: 13.99%\x1b[39m")
    named = named_numbers(line)
    assert [(n.key, n.value, n.unit) for n in named] == [
        ("step", 4, ""), ("loss", 7.62585, ""), ("memory", 66.91, "GiB"), ("tps", 10050, ""),
        ("tflops", 314.71, ""), ("mfu", 13.99, "%")]
    assert [line[n.start:n.end] for n in named] == ["4", "7.62585", "66.91", "10,050",
                                                    "314.71", "13.99"]


def test_nested_json_keys_are_flattened():
    # https://github.com/open-mmlab/mmengine/issues/380 reports scalars flat; W&B-style
    # nested summaries are the same numbers one level down
    line = '{"train": {"loss": 0.5, "lr": 1e-4}, "eval": {"coco": {"bbox_mAP": 0.22}}, "step": 1}'
    assert [(n.key, n.value) for n in named_numbers(line)] == [
        ("train/loss", 0.5), ("train/lr", 1e-4), ("eval/coco/bbox_mAP", 0.22), ("step", 1)]
    assert canonical("train/loss", "") == Canon("loss", 1.0)


@pytest.mark.parametrize(("key", "unit", "figure"), [
    ("mem", "MB", Canon("memory_gib", 2.0**-10)),  # VOCAB: "mem 1234MB"
    ("memory", "MiB", Canon("memory_gib", 2.0**-10)),
    ("max_memory_allocated", "GB", Canon("memory_gib", 1.0)),
    ("memory", "", None),  # mmengine's "memory: 6836" (MB, unsaid): no guess
    ("mfu", "", Canon("mfu_percent", 100.0)),  # a fraction
    ("MFU", "%", Canon("mfu_percent", 1.0)),
    ("time", "s", Canon("step_time_s", 1.0)),
    ("step_time_ms", "", Canon("step_time_s", 1e-3)),  # the unit at the name's end
    ("time", "%", None),
    ("step", "ms", None),  # DeepSpeed's "time (ms) | ... | step: 1172.13"
    ("throughput", "tokens/s", Canon("tokens_per_s", 1.0)),
    ("throughput", "samples/s", Canon("samples_per_s", 1.0)),
    ("wps", "", None),  # fairseq's words per second are not tokens
    ("tok/s", "", Canon("tokens_per_s", 1.0)),
    ("tokens_per_second", "", Canon("tokens_per_s", 1.0)),
    ("validation loss", "", Canon("eval_loss", 1.0)),
    ("Loss", "", Canon("loss", 1.0)),
    ("train/accuracy", "", None),  # a training accuracy is not the evaluation's
    ("approx flops per GPU", "GFLOP/s", Canon("tflops", 1e-3)),
    ("throughput", "it/s", None),  # a bar's iterations are not samples
    ("throughput", "tokens", None),  # a count, not a rate
    ("tokens per GPU (tokens/s/GPU)", "", Canon("tokens_per_s", 1.0)),  # a Megatron fork's
    ("tflops", "FLOPS", None),  # FLOP/s with no prefix: no guess
    ("rate", "s/it", Canon("step_time_s", 1.0)),  # Levanter's "rate:5.5s/it": a time a step
    ("iter time", "ms/it", Canon("step_time_s", 1e-3)),
    ("rate", "it/s", None),  # steps a second: no time a step, no samples
    ("loss", "s/it", Canon("loss", 1.0)),  # a unit names the figure of no key that has one
    ("dev_loss", "", Canon("eval_loss", 1.0)),  # a dev set's loss is an evaluation's
    ("device_loss", "", None),
])
def test_canonical_scales_units(key, unit, figure):
    assert canonical(key, unit) == figure


# keys of the framework corpus' logs (tests/fixtures/real/frameworks), each as its source prints it
@pytest.mark.parametrize(("key", "unit", "figure"), [
    ("max allocated", "MB", Canon("memory_gib", 2.0**-10)),  # NVIDIA/Megatron-LM#60
    ("reserved", "MB", Canon("memory_gib", 2.0**-10)),  # NVIDIA/Megatron-LM#60
    # wangshuai09/Notebook DeepSpeed/特性适配/chat特性适配.md (DeepSpeed-Chat's reward model)
    ("acc (higher is better)", "", Canon("accuracy", 1.0)),
    ("Training time", "s", None),  # Lightning-AI/litgpt#1110: the whole run's, not a step's
    ("train_time", "", Canon("step_time_s", 1.0)),  # espnet/espnet#2674: an iteration's
    ("tokens per gpu per second (tgs)", "", Canon("tokens_per_s", 1.0)),  # argonne-lcf M-DS
    ("src tok/s", "", Canon("tokens_per_s", 1.0)),  # OpenNMT/OpenNMT-py#709
    ("ms/batch", "", Canon("step_time_s", 1e-3)),  # pytorch/examples word_language_model
    ("Train memory/allocated_mem", "GB", Canon("memory_gib", 1.0)),  # Composer (awsome-dt)
    ("seconds", "", Canon("step_time_s", 1.0)),  # AI-Hypercomputer/maxtext#8
    ("val", "", Canon("eval_loss", 1.0)),  # Lightning-AI/litgpt#1607 "loss train: .., val: .."
    ("Memory used", "GB", Canon("memory_gib", 1.0)),  # Lightning-AI/litgpt#1110
    ("throughput/device/tokens_per_second", "", Canon("tokens_per_s", 1.0)),  # allenai/OLMo#692
    ("System/Peak GPU Memory (MB)", "", Canon("memory_gib", 2.0**-10)),  # allenai/OLMo#692
    ("avg_batch_cost", "s", Canon("step_time_s", 1.0)),  # Topdu/OpenOCR#9
    ("batch_cost", "", Canon("step_time_s", 1.0)),  # PaddlePaddle/PaddleSeg#928
    ("sec/step", "", Canon("step_time_s", 1.0)),  # tensorflow/models#2980
    ("eval epoch", "", Canon("epoch", 1.0)),  # google/flax#3364: the epoch it evaluates
    ("eval_runtime", "", None),  # (the evaluation's time is no step's)
])
def test_canonical_names_of_the_framework_corpus(key, unit, figure):
    assert canonical(key, unit) == figure


# the names Lightning's LearningRateMonitor logs (Lightning-AI/pytorch-lightning
# src/lightning/pytorch/callbacks/lr_monitor.py: "lr-" + the optimizer's class, "/pg<n>" of
# a param group, "-momentum" and "-weight_decay" beside it), as in a metrics.csv's header
# (Casanovo's: "epoch,...,lr-Adam,lr-Adam-momentum,lr-Adam-weight_decay,step,...")
@pytest.mark.parametrize(("key", "figure"), [
    ("lr-Adam", Canon("lr", 1.0)), ("lr-AdamW", Canon("lr", 1.0)),
    ("lr-SGD/pg1", Canon("lr", 1.0)), ("lr-SGD/pg2", None), ("lr-Adam-1", None),
    ("lr-Adam-momentum", None), ("lr-Adam-weight_decay", None),
])
def test_canonical_names_of_lightnings_lr_monitor(key, figure):
    assert canonical(key, "") == figure


@pytest.mark.parametrize(("key", "name"), [
    ("lm loss", "lm_loss"), ("train/loss", "train_loss"), ("Acc@1", "acc_1"),
    ("throughput per GPU (TFLOP/s/GPU)", "throughput_per_gpu_tflop_s_gpu"),
    ("number of skipped iterations", "number_of_skipped_iterations"), ("num zeros", "num_zeros"),
])
def test_metric_names(key, name):
    assert metric_name(key) == name


@pytest.mark.parametrize(("name", "never"), [
    ("mpirank", True), ("process_id", True), ("pid", True), ("local_ranks", True),
    ("slurm_job_id", True),
    # figures whose names merely hold the letters: "valid" ends in "id", "ranking" has "rank"
    ("valid", False), ("ranking_loss", False),
])
def test_ids_and_ranks_are_never_figures(name, never):
    assert not_a_figure(name) is never


def test_the_summary_and_events_know_the_canonical_names():
    # the figures the run summary picks (summary.GENERIC_ALIASES) and Throughput's field
    # are named as canonical() names them, so a figure read by shape reaches both
    assert GENERIC_ALIASES["loss"] == "final_loss"
    assert GENERIC_ALIASES["eval_loss"] == "eval_loss"
    assert GENERIC_ALIASES["accuracy"] == "accuracy"
    assert "samples_per_s" in {f.name for f in dataclasses.fields(Throughput)}
    assert canonical("lm loss", "") == Canon("loss", 1.0)
    assert canonical("RunningAvgSamplesPerSec", "") == Canon("samples_per_s", 1.0)


@settings(max_examples=300, deadline=None, database=None)
@given(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=120)
       | st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80)
       | st.lists(st.sampled_from(["loss", ": ", "=", " ", "1,234", "-0.5", "1e-3", "nan", "ms",
                                   "GiB", "%", "|", "{'a': ", "}", "[", "]", "/", "12", "(ms)",
                                   "step", "\x1b[31m", ", ", "│", "None ", "K", "M"]),
                         max_size=30)
         .map("".join))
def test_any_line_reads_without_error_and_spans_parse(line):
    for n in named_numbers(line):
        assert n.key
        assert 0 <= n.start < n.end <= len(line)
        assert _same(_printed(line, n), n.value)
    for c in counters(line):
        assert (int(line[c.start:c.end]), int(line[c.total_start:c.total_end])) == (c.n, c.total)
        assert 0 <= c.n <= c.total


# A table: a header line of names, rows of numbers in its columns (sources: the fixtures
# under tests/fixtures/real/frameworks named beside each).
TABLES = [
    (  # ultralytics_yolov8_train_issue7653.log: the epoch's row ends in its tqdm bar
        "      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size",
        ("    72/1000      6.73G      1.096     0.4883      1.098          8        640: 100%|"
        "██████████| 16/16 [00:06<00:00,  2.57it/s]"),
        [("Epoch", 72.0, ""), ("GPU_mem", 6.73, "G"), ("box_loss", 1.096, ""),
         ("cls_loss", 0.4883, ""), ("dfl_loss", 1.098, ""), ("Instances", 8.0, ""),
         ("Size", 640.0, "")]),
    (  # the same: the validation's header ends in its bar; its row starts with a label
        ("                 Class     Images  Instances      Box(P          R      mAP50  "
        "mAP50-95): 100%|██████████| 8/8 [00:03<00:00,  2.18it/s]"),
        "                   all        722       1444      0.994      0.995      0.995      0.734",
        [("Images", 722.0, ""), ("Instances", 1444.0, ""), ("Box(P", 0.994, ""),
         ("R", 0.995, ""), ("mAP50", 0.995, ""), ("mAP50-95)", 0.734, "")]),
    (  # fastai_tsai_nan_table_issue639.log: tab-separated, a time of mm:ss is no figure
        "epoch\ttrain_loss\tvalid_loss\taccuracy\ttime",
        "3\tnan\tnan\t0.958595\t00:03",
        [("epoch", 3.0, ""), ("train_loss", NAN, ""), ("valid_loss", NAN, ""),
         ("accuracy", 0.958595, "")]),
    (  # hf_model_card_whisper_training_results.log: a Markdown table
        "| Training Loss | Epoch | Step | Validation Loss | Wer     |",
        "| 0.0001        | 33.0  | 5000 | 1.2201          | 44.6966 |",
        [("Training Loss", 0.0001, ""), ("Epoch", 33.0, ""), ("Step", 5000.0, ""),
         ("Validation Loss", 1.2201, ""), ("Wer", 44.6966, "")]),
]


@pytest.mark.parametrize(("header", "row", "named"), TABLES)
def test_a_tables_rows_are_named_by_its_header(header, row, named):
    names = columns(header)
    assert names is not None
    found = table_row(names, header, row)
    assert found is not None
    assert [(n.key, n.unit) for n in found] == [(key, unit) for key, _, unit in named]
    assert [n.value for n in found] == pytest.approx([v for _, v, _ in named], nan_ok=True)
    assert all(row[n.start:n.end].lower() in (f"{n.value:g}", "nan") or math.isclose(
        float(row[n.start:n.end]), n.value) for n in found)


@pytest.mark.parametrize("line", [
    "iter 100: loss 4.2, time 12ms",  # named numbers, no header
    "Epoch 1/10 loss: 0.5  acc: 0.3",
    "[2023-09-17 13:15:13,336] [INFO] [axolotl.utils.dataloader._len_est:264]",
    "Job ID  Username  2041991",  # a cell that is a number
    "loss  acc",  # two names only
])
def test_a_line_of_values_or_few_names_heads_no_table(line):
    assert columns(line) is None


def test_a_line_that_does_not_fit_the_header_is_no_row():
    """Another number of cells, fewer than two numbers, a Markdown rule: no row (the
    reader stops there). The header: ultralytics_yolov8_train_issue7653.log's."""
    header = "      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size"
    names = columns(header)
    assert names is not None
    assert table_row(names, header, "                   all        722       1444      0.994"
                                    "      0.995      0.995      0.734") is None  # (7 cells:
    # the validation's row, not under these names)
    assert table_row(names, header, "  a  b  c  d  e  f  7") is None
    assert table_row(names, header, "Transferred 355/355 items from pretrained weights") is None
    assert rule("|:-------------:|:-----:|:----:|") and not rule("-- 10 640 --")
