"""Workloads of the seed systems, as their users ran them (``../shared/seeds``).

Each recipe turns checked knobs into a ``Plan``: the vendor's program driven
unchanged (its path from the site configuration), the log dialects its output is
read with, and files it needs written into the run directory first.
"""

from __future__ import annotations

import dataclasses
import re
import shlex
from pathlib import Path
from typing import Any

from accelbench.engine import site
from accelbench.engine.errors import UserError
from accelbench.engine.params import Param
from accelbench.engine.workloads import BERT_FINETUNE as _BERT
from accelbench.engine.workloads import MNIST_CNN, SCRIPTS_DIR, Context, Plan, Workload

NEURON_KNOBS = (
    Param("precompile", bool, False, "Trainium: run the job under neuron_parallel_compile first"
          " (its graphs compiled in parallel into the Neuron cache)"),
    Param("profile", bool, False, "Trainium: capture a device profile (NEURON_RT_INSPECT_*) and"
          " import neuron-profile's summary (per-engine active time, MFU) as run metrics"),
)


def _bert(params: dict[str, Any], ctx: Context) -> Plan:
    """Our BERT script; on Trainium under torchrun, one process per NeuronCore, on XLA,
    through ``neuron_job.py`` when pre-compiling or profiling."""
    script = str(SCRIPTS_DIR / "bert_finetune.py")
    if ctx.accelerator != "trainium":
        for knob in NEURON_KNOBS:
            if params[knob.name]:
                raise UserError(f"params.{knob.name}: a Neuron SDK knob, for accelerator"
                                " 'trainium' only", hint=f"set {knob.name}=false")
        return Plan([ctx.python, "-u", script, "--device", ctx.device, *_BERT.flags(params)])
    nproc = int(site.value("trainium", "nproc_per_node", 2))
    job = [ctx.python, "-m", "torch.distributed.run", f"--nproc_per_node={nproc}",
           script, "--device", "xla", *_BERT.flags(params)]
    if not (params["precompile"] or params["profile"]):
        return Plan(job, dialects=["neuron_runtime"])
    argv, env = [ctx.python, "-u", str(SCRIPTS_DIR / "neuron_job.py")], {}
    if params["precompile"]:
        argv += ["--precompile", _beside(ctx.python, "neuron_parallel_compile")]
    if params["profile"]:
        profile = str(ctx.run_dir / "profile")
        argv += ["--profile", profile, "--neuron-profile",
                 site.value("trainium", "neuron_profile", "neuron-profile")]
        env = {"NEURON_RT_INSPECT_ENABLE": "1", "NEURON_RT_INSPECT_DEVICE_PROFILE": "1",
               "NEURON_RT_INSPECT_OUTPUT_DIR": profile}
    dialects = ["neuron_runtime", *(["neuron_profile"] if params["profile"] else [])]
    return Plan([*argv, "--", *job], env=env, dialects=dialects)


def _file_arg(path: str) -> str:
    """A program's file argument that cannot be read as an option: ``-c`` → ``./-c``."""
    return f"./{path}" if path.startswith("-") else path


def _beside(python: str, tool: str) -> str:
    """``tool`` in the bin directory of ``python``'s virtualenv if there, else by name (PATH)."""
    path = Path(python).parent / tool
    return str(path) if "/" in python and path.is_file() else tool


BERT_FINETUNE = dataclasses.replace(_BERT, accelerators=("cpu", "cuda", "trainium"), recipe=_bert,
                                    params=(*_BERT.params, *NEURON_KNOBS))


def _own_script(workload: Workload, params: dict[str, Any], ctx: Context, dialect: str) -> Plan:
    """One of our standalone scripts under the system's own Python (its site ``python``)."""
    return Plan([ctx.python, "-u", str(SCRIPTS_DIR / workload.script), *workload.flags(params)],
                dialects=[dialect])


def _poptorch(params: dict[str, Any], ctx: Context) -> Plan:
    """Our PopTorch MNIST script under the PopTorch virtualenv's Python ([ipu] python)."""
    return _own_script(MNIST_POPTORCH, params, ctx, "poptorch")


MNIST_POPTORCH = Workload(
    name="mnist_poptorch",
    title="MNIST CNN (Graphcore PopTorch)",
    description="The seeds' MNIST CNN through PopTorch, as in Graphcore's tutorial; on the"
                " IPUs of an srun allocation (--ipus=N in [slurm] extra).",
    accelerators=("ipu",),
    script="mnist_poptorch.py",
    recipe=_poptorch,
    params=(
        *(MNIST_CNN.param(name) for name in ("learning_rate", "epochs", "batch_size",
                                             "test_batch_size")),
        Param("device_iterations", int, 50, "training steps per call of the IPU"
              " (PopTorch deviceIterations; the tutorial's: 50)", min=1, max=100000),
        *(MNIST_CNN.param(name) for name in ("data", "data_dir", "train_samples",
                                             "test_samples", "seed")),
    ),
)


def _sambanova(params: dict[str, Any], ctx: Context) -> Plan:  # noqa: ARG001
    """The vendor's BertLarge_run.sh, run inside the sbatch allocation ([slurm] sets it)."""
    script = params["script"] or site.required("sambanova", "bert_large_script")
    return Plan(["bash", _file_arg(script), *shlex.split(params["args"])],
                dialects=["sambanova"])


SAMBANOVA_BERT_LARGE = Workload(
    name="sambanova_bert_large",
    title="BERT-Large pre-training (SambaNova)",
    description="The vendor's BertLarge_run.sh through sbatch; ntasks, ntasks_per_node, nodes,"
                " cpus_per_task and gres (rdu:N) in the preset's [slurm] table.",
    accelerators=("sambanova",),
    recipe=_sambanova,
    params=(
        Param("script", str, "", "BertLarge_run.sh (empty: the site configuration's)"),
        Param("args", str, "", "arguments for the script, split like a shell would", words=True),
    ),
)


def override_yaml(text: str, section: str, key: str, value: Any) -> str:
    """``text`` with ``key:`` inside the top-level ``section:`` block set to ``value``."""
    lines, inside = text.split("\n"), False
    for i, line in enumerate(lines):
        if re.match(r"^\S", line):
            inside = line.split("#")[0].strip() == f"{section}:"
        elif inside:
            found = re.match(rf"^(\s+){re.escape(key)}\s*:", line)
            if found:
                lines[i] = f"{found.group(1)}{key}: {value}"
                return "\n".join(lines)
    raise UserError(f"the params YAML has no {section}.{key} to override",
                    hint="check params.params_yaml (a ModelZoo config)")


def _cerebras(params: dict[str, Any], ctx: Context) -> Plan:
    """ModelZoo ``run.py CSX`` from the login node, on a copy of the params YAML."""
    source = Path(params["params_yaml"] or site.required("cerebras", "params")).expanduser()
    try:
        text = source.read_text()
    except OSError as exc:
        raise UserError(f"params.params_yaml: cannot read {source}: {exc.strerror}") from None
    if params["batch_size"]:
        text = override_yaml(text, "train_input", "batch_size", params["batch_size"])
    if params["max_steps"]:
        text = override_yaml(text, "runconfig", "max_steps", params["max_steps"])
    run_py = Path(params["run_py"]).expanduser() if params["run_py"] else (
        source.parent.parent / "run.py")
    argv = [ctx.python, _file_arg(str(run_py)), "CSX", "--params", str(ctx.run_dir / "params.yaml"),
            "--mode", params["mode"], "--model_dir", str(ctx.run_dir / "model_dir"),
            "--num_csx", str(params["num_csx"])]
    return Plan(argv, files={"params.yaml": text}, dialects=["cerebras"])


CEREBRAS_BERT = Workload(
    name="cerebras_modelzoo",
    title="ModelZoo training (Cerebras CS-2)",
    description="ModelZoo run.py CSX on a copy of the params YAML (BERT-Large in the seeds),"
                " with the batch size and steps overridden there.",
    accelerators=("cerebras",),
    recipe=_cerebras,
    params=(
        Param("params_yaml", str, "", "the ModelZoo params YAML (empty: the site configuration's)"),
        Param("run_py", str, "", "ModelZoo's run.py (empty: ../run.py next to the YAML's folder)"),
        Param("batch_size", int, 0, "train_input.batch_size (0: as in the YAML)", min=0),
        Param("max_steps", int, 0, "runconfig.max_steps (0: as in the YAML)", min=0),
        Param("mode", str, "train", "run.py --mode", choices=("train", "eval", "train_and_eval")),
        Param("num_csx", int, 1, "CS-2 systems to use", min=1, max=64),
    ),
)


def _groq(params: dict[str, Any], ctx: Context) -> Plan:
    """Our GroqFlow bert_tiny driver under the GroqFlow virtualenv's Python ([groq] python)."""
    return _own_script(GROQ_BERT_TINY, params, ctx, "groq")


GROQ_BERT_TINY = Workload(
    name="groq_bert_tiny",
    title="BERT-tiny inference (GroqFlow)",
    description="GroqFlow's bert_tiny proof point: built for the GroqChip by groqit, then SST"
                " accuracy, latency and inferences/s on the GroqChip and on the CPU.",
    accelerators=("groq",),
    script="groq_bert_tiny.py",
    recipe=_groq,
    params=(
        Param("model", str, "M-FAC/bert-tiny-finetuned-sst2",
              "Hugging Face name or local path of an SST-2 classifier (the proof point's)"),
        Param("batch_size", int, 1, "inputs per GroqChip call (the seeds' value: 1)",
              min=1, max=1024),
        Param("max_seq_length", int, 128, "tokens per input (the seeds: 128, then 512)",
              min=8, max=512),
        Param("mode", str, "both", "build (groqit only), execute (a cached build) or both",
              choices=("both", "build", "execute")),
    ),
)

WORKLOADS = (MNIST_POPTORCH, SAMBANOVA_BERT_LARGE, CEREBRAS_BERT, GROQ_BERT_TINY)
