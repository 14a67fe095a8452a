"""Real AWS Neuron output (tests/fixtures/real/trainium): the figures a user reads off it."""

from __future__ import annotations

import pytest
from real_logs import body

from accelbench.engine.core.events import (
    Diagnosis,
    Metric,
    Phase,
    Progress,
    Throughput,
    Utilization,
)
from accelbench.engine.logs.importer import import_file
from accelbench.engine.logs.logfile import parse_file
from accelbench.engine.run.runner import RunHandle
from accelbench.engine.systems.trainium import neuron_ls
from accelbench.engine.systems.trainium.nxd_training import NxDTraining
from accelbench.engine.systems.trainium.telemetry import NeuronSampler


def parsed(tmp_path, name: str):
    """The one section of fixture ``name`` as ``accelbench parse`` reads it."""
    path = tmp_path / name
    path.write_text(body("trainium", name))
    sections = parse_file(path)
    assert len(sections) == 1
    return sections[0]


def metrics(events) -> dict[str, list[float]]:
    found: dict[str, list[float]] = {}
    for e in events:
        if isinstance(e, Metric):
            found.setdefault(e.name, []).append(e.value)
    return found


def imported(store, tmp_path, name: str):
    path = tmp_path / name
    path.write_text(body("trainium", name))
    (info,) = import_file(store, path)
    return info, RunHandle(store, info).state()


def test_neuron_parallel_compile_report_and_totals(tmp_path):
    section = parsed(tmp_path, "npc_llama3_70b_hyperpod.log")
    assert section.dialects == ["neuron_compile"]
    assert [(e.name, e.detail) for e in section.events if isinstance(e, Phase)] == [
        ("compiling", "Neuron compiler")]
    found = metrics(section.events)
    assert found["compile.time_s"] == [195.32730412483215, 225.76303887367249]
    assert found["compile.graphs"] == [2, 8]
    assert found["compile.graphs_compiled"] == [2, 8]
    assert found["compile.graphs_failed"] == [0, 0]
    assert found["compile.cache_done"] == [32, 33, 34] and found["compile.cache_total"] == [34] * 3
    assert found["compile.cache_failed"] == [0, 0, 0]


@pytest.mark.parametrize(("name", "graphs"), [
    ("npc_docs_summary.log", 2), ("npc_llama3_70b_nxdt_docs.log", 36)])
def test_neuron_parallel_compile_totals_end_a_compile_job(store, tmp_path, name, graphs):
    section = parsed(tmp_path, name)
    found = metrics(section.events)
    assert (found["compile.graphs"], found["compile.graphs_compiled"],
            found["compile.graphs_failed"]) == ([graphs], [graphs], [0])
    info, _ = imported(store, tmp_path, name)
    assert info.status == "done"  # every graph compiled: the job succeeded


def test_neuron_parallel_compile_cache_statistics(tmp_path):
    found = metrics(parsed(tmp_path, "npc_docs_cache_progress.log").events)
    assert found["compile.cache_done"] == [0, 5] and found["compile.cache_total"] == [5, 5]


def test_failed_compilations_make_a_failed_compile_job():
    from accelbench.engine.systems.trainium.neuron_compile import NeuronCompile

    line = body("trainium", "npc_llama3_70b_nxdt_docs.log").splitlines()[2].replace(
        "compilations: 0", "compilations: 3")  # the same line with 3 failures
    (metric, diagnosis) = NeuronCompile("r").feed(line, 0.0)[1:]
    assert metric.value == 3 and diagnosis.code == "neuron_compile_failed"
    assert diagnosis.message == "neuron_parallel_compile: 3 graph(s) failed to compile"


def test_neuron_parallel_compile_lasts_what_its_stamps_span(store, tmp_path):
    info, _ = imported(store, tmp_path, "npc_llama3_70b_hyperpod.log")
    # 2025-01-17 01:16:07.000970 to 01:16:38.000177, the stamps' fraction as written
    assert info.summary.duration_s == pytest.approx(31 + 0.000177 - 0.000970, abs=1e-3)


def test_nxd_step_lines(tmp_path):
    section = parsed(tmp_path, "nxd_llama3_70b_hyperpod.log")
    assert section.dialects == ["nxd_training"]
    events = section.events
    assert [e.step for e in events if isinstance(e, Progress)] == [1, 2, 3, 4, 5]
    assert [e.samples_per_s for e in events if isinstance(e, Throughput)] == [
        3.935193537274158, 3.9816862016317915, 4.004761851017232, 4.018679872757218,
        4.027843716250589]
    found = metrics(events)
    assert found["loss"][0] == 13.412860887125134 and found["loss"][-1] == 13.411852965131402
    assert found["grad_norm"][-1] == 1.970628261566162
    assert found["step_time_s"][0] == 244.7649691104889
    assert [e.name for e in events if isinstance(e, Phase)] == ["running"]


@pytest.mark.parametrize(("name", "steps", "first", "last"), [
    ("nxd_llama3_70b_16nodes_awsome.log", [1, 2, 3, 4, 5],
     (433.9763135910034, 2.3233670754725364, 1.686337987310253, 10.75),
     (285.26683378219604, 3.1748703415103368, 1.6787556377821602, 11.25)),
    ("nxd_llama3_70b_auto_resume_awsome.log", [6, 7, 8, 9],
     (458.5973925590515, 2.114068580652976, 1.6739352685399354, 10.125),
     (285.1258006095886, 2.9929221242903936, 1.6782752611325122, 12.75)),
    ("nxd_llama3_70b_16nodes_notes.log", list(range(50, 57)),
     (126.00786638259888, 7.988989798821986, 10.441542461514473, 4.21875),
     (125.64142513275146, 7.994964163990468, 9.933526553213596, 3.71875)),
    ("nxd_llama3_70b_val_loss_notes.log", [28, 29, 30],
     (5.86236310005188, 112.6864625484136, 12.078991651535034, 21.875),
     (5.718714475631714, 113.93113573044499, 11.7701997756958, 11.8125)),
])
def test_nxd_step_lines_of_other_runs(tmp_path, name, steps, first, last):
    """Step time, throughput, loss and grad norm of the first and last step of each."""
    section = parsed(tmp_path, name)
    assert section.dialects == ["nxd_training"]
    assert [e.step for e in section.events if isinstance(e, Progress)] == steps
    found = metrics(section.events)
    through = [e.samples_per_s for e in section.events if isinstance(e, Throughput)]
    for index, figures in ((0, first), (-1, last)):
        assert (found["step_time_s"][index], through[index], found["loss"][index],
                found["grad_norm"][index]) == figures
    assert not [e for e in section.events if isinstance(e, Diagnosis)]


def test_nxd_learning_rate_of_the_later_form(tmp_path):
    found = metrics(parsed(tmp_path, "nxd_llama3_70b_val_loss_notes.log").events)
    assert found["learning_rate"] == [3.999999999474788e-06, 3.99999999941481e-06,
                                      3.99999999935159e-06]
    assert "val_loss" not in found  # None: no validation in these steps


def test_nxd_nan_losses_give_a_diagnosis_and_keep_the_throughput(store, tmp_path):
    section = parsed(tmp_path, "nxd_llama3_70b_nan_notes.log")
    assert [e.step for e in section.events if isinstance(e, Progress)] == list(range(66, 73))
    assert [e.samples_per_s for e in section.events if isinstance(e, Throughput)][-1] == (
        111.64248824174051)
    found = metrics(section.events)
    assert "loss" not in found and "grad_norm" not in found
    assert found["learning_rate"] == [3.98522e-06] * 7
    (diagnosis,) = [e for e in section.events if isinstance(e, Diagnosis)]
    assert diagnosis.code == "loss_not_finite" and "at step 66" in diagnosis.message
    info, state = imported(store, tmp_path, "nxd_llama3_70b_nan_notes.log")
    assert info.status == "ended"  # steps went on; the excerpt shows no end
    assert "loss_not_finite" in [d.code for d in state.diagnoses]


def test_nxd_step_lines_live_feed():
    dialect = NxDTraining("r")
    (line,) = body("trainium", "nxd_llama3_70b_hyperpod.log").splitlines()[:1]
    kinds = [type(e).__name__ for e in dialect.feed(line, 5.0)]
    assert kinds == ["Phase", "Progress", "Throughput", "Metric", "Metric", "Metric"]


def test_nxd_later_form_live_feed():
    dialect = NxDTraining("r")
    first, second = body("trainium", "nxd_llama3_70b_nan_notes.log").splitlines()[:2]
    events = dialect.feed(first, 5.0)
    assert [type(e).__name__ for e in events] == [
        "Phase", "Progress", "Throughput", "Metric", "Diagnosis", "Metric"]
    assert [e.kind for e in dialect.feed(second, 6.0)] == [  # the diagnosis once
        "progress", "throughput", "metric", "metric"]


def test_optimum_neuron_nan_losses_keep_the_final_figures(tmp_path):
    section = parsed(tmp_path, "optimum_tinyllama_npc_nan.log")
    assert set(section.dialects) == {"hf_trainer", "neuron_runtime", "neuron_compile"}
    found = metrics(section.events)
    assert found["train_runtime"] == [36.3738]
    assert found["train_samples_per_second"] == [175.951]
    assert found["train_steps_per_second"] == [0.275]
    assert "train_loss" not in found  # nan: no figure, a diagnosis
    assert found["loss"] == [0.0, 0.0, 0.0, 0.0, 0.0, 338649581355008.0, 0.0, 0.0]
    assert len(found["learning_rate"]) == 10
    (diagnosis,) = [e for e in section.events if isinstance(e, Diagnosis)]
    assert diagnosis.code == "loss_not_finite" and "nan" in diagnosis.message
    bars = [(e.step, e.total) for e in section.events if isinstance(e, Progress)]
    assert bars[0] == (0, 10) and (7, 10) in bars and bars[-1] == (10, 10)
    assert [e.name for e in section.events if isinstance(e, Phase)] == ["compiling"]


def test_optimum_neuron_nan_log_dicts(tmp_path):
    section = parsed(tmp_path, "optimum_llama3_nan_issue658.log")
    found = metrics(section.events)
    assert "loss" not in found
    assert found["learning_rate"][0] == 4.796747967479675e-05
    assert found["learning_rate"][-1] == 3.780487804878049e-05
    assert [e.code for e in section.events if isinstance(e, Diagnosis)] == ["loss_not_finite"]


@pytest.mark.parametrize("name", ["compile_fail_issue948.log", "compile_fail_issue947.log"])
def test_a_compile_failure_imports_as_failed(store, tmp_path, name):
    info, state = imported(store, tmp_path, name)
    assert info.status == "failed" and info.accelerator == "trainium"
    codes = [d.code for d in state.diagnoses]
    assert codes[0] == "neuron_compile_failed" and "job_failed" in codes
    assert "Failed compilation" in state.diagnoses[0].message


def test_a_compiler_pass_excerpt_is_not_failed(store, tmp_path):
    """Compiles that pass, and nothing after them: the log shows no end (ended, not done)."""
    info, state = imported(store, tmp_path, "compile_pass_issue819.log")
    assert info.status == "ended"
    assert [d.code for d in state.diagnoses] == ["exit_unknown"]


def test_a_diverged_run_is_not_failed(store, tmp_path):
    """Its loss turned NaN, yet it ran to the end: done, with the Trainer's closing
    throughput as printed (``'train_samples_per_second': 175.951``)."""
    info, state = imported(store, tmp_path, "optimum_tinyllama_npc_nan.log")
    assert info.status == "done"
    assert (info.summary.samples_per_s, info.summary.samples_per_s_source,
            info.summary.train_time_s) == (175.951, "train_samples_per_second", 36.3738)
    assert [d.code for d in state.diagnoses] == ["loss_not_finite"]


def test_neuron_monitor_report(tmp_path):
    section = parsed(tmp_path, "neuron_monitor_trn1_idle.jsonl")
    assert section.dialects == ["neuron_monitor"]
    (host,) = [e for e in section.events if isinstance(e, Utilization)]
    assert (host.engine, host.percent, host.value, host.unit) == ("host mem", 3.88, 1225.4, "MiB")


def test_neuron_monitor_reports_with_an_application(tmp_path):
    """wandb's three reports of a trn1.2xlarge at work: per-core utilization, device memory
    (no devices' size in these reports: a figure in MiB, no share) and executions."""
    section = parsed(tmp_path, "neuron_monitor_trn1_app_wandb.jsonl")
    assert section.dialects == ["neuron_monitor"]
    util = [(e.engine, e.percent) for e in section.events if isinstance(e, Utilization)]
    assert [p for engine, p in util if engine == "nc0"] == [
        1.3631567613356375, 1.3560819560861623, 1.3128372400154966]
    assert [p for engine, p in util if engine == "nc1"] == [0.0, 0.0, 0.0]
    assert [p for engine, p in util if engine == "host mem"] == [33.92, 33.92, 33.93]
    assert "neuron mem" not in dict(util)
    found = metrics(section.events)
    assert found["neuron.device_mem_used_mib"] == [97.6, 97.2, 97.6]
    assert found["neuron.executions_completed"] == [260, 260, 260]
    assert found["neuron.executions_completed_with_err"] == [0, 0, 0]


def test_neuron_monitor_live_feed_reads_a_real_report(tmp_path):
    """The live sampler's reading of the same report: per-core utilization only."""
    line = body("trainium", "neuron_monitor_trn1_app_wandb.jsonl").splitlines()[0]
    assert NeuronSampler(1.0, tmp_path).feed(line) == [
        {"engine": "nc0", "percent": 1.3631567613356375}, {"engine": "nc1", "percent": 0.0}]


@pytest.mark.parametrize(("name", "expected"), [
    ("neuron_ls_trn1_2xlarge.json", [neuron_ls.NeuronDevice(0, 2, 34359738368)]),
    ("neuron_ls_trn1_2xlarge.txt", [neuron_ls.NeuronDevice(0, 2, 34359738368)]),
    ("neuron_ls_inf1_issue359.txt", [neuron_ls.NeuronDevice(0, 4, 8 * 2 ** 30)]),
])
def test_neuron_ls_devices(name, expected):
    assert neuron_ls.devices(body("trainium", name)) == expected


def test_neuron_ls_trn2_table():
    found = neuron_ls.devices(body("trainium", "neuron_ls_trn2n_48xlarge.txt"))
    assert [d.index for d in found] == list(range(16))
    assert {(d.cores, d.memory) for d in found} == {(4, 96 * 2 ** 30)}
    assert neuron_ls.described(found) == (
        "16 Neuron device(s), 64 NeuronCore(s), 1536 GiB (neuron-ls)")


def test_detect_reads_neuron_ls(monkeypatch, tmp_path):
    tool = tmp_path / "neuron-ls"
    tool.write_text("#!/bin/sh\ncat <<'EOF'\n" + body("trainium", "neuron_ls_trn1_2xlarge.json")
                    + "EOF\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    found = neuron_ls.detect()
    assert found.available
    assert found.detail == "1 Neuron device(s), 2 NeuronCore(s), 32 GiB (neuron-ls)"
