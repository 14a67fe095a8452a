"""The figures a user reads off each GPU training framework's real log
(tests/fixtures/real/frameworks), for real_figures.py.

Written down from each fixture's text (its last step and total, the losses, learning rate,
throughput in samples, tokens and TFLOP/s, MFU, time per step, memory, accuracy, and how
the run ended), never from what accelbench gives. A canonical figure is given as printed,
with its key and unit (``step_time(812.3, "ms", "elapsed time per iteration (ms)")``).
"""

from __future__ import annotations

from real_figures import (
    Fixture,
    acc,
    eval_loss,
    loss,
    lr,
    memory,
    mfu,
    rate,
    secs,
    status,
    step,
    step_time,
    tflops,
    tokens_per_s,
    total,
    value,
)

MEGATRON = "Megatron-LM `iteration N/ M |` lines"
MEGATRON_DS = "Megatron-DeepSpeed (iteration lines beside DeepSpeed's)"
DEEPSPEED = "DeepSpeed `[Rank 0] step=` and `RunningAvgSamplesPerSec=`"
TITAN = "torchtitan `step: N  loss: ...  tps: ...  mfu: ...`"
NANOGPT = "nanoGPT `iter N: loss X, time Yms, mfu Z%`"
TIMM = "timm `Train: E [ n/N ( p%)]` and `Test:` lines"


def _titan(name: str, last: int, loss_: float, grad: float | None, gib: float,
           tps: int, tf: float, mfu_: float) -> Fixture:
    figures = [step(last), loss(loss_), memory(gib, "GiB", "memory"),
               tokens_per_s(tps, "tps"), tflops(tf, "tflops"), mfu(mfu_)]
    if grad is not None:
        figures.append(value(grad, "grad_norm", "grad_norm"))
    return Fixture(f"frameworks/{name}", TITAN, figures)


def listed() -> list[Fixture]:
    """Every framework fixture with its figures."""
    return [
        # --- Megatron-LM and its forks ------------------------------------------------
        Fixture("frameworks/megatron_lm_deepseek_v2_lite_h100.log", MEGATRON, [
            step(60), total(5000),
            step_time(61681.5, "ms", "elapsed time per iteration (ms)"),
            tflops(68.2, "throughput per GPU (TFLOP/s/GPU)"),
            value(61440, "consumed samples", "consumed_samples")]),
        Fixture("frameworks/megatron_llm_epfl_issue11.log", MEGATRON, [
            step(125), total(250000), loss(2.477393), lr(9.375e-06, "learning rate"),
            step_time(89075.2, "ms", "elapsed time per iteration (ms)"),
            value(0.356, "grad norm", "grad_norm")]),
        # --- Megatron-DeepSpeed -------------------------------------------------------
        Fixture("frameworks/megatron_deepspeed_alcf_polaris.log", MEGATRON_DS, [
            step(200), total(317892), loss(5.897035), lr(2.407e-04, "learning rate"),
            step_time(14541.4, "ms", "elapsed time per iteration (ms)"), rate(52.815),
            tokens_per_s(1126.713, "tokens per gpu per second (tgs)"),
            tflops(68.63, "TFLOPs"), rate(58.730745476291396),
            memory(19.52, "GB", "MaxMemAllocated")]),
        # --- DeepSpeed ----------------------------------------------------------------
        Fixture("frameworks/deepspeed_bert_squad_cscs.log", DEEPSPEED, [
            step(40), lr(5e-05), rate(229.93929267351086),
            memory(15.06, "GB", "MaxMemAllocated")]),
        Fixture("frameworks/deepspeed_chat_reward_npu.log", DEEPSPEED, [
            step(470), lr(6.557954618867102e-08), rate(25.721826080545203),
            memory(38.49, "GB", "MaxMemAllocated"), loss(0.6616564282085736),
            acc(0.6418749690055847), status("done")]),
        # --- torchtitan ---------------------------------------------------------------
        _titan("torchtitan_dcp_zoc_pr1287.log", 250, 5.8383, None, 49.66, 5862, 339.48,
               34.33),
        _titan("torchtitan_grad_norm_pr3393.log", 21, 3.00867, 0.6348, 9.46, 7304, 0.52,
               0.17),
        _titan("torchtitan_moe_every_rank_pr2389.log", 5, 7.07623, 46.5, 66.91, 10007,
               313.36, 13.93),
        # --- nanoGPT ------------------------------------------------------------------
        Fixture("frameworks/nanogpt_rope_shakespeare_char_mps.log", NANOGPT, [
            step(500), loss(1.9189), eval_loss(1.9168, "val loss"),
            step_time(2226.66, "ms", "time"), mfu(0.16)]),
        Fixture("frameworks/nanogpt_shakespeare_char_v100.log", NANOGPT, [
            step(440), loss(1.3500), eval_loss(1.7322, "val loss"),
            step_time(1395.62, "ms", "time"), mfu(10.57)]),
        # --- timm ---------------------------------------------------------------------
        Fixture("frameworks/timm_resnet50_hpu_optimum_habana.log", TIMM, [
            step(50), total(73), loss(3.23), lr(1.001e-02, "LR"), rate(798.85),
            step_time(0.160, "s", "Time"), eval_loss(1.867, "Loss"), acc(39.261)]),
        # --- MaxText ------------------------------------------------------------------
        Fixture("frameworks/maxtext_v3_8_issue8.log", "MaxText `completed step:` lines", [
            step(15109), loss(2.191), step_time(2.166, "s", "seconds"),
            tflops(36.739, "TFLOP/s")]),
        # --- audiocraft (dora) --------------------------------------------------------
        Fixture("frameworks/audiocraft_musicgen_summaries_issue318.log",
                "audiocraft `Train Summary | Epoch N | k=v` lines", [
                    lr(1.00, "lr"), value(3.673, "ce", "ce"), value(39.970, "ppl", "ppl"),
                    value(0.5722, "grad_norm", "grad_norm"), value(3.660, "valid ce", "ce"),
                    value(39.211, "valid ppl", "ppl"), secs(4074.356)]),
    ]
