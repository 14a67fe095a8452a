"""Real tqdm bars (PyTorch Lightning) and Keras ``fit`` lines, read on any system."""

from __future__ import annotations

import pytest
from real_logs import REAL, body

from accelbench.engine.core.events import Metric, Progress
from accelbench.engine.logs.importer import import_file
from accelbench.engine.logs.logfile import detect, parse_file
from accelbench.engine.plugin import registry
from accelbench.engine.run.runner import Deriver
from tests.helpers import FIXTURES


def _events(name: str, dialect: str) -> list:
    [section] = parse_file(REAL / "generic" / name)
    assert section.dialects == [dialect]
    return [e for e in section.events if e.kind != "log"]


def _series(events: list, name: str) -> list[float]:
    return [e.value for e in events if isinstance(e, Metric) and e.name == name]


def _progress(events: list) -> list[tuple[int, int, float, float]]:
    return [(e.step, e.total, e.epoch, e.epochs) for e in events if isinstance(e, Progress)]


def test_keras_verbose1_sparse_accuracy_as_percent():
    events = _events("keras_16906.txt", "keras")
    assert _series(events, "loss") == [3.9305, 3.5681, 3.3872, 3.1754, 2.9871, 2.7658, 2.6248,
                                       2.4352, 2.3484, 2.2068]
    assert _series(events, "sparse_categorical_accuracy")[::3] == [22.8, 39.38, 47.23, 54.43]
    assert _series(events, "epoch_time_s") == [7, 4, 4, 3, 3, 4, 4, 4, 4, 3]
    assert _series(events, "step_time_s")[:3] == [0.030, 0.031, 0.028]
    assert _progress(events)[0] == (125, 25000, 1, 200)
    assert _progress(events)[-1] == (1250, 25000, 10, 200)


def test_keras_microsecond_steps():
    events = _events("keras_abhi8893_8.txt", "keras")
    assert _series(events, "step_time_s") == [
        781e-6, 785e-6, 725e-6, 635e-6, 646e-6, 732e-6, 685e-6, 637e-6, 611e-6, 757e-6]
    assert _series(events, "loss")[0] == 1457.4397 and _series(events, "mse")[-1] == 25.0970
    assert _series(events, "epoch_time_s") == [0.0] * 10
    assert _progress(events)[-1] == (320, 320, 10, 10)


def test_keras_validation_metrics():
    events = _events("keras_magpie_183.txt", "keras")
    assert _series(events, "val_loss") == [0.5469, 0.4550, 0.4333, 0.4245, 0.4172, 0.4251, 0.3898]
    assert _series(events, "loss")[-1] == 0.4234
    assert _series(events, "top_k_categorical_accuracy") == [100.0] * 7
    assert _series(events, "val_top_k_categorical_accuracy") == [100.0] * 7
    assert _series(events, "epoch_time_s") == [110, 114, 110, 107, 106, 106, 100]
    assert _series(events, "step_time_s") == [0.018, 0.019, 0.018, 0.018, 0.017, 0.017, 0.016]
    assert _progress(events)[-1] == (42504, 60720, 7, 10)


def test_keras_verbose2_between_tensorflow_lines():
    events = _events("keras_verbose2_complex_22.txt", "keras")
    assert _series(events, "loss") == [0.2431, 0.2135, 0.2003, 0.2163]
    assert _series(events, "epoch_time_s") == [21, 10, 10, 10]
    assert _series(events, "step_time_s") == [0.019, 0.010, 0.010, 0.010]
    assert _progress(events) == [(1079 * i, 21580, i, 20) for i in range(1, 5)]


def test_keras_io_mnist_accuracy_and_an_eta_line():
    events = _events("keras_io_mnist_convnet.txt", "keras")
    assert _series(events, "accuracy") == [76.43, 96.39, 97.37, 97.56, 98.12, 98.25, 98.4, 98.62,
                                           98.6, 98.65, 98.74, 98.77]
    assert _series(events, "val_accuracy")[-1] == 99.2 and _series(events, "val_loss")[0] == 0.078
    assert _series(events, "epoch_time_s") == [13, 13, 14, 14, 15, 17, 17, 16, 17, 16, 16]
    assert _series(events, "step_time_s")[-1] == 0.037  # the ETA line has no step time
    assert _progress(events)[-1] == (11 * 422 + 237, 6330, 12, 15)


def test_keras_evaluate_after_fit_is_the_test_figures():
    events = _events("keras_io_fit_evaluate.txt", "keras")
    assert _series(events, "sparse_categorical_accuracy") == [90.13, 95.2]
    assert _series(events, "val_sparse_categorical_accuracy") == [93.7, 95.86]
    assert _series(events, "test_loss") == [0.1357]
    assert _series(events, "test_sparse_categorical_accuracy") == [95.81]
    assert _progress(events) == [(782, 1564, 1, 2), (1564, 1564, 2, 2)]  # evaluate: no step


def test_keras_last_line_printed_twice_is_not_evaluate():
    lines = body("generic", "keras_io_fit_evaluate.txt").split("\n")
    last = lines.index("Epoch 2/2") + 1
    keras = registry.get_dialect("keras")("r")
    events = [e for line in lines[:last + 1] + lines[last:] for e in keras.feed(line, 0.0)]
    assert _series(events, "test_loss") == [0.1357] and _series(events, "loss") == [0.3433, 0.1594]


def test_keras_2_0_acc_and_samples_as_steps():
    events = _events("keras_pr8169_acc.txt", "keras")
    assert _series(events, "accuracy") == [89.57, 96.71, 97.33]
    assert _series(events, "val_accuracy") == [97.71, 98.37]
    assert _series(events, "step_time_s") == [87e-6, 77e-6]
    assert _progress(events) == [(60000, 720000, 1, 12), (120000, 720000, 2, 12),
                                 (149312, 720000, 3, 12)]


def test_keras_3_bars_between_notebook_markup():
    events = _events("keras3_io_mnist_moe.txt", "keras")
    assert _progress(events) == [(n, 469 * 20, 1, 20) for n in (1, 4, 8, 12)]
    assert _series(events, "accuracy") == [14.06, 16.37, 20.71, 24.38]
    assert _series(events, "moe_loss") == [3.8421, 11.5298, 21.77, 32.0082]
    assert _series(events, "step_time_s") == [1.0, 0.017, 0.017, 0.017]
    assert _series(events, "epoch_time_s") == []  # "8:21", "8s": the time left, mid-epoch


def test_lightning_bar_in_seconds_per_iteration():
    events = _events("tqdm_lightning_4225.txt", "tqdm")
    # bars without postfix fields (the first four lines) give nothing
    assert _progress(events) == [(step, 18, 0, 0) for step in range(1, 6)]
    assert _series(events, "loss") == [10.473, 10.224, 10.047, 9.926, 9.847]
    assert _series(events, "it_per_s") == pytest.approx(
        [1 / 8.77, 1 / 5.82, 1 / 4.87, 1 / 4.47, 1 / 4.14])
    assert "v_num" not in {e.name for e in events if isinstance(e, Metric)}


def test_lightning_bar_without_glyphs():
    events = _events("tqdm_lightning_3866.txt", "tqdm")
    assert _progress(events) == [(step, 1702, 0, 0) for step in range(1651, 1665)]
    assert _series(events, "it_per_s") == [2.11, 2.12]  # a figure again only when it changes
    assert _series(events, "loss") == [0.158] and _series(events, "train_loss") == [0.149]


def test_lightning_validation_bar_without_postfix_is_not_training():
    events = _events("tqdm_lightning_2667.txt", "tqdm")
    assert _progress(events) == [(996, 997, 1, 0)]  # "Epoch 1"
    assert _series(events, "it_per_s") == [6.51] and _series(events, "loss") == [0.655]
    assert _series(events, "val_loss") == [0.67374]  # the checkpoint message glued to the bar


def test_a_training_loops_set_postfix_bar():
    events = _events("tqdm_set_postfix_rich_2991.txt", "tqdm")
    assert _progress(events) == [(218, 1700, 1, 1)]  # "Training Epoch 1 / 1"
    assert {e.name: e.value for e in events if isinstance(e, Metric)} == {
        "it_per_s": 13.70, "all_loss": 0.361, "ctr_loss": 0.361}


def test_imported_keras_and_lightning_runs_fill_the_summary(store):
    [keras] = import_file(store, REAL / "generic" / "keras_magpie_183.txt")
    assert (keras.summary.final_loss, keras.summary.eval_loss) == (0.4234, 0.3898)
    assert (keras.summary.steps, keras.summary.total_steps) == (42504, 60720)
    [accuracy] = import_file(store, REAL / "generic" / "keras_16906.txt")
    assert accuracy.summary.accuracy == 54.43
    [evaluated] = import_file(store, REAL / "generic" / "keras_io_fit_evaluate.txt")
    assert (evaluated.summary.eval_loss, evaluated.summary.accuracy) == (0.1357, 95.81)
    [lightning] = import_file(store, REAL / "generic" / "tqdm_lightning_3866.txt")
    assert lightning.summary.final_loss == 0.149 and lightning.summary.steps == 1664


def test_live_lightning_bar_redrawn_in_place():
    deriver = Deriver("r", 0.0, ["tqdm"])
    lines = body("generic", "tqdm_lightning_4225.txt").split("\n")
    deriver.output(["\r".join(lines)])  # a terminal's one line, redrawn
    deriver.output([line for line in lines if line])
    assert (deriver.state.step, deriver.state.total) == (5, 18)
    assert deriver.state.metrics["loss"] == 9.847


def test_a_system_dialect_reads_its_own_bars():
    """A postfix bar in a PopTorch log is PopTorch's: no second progress from tqdm."""
    seed = (FIXTURES / "seeds" / "002_837de51daca58491.txt").read_text()
    bar = body("generic", "tqdm_lightning_2667.txt").split("\n")[0]
    assert detect(bar) == ["tqdm"]
    assert "tqdm" not in detect(seed + "\n" + bar) and "poptorch" in detect(seed + "\n" + bar)
    keras = body("generic", "keras_16906.txt")
    assert detect(keras) == ["keras"]
