"""Issue #10 items 5-7: sweeps bounded, values that must not pass, one-line errors for a
user's mistakes (never a traceback)."""

import resource
import time

import pytest

from accelbench.engine.config import site
from accelbench.engine.config.presets import find_preset
from accelbench.engine.config.spec import load_preset, spec_from_dict, variants
from accelbench.engine.core.errors import UserError
from accelbench.engine.run.runner import Runner
from tests.helpers import accelbench, json_events

MNIST = {"name": "x", "workload": "mnist_cnn"}


def error_of(*args, **kwargs) -> str:
    """The message of the ``UserError`` that ``spec_from_dict(*args)`` raises."""
    with pytest.raises(UserError) as caught:
        spec_from_dict(*args, **kwargs)
    assert "\n" not in caught.value.message
    return caught.value.message


def one_line_error(out) -> str:
    """The CLI's error line (exit code 2, one line, no traceback)."""
    assert out.returncode == 2, out.stdout + out.stderr
    assert "Traceback" not in out.stderr
    assert len(out.stderr.splitlines()) <= 2  # the error, and its hint if any
    return out.stderr.splitlines()[0]


# ---- item 5: sweeps are bounded --------------------------------------------------------

def forty_axes(tmp_path):
    axes = "\n".join(f"env.K{i} = [\"a\", \"b\"]" for i in range(40))
    path = tmp_path / "forty.toml"
    path.write_text(f'name = "wide"\nworkload = "command"\n[params]\ncommand = "true"\n'
                    f"[sweep]\n{axes}\n")
    return path


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def test_forty_axes_of_two_values_are_refused_at_once(tmp_path, home):
    """In a subprocess under 2 GB of address space: the bug took 9 GB in 40 s."""
    path = forty_axes(tmp_path)
    started = time.monotonic()
    out = accelbench("run", str(path), timeout=60, preexec_fn=_limit_memory)
    assert time.monotonic() - started < 20
    assert one_line_error(out) == (f"accelbench: error: {path}:5: sweep: 1,099,511,627,776"
                                   " variants, more than the limit of 1,000")
    assert out.stderr.splitlines()[1] == ("hint: sweep fewer values, or raise max_variants in"
                                          " [sweep]")


def test_max_variants_raises_the_limit(tmp_path):
    path = tmp_path / "six.toml"
    path.write_text('name = "six"\nworkload = "command"\n[params]\ncommand = "true"\n[sweep]\n'
                    'max_variants = 5\nenv.A = [1, 2, 3]\n'
                    'variants = [{env.B = "x"}, {env.B = "y"}]\n')
    with pytest.raises(UserError, match=r"sweep: 6 variants, more than the limit of 5$"):
        load_preset(path)
    spec = load_preset(path, ["sweep.max_variants=6"])
    assert len(variants(spec)) == 6
    path.write_text(path.read_text().replace("max_variants = 5", "max_variants = 6"))
    assert len(variants(load_preset(path))) == 6


# ---- item 6: values that pass and should not ---------------------------------------------

@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "NaN", "Infinity"])
def test_non_finite_floats_are_refused_from_set(value):
    assert error_of(MNIST, [f"learning_rate={value}"]) == (
        f"--set params.learning_rate: expected a number in [1e-06, 10], got {value!r}")
    assert error_of(MNIST, ["learning_rate=1e400"]) == (
        "--set params.learning_rate: expected a number in [1e-06, 10] (a finite number), got inf")


def test_nan_learning_rate_in_a_preset_and_on_the_cli(tmp_path, home):
    path = tmp_path / "nan.toml"
    path.write_text('workload = "mnist_cnn"\ntelemetry_interval = nan\n')
    with pytest.raises(UserError) as caught:
        load_preset(path)
    assert caught.value.message == (f"{path}:2: telemetry_interval: expected a number in [0, 3600]"
                                    " (a finite number), got nan")
    path.write_text('workload = "mnist_cnn"\n[params]\nlearning_rate = nan\n')
    with pytest.raises(UserError, match=r":3: params.learning_rate: .*finite number\), got nan"):
        load_preset(path)
    out = accelbench("run", "cpu-mnist", "--set", "learning_rate=nan")  # trained and ended done
    assert one_line_error(out) == ("accelbench: error: --set params.learning_rate: expected a"
                                   " number in [1e-06, 10], got 'nan'")
    assert accelbench("runs", "--format", "json").stdout.strip() == "[]"  # nothing started


@pytest.mark.parametrize("override, message", [
    ("name=a\0b", "--set name: a NUL character is not allowed, got 'a\\x00b'"),
    ("data=auto\0", "--set params.data: a NUL character is not allowed, got 'auto\\x00'"),
    ("env.X=1\0", "spec: env.X: a NUL character is not allowed, got '1\\x00'"),
    ("env.X\0=1", ("spec: env.'X\\x00': not a variable name: a NUL character is not allowed,"
                   " got 'X\\x00'")),
    ("env.A=B=1", None),  # the first '=' splits key and value: A = "B=1" is fine
    ("env.=1", "spec: env.'': not a variable name (empty, or holds '=')"),
    ("name=\udcff", "--set name: not UTF-8 text, got '\\udcff'"),  # the argument b"\xff"
    ("env.X=\udcff", "spec: env.X: not UTF-8 text, got '\\udcff'"),
    ("python=py\0", "--set python: a NUL character is not allowed, got 'py\\x00'"),
])
def test_nul_characters_and_bad_env_names(override, message):
    if message is None:
        assert spec_from_dict(MNIST, [override]).env == {"A": "B=1"}
    else:
        assert error_of(MNIST, [override]) == message


@pytest.mark.parametrize("override", ["name=a\nb", "name=a\tb", "description=one\u2028two"])
def test_names_and_descriptions_are_one_printable_line(override):
    key, value = override.split("=", 1)
    assert error_of(MNIST, [override]) == (f"--set {key}: expected one line of printable text,"
                                           f" got {value!r}")


def test_nul_in_a_command_and_env_names_in_a_preset(tmp_path):
    path = tmp_path / "env.toml"
    path.write_text('workload = "command"\n[params]\ncommand = "echo a\\u0000b"\n')
    with pytest.raises(UserError, match=r"^.*:3: params.command: a NUL character is not allowed"):
        load_preset(path)
    for key in ('"A=B"', '""'):
        path.write_text(f'workload = "command"\n[params]\ncommand = "true"\n[env]\n{key} = "1"\n')
        with pytest.raises(UserError, match=r"not a variable name"):
            load_preset(path)


@pytest.mark.parametrize("text", ["1_000", "١٢", "１２", "12 3", "0x10", "1e3", "+"])
def test_set_integers_take_ascii_digits_only(text):
    assert error_of(MNIST, [f"epochs={text}"]) == (
        f"--set params.epochs: expected an integer in [1, 1000], got {text!r}")


def test_set_numbers_still_parse():
    spec = spec_from_dict(MNIST, ["epochs= 12 ", "learning_rate=.5", "threads=+3",
                                  "telemetry_interval=1E-1"])
    assert (spec.params["epochs"], spec.params["learning_rate"], spec.params["threads"],
            spec.telemetry_interval) == (12, 0.5, 3, 0.1)
    assert error_of(MNIST, ["learning_rate=1_0.5"]).endswith("got '1_0.5'")
    assert error_of(MNIST, ["learning_rate=٠.٥"]).endswith("got '٠.٥'")


def test_seeds_fit_in_64_bits(tmp_path):
    assert spec_from_dict(MNIST, [f"seed={2**63 - 1}"]).params["seed"] == 2**63 - 1
    assert error_of(MNIST, [f"seed={2**64}"]) == (
        f"--set params.seed: expected an integer >= 0 (a 64-bit value), got '{2**64}'")
    assert error_of(MNIST, ["seed=" + "9" * 5000]).startswith("--set params.seed: expected an"
                                                               " integer >= 0 (a 64-bit value)")
    path = tmp_path / "seed.toml"
    path.write_text(f'workload = "mnist_cnn"\n[params]\nseed = {2**63}\nlearning_rate = 1\n')
    with pytest.raises(UserError) as caught:
        load_preset(path)
    assert caught.value.message == (f"{path}:3: params.seed: expected an integer >= 0 (a 64-bit"
                                    f" value), got {2**63}")
    path.write_text(f'workload = "mnist_cnn"\n[params]\nlearning_rate = {10**400}\n')
    with pytest.raises(UserError, match=r"params.learning_rate: .*\(a 64-bit value\), got 1000"):
        load_preset(path)  # was OverflowError: int too large to convert to float


def test_option_like_values_reach_the_script_as_values(tmp_path, home):
    plan = Runner.plan(spec_from_dict(MNIST, ["data=-h", "data_dir=--help"]), tmp_path)
    assert "--data=-h" in plan.argv and "--data-dir=--help" in plan.argv
    # data=-h: argparse took -h for an option ("argument --data: expected one argument")
    out = accelbench("run", "cpu-mnist", "--set", "data=-h", "--json")
    finished = json_events(out.stdout)[-1]
    assert finished["status"] == "failed" and "mnist_missing" in finished["summary"]["diagnoses"]
    assert "--data: expected one argument" not in out.stdout


def test_vendor_script_paths_are_never_options(home, tmp_path, monkeypatch):
    config = home.parent / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[sambanova]\nbert_large_script = "/opt/BertLarge_run.sh"\n')
    spec = load_preset(find_preset("sambanova-bert-large-ntasks16"), ["script=-c", "args=id"])
    assert Runner.plan(spec, tmp_path).argv == ["bash", "./-c", "id"]  # not `bash -c id`


@pytest.mark.parametrize("overrides, message", [
    (["slurm.ntasks=32", "slurm.ntasks_per_node=16"],
     ("cpu-mnist.toml: slurm.ntasks=32 is more than slurm.ntasks_per_node=16 × slurm.nodes=1:"
      " Slurm rejects this as an invalid configuration")),
    (["slurm.extra=--comment \"open"],
     ("--set slurm.extra: cannot split '--comment \"open' like a shell would: No closing"
      " quotation")),
    (["slurm.nodes=0"], "--set slurm.nodes: expected an integer in [1, 100000], got 0"),
])
def test_slurm_values_are_checked_with_a_local_launcher(overrides, message):
    with pytest.raises(UserError) as caught:
        load_preset(find_preset("cpu-mnist"), overrides)
    assert load_preset(find_preset("cpu-mnist")).launcher == "local"
    assert caught.value.message.endswith(message)


def test_messages_are_one_line_and_cut(tmp_path):
    assert error_of(MNIST, ["epochs=1\n2"]) == (
        "--set params.epochs: expected an integer in [1, 1000], got '1\\n2'")
    assert error_of({**MNIST, "params": {"bad\nkey": 1}}) == (
        "spec: params.'bad\\nkey': unknown parameter 'bad\\nkey' for workload 'mnist_cnn'")
    huge = error_of(MNIST, ["epochs=" + "7" * 20 + "x" * 100_000])
    assert len(huge) < 200 and "…" in huge
    assert error_of(MNIST, ["no\nsuch=1"]).startswith("--set params.'no\\nsuch': unknown")
    assert error_of(MNIST, ["x" * 100_000]).startswith("--set 'xxxxx")
    assert len(error_of({**MNIST, "params": {"y" * 100_000: 1}})) < 300
    path = tmp_path / "big.toml"
    path.write_text('workload = "mnist_cnn"\n[params]\ndata = ' + "[" * 100 + "]" * 100 + "\n")
    with pytest.raises(UserError) as caught:
        load_preset(path)
    assert caught.value.message == (f"{path}:3: params.data: expected a string,"
                                    " got [[[[…]]]]")


# ---- item 7: tracebacks for a user's mistake ---------------------------------------------

def test_toml_nested_thousands_deep_is_one_line(tmp_path, home):
    for text in ("a = " + "[" * 5000 + "]" * 5000, "a = " + "{b = " * 5000 + "1" + "}" * 5000):
        path = tmp_path / "deep.toml"
        path.write_text(text + "\n")
        out = accelbench("run", str(path))
        assert one_line_error(out) == (f"accelbench: error: {path}: invalid TOML: arrays or"
                                       " tables nested too deeply")


def test_a_command_shlex_cannot_split_is_one_line(home):
    out = accelbench("run", "cpu-mnist", "--set", "workload=command", "--set",
                     'command=echo "unbalanced')
    assert one_line_error(out) == ("accelbench: error: --set params.command: cannot split"
                                   " 'echo \"unbalanced' like a shell would: No closing quotation")
    assert error_of({"workload": "sambanova_bert_large", "accelerator": "sambanova",
                     "params": {"args": "'x"}}).startswith("spec: params.args: cannot split")


@pytest.mark.parametrize("line, message", [
    ("nproc_per_node = nan", "trainium.nproc_per_node: expected an integer in [1, 1024], got nan"),
    ("nproc_per_node = 99999999999999999999",
     ("trainium.nproc_per_node: expected an integer in [1, 1024] (a 64-bit value),"
      " got 99999999999999999999")),
    ("nproc_per_node = 0", "trainium.nproc_per_node: expected an integer in [1, 1024], got 0"),
    ('neuron_profile = "neuron-\\u0000profile"',
     "trainium.neuron_profile: a NUL character is not allowed, got 'neuron-\\x00profile'"),
])
def test_a_site_value_is_checked_like_a_preset_knob(home, line, message):
    config = home.parent / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"[trainium]\n{line}\n")
    with pytest.raises(UserError) as caught:
        site.load()
    assert caught.value.message == f"{config}: {message}"
