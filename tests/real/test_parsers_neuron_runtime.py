"""Neuron runtime and compiler failures become diagnoses with hints."""

import pytest

from accelbench.engine.plugin.registry import get_dialect

LINES = {
    "neuron_cores_busy": "2024-Apr-08 09:01:59.258 ERROR NRT:nrt_allocate_neuron_cores "
                         "Logical Neuron Core(s) not available - Requested:2 Available:0",
    "neuron_out_of_memory": "ERROR  NRT:nrt_tensor_allocate Failed to allocate 1073741824 bytes"
                            " of HBM memory on device 0",
    "neuron_compile_failed": "ERROR 2024-04-08 neuronx-cc: Compilation failed for module "
                             "jit__train_step",
    "neuron_no_device": "RuntimeError: No neuron device available",
}


@pytest.mark.parametrize("code", LINES)
def test_each_failure_is_diagnosed_once_with_a_hint(code):
    dialect = get_dialect("neuron_runtime")("r")
    events = dialect.feed("some ordinary line", 1.0) + dialect.feed(LINES[code], 2.0) + \
        dialect.feed(LINES[code], 3.0)
    assert [(e.code, e.ts) for e in events] == [(code, 2.0)]
    assert events[0].hint and LINES[code].strip()[:40] in events[0].message


def test_sniff():
    dialect = get_dialect("neuron_runtime")
    assert dialect.sniff(LINES["neuron_cores_busy"])
    assert not dialect.sniff("{'loss': 0.69, 'epoch': 0.4}")
