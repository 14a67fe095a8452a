"""The Trainium dialects (HF Trainer output, ``neuron-profile`` summaries) on the real seed
notes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from accelbench.engine.core.events import Metric, Progress, Utilization
from accelbench.engine.parsers.hf_trainer import HFTrainer
from accelbench.engine.plugin.registry import get_dialect
from accelbench.engine.systems.trainium.neuron_profile import NeuronProfile
from tests.helpers import heading_sections

SEEDS = Path(__file__).resolve().parent.parent / "fixtures" / "seeds"
SEED_000 = (SEEDS / "000_6c710d153de2b2d9.txt").read_text()
SEED_001 = (SEEDS / "001_a8d02f199ef107f4.txt").read_text()
CEREBRAS = "| Train Device=CSX, Step=100, Loss=7.1, Rate=500.0 samples/sec"
HEADING = re.compile(r"^#+\s+(.*?)\s*$")
GIB = 2.0**30


def sections(text: str) -> dict[str, str]:
    """The text under each markdown heading, by heading title."""
    return heading_sections(text, HEADING)


def parse(cls, text: str) -> list:
    events = []
    dialect = cls("r")
    for line in text.splitlines():
        events.extend(dialect.feed(line, 0.0))
    events += dialect.finish(0.0)
    return events


def metrics(events) -> dict[str, float]:
    """The metrics by name (the last value of a name seen twice)."""
    return {e.name: e.value for e in events if isinstance(e, Metric)}


def utilization(events) -> dict[str, float]:
    return {e.engine: e.percent for e in events if isinstance(e, Utilization)}


def test_registered_by_name():
    assert get_dialect("hf_trainer") is HFTrainer
    assert get_dialect("neuron_profile") is NeuronProfile


def test_hf_trainer_seed_000_padding_32():
    events = parse(HFTrainer, sections(SEED_000)["Padding 32"])
    assert all(isinstance(e, Metric) and e.run_id == "r" for e in events)
    assert metrics(events) == pytest.approx({
        "accuracy": 94.30,
        "accuracy_stochastic_rounding": 94.05,
        "epoch": 3.0,
        "eval_loss": 0.1849,
        "eval_runtime": 2.42,
        "eval_samples_per_second": 1649.448,
        "eval_steps_per_second": 103.091,
        "total_flos_gf": 367575.0,
        "train_loss": 0.2833,
        "train_runtime": 123.15,
        "train_samples_per_second": 194.87,
        "train_steps_per_second": 6.09,
    })


def test_hf_trainer_seed_000_padding_16_accuracy_forms():
    found = metrics(parse(HFTrainer, sections(SEED_000)["Padding 16"]))
    assert found["accuracy"] == pytest.approx(92.80)
    assert found["accuracy_stochastic_rounding"] == pytest.approx(93.05)
    assert found["train_runtime"] == pytest.approx(120.56)


def test_hf_trainer_seed_001_batch_16():
    found = metrics(parse(HFTrainer, sections(SEED_001)["Batch 16"]))
    assert found["train_samples_per_second"] == pytest.approx(94.369)
    assert found["train_runtime"] == pytest.approx(254.32)
    assert found["eval_loss"] == pytest.approx(0.1337)
    assert found["total_flos_gf"] == pytest.approx(1470300.0)
    assert not any(name.startswith("profile.") for name in found)


def test_hf_trainer_log_dicts():
    lines = [
        "{'loss': 0.6929, 'grad_norm': 1.2, 'learning_rate': 4.9e-05, 'epoch': 0.42}",
        (" 40%|████      | 80/200 [00:10<00:15]"
         "{'loss': '0.697', 'grad_norm': '3.1', 'epoch': '1'}"),
        ("{'train_runtime': 123.15, 'train_samples_per_second': 194.87, 'train_loss': 0.28,"
         " 'epoch': 3.0}"),
        "{'model': 'bert', 'batch': 32}",
    ]
    events = parse(HFTrainer, "\n".join(lines))
    assert [(e.name, e.value) for e in events if isinstance(e, Metric)] == pytest.approx([
        ("loss", 0.6929), ("grad_norm", 1.2), ("learning_rate", 4.9e-05),
        ("loss", 0.697), ("grad_norm", 3.1),
        ("train_runtime", 123.15), ("train_samples_per_second", 194.87), ("train_loss", 0.28),
    ])
    assert [(e.step, e.total, e.epoch) for e in events if isinstance(e, Progress)] == [
        (0, 0, 0.42), (0, 0, 1.0), (0, 0, 3.0)]  # (the dicts' epochs; no bar in it/s gave a step)


def test_hf_trainer_dicts_give_their_epoch_and_keys_as_metric_names():
    """A dict's ``epoch`` is the progress's, at the last bar's step, and the bars after it
    carry it on; TRL's ``rewards/margins`` is the metric ``rewards_margins`` (VOCAB's names).
    Lines from tests/fixtures/real/frameworks/trl_dpo_loss_zero_issue1236.log and
    hf_trainer_esm2_srun_smhp.log."""
    events = parse(HFTrainer, "\n".join([
        " 19%|█▊        | 18/97 [01:50<08:31,  6.39s/it]",
        ("{'loss': 0.007, 'learning_rate': 4.8571428571428576e-05, 'rewards/chosen': "
         "11.858444213867188, 'rewards/rejected': 6.615283012390137, 'rewards/accuracies': 1.0, "
         "'rewards/margins': 5.243161201477051, 'logps/rejected': -400.72216796875, "
         "'logps/chosen': -643.16552734375, 'logits/rejected': -2.5607786178588867, "
         "'logits/chosen': -2.370227336883545, 'epoch': 0.05}"),
        " 36%|███▌      | 35/97 [03:39<06:42,  6.39s/it]"]))
    assert [(e.step, e.total, e.epoch) for e in events if isinstance(e, Progress)] == [
        (18, 97, 0), (18, 97, 0.05), (35, 97, 0.05)]
    assert metrics(events)["rewards_margins"] == pytest.approx(5.243161201477051)
    assert metrics(events)["logps_chosen"] == pytest.approx(-643.16552734375)
    assert not any("/" in e.name for e in events if isinstance(e, Metric))


def test_hf_trainer_block_ends_at_other_line():
    text = ("***** eval metrics *****\n  eval_loss = 0.5\n  eval_runtime = 1 day, 0:00:01.50\n"
            "Done\n  later = 7")
    assert metrics(parse(HFTrainer, text)) == pytest.approx({"eval_loss": 0.5,
                                                            "eval_runtime": 86401.5})


def test_neuron_profile_seed_000_padding_32():
    events = parse(NeuronProfile, sections(SEED_000)["Padding 32"])
    assert utilization(events) == pytest.approx({
        "tensor": 21.21, "vector": 40.17, "scalar": 32.9, "gpsimd": 3.49,
        "sync": 0.75, "dma": 81.95, "cc": 26.81,
    })
    found = metrics(events)
    assert found["profile.tensor_engine_active_time_percent"] == pytest.approx(21.21)
    assert found["profile.mfu_estimated_percent"] == pytest.approx(10.45)
    assert found["profile.hardware_flops"] == pytest.approx(636.277e9)
    assert found["profile.total_time"] == pytest.approx(54.82e-3)
    assert found["profile.sync_engine_active_time"] == pytest.approx(409.83e-6)
    assert found["profile.event_count"] == 539986
    assert found["profile.weight_size_bytes"] == pytest.approx(112 * 1024)
    assert found["profile.output_queue_bytes"] == 0
    # The device-memory table's header is a data row here.
    assert found["profile.device_memory.generic"] == pytest.approx(64 * 1024)
    assert found["profile.device_memory.Total"] == pytest.approx(5.473 * GIB)
    for text_valued in ("instance_type", "compiler_version", "runtime_version", "profiler_version"):
        assert f"profile.{text_valued}" not in found
    assert not any(n.startswith(("train_", "eval_", "accuracy")) for n in found)


def test_neuron_profile_seed_001():
    parts = sections(SEED_001)
    baseline = metrics(parse(NeuronProfile, parts["Baseline"]))
    assert baseline["profile.mfu_estimated_percent"] == pytest.approx(10.87)
    assert baseline["profile.hfu_estimated_percent"] == pytest.approx(13.26)
    assert baseline["profile.dma_transfer_total_bytes"] == pytest.approx(3.979 * GIB)
    assert baseline["profile.hardware_flops"] == pytest.approx(654.344e9)
    assert baseline["profile.device_memory.Total"] == pytest.approx(5.472 * GIB)
    assert baseline["profile.device_memory.profiler_buffers"] == pytest.approx(2.443 * GIB)
    assert baseline["profile.device_memory.dma_rings_Syncill"] == pytest.approx(63.538 * 2**20)

    events = parse(NeuronProfile, parts["Batch 16"])
    assert utilization(events) == pytest.approx({
        "tensor": 26.11, "vector": 38.15, "scalar": 28.63, "gpsimd": 4.9,
        "sync": 0.73, "dma": 83.86, "cc": 18.36,
    })
    batch16 = metrics(events)
    assert batch16["profile.mfu_estimated_percent"] == pytest.approx(15.94)
    assert batch16["profile.hardware_flops"] == pytest.approx(1.287e12)
    # Blank header row above the device-memory table.
    assert batch16["profile.device_memory.Total"] == pytest.approx(6.056 * GIB)

    batch2 = utilization(parse(NeuronProfile, parts["Batch 2"]))
    assert batch2["tensor"] == pytest.approx(7.26)
    assert batch2["cc"] == pytest.approx(34.09)


@pytest.mark.parametrize("cls", [HFTrainer, NeuronProfile])
def test_sniff(cls):
    assert cls.sniff(SEED_000)
    assert cls.sniff(SEED_001)
    assert not cls.sniff(CEREBRAS)
    assert not cls.sniff("")


def test_sniff_tells_the_dialects_apart():
    assert not NeuronProfile.sniff(sections(SEED_001)["Batch 16"].split("**Summary")[0])
    assert not HFTrainer.sniff(sections(SEED_001)["Batch 4"])
    assert HFTrainer.sniff("{'loss': 0.6929, 'learning_rate': 4.9e-05, 'epoch': 0.42}")


@pytest.mark.parametrize("logged", [
    "{'loss': 0.6929, 'learning_rate': 4.9e-05, 'epoch': 0.42}",
    "{'loss': 2, 'grad_norm': 1e999, 'loss': -0.5, 'epoch': 1.}",  # a key twice: its last
    "{'loss': 01.5, 'epoch': .5}",
    "{'loss': 1_0, 'epoch': 1}",  # underscores: Python's, not the pattern's
    "{'loss': 007, 'epoch': 1}",  # no int literal: nothing
    "{'loss': \u0663, 'epoch': 1}",  # an Arabic-Indic digit: no literal, nothing
    "{'lo\\'ss': 3.0, 'epoch': 1}",  # an escape
    "{'loss': nan, 'epoch': 1}",
    "{'loss': -inf, 'epoch': 1}",
])
def test_a_log_dict_of_numbers_gives_what_literal_eval_reads(logged):
    """A log dict read by the pattern for dicts of numbers only gives the events reading
    it with ``ast.literal_eval`` gives (the same dict: keys, order, int or float)."""
    import ast

    from accelbench.engine.parsers import hf_trainer

    quick = HFTrainer("r").feed(logged, 0.0)
    slow = hf_trainer._FLAT
    try:
        hf_trainer._FLAT = re.compile(r"(?!)")  # (no dict is "of numbers only")
        read = HFTrainer("r").feed(logged, 0.0)
    finally:
        hf_trainer._FLAT = slow
    assert quick == read
    try:
        expected = ast.literal_eval(hf_trainer._NOT_FINITE.sub(r"\1'\2'", logged))
    except (ValueError, SyntaxError):
        expected = None
    assert (expected is not None) == bool(quick)


OPTIMUM = SEEDS.parent / "real" / "trainium" / "optimum_tinyllama_npc_nan.log"
CONLL = SEEDS.parent / "real" / "frameworks" / "hf_trainer_metrics_blocks_conll.log"


def test_the_log_dicts_read_from_the_text_give_what_feed_gives():
    """The Trainer's log dicts read as columns (``feed_text``: runs of dicts alike, a
    ``nan`` loss diagnosed once, a dict a bar cuts into fed) give what ``feed`` gives the
    lines one by one, a line going by unfed (``skipped``) ending a metrics block there too."""
    from accelbench.engine.core.batches import expanded
    from accelbench.engine.parsers.prefilter import wanted_lines

    optimum = OPTIMUM.read_text().split("\n")[1:]
    block = CONLL.read_text().split("\n")[1:5]  # its train metrics block's first lines
    block[2:2] = [next(line for line in optimum if line.startswith("Training completed"))]
    text = "\n".join(optimum * 30 + block + optimum + [
        "{'loss': 2, 'grad_norm': 1e999, 'loss': -0.5, 'epoch': 1.}",
        "{'loss': -0, 'epoch': 1}", "{'loss': 1e200, 'epoch': 2}", "{'eval_loss': inf}"])
    needs = tuple(need for need in HFTrainer.needs if need in text)
    one, many = HFTrainer("r"), HFTrainer("r")
    each = [e for _, line in wanted_lines(text, needs)
            for e in (one.skipped(0.0) if line is None else one.feed(line, 0.0))]
    at_once = many.feed_text(text, needs, (), 0.0)
    assert at_once is not None
    assert repr(expanded(at_once)) == repr(each)  # (repr: a nan equals itself)
    assert repr(vars(many)) == repr(vars(one))
    assert "train_loss" not in metrics(each) and metrics(each)["epoch"] == 30.0
