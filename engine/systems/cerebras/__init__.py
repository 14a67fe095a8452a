"""Cerebras CS-2: reached from the login node through the appliance's ``csctl``; ModelZoo's
``run.py CSX`` on a copy of the params YAML, its output read."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from accelbench.engine.config import site
from accelbench.engine.core.errors import UserError
from accelbench.engine.core.params import Param
from accelbench.engine.plugin.detect import tools
from accelbench.engine.plugin.system import Availability, System
from accelbench.engine.systems.cerebras.dialect import Cerebras
from accelbench.engine.workloads import Context, Plan, Workload, file_arg


def detect() -> Availability:
    """Here when ``csctl`` (the appliance's client) is on PATH."""
    if tools("csctl"):
        return Availability(True, detail="csctl found (Cerebras appliance client)")
    return Availability(False, reason="csctl is not on PATH (not a Cerebras login node)")


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


def _modelzoo(workload: Workload, params: dict[str, Any], ctx: Context) -> Plan:
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
    argv = [ctx.python, file_arg(str(run_py)), "CSX", "--params", str(ctx.run_dir / "params.yaml"),
            "--mode", params["mode"], "--model_dir", str(ctx.run_dir / "model_dir"),
            "--num_csx", str(params["num_csx"])]
    return Plan(argv, files={"params.yaml": text}, dialects=["cerebras"])


MODELZOO = Workload(
    name="cerebras_modelzoo",
    title="ModelZoo training (Cerebras CS-2)",
    description="ModelZoo run.py CSX on a copy of the params YAML (BERT-Large in the seeds),"
                " with the batch size and steps overridden there.",
    accelerators=("cerebras",),
    recipe=_modelzoo,
    params=(
        Param("params_yaml", str, "", "the ModelZoo params YAML (empty: the site configuration's)"),
        Param("run_py", str, "", "ModelZoo's run.py (empty: ../run.py next to the YAML's folder)"),
        Param("batch_size", int, 0, "train_input.batch_size (0: as in the YAML)", min=0),
        Param("max_steps", int, 0, "runconfig.max_steps (0: as in the YAML)", min=0),
        Param("mode", str, "train", "run.py --mode", choices=("train", "eval", "train_and_eval")),
        Param("num_csx", int, 1, "CS-2 systems to use", min=1, max=64),
    ),
)

SYSTEM = System(
    name="cerebras", order=60, title="Cerebras CS-2", device="csx", detect=detect,
    site_keys=(Param("python", str, "", "the Cerebras virtualenv's python"),
               Param("modelzoo", str, "", "ModelZoo checkout"),
               Param("params", str, "", "the default params YAML for BERT-Large")),
    dialects=(Cerebras,),
    workloads=(MODELZOO,),
    metric_aliases={"global_rate": "samples_per_s"},
)
