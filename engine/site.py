"""Site configuration: where each system's own tools live on this testbed.

``config.toml`` in the user's config directory (``$ACCELBENCH_CONFIG`` or the
platform's, e.g. ``~/.config/accelbench/config.toml``), one table per system::

    [ipu]
    python = "~/venvs/graphcore/poptorch33_env/bin/python"   # the vendor SDK's virtualenv

    [sambanova]
    bert_large_script = "/opt/sambaflow/apps/nlp/bert/BertLarge_run.sh"

    [cerebras]
    python = "~/venv_cerebras_pt/bin/python"
    modelzoo = "~/modelzoo"
    params = "~/modelzoo/src/cerebras/modelzoo/models/nlp/bert/configs/params_bert_large_msl128.yaml"

accelbench itself never needs a vendor SDK: it runs the job with that interpreter.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from accelbench.engine import tomlfile
from accelbench.engine.errors import UserError, shown, shown_key

KEYS: dict[str, dict[str, str]] = {
    "cpu": {"python": "the job's interpreter"},
    "cuda": {"python": "the job's interpreter"},
    "trainium": {"python": "the Neuron SDK virtualenv's python",
                 "nproc_per_node": "torchrun processes (NeuronCores), default 2",
                 "neuron_profile": "the neuron-profile tool, default neuron-profile on PATH"},
    "ipu": {"python": "the PopTorch virtualenv's python"},
    "sambanova": {"bert_large_script": "path of BertLarge_run.sh"},
    "cerebras": {"python": "the Cerebras virtualenv's python", "modelzoo": "ModelZoo checkout",
                 "params": "the default params YAML for BERT-Large"},
    "groq": {"python": "the GroqFlow virtualenv's python (groqflow and demo_helpers)"},
}


def config_path() -> Path:
    """Where the site configuration is read from."""
    env = os.environ.get("ACCELBENCH_CONFIG")
    if env:
        return Path(env).expanduser() / "config.toml"
    import platformdirs

    return Path(platformdirs.user_config_dir("accelbench", appauthor=False)) / "config.toml"


def load() -> dict[str, dict[str, Any]]:
    """The site configuration, checked (a missing file is an empty configuration)."""
    path = config_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    data = tomlfile.parse(text, path)
    for system, table in data.items():
        if system not in KEYS:
            raise UserError(f"{path}: [{shown_key(system)}]: unknown system",
                            hint="systems: " + ", ".join(KEYS))
        if not isinstance(table, dict):
            raise UserError(f"{path}: {system}: expected a table ([{system}])")
        for key, value in table.items():
            if key not in KEYS[system]:
                raise UserError(f"{path}: {system}.{shown_key(key)}: unknown key",
                                hint=f"keys of [{system}]: " + ", ".join(KEYS[system]))
            if not isinstance(value, str | int) or isinstance(value, bool):
                raise UserError(f"{path}: {system}.{key}: expected a string, got {shown(value)}")
    return data


def value(system: str, key: str, default: Any = None) -> Any:
    """``[system] key`` of the site configuration (``~`` expanded in paths), or ``default``."""
    found = load().get(system, {}).get(key, default)
    return os.path.expanduser(found) if isinstance(found, str) else found


def required(system: str, key: str) -> str:
    """A path the site configuration must give; a ``UserError`` saying where, if it does not."""
    found = value(system, key)
    if not found:
        raise UserError(f"{system}.{key} is not set in {config_path()}",
                        hint=f"add [{system}] {key} = \"...\" ({KEYS[system][key]})")
    return found
