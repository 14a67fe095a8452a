"""Real public Cerebras (every ModelZoo era) and GroqFlow output: the figures a user reads."""

from __future__ import annotations

import time

import pytest
from real_logs import body

from accelbench.engine.core.events import Metric, Phase, Progress, Throughput
from accelbench.engine.logs.importer import import_file
from accelbench.engine.logs.logfile import parse_file
from accelbench.engine.store.runs import Store
from accelbench.engine.systems.cerebras.dialect import Cerebras
from accelbench.engine.systems.groq.dialect import GroqFlow


def feed(cls, system: str, name: str) -> list:
    """The events a live run's dialect gives for the fixture's lines, then its finish."""
    dialect = cls("r")
    return [e for line in body(system, name).split("\n")
            for e in dialect.feed(line, 0.0)] + dialect.finish(0.0)


def last(events, name: str) -> float:
    return [e.value for e in events if isinstance(e, Metric) and e.name == name][-1]


def local(stamp: str) -> float:
    return time.mktime(time.strptime(stamp, "%Y-%m-%d %H:%M:%S"))


def progress(events) -> list[tuple[int, int]]:
    return [(e.step, e.total) for e in events if isinstance(e, Progress)]


def phases(events) -> list[tuple[str, str]]:
    return [(e.name, e.detail) for e in events if isinstance(e, Phase)]


def totals(events) -> tuple[float, float, float]:
    return (last(events, "samples_processed"), last(events, "train_runtime"),
            last(events, "final_loss"))


# --- Cerebras, every era -------------------------------------------------------------------

@pytest.mark.parametrize("name, steps, loss, rate, global_rate, end", [
    # R1.7 (2023-03): Device=xla:0, "Training Complete. Completed N sample(s) in T seconds."
    ("xla_r17_bert.log", 10, 8.01562, 7637.03, 7022.97, (1024000, 233.04593181610107)),
    ("xla_r17_gptj.log", 10, 6.6875, 27.51, 27.53, (130000, 4952.796596050262)),
    ("xla_r18_bert_indented.log", 10, 7.90234, 7454.38, 6493.27, (1024000, 229.65675950050354)),
    # R2.0 (2023-11): Device=CSX, "Processed N sample(s) in T seconds."
    ("csx_r20_bert.log", 10, 7.125, 4071.60, 4047.95, (1024000, 336.373620536)),
    ("csx_r20_gptj.log", 2, 8.125, 43.67, 43.67, (24000, 910.883781998)),
    # R2.3 (2024): "Processed N training sample(s) ..."
    ("csx_r23_esm2.log", 4, 4.12672, 583.08, 585.88, (819200, 2716.994790088)),
    # R2.5 (2025, cszoo fit): LoopTimeRemaining/TimeRemaining
    ("csx_r25_llama2_7b.log", 4, 6.09834, 31.97, 31.99, (204800, 7303.586917439)),
    ("csx_r25_gptj.log", 4, 8.01509, 44.77, 44.75, (24000, 1443.67300221)),
    ("csx_r25_vit.log", 20, 6.72418, 3690.48, 776.21, (570000, 5447.945427605)),
    ("csx_r25_dit_indented.log", 20, 0.18182, 896.97, 875.31, (467200, 4754.503176912)),
    # R2.4 (2025-07, run.py CSX at ALCF)
    ("csx_r24_vit.log", 20, 6.72398, 686.73, 657.44, (570000, 8507.781435492)),
])
def test_cerebras_train_lines_and_totals(name, steps, loss, rate, global_rate, end):
    events = feed(Cerebras, "cerebras", name)
    rates = [e.samples_per_s for e in events if isinstance(e, Throughput)]
    assert len(rates) == steps and rates[-1] == rate
    assert last(events, "global_rate") == global_rate
    assert totals(events) == (*end, loss)
    assert last(events, "train_samples_per_second") == pytest.approx(end[0] / end[1])
    assert all(e.ts > 1.6e9 for e in events)  # every event at the log's own stamp


def test_indented_lines_keep_their_stamps():
    events = feed(Cerebras, "cerebras", "csx_r25_dit_indented.log")
    assert events[0].ts == pytest.approx(local("2025-10-13 20:55:27") + 0.795)
    assert events[-1].ts == pytest.approx(local("2025-10-13 21:55:18") + 0.883)
    assert phases(events)[-1] == ("completing", "training completed")


def test_time_remaining_gives_the_progress_total():
    events = feed(Cerebras, "cerebras", "csx_r25_llama2_7b.log")
    # step 50 at 15:20:04, step 100 at 15:46:44 with 0:54:01 left: two more intervals of 50
    assert progress(events) == [(100, 200), (150, 200), (200, 200)]
    events = feed(Cerebras, "cerebras", "csx_r25_vit.log")
    assert progress(events)[-1] == (200, 200)


def test_cszoo_fit_summary_plans_the_steps_and_the_phases():
    events = feed(Cerebras, "cerebras", "cszoo_fit_llama3_8b.log")
    assert progress(events) == [(1, 10), (2, 10), (3, 10), (4, 10), (5, 10)]
    assert phases(events) == [
        ("compiling", "compiling the model"),
        ("compiling", "compile job wsjob-9tfhwpsvhxpcgfzt92rydm"),
        ("compiling", "cached compile found"),
        ("loading", "programming the system"),
        ("loading", "execute job wsjob-vk5ai9fnrbkec2bm56tt28"),
        ("loading", "sending weights"),
        ("loading", "programming the device"),
        ("running", "appliance run started")]
    assert [e.value for e in events if isinstance(e, Metric) and e.name == "loss"] == [
        12.59069, 12.59906, 12.60336, 12.60226, 12.59109]
    # the log is cut inside step 6: the last loss is the final one, at the last stamp
    final = [e for e in events if isinstance(e, Metric) and e.name == "final_loss"]
    assert [(e.value, e.ts) for e in final] == [
        (12.59109, pytest.approx(local("2025-10-08 04:21:34") + 0.150))]


def test_loop_range_plans_the_steps():
    events = feed(Cerebras, "cerebras", "csx_r23_esm2.log")
    assert progress(events) == [(100, 400), (200, 400), (300, 400), (400, 400)]


def test_r25_llama_phases_from_cached_compile_to_completion():
    events = feed(Cerebras, "cerebras", "csx_r25_llama2_7b.log")
    assert phases(events) == [
        ("compiling", "cached compile found"),
        ("loading", "programming the system"),
        ("loading", "execute job wsjob-kgqvqqxnp9zvpmwulcbxuj"),
        ("loading", "sending weights"),
        ("loading", "programming the device"),
        ("running", "appliance run started"),
        ("running", "saving checkpoint at step 200"),
        ("running", "saved checkpoint model_dir_llama2_7b/checkpoint_200.mdl"),
        ("completing", "training completed")]


def test_validation_run_figures():
    events = feed(Cerebras, "cerebras", "csx_r25_bert_eval.log")
    assert ("evaluating", "evaluating at step 1000") in phases(events)
    assert phases(events)[-1] == ("completing", "evaluation completed")
    assert last(events, "eval_loss") == 6.981118208711798
    assert last(events, "eval/accuracy_cls") == 0.7051668763160706
    assert last(events, "eval/accuracy_masked_lm") == 0.13364547491073608
    assert last(events, "eval/mlm_perplexity") == 701.6852416992188
    assert last(events, "samples_processed") == 3720000
    rates = [(e.step, e.value) for e in events if isinstance(e, Metric) and e.name == "eval_rate"]
    assert rates[-1] == (1000, 6014.04)


def test_cszoo_fit_summary_of_one_loop_plans_the_steps():
    """The summary's "Trainer will run 1 train loop." form: 200 steps planned, before any
    Train line (the log cut at the compile job)."""
    events = feed(Cerebras, "cerebras", "cszoo_fit_llama2_7b_bs128_start.log")
    assert last(events, "planned_steps") == 200
    assert phases(events)[-1] == ("compiling", "compile job wsjob-5nga78gwbdvznmjwqbfbhn")


def test_cszoo_fit_compile_estimate_and_completion():
    events = feed(Cerebras, "cerebras", "cszoo_fit_llama2_7b_bs128_end.log")
    assert last(events, "compile_estimated_samples_per_s") == 34.1
    assert [e.samples_per_s for e in events if isinstance(e, Throughput)] == [
        32.52, 32.76, 32.64, 33.24]
    assert progress(events)[-1] == (200, 200)
    assert totals(events) == (25600, 5389.258144948, 6.4426)
    assert phases(events)[-1] == ("completing", "training completed")


def test_r210_validation_after_training():
    events = feed(Cerebras, "cerebras", "csx_r210_gpt3_eval.log")
    assert ("evaluating", "evaluating at step 400") in phases(events)
    rates = [(e.step, e.value) for e in events if isinstance(e, Metric) and e.name == "eval_rate"]
    assert rates[0] == (400, 1163.27) and rates[-1] == (400, 1172.36)
    assert last(events, "eval_loss") == 5.928174624443054
    assert last(events, "eval/lm_perplexity") == 375.4686584472656
    assert last(events, "eval/accuracy") == 0.16977091133594513
    assert (last(events, "samples_processed"), last(events, "train_runtime")) == (
        48000, 820.575766695)
    assert phases(events)[-1] == ("completing", "evaluation completed")


def test_r23_llama_queue_and_batch():
    events = feed(Cerebras, "cerebras", "csx_r23_llama_7b.log")
    assert last(events, "batch_size") == 99
    assert ("compiling", "compile job wsjob-pg4gslxvgsalvh6ppdvydb") in phases(events)
    assert [e.step for e in events if isinstance(e, Throughput)][-1] == 1600
    assert last(events, "final_loss") == 5.85938


def test_tensorflow_era():
    events = feed(Cerebras, "cerebras", "tf_r17_bert.log")
    losses = [(e.step, e.value) for e in events if isinstance(e, Metric) and e.name == "loss"]
    assert losses[0] == (100, 9.390625) and losses[-1] == (1000, 7.6171875) and len(losses) == 10
    assert last(events, "steps_per_s") == 6.22
    assert totals(events) == (1024000, 160.75317454338074, 7.6171875)
    events = feed(Cerebras, "cerebras", "tf_r11_fc_mnist.log")
    assert totals(events) == (25600000, 53.424, 0.0)
    assert last(events, "train_samples_per_second") == 479188.55
    events = feed(Cerebras, "cerebras", "tf_fc_mnist_html.log")
    assert totals(events) == (25600000, 71.425, 0.0)
    assert last(events, "train_samples_per_second") == 358417.08
    assert last(events, "steps_per_s") == 1400.25


@pytest.mark.parametrize("name", ["tf_r17_bert.log", "tf_fc_mnist_html.log", "tf_r11_fc_mnist.log",
                                  "csx_r25_llama2_7b.log", "xla_r17_bert.log"])
def test_a_cerebras_log_is_one_run_for_parse(tmp_path, name):
    log = tmp_path / "out.log"
    log.write_text(body("cerebras", name))
    [section] = parse_file(log)
    assert section.dialects == ["cerebras"]


def test_import_keeps_the_logs_own_figures(tmp_path):
    log = tmp_path / "llama2.log"
    log.write_text(body("cerebras", "csx_r25_llama2_7b.log"))
    [info] = import_file(Store(tmp_path / "home"), log)
    summary = info.summary
    assert (summary.samples_per_s, summary.train_time_s, summary.final_loss) == (
        pytest.approx(204800 / 7303.586917439), 7303.586917439, 6.09834)
    assert (summary.steps, summary.total_steps) == (200, 200)


def test_a_failed_appliance_run_imports_as_failed(tmp_path):
    """R2.4 LLaMA2 7B: a weight pod dies at iteration 10 (SIGABRT); the client shuts down,
    names the failed job and raises ApplianceUnknownError. Failed, with those diagnoses."""
    events = feed(Cerebras, "cerebras", "csx_r24_llama2_7b_failed.log")
    assert phases(events)[-1] == ("running", "appliance run started")
    assert last(events, "samples_processed") == 11264
    log = tmp_path / "failed.log"
    log.write_text(body("cerebras", "csx_r24_llama2_7b_failed.log"))
    [info] = import_file(Store(tmp_path / "home"), log)
    assert info.status == "failed"
    diagnoses = info.summary.diagnoses or []
    assert {"cerebras_error", "cerebras_job_failed", "cerebras_exception"} <= set(diagnoses)
    messages = [e.message for e in events if e.kind == "diagnosis"]
    assert messages[1] == (
        "Job wsjob-7javbqdggsmrb44obfaqft failed due to: job has failed because total 1"
        " replica(s) failed, first failed pods: [wsjob-7javbqdggsmrb44obfaqft-weight-3]")
    assert messages[-1] == ("cerebras.appliance.errors.ApplianceUnknownError: Ran into error"
                            " while receiving tensor output_model_wise_params_norm for runtime"
                            " iteration 10")
    assert info.summary.duration_s == pytest.approx(  # the first line's stamp to the last's
        local("2025-07-11 18:04:23") + 0.132 - local("2025-07-11 15:24:55") - 0.954)


# --- Groq ----------------------------------------------------------------------------------

def groq_figures(events, source: str) -> dict[str, float]:
    return {e.name.split(".", 1)[1]: e.value for e in events
            if isinstance(e, Metric) and e.name.startswith(source + ".")}


def test_groqflow_bert_tiny_from_the_cache():
    events = feed(GroqFlow, "groq", "bert_tiny_cached.log")
    assert phases(events) == [("loading", 'build "bert_tiny" from the cache'),
                              ("running", "inference on GroqChip"),
                              ("running", "inference using PyTorch model (CPU)"),
                              ("running", "result table")]
    assert groq_figures(events, "cpu") == {"accuracy": 77.47, "e2e_latency_ms": 2.23,
                                           "ips": 448.91}
    assert groq_figures(events, "groq") == {
        "accuracy": 77.47, "e2e_latency_ms": 0.05, "ips": 19328.60,
        "on_chip_latency_ms": 0.03, "on_chip_ips": 37576.72}


def test_groqflow_minilm_spearman_and_indented_resnet50():
    events = feed(GroqFlow, "groq", "minilm.log")
    assert groq_figures(events, "groq") == {
        "spearman": 0.8204, "e2e_latency_ms": 0.47, "ips": 2144.87,
        "on_chip_latency_ms": 0.38, "on_chip_ips": 2620.58}
    assert groq_figures(events, "cpu") == {"spearman": 0.8203, "e2e_latency_ms": 65.67,
                                           "ips": 15.23}
    assert ("compiling", "Assembling model") in phases(events)
    events = feed(GroqFlow, "groq", "resnet50_indented.log")
    assert groq_figures(events, "groq") == {
        "accuracy": 84.51, "e2e_latency_ms": 0.40, "ips": 2515.15,
        "on_chip_latency_ms": 0.33, "on_chip_ips": 2985.40}
    assert groq_figures(events, "cpu")["accuracy"] == 84.54


def test_groqflow_full_build_between_numpy_warnings(tmp_path):
    events = feed(GroqFlow, "groq", "bert_tiny_full_build.log")
    assert [d for n, d in phases(events) if n == "compiling"] == [
        "Exporting PyTorch to ONNX", "Optimizing ONNX file", "Checking for Op support",
        "Converting to FP16", "Compiling model", "Assembling model"]
    assert groq_figures(events, "groq") == {
        "accuracy": 77.47, "e2e_latency_ms": 0.06, "ips": 17147.76,
        "on_chip_latency_ms": 0.03, "on_chip_ips": 32358.97}
    log = tmp_path / "bert.log"
    log.write_text(body("groq", "bert_tiny_full_build.log"))
    [run] = import_file(Store(tmp_path / "home"), log)
    assert (run.status, run.summary.samples_per_s, run.summary.accuracy) == (
        "done", 17147.76, 77.47)


def test_two_result_tables_are_two_runs_with_canonical_figures(tmp_path):
    notes = tmp_path / "notes.md"
    notes.write_text(body("groq", "bert_tiny_seq128_seq512.md"))
    sections = parse_file(notes)
    assert [s.title for s in sections] == ["Groq (1)", "Groq (2)"]
    assert [groq_figures(s.events, "groq")["ips"] for s in sections] == [16788.58, 7515.17]
    runs = import_file(Store(tmp_path / "home"), notes)
    assert [(r.summary.samples_per_s, r.summary.accuracy) for r in runs] == [
        (16788.58, 77.47), (7515.17, 77.47)]
