"""A run of the user's own command: its output sniffed live for the generic dialects
(tqdm bars, Keras, the Hugging Face Trainer, Slurm's lines), as ``accelbench parse`` does."""

from __future__ import annotations

import asyncio
import shlex
import sys

import pytest
from real_logs import REAL, body

from accelbench.engine.config.spec import spec_from_dict
from accelbench.engine.core.events import Diagnosis, Log, Metric, Progress, Utilization
from accelbench.engine.logs.logfile import parse_file
from accelbench.engine.plugin import registry
from accelbench.engine.run.runner import Deriver, StateOnly, _sniffer

# A stand-in for the user's script: prints a real log's lines (its source line aside) as
# the program printed them, a few at a time; ``redraw``: each bar state over the last one
# with a carriage return, as tqdm does on a terminal.
REPLAY = """
import sys, time
lines = open(sys.argv[1], encoding="utf-8").read().split("\\n")[1:]
end = "\\r" if sys.argv[2] == "redraw" else "\\n"
for i, line in enumerate(lines):
    if line:
        sys.stdout.write(line + end)
        sys.stdout.flush()
    if i % 4 == 3:
        time.sleep(0.05)
print()
"""


def _spec(path, how: str = "lines"):
    command = shlex.join([sys.executable, "-c", REPLAY, str(path), how])
    return spec_from_dict({"name": "mine", "workload": "command",
                           "params": {"command": command}, "telemetry_interval": 0})


def _follow(handle) -> list:
    async def collect():
        return [e async for e in handle.events(poll=0.05)]
    return asyncio.run(collect())


def _figures(events: list) -> list:
    """What a user reads off a run: its progress and metrics, in order."""
    return [(type(e).__name__, getattr(e, "name", ""), getattr(e, "value", None),
             getattr(e, "step", None), getattr(e, "total", None))
            for e in events if isinstance(e, Progress | Metric)]


def _parsed(system: str, name: str) -> list:
    [section] = parse_file(REAL / system / name)
    return _figures(section.events)


def test_a_keras_script_shows_its_progress_and_loss_live_as_parse_reads_them(runner):
    handle = runner.start(_spec(REAL / "generic" / "keras_16906.txt"))
    live = _follow(handle)
    figures = _figures(live)
    assert figures == _parsed("generic", "keras_16906.txt")
    # "Epoch 1/200" came before the line Keras was recognised at: it was read all the same
    assert figures[0] == ("Progress", "", None, 125, 25000)
    assert [f[2] for f in figures if f[1] == "loss"] == [
        3.9305, 3.5681, 3.3872, 3.1754, 2.9871, 2.7658, 2.6248, 2.4352, 2.3484, 2.2068]
    assert live[-1].status == "done"
    assert live[-1].summary["final_loss"] == 2.2068 and live[-1].summary["steps"] == 1250
    assert [e.text for e in live if isinstance(e, Log)][:2] == body(
        "generic", "keras_16906.txt").split("\n")[:2]
    replayed, state = runner.open(handle.id).replay()

    def not_telemetry(events):
        return [e for e in events if not isinstance(e, Utilization)]

    assert not_telemetry(replayed)[:-1] == not_telemetry(live)[:-1]
    assert state.metrics["loss"] == 2.2068


def test_a_tqdm_bar_redrawn_in_place_shows_live(runner):
    handle = runner.start(_spec(REAL / "generic" / "tqdm_lightning_4225.txt", "redraw"))
    live = _follow(handle)
    assert [(e.step, e.total) for e in live if isinstance(e, Progress)] == [
        (step, 18) for step in range(1, 6)]
    assert [e.value for e in live if isinstance(e, Metric) and e.name == "loss"] == [
        10.473, 10.224, 10.047, 9.926, 9.847]
    assert live[-1].summary["final_loss"] == 9.847


def test_a_hugging_face_script_shows_its_figures_live(runner):
    """Optimum Neuron's Trainer (a real log whose loss is nan): its learning rate live,
    the nan loss a warning, the run done."""
    name = "optimum_llama3_nan_issue658.log"
    live = _follow(runner.start(_spec(REAL / "trainium" / name)))
    rates = [e.value for e in live if isinstance(e, Metric) and e.name == "learning_rate"]
    assert rates[0] == 4.796747967479675e-05 and rates[-1] == 3.780487804878049e-05
    assert [e.code for e in live if isinstance(e, Diagnosis)] == ["loss_not_finite"]
    assert _figures(live) == _parsed("trainium", name)
    assert live[-1].status == "done"


@pytest.mark.parametrize("chunk", [1, 3, 1000])
def test_the_dialect_is_taken_at_the_same_line_whatever_the_batches(chunk):
    lines = body("generic", "keras_16906.txt").split("\n")
    deriver = Deriver("r", 0.0, sniff=["hf_trainer", "slurm", "tqdm", "keras"])
    events = []
    for i in range(0, len(lines), chunk):
        events += deriver.output(lines[i:i + chunk])
    assert [type(d).name for d in deriver.dialects] == ["keras"]
    assert _figures(events) == _parsed("generic", "keras_16906.txt")


def test_a_dialect_found_late_reads_the_lines_just_before_it():
    """After 1,500 other lines (more than the sniffer keeps), Keras still reads the
    ``Epoch 1/200`` just before its first bar."""
    lines = [f"loading shard {i} x=1 <ok>" for i in range(1500)]
    lines += body("generic", "keras_16906.txt").split("\n")
    deriver = Deriver("r", 0.0, reader=StateOnly(), sniff=["hf_trainer", "slurm", "tqdm", "keras"])
    events = []
    for i in range(0, len(lines), 64):
        events += deriver.output(lines[i:i + 64])
    assert _figures(events) == _parsed("generic", "keras_16906.txt")


def test_output_without_a_known_format_takes_no_dialect():
    deriver = Deriver("r", 0.0, sniff=["hf_trainer", "slurm", "tqdm", "keras"])
    events = deriver.output(["epoch 1 loss=0.5", "a <b> c", "x = 1", "done"])
    assert deriver.dialects == [] and [e.kind for e in events] == ["log"] * 4 + [
        "progress", "metric"]
    assert (events[-1].name, events[-1].value) == ("loss", 0.5)  # (the generic reader's,
    assert events[-2].epoch == 1  # and the epoch it names)


def test_a_system_dialect_reads_its_own_bars_in_a_command_run():
    """On IPUs a command is read with PopTorch's dialects: tqdm and Keras, which PopTorch's
    bars would also match, are not sniffed (as ``accelbench parse`` would not take them)."""
    poptorch = [registry.get_dialect("poptorch")]
    sniffer = _sniffer(poptorch, ["hf_trainer", "slurm", "tqdm", "keras"])
    assert sniffer is not None
    assert [cls.name for cls in sniffer.candidates] == ["hf_trainer", "slurm"]
    assert _sniffer([], []) is None
