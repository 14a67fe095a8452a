"""Real AWS Neuron output (tests/fixtures/real/trainium): the figures a user reads off it."""

from __future__ import annotations

import pytest
from real_logs import body

from accelbench.engine.events import Diagnosis, Metric, Phase, Progress, Throughput, Utilization
from accelbench.engine.importer import import_file
from accelbench.engine.logfile import parse_file
from accelbench.engine.runner import RunHandle
from accelbench.engine.systems.trainium import neuron_ls
from accelbench.engine.systems.trainium.nxd_training import NxDTraining


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


def test_nxd_step_lines_live_feed():
    dialect = NxDTraining("r")
    (line,) = body("trainium", "nxd_llama3_70b_hyperpod.log").splitlines()[:1]
    kinds = [type(e).__name__ for e in dialect.feed(line, 5.0)]
    assert kinds == ["Phase", "Progress", "Throughput", "Metric", "Metric", "Metric"]


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
    info, state = imported(store, tmp_path, "optimum_tinyllama_npc_nan.log")
    assert info.status == "done"
    assert info.summary.samples_per_s is None or info.summary.samples_per_s > 0
    assert [d.code for d in state.diagnoses] == ["loss_not_finite"]


def test_neuron_monitor_report(tmp_path):
    section = parsed(tmp_path, "neuron_monitor_trn1_idle.jsonl")
    assert section.dialects == ["neuron_monitor"]
    (host,) = [e for e in section.events if isinstance(e, Utilization)]
    assert (host.engine, host.percent, host.value, host.unit) == ("host mem", 3.88, 1225.4, "MiB")


def test_neuron_monitor_report_with_applications():
    """A report with two NeuronCores in use (the live sampler's reading, from a line)."""
    from accelbench.engine.systems.trainium.neuron_monitor import NeuronMonitor

    line = ('{"neuron_runtime_data":[{"report":{"neuroncore_counters":{"neuroncores_in_use":'
            '{"0":{"neuroncore_utilization":42.5},"1":{"neuroncore_utilization":7.25}}},'
            '"execution_stats":{"execution_summary":{"completed":2,"completed_with_err":0}},'
            '"memory_used":{"neuron_runtime_used_bytes":{"neuron_device":3541303936}}}}],'
            '"neuron_hardware_info":{"neuron_device_count":1,'
            '"neuron_device_memory_size":34359738368}}')
    events = NeuronMonitor("r").feed(line, 1.0)
    util = {e.engine: e.percent for e in events if isinstance(e, Utilization)}
    assert util == {"nc0": 42.5, "nc1": 7.25, "neuron mem": 10.31}
    assert metrics(events)["neuron.executions_completed"] == [2]


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
