"""The figures a user reads off each real fixture (tests/fixtures/real), for real_figures.py.

Written down from each fixture's text (the last step, loss and rate a person reads, the
totals and times the log prints, the phases it shows, its failure), never from what
accelbench gives. ``status("failed")`` marks a run whose log shows it failed.
"""

from __future__ import annotations

import json
from typing import Any

from real_figures import (
    Fixture,
    acc,
    diag,
    duration,
    exit_code,
    loss,
    phase,
    rate,
    rows,
    secs,
    status,
    step,
    text,
    total,
    util,
    value,
)


def _ipu_devices(body: str) -> Any:
    from accelbench.engine.systems.ipu.telemetry import read_devices
    return read_devices(body)


def _ipu_monitor(body: str) -> Any:
    from accelbench.engine.systems.ipu.telemetry import read_monitor
    return read_monitor(body)


def _ipu_device_info(body: str) -> Any:
    from accelbench.engine.systems.ipu.telemetry import GraphcoreSampler
    sampler = GraphcoreSampler(1.0, None)  # type: ignore[arg-type]  # feed needs no run dir
    return [r for line in body.split("\n") if (r := sampler.feed(line)) is not None]


def _tiles(body: str) -> Any:
    from accelbench.engine.systems.sambanova.telemetry import read_table
    return read_table(body)


def _snconfig(body: str) -> Any:
    from accelbench.engine.systems.sambanova.inventory import read_snconfig
    return read_snconfig(body)


def _smi_processes(body: str) -> Any:
    """``--query-compute-apps`` CSV, then ``--query-gpu`` CSV: the GPUs with their pids."""
    from accelbench.engine.systems.cuda.dialect import query_rows
    from accelbench.engine.systems.cuda.node import smi_devices
    lines = body.strip("\n").split("\n")
    split = next(i for i, line in enumerate(lines) if line.startswith("index,"))
    return smi_devices(query_rows("\n".join(lines[split:])), query_rows("\n".join(lines[:split])))


def _neuron_ls(body: str) -> Any:
    from accelbench.engine.systems.trainium.neuron_ls import devices
    return devices(body)


def _sacct_parsable(body: str) -> Any:
    from accelbench.engine.launchers.slurm.accounting import parse_parsable
    return parse_parsable(body)


def _sacct_parsable_as(*names: str):
    def read(body: str) -> Any:
        from accelbench.engine.launchers.slurm.accounting import parse_parsable
        return parse_parsable(body, names)
    return read


def _sacct_table(body: str) -> Any:
    from accelbench.engine.launchers.slurm.accounting import parse_table
    return parse_table(body)


def _sacct_json(body: str) -> Any:
    from accelbench.engine.launchers.slurm.accounting import parse_json
    return parse_json(body)


def _squeue_json(body: str) -> Any:
    from accelbench.engine.launchers.slurm.commands import squeue_job
    return [squeue_job(job) for job in json.loads(body)["jobs"]]


def _squeue_table(body: str) -> Any:
    from accelbench.engine.launchers.slurm.commands import parse_squeue
    return parse_squeue(body)


def _sstat_table(body: str) -> Any:
    from accelbench.engine.launchers.slurm.accounting import table_rows
    return table_rows(body)


def _sstat_parsable(body: str) -> Any:
    from accelbench.engine.launchers.slurm.accounting import parsable_rows
    return parsable_rows(body)


def _cerebras(name: str, last: int, last_loss: float, last_rate: float, global_rate: float,
              samples: int, seconds: float, *more) -> Fixture:
    era = {"xla": "Cerebras R1.x PyTorch (`Train Device=xla:0`)",
           "csx": "Cerebras R2.x (`Train Device=CSX`, `Processed N samples`)"}[name[:3]]
    totals = [value(samples, "samples"), secs(seconds)] if samples else []
    return Fixture(f"cerebras/{name}", era, [
        step(last), loss(last_loss), rate(last_rate), value(global_rate, "GlobalRate"),
        *totals, phase("running"), *more])


def _nxd(name: str, steps: list[int], last: tuple[float, float, float, float], *more) -> Fixture:
    step_time, seq_s, last_loss, grad = last
    return Fixture(f"trainium/{name}", "NeuronX Distributed step lines", [
        *(step(s) for s in steps), secs(step_time), rate(seq_s), loss(last_loss),
        value(grad, "grad norm"), *more])


def _nxd_nan(name: str, steps: list[int], step_time: float, seq_s: float,
             lr: float) -> Fixture:
    return Fixture(f"trainium/{name}", "NeuronX Distributed step lines", [
        *(step(s) for s in steps), secs(step_time), rate(seq_s), value(lr, "lr"),
        diag("loss_not_finite")])


def _epoch_bars(name: str, total_steps: int, last_loss: float, it_s: float,
                compile_s: float) -> Fixture:
    return Fixture(f"ipu/{name}", "PopTorch `[Epoch NN]` bars", [
        step(total_steps), total(total_steps), loss(last_loss), rate(it_s),
        secs(compile_s), phase("compiling"), phase("running")])


def _gc_monitor(name: str, partition: str, ipus: int, *more) -> Fixture:
    return Fixture(f"ipu/{name}", "gc-monitor table",
                   [text(partition), value(ipus, "IPUs"), *more], _ipu_monitor)


def _keras(name: str, *figures) -> Fixture:
    return Fixture(f"generic/{name}", "Keras progress lines", list(figures))


def _tqdm(name: str, *figures) -> Fixture:
    return Fixture(f"generic/{name}", "tqdm bars with postfix fields", list(figures))


def _slurm_log(name: str, code: str, *more) -> Fixture:
    return Fixture(f"slurm/{name}", "Slurm lines in a job's output",
                   [diag(code), status("failed"), *more])


def listed() -> list[Fixture]:
    """Every real fixture with its figures: those below, then each family module's
    (``bench/real_figures_<family>.py``, each with a ``listed()`` of its own)."""
    return [*_listed_here(), *(f for module in _families() for f in module.listed())]


def _families() -> list[Any]:
    """The family modules beside this one, by name."""
    import importlib
    from pathlib import Path

    names = sorted(p.stem for p in Path(__file__).parent.glob("real_figures_*.py")
                   if p.stem != "real_figures_list")
    return [importlib.import_module(name) for name in names]


def _listed_here() -> list[Fixture]:
    return [
        # --- AWS Neuron ---------------------------------------------------------------
        _nxd("nxd_llama3_70b_hyperpod.log", [1, 5],
             (243.8718819618225, 4.027843716250589, 13.411852965131402, 1.970628261566162)),
        _nxd("nxd_llama3_70b_16nodes_awsome.log", [1, 5],
             (285.26683378219604, 3.1748703415103368, 1.6787556377821602, 11.25)),
        _nxd("nxd_llama3_70b_auto_resume_awsome.log", [6, 9],
             (285.1258006095886, 2.9929221242903936, 1.6782752611325122, 12.75)),
        _nxd("nxd_llama3_70b_16nodes_notes.log", [50, 56],
             (125.64142513275146, 7.994964163990468, 9.933526553213596, 3.71875)),
        _nxd("nxd_llama3_70b_val_loss_notes.log", [28, 30],
             (5.718714475631714, 113.93113573044499, 11.7701997756958, 11.8125),
             value(3.99999999935159e-06, "lr")),
        _nxd_nan("nxd_llama3_70b_nan_notes.log", [66, 72], 5.971921443939209,
                 111.64248824174051, 3.98522e-06),
        Fixture("trainium/npc_llama3_70b_hyperpod.log", "neuron_parallel_compile", [
            phase("compiling"), secs(195.32730412483215), secs(225.76303887367249),
            value(2, "graphs", "graphs"), value(8, "graphs", "graphs"),
            value(0, "failed compilations", "graphs_failed"),
            value(34, "cache items done of 34", "cache_done"), status("done"),
            duration("2025-01-17 01:16:07", "2025-01-17 01:16:38")]),
        Fixture("trainium/npc_docs_summary.log", "neuron_parallel_compile", [
            phase("compiling"), value(2, "graphs", "graphs"),
            value(0, "failed compilations", "graphs_failed"), status("done")]),
        Fixture("trainium/npc_docs_cache_progress.log", "neuron_parallel_compile", [
            phase("compiling"), value(5, "cache items done of 5", "cache_done"),
            value(0, "cache failed", "cache_failed")]),
        Fixture("trainium/npc_llama3_70b_nxdt_docs.log", "neuron_parallel_compile", [
            value(36, "graphs", "graphs"), value(0, "failed compilations", "graphs_failed"),
            status("done")]),
        Fixture("trainium/optimum_tinyllama_npc_nan.log", "optimum-neuron / HF Trainer", [
            secs(36.3738), rate(175.951), value(0.275, "steps/s", "steps_per_second"),
            diag("loss_not_finite"),
            step(10), total(10), phase("compiling"), value(2.0000000000000003e-06, "lr"),
            status("done")]),
        Fixture("trainium/optimum_llama3_nan_issue658.log", "optimum-neuron / HF Trainer", [
            diag("loss_not_finite"), value(4.796747967479675e-05, "lr"),
            value(3.780487804878049e-05, "lr")]),
        Fixture("trainium/compile_fail_issue948.log", "Neuron compiler", [
            diag("neuron_compile_failed"), phase("compiling"), status("failed")]),
        Fixture("trainium/compile_fail_issue947.log", "Neuron compiler", [
            diag("neuron_compile_failed"), phase("compiling"), status("failed")]),
        Fixture("trainium/compile_pass_issue819.log", "Neuron compiler",
                [phase("compiling")]),
        Fixture("trainium/neuron_monitor_trn1_idle.jsonl", "neuron-monitor JSON reports", [
            util("host mem", 3.88)]),
        Fixture("trainium/neuron_monitor_trn1_app_wandb.jsonl", "neuron-monitor JSON reports",
                [util("nc0", 1.3631567613356375), util("nc1", 0.0),
                 util("nc0", 1.3128372400154966), value(97.6, "device MiB"),
                 value(260, "executions completed", "executions_completed"),
                 util("host mem", 33.92)]),
        Fixture("trainium/neuron_ls_trn1_2xlarge.json", "neuron-ls",
                [rows(1), value(2, "cores"), value(34359738368, "bytes")], _neuron_ls),
        Fixture("trainium/neuron_ls_trn1_2xlarge.txt", "neuron-ls",
                [rows(1), value(2, "cores"), value(34359738368, "bytes")], _neuron_ls),
        Fixture("trainium/neuron_ls_trn2n_48xlarge.txt", "neuron-ls",
                [rows(16), value(4, "cores"), value(96 * 2 ** 30, "bytes")], _neuron_ls),
        Fixture("trainium/neuron_ls_inf1_issue359.txt", "neuron-ls",
                [rows(1), value(4, "cores"), value(8 * 2 ** 30, "bytes")], _neuron_ls),
        # --- Cerebras -----------------------------------------------------------------
        _cerebras("xla_r17_bert.log", 1000, 8.01562, 7637.03, 7022.97, 1024000,
                  233.04593181610107, status("done")),
        _cerebras("xla_r17_gptj.log", 1000, 6.68750, 27.51, 27.53, 130000,
                  4952.796596050262, status("done")),
        _cerebras("xla_r18_bert_indented.log", 1000, 7.90234, 7454.38, 6493.27, 1024000,
                  229.65675950050354, status("done")),
        _cerebras("csx_r20_bert.log", 1000, 7.125, 4071.60, 4047.95, 1024000, 336.373620536,
                  status("done"), duration("2023-11-29 20:07:49", "2023-11-29 20:13:25")),
        _cerebras("csx_r20_gptj.log", 200, 8.125, 43.67, 43.67, 24000, 910.883781998,
                  status("done"), duration("2023-11-29 20:59:19", "2023-11-29 21:14:30")),
        _cerebras("csx_r23_esm2.log", 400, 4.12672, 583.08, 585.88, 819200, 2716.994790088,
                  total(400), phase("compiling"), status("done"),
                  duration("2024-08-02 20:53:25", "2024-08-02 21:38:42")),
        _cerebras("csx_r23_llama_7b.log", 1600, 5.85938, 20.44, 20.45, 0, 0,
                  phase("queued"), phase("compiling"),
                  duration("2024-03-21 14:40:57", "2024-03-21 17:50:50")),
        _cerebras("csx_r24_vit.log", 200, 6.72398, 686.73, 657.44, 570000, 8507.781435492,
                  phase("queued"), phase("compiling"), status("done"),
                  duration("2025-07-11 16:03:20", "2025-07-11 18:25:27")),
        _cerebras("csx_r25_llama2_7b.log", 200, 6.09834, 31.97, 31.99, 204800,
                  7303.586917439, total(200), status("done"),
                  duration("2025-10-13 14:47:37", "2025-10-13 16:48:01")),
        _cerebras("csx_r25_gptj.log", 200, 8.01509, 44.77, 44.75, 24000, 1443.67300221,
                  total(200), status("done"),
                  duration("2025-10-10 20:03:38", "2025-10-10 20:21:14")),
        _cerebras("csx_r25_vit.log", 200, 6.72418, 3690.48, 776.21, 570000, 5447.945427605,
                  total(200), status("done"),
                  duration("2025-10-13 15:06:45", "2025-10-13 16:25:08")),
        _cerebras("csx_r25_dit_indented.log", 400, 0.18182, 896.97, 875.31, 467200,
                  4754.503176912, total(400), status("done")),
        Fixture("cerebras/csx_r24_llama2_7b_failed.log", "Cerebras R2.x failed run", [
            diag("cerebras_job_failed"), diag("cerebras_exception"), phase("compiling"),
            phase("running"), value(11264, "samples"), secs(9567.159426912),
            status("failed"), duration("2025-07-11 15:24:55", "2025-07-11 18:04:23")]),
        Fixture("cerebras/csx_r25_bert_eval.log", "Cerebras R2.5+ evaluation", [
            step(1000), loss(6.981118208711798), value(0.13364547491073608, "mlm accuracy"),
            value(701.6852416992188, "perplexity"), rate(6014.04), status("done"),
            duration("2025-10-09 18:43:37", "2025-10-09 18:44:08")]),
        Fixture("cerebras/csx_r210_gpt3_eval.log", "Cerebras R2.5+ evaluation", [
            step(400), loss(5.928174624443054), value(375.4686584472656, "perplexity"),
            acc(0.16977091133594513), rate(1172.36), value(48000, "samples"),
            secs(820.575766695), status("done"),
            duration("2025-10-09 18:19:52", "2025-10-09 18:20:23")]),
        Fixture("cerebras/cszoo_fit_llama3_8b.log", "Cerebras R2.5 cszoo fit", [
            step(5), total(10), loss(12.59109), rate(19.42), value(19.37, "GlobalRate"),
            phase("compiling"), phase("running"),
            duration("2025-10-08 04:09:18", "2025-10-08 04:21:34")]),
        Fixture("cerebras/cszoo_fit_llama2_7b_bs128_start.log", "Cerebras R2.5 cszoo fit", [
            value(200, "planned steps", "planned"), phase("compiling")]),
        Fixture("cerebras/cszoo_fit_llama2_7b_bs128_end.log", "Cerebras R2.5 cszoo fit", [
            value(34.1, "compile estimate", "estimated"), step(200), total(200),
            loss(6.44260), rate(33.24), value(32.44, "GlobalRate"), value(25600, "samples"),
            secs(5389.258144948), status("done"),
            duration("2025-12-06 02:45:42", "2025-12-06 03:23:04")]),
        Fixture("cerebras/tf_fc_mnist_html.log", "Cerebras TensorFlow era", [
            step(99900), loss(0.00904083251953125), rate(358417.08), secs(71.425),
            value(1400.25, "steps/s", "steps_per_s"), value(25600000, "samples"),
            status("done")]),
        Fixture("cerebras/tf_r11_fc_mnist.log", "Cerebras TensorFlow era", [
            rate(479188.55), secs(53.424), value(25600000, "samples"), loss(0.0),
            status("done")]),
        Fixture("cerebras/tf_r17_bert.log", "Cerebras TensorFlow era", [
            step(1000), loss(7.6171875), value(6.22, "steps/s", "steps_per_s"),
            value(1024000, "samples"),
            secs(160.75317454338074), status("done")]),
        # --- Graphcore ----------------------------------------------------------------
        Fixture("ipu/bert_pretraining_demo_tiny_srun.log", "Graphcore BERT pre-training", [
            step(150), total(150), loss(7.389), rate(749.6), secs(3.297),
            secs(97.88873339025304), secs(9.856430063955486), value(0.875, "nsp acc", "nsp_acc"),
            phase("queued"), phase("compiling"), phase("running")]),
        Fixture("ipu/bert_pretraining_ipujob_pod4.log", "Graphcore BERT pre-training", [
            step(1), loss(10.817), rate(4035.0), secs(16.245), secs(500.756152929971),
            value(65536, "global batch")]),
        Fixture("ipu/bert_pretraining_poprun_pod64.log", "Graphcore BERT pre-training", [
            step(1), loss(11.260), rate(17692.1), secs(3.718), secs(683.6591004971415),
            phase("compiling")]),
        Fixture("ipu/gpt2_pod16_steps.log", "Graphcore GPT-2 steps", [
            step(3), loss(10.829034805297852), rate(1059.6762623043378),
            value(1.990795135498047e-05, "acc")]),
        Fixture("ipu/gpt2_pod16_compile_steps.log", "Graphcore GPT-2 steps", [
            loss(10.829036712646484), rate(1064.4397806661352), secs(1684.0),
            phase("compiling")]),
        Fixture("ipu/gpt2_sc23_tutorial_srun.log", "Graphcore GPT-2 steps", [
            loss(10.829034805297852), rate(1059.6762623043378), phase("queued")]),
        Fixture("ipu/resnet50_pod4_poprun.log", "Graphcore ResNet50 (poprun)", [
            step(2), loss(6.2747), acc(2.48), rate(4476.7), secs(964.818638), secs(386.0),
            value(16416, "global batch")]),
        Fixture("ipu/resnet50_poprun_end.log", "Graphcore ResNet50 (poprun)", [
            step(2), loss(6.2720), acc(2.48), rate(8125.8), secs(326.090631),
            status("done")]),
        Fixture("ipu/mnist_alcf_user_guide.log", "PopTorch MNIST tutorial bars", [
            step(10), total(10), acc(96.85), secs(77.0), value(7.71, "s/it")]),
        Fixture("ipu/mnist_homework_srun.log", "PopTorch MNIST tutorial bars", [
            step(10), total(10), acc(98.16), secs(111.0), secs(21.0), secs(15.0),
            phase("queued")]),
        Fixture("ipu/mnist_failed_to_acquire_poptorch_issue3.log", "PopTorch MNIST example", [
            value(90.0, "training accuracy", "accuracy"), diag("ipu_unavailable"),
            status("failed")]),
        _epoch_bars("epoch_bars_fashion_mnist_matilda.log", 3750, 1.02, 374.72, 39.0),
        _epoch_bars("epoch_bars_resnet50_matilda.log", 6250, 1.42, 110.47, 228.0),
        _epoch_bars("epoch_bars_resnet50_two_replicas_matilda.log", 3125, 0.809, 63.76,
                    242.0),
        _epoch_bars("epoch_bars_resnet50_pipelined_matilda.log", 1041, 1.86, 29.25, 272.0),
        Fixture("ipu/gc_info_list_alcf.txt", "gc-info -l", [
            value(0, "IPU"), value(2, "IPU"), text("Fabric")], _ipu_devices),
        Fixture("ipu/gc_info_list_matilda.txt", "gc-info -l", [
            rows(7), text("p1")], _ipu_devices),
        Fixture("ipu/gc_info_list_all_partitions_matilda.txt", "gc-info -l", [
            text("p1"), text("p2"), value(7, "IPU")], _ipu_devices),
        Fixture("ipu/gc_info_device_info_matilda.txt", "gc-info --device-info", [
            value(0.0, "utilisation")], _ipu_device_info),
        _gc_monitor("gc_monitor_alcf.txt", "slurm_2616", 0, value(1850.0, "MHz"),
                    value(92.3, "W"), value(24.2, "C")),
        _gc_monitor("gc_monitor_cards_matilda.txt", "p1", 8, text("10.1.5.11")),
        _gc_monitor("gc_monitor_attached_matilda.txt", "p1", 12, value(81816, "pid"),
                    text("justina"), value(113.7, "W")),
        _gc_monitor("gc_monitor_one_ipu_matilda.txt", "pt-trainee01-4-ipus", 4,
                    value(205698, "pid")),
        _gc_monitor("gc_monitor_two_replicas_matilda.txt", "pt-trainee01-4-ipus", 4,
                    value(203893, "pid")),
        _gc_monitor("gc_monitor_pipelined_matilda.txt", "pt-trainee01-4-ipus", 4,
                    value(177873, "pid")),
        _gc_monitor("gc_monitor_no_attached_paddle.txt", "ipuof", 4),
        # --- SambaNova ----------------------------------------------------------------
        Fixture("sambanova/bert_large_min_throughput_assertion.log", "SambaNova BERT-Large", [
            step(504), total(2549), loss(8.308523178100586), secs(457.0915858745575),
            rate(289619.6825559826), diag("sambanova_min_throughput"),
            diag("slurm_task_exit"), status("failed"), exit_code(1),
            duration("2024-04-03 09:39:54", "2024-04-03 09:39:57")]),
        Fixture("sambanova/ffn_mnist_output.log", "SambaFlow starter apps", [
            phase("compiling"), step(60000), total(60000), loss(0.3028), acc(94.50),
            loss(0.1905)]),
        Fixture("sambanova/res_ffn_mnist_output.log", "SambaFlow starter apps", [
            phase("compiling"), step(60000), loss(0.5086), acc(90.66), loss(0.4340),
            rate(1898.6569130275361)]),
        Fixture("sambanova/lenet_output.log", "SambaFlow starter apps", [
            step(60000), loss(0.1712), acc(98.06), loss(0.0628)]),
        Fixture("sambanova/logreg_output.log", "SambaFlow starter apps", [
            step(60000), loss(0.3524), acc(90.07), loss(0.3361)]),
        Fixture("sambanova/gpt15b_summary_sn30.log", "SambaNova BERT-Large", [
            secs(2179.2292835712433), rate(192467.31088004305), loss(4.781678199768066),
            step(247), total(3247), status("done")]),
        Fixture("sambanova/unet_data_parallel_sn30.log", "SambaNova UNet data parallel", [
            rate(563.9653143065), rate(808.442427336472), secs(36.314290046691895),
            step(10)]),
        Fixture("sambanova/sambatune_uno_failed_ccle.log", "SambaTune", [
            phase("compiling"), diag("sambatune_step_failed"), status("failed")]),
        Fixture("sambanova/sntilestat_busy_wrapped.txt", "sntilestat", [
            rows(8), value(7.0, "%exec"), value(4.7, "%exec")], _tiles),
        Fixture("sambanova/sntilestat_gpt15b_sn30.txt", "sntilestat", [
            rows(8), value(91.6, "%exec"), value(89.9, "%exec"), value(92.0, "%exec")], _tiles),
        Fixture("sambanova/sntilestat_idle.txt", "sntilestat", [rows(8), value(4, "idle")],
                _tiles),
        Fixture("sambanova/snconfig_sn10_8.txt", "snconfig", [
            text("DataScale SN10-8"), value(4, "XRDUs"), value(2, "RDUs"),
            value(4, "tiles")], _snconfig),
        # --- Groq ---------------------------------------------------------------------
        Fixture("groq/bert_tiny_cached.log", "GroqFlow result table", [
            acc(77.47), rate(19328.60), value(0.05, "ms"), value(37576.72, "on-chip IPS"),
            value(448.91, "CPU IPS"), phase("loading")]),
        Fixture("groq/minilm.log", "GroqFlow result table", [
            value(0.8204, "spearman"), rate(2144.87), value(0.47, "ms"),
            value(2620.58, "on-chip IPS"), phase("compiling")]),
        Fixture("groq/resnet50_indented.log", "GroqFlow result table", [
            acc(84.51), rate(2515.15), value(0.40, "ms"), value(2985.40, "on-chip IPS"),
            value(84.54, "CPU accuracy")]),
        Fixture("groq/bert_tiny_full_build.log", "GroqFlow result table", [
            acc(77.47), rate(17147.76), value(0.06, "ms"), value(32358.97, "on-chip IPS"),
            value(436.88, "CPU IPS"), phase("compiling"), status("done")]),
        Fixture("groq/bert_tiny_seq128_seq512.md", "GroqFlow result table", [
            rate(16788.58), rate(7515.17), acc(77.47), value(0.13, "ms"),
            value(10953.97, "on-chip IPS")]),
        # --- NVIDIA -------------------------------------------------------------------
        Fixture("cuda/dmon_h100_load.txt", "nvidia-smi dmon", [
            util("gpu0", 100.0), value(636.0, "W"), value(65.0, "C"), value(59.0, "mem C"),
            value(1980.0, "MHz"), value(2619.0, "mem MHz")]),
        Fixture("cuda/dmon_l40s_load.txt", "nvidia-smi dmon", [
            util("gpu0", 10.0), value(108.0, "W"), value(2520.0, "MHz")]),
        Fixture("cuda/dmon_rtx2080_idle.txt", "nvidia-smi dmon", [
            util("gpu0", 0.0), util("gpu0 mem bw", 10.0), value(36.0, "W"),
            value(300.0, "MHz")]),
        Fixture("cuda/dmon_s_u_telegraf.txt", "nvidia-smi dmon", [
            util("gpu0", 0.0), util("gpu0 mem bw", 0.0)]),
        Fixture("cuda/dmon_pucvmet_deepspeech.txt", "nvidia-smi dmon", [
            util("gpu0", 25), util("gpu3", 18), value(11660, "MiB"), value(84, "C"),
            value(86, "W"), value(1759, "MHz")]),
        Fixture("cuda/query_gpu_h100_load.csv", "nvidia-smi --query-gpu csv", [
            util("gpu0", 100.0), util("gpu0 mem", 24.3), value(19818.0, "MiB"),
            value(631.95, "W"), value(59.0, "C"), value(1980.0, "MHz")]),
        Fixture("cuda/query_gpu_l40s_load.csv", "nvidia-smi --query-gpu csv", [
            util("gpu0", 9.0), value(110.23, "W"), value(1235.0, "MiB")]),
        Fixture("cuda/query_gpu_rtx2080_load.csv", "nvidia-smi --query-gpu csv", [
            util("gpu0", 8.0), value(111.5, "W"), value(45.0, "C"), util("gpu0 mem", 10.0)]),
        Fixture("cuda/query_compute_apps_4gpu.txt", "nvidia-smi --query-compute-apps csv", [
            rows(4), value(1912379, "pid"), value(3891903, "pid"), value(100.0, "util"),
            value(74709.0, "MiB"), value(1683.0, "MiB")], _smi_processes),
        # --- Generic ------------------------------------------------------------------
        _keras("keras_16906.txt", step(1250), total(25000), loss(2.2068), acc(0.5443),
               secs(3), value(0.030, "s/step")),
        _keras("keras_abhi8893_8.txt", step(320), loss(1457.4397), value(25.0970, "mse"),
               value(757e-6, "s/step")),
        _keras("keras_magpie_183.txt", step(42504), loss(0.4234), loss(0.3898), secs(100),
               acc(1.0)),
        _keras("keras_verbose2_complex_22.txt", step(4316), total(21580), loss(0.2163),
               secs(10), value(0.010, "s/step")),
        _keras("keras_io_mnist_convnet.txt", acc(0.9877), acc(0.992), loss(0.078), secs(16),
               value(0.037, "s/step")),
        _keras("keras_io_fit_evaluate.txt", step(1564), loss(0.1594), loss(0.1357),
               acc(0.9581), acc(0.9586)),
        _keras("keras_pr8169_acc.txt", step(120000), acc(0.9671), acc(0.9837),
               value(77e-6, "s/step")),
        _keras("keras3_io_mnist_moe.txt", step(12), total(9380), acc(0.2438),
               value(32.0082, "moe_loss")),
        _tqdm("tqdm_lightning_4225.txt", step(5), total(18), loss(9.847),
              rate(1 / 4.14)),
        _tqdm("tqdm_lightning_3866.txt", step(1664), total(1702), rate(2.12), loss(0.149)),
        _tqdm("tqdm_lightning_2667.txt", step(996), total(997), rate(6.51), loss(0.655),
              loss(0.67374)),
        _tqdm("tqdm_set_postfix_rich_2991.txt", step(218), total(1700), rate(13.70),
              loss(0.361)),
        # --- Slurm --------------------------------------------------------------------
        _slurm_log("oom_step_tusas.log", "slurm_oom"),
        _slurm_log("oom_cgroup_hafs.log", "slurm_oom"),
        _slurm_log("oom_snakemake.log", "slurm_oom"),
        _slurm_log("bus_error_hafs.log", "slurm_task_signal"),
        _slurm_log("time_limit_desitarget.log", "slurm_timeout"),
        _slurm_log("time_limit_zetta.log", "slurm_timeout"),
        _slurm_log("time_limit_ufs.log", "slurm_timeout"),
        _slurm_log("requeue_submitit.log", "slurm_requeued", exit_code(1)),
        _slurm_log("sbatch_invalid_account.log", "slurm_submit_failed"),
        _slurm_log("srun_exit_private.log", "slurm_task_exit", exit_code(7)),
        Fixture("slurm/sacct_parsable2_cluster_utils.txt", "sacct --parsable2", [
            rows(16), text("CANCELLED"), value(10, "signal"), text("239023.0")],
            _sacct_parsable),
        Fixture("slurm/sacct_parsable2_private.txt", "sacct --parsable2", [
            text("FAILED"), value(3, "exit"), value(7, "exit"), value(25.0, "elapsed"),
            text("CANCELLED")], _sacct_parsable),
        Fixture("slurm/sacct_parsable2_apel.txt", "sacct --parsable2", [
            rows(3), value(2 * 86400 + 3600 + 24 * 60 + 56, "elapsed"),
            value(3600 + 9 * 60 + 48, "elapsed"), value(3 * 60 + 25, "elapsed"), text("wn1")],
            _sacct_parsable_as("JobID", "JobName", "User", "Group", "Start", "End",
                               "Elapsed", "CPUTimeRAW", "Partition", "NCPUS", "NNodes",
                               "NodeList", "MaxRSS", "MaxVMSize", "State")),
        Fixture("slurm/sacct_parsable2_snakemake.txt", "sacct --parsable2", [
            rows(4), text("FAILED"), text("8183091")],
            _sacct_parsable_as("JobIdRaw", "State")),
        Fixture("slurm/sacct_text_soperator.txt", "sacct table", [
            rows(7), text("FAILED"), text("20.0")], _sacct_table),
        Fixture("slurm/sacct_text_private.txt", "sacct table", [
            value(3, "exit"), value(7, "exit"), text("CANCELLED")], _sacct_table),
        Fixture("slurm/sacct_text_oom_fasrc.txt", "sacct table (through parse and import)", [
            status("failed"), diag("slurm_oom")]),
        Fixture("slurm/sacct_text_timeout_jhpce.txt", "sacct table (through parse and import)", [
            status("done"), status("failed"), diag("slurm_timeout")]),
        Fixture("slurm/sinfo_siena.txt", "sinfo", [
            util("short nodes", 45.83), util("normal nodes", 45.83), util("high nodes", 75.0)]),
        Fixture("slurm/sinfo_nebari.txt", "sinfo", [util("general nodes", 33.33)]),
        Fixture("slurm/sinfo_wonyoungcho.txt", "sinfo", [util("all nodes", 0.0)]),
        Fixture("slurm/sacct_json_private.json", "sacct --json", [
            rows(12), value(25.0, "elapsed"), text("FAILED"), text("None assigned")],
            _sacct_json),
        Fixture("slurm/squeue_json_private.json", "squeue", [
            rows(4), text("PENDING"), text("Resources"), value(3, "exit")], _squeue_json),
        Fixture("slurm/squeue_text_private.txt", "squeue", [
            rows(2), text("PENDING"), text("Resources"), text("localhost")], _squeue_table),
        Fixture("slurm/sstat_text_private.txt", "sstat", [
            text("3116K"), text("3.batch")], _sstat_table),
        Fixture("slurm/sstat_parsable2_private.txt", "sstat", [
            text("3116K"), text("3.batch")], _sstat_parsable),
    ]
