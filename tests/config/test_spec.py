"""Presets and --set overrides: validation with one-line errors, and saving round-trips."""

import pytest

from accelbench.engine.config.presets import BUILTIN_DIR, find_preset, list_presets
from accelbench.engine.config.spec import load_preset, save_preset, spec_from_dict
from accelbench.engine.core.errors import UserError


def write(tmp_path, text, name="p.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def error_of(fn, *args, **kwargs) -> UserError:
    with pytest.raises(UserError) as info:
        fn(*args, **kwargs)
    assert "\n" not in str(info.value)
    return info.value


def test_builtin_presets_load_and_fill_defaults(home):
    entries = {e.name: e for e in list_presets()}
    assert {"cpu-mnist", "cpu-mnist-seed", "cpu-bert-finetune-tiny"} <= set(entries)
    assert all(not e.error for e in entries.values()), [e.error for e in entries.values()]
    seed = entries["cpu-mnist-seed"].spec
    assert (seed.params["learning_rate"], seed.params["epochs"], seed.params["batch_size"],
            seed.params["test_batch_size"]) == (0.03, 10, 8, 80)
    assert entries["cpu-mnist"].spec.params["threads"] == 0  # a default filled in


def test_toml_syntax_error_names_file_and_line(tmp_path):
    path = write(tmp_path, 'name = "x"\nworkload = "mnist_cnn"\n[params]\nepochs = = 3\n')
    err = error_of(load_preset, path)
    assert str(err).startswith(f"{path}:4: invalid TOML")


def test_unknown_top_level_key_suggests(tmp_path):
    path = write(tmp_path, 'name = "x"\nworkload = "mnist_cnn"\naccelerater = "cpu"\n')
    err = error_of(load_preset, path)
    assert str(err) == f"{path}:3: accelerater: unknown key (did you mean 'accelerator'?)"


def test_unknown_param_names_key_and_lists_known(tmp_path):
    path = write(tmp_path, 'workload = "mnist_cnn"\n\n[params]\nepoch = 3\n')
    err = error_of(load_preset, path)
    assert str(err).startswith(f"{path}:4: params.epoch: unknown parameter 'epoch'")
    assert "epochs" in err.hint


@pytest.mark.parametrize("line, expected", [
    ('epochs = "ten"', "params.epochs: expected an integer in [1, 1000], got 'ten'"),
    ("epochs = 0", "params.epochs: expected an integer in [1, 1000], got 0"),
    ("epochs = true", "params.epochs: expected an integer in [1, 1000], got True"),
    ("learning_rate = -1.0", "params.learning_rate: expected a number in [1e-06, 10], got -1.0"),
])
def test_wrong_type_or_range(tmp_path, line, expected):
    path = write(tmp_path, f'workload = "mnist_cnn"\n[params]\n{line}\n')
    assert str(error_of(load_preset, path)) == f"{path}:3: {expected}"


def test_choices_and_ints_for_floats(tmp_path):
    path = write(tmp_path, 'workload = "bert_finetune"\n[params]\nprecision = "fp8"\n'
                           "learning_rate = 1\n")
    assert "expected one of 'fp32', 'bf16', got 'fp8'" in str(error_of(load_preset, path))
    spec = spec_from_dict({"workload": "mnist_cnn", "params": {"learning_rate": 1}})
    assert spec.params["learning_rate"] == 1.0 and isinstance(spec.params["learning_rate"], float)


def test_unknown_workload_accelerator_launcher(tmp_path):
    err = error_of(load_preset, write(tmp_path, 'workload = "resnet"\n'))
    assert "workload: unknown workload 'resnet'" in str(err) and "mnist_cnn" in err.hint
    err = error_of(load_preset, write(tmp_path, 'workload = "mnist_cnn"\naccelerator = "tpu"\n'))
    assert "accelerator: unknown accelerator 'tpu'" in str(err)
    err = error_of(load_preset, write(tmp_path, 'workload = "mnist_cnn"\nlauncher = "ssh"\n'))
    assert "launcher: expected one of 'local'" in str(err)
    err = error_of(load_preset, write(tmp_path, 'name = "x"\n'))
    assert "workload: missing" in str(err)


def test_missing_file():
    err = error_of(load_preset, "/nonexistent/preset.toml")
    assert str(err) == "/nonexistent/preset.toml: no such preset file"


def test_set_overrides_are_type_checked():
    base = {"workload": "mnist_cnn"}
    spec = spec_from_dict(base, ["epochs=2", "params.batch_size=64", "learning_rate=1e-2",
                                 "env.OMP_NUM_THREADS=2", "name=quick", "telemetry_interval=0.5"])
    assert (spec.params["epochs"], spec.params["batch_size"], spec.params["learning_rate"]) == (
        2, 64, 0.01)
    assert spec.env == {"OMP_NUM_THREADS": "2"} and spec.name == "quick"
    assert spec.telemetry_interval == 0.5
    assert str(error_of(spec_from_dict, base, ["epochs=two"])) == (
        "--set params.epochs: expected an integer in [1, 1000], got 'two'")
    assert "expected key=value" in str(error_of(spec_from_dict, base, ["epochs"]))
    assert "unknown table 'slurmm'" in str(error_of(spec_from_dict, base, ["slurmm.x=1"]))
    assert "unknown parameter 'epoc'" in str(error_of(spec_from_dict, base, ["epoc=1"]))
    assert "--set launcher: expected one of" in str(error_of(spec_from_dict, base,
                                                             ["launcher=ssh"]))


def test_set_can_switch_workload_before_params_are_checked():
    spec = spec_from_dict({"workload": "mnist_cnn"}, ["workload=bert_finetune",
                                                     "max_seq_length=64"])
    assert spec.workload == "bert_finetune" and spec.params["max_seq_length"] == 64


def test_save_round_trips(tmp_path, home):
    spec = load_preset(find_preset("cpu-bert-finetune-tiny"), ["env.HF_HUB_OFFLINE=1"])
    path = save_preset(spec, tmp_path / "sub" / "again.toml")
    assert load_preset(path) == spec
    assert load_preset(save_preset(load_preset(path), tmp_path / "twice.toml")) == spec


def test_find_preset_by_name_user_first(home, tmp_path, monkeypatch):
    assert find_preset("cpu-mnist") == BUILTIN_DIR / "cpu-mnist.toml"
    user = tmp_path / "config" / "presets"
    user.mkdir(parents=True)
    (user / "cpu-mnist.toml").write_text('workload = "mnist_cnn"\ndescription = "mine"\n')
    assert find_preset("cpu-mnist") == user / "cpu-mnist.toml"
    assert [e.spec.description for e in list_presets() if e.name == "cpu-mnist"] == ["mine"]
    assert "no such preset" in str(error_of(find_preset, "nope"))
