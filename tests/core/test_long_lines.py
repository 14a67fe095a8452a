"""Long lines are read whole (a Trainer log dict of 20 kB), live and imported; a line over
``tail.MAX_LINE`` is cut there, which its log line says, with no diagnosis."""

from __future__ import annotations

import asyncio
import shlex
import sys

from accelbench.engine.config.spec import spec_from_dict
from accelbench.engine.core.events import Diagnosis, Log, Metric
from accelbench.engine.core.tail import CUT_MARK, MAX_LINE
from accelbench.engine.logs.importer import import_file
from accelbench.engine.logs.logfile import parse_file
from accelbench.engine.run.runner import RunHandle

# A Trainer log dict with a grad norm per layer: its learning rate and epoch come last,
# 20 kB into the line (the Trainer prints the dict in the order it was filled).
NORMS = ", ".join(f"'grad_norm_layer_{i}': {0.5 + i / 1e4}" for i in range(800))
LONG = f"{{'loss': 0.6931, {NORMS}, 'learning_rate': 4.5e-05, 'epoch': 0.25}}"
PRINT = "import sys; sys.stdout.write(open(sys.argv[1]).read())"


def _metrics(events: list) -> dict[str, float]:
    return {e.name: e.value for e in events if isinstance(e, Metric)}


def test_a_20_kb_trainer_dict_is_read_whole_live(runner, tmp_path):
    assert len(LONG) > 20_000
    log = tmp_path / "train.log"
    log.write_text(f"starting\n{LONG}\n")
    command = shlex.join([sys.executable, "-c", PRINT, str(log)])
    handle = runner.start(spec_from_dict({"name": "long", "workload": "command",
                                          "params": {"command": command},
                                          "telemetry_interval": 0}))

    async def follow():
        return [e async for e in handle.events(poll=0.05)]
    live = asyncio.run(follow())
    found = _metrics(live)
    assert found["learning_rate"] == 4.5e-05 and found["grad_norm_layer_799"] == 0.5799
    assert found["loss"] == 0.6931 and live[-1].summary["final_loss"] == 0.6931
    assert [e.text for e in live if isinstance(e, Log)] == ["starting", LONG]


def test_a_20_kb_trainer_dict_is_read_whole_by_parse_and_import(store, tmp_path):
    log = tmp_path / "train.log"
    log.write_text(f"{LONG}\n{{'train_runtime': 12.5, 'train_loss': 0.6931, 'epoch': 1.0}}\n")
    [section] = parse_file(log)
    assert _metrics(section.events)["learning_rate"] == 4.5e-05
    [info] = import_file(store, log)
    events, state = RunHandle(store, info).replay()
    assert _metrics(events)["learning_rate"] == 4.5e-05
    assert state.metrics["grad_norm_layer_799"] == 0.5799 and info.status == "done"


def test_a_line_over_the_cap_is_cut_saying_so_with_no_diagnosis(store, tmp_path):
    log = tmp_path / "flood.log"
    log.write_text("{'loss': 0.5, 'epoch': 0.5}\n" + "x" * (3 * MAX_LINE) + "\n"
                   "{'train_runtime': 12.5, 'train_loss': 0.25, 'epoch': 1.0}\n")
    [info] = import_file(store, log)
    events, state = RunHandle(store, info).replay()
    [cut] = [e.text for e in events if isinstance(e, Log) and e.text.startswith("x")]
    assert cut == "x" * MAX_LINE + CUT_MARK
    assert not [e for e in events if isinstance(e, Diagnosis)]
    assert state.metrics["train_loss"] == 0.25 and info.status == "done"
