"""What a system (an accelerator and its software) declares: the base types of a plug-in.

A system is one package exporting one ``System`` object, registered under the
entry-point group ``accelbench.systems`` (``engine/registry.py`` reads them all and
derives every table from them). It declares how it is detected, its site
configuration keys, its Slurm GRES names, the samplers run beside its jobs, the node
samplers ``accelbench top`` reads its devices with, its log
dialects, its workloads and its additions to generic ones, the names its figures
have, and the columns they show in a comparison.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from accelbench.engine.core.params import Param
from accelbench.engine.core.summary import Alias
from accelbench.engine.parsers import Dialect
from accelbench.engine.telemetry.node import NodeSampler
from accelbench.engine.telemetry.tool import ToolSampler
from accelbench.engine.workloads import Extension, Workload

BETTER = ("max", "min")


@dataclass(frozen=True)
class Availability:
    """Whether a system can be used here; ``reason`` says why not, ``detail`` what is found."""

    available: bool
    detail: str = ""
    reason: str = ""


@dataclass(frozen=True)
class Column:
    """Comparison columns: the metrics whose name matches ``pattern`` (a regular
    expression), and which way is better (``max`` or ``min``)."""

    pattern: str
    better: str


@dataclass(frozen=True)
class System:
    """Everything accelbench knows about one system.

    ``device`` is the torch device string the generic workloads (``mnist_cnn``,
    ``bert_finetune``) run on, after importing ``device_module`` where torch learns the
    device from a package of its own (``engine/workloads/torch_device.py``); ``detect``
    says whether it is here; ``gres`` are its Slurm generic-resource names; ``samplers``
    run beside each of its jobs; ``node`` read this machine's devices for ``accelbench
    top`` (whatever runs); ``dialects`` read its programs' output; ``workloads`` are its
    own, ``extends`` its additions to generic ones (by name); ``metric_aliases`` map its
    metrics' names to the summary's (``summary.CANONICAL``), or to an ``Alias`` that
    scales them; ``columns`` are its metrics shown in a comparison; ``order`` places it in
    listings (lower first, then by name; accelbench's own take 10 to 70); ``presets`` is
    the folder of preset files its package ships (listed after the built-in ones);
    ``doctor`` are its checks of this machine for ``accelbench doctor``: each answers ""
    when all is well, else the problem in one line.
    """

    name: str
    title: str
    device: str
    detect: Callable[[], Availability]
    device_module: str = ""
    site_keys: tuple[Param, ...] = ()  # its [name] table in the site configuration
    gres: tuple[str, ...] = ()
    samplers: tuple[type[ToolSampler], ...] = ()
    node: tuple[type[NodeSampler], ...] = ()
    dialects: tuple[type[Dialect], ...] = ()
    workloads: tuple[Workload, ...] = ()
    extends: tuple[Extension, ...] = ()
    metric_aliases: Mapping[str, str | Alias] = field(default_factory=dict)
    columns: tuple[Column, ...] = ()
    order: int = 100
    presets: str = ""
    doctor: tuple[Callable[[], str], ...] = ()
