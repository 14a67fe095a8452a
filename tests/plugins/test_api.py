"""The public plug-in API (``accelbench.api``): every name it lists is there and said what
it is, and the plug-ins the docs and tests show import from it alone."""

import ast
import inspect

from accelbench import api
from tests.plugins import test_plugin_launcher, test_plugin_system


def test_every_public_name_is_there_and_documented():
    assert len(set(api.__all__)) == len(api.__all__)
    for name in api.__all__:
        value = getattr(api, name)
        if inspect.isclass(value) or callable(value):
            assert inspect.getdoc(value), name
        else:  # a constant: the module's docstring says what it is
            assert f"``{name}``:" in api.__doc__, name


def test_the_names_a_plugin_needs_are_public():
    needs = {"System", "Availability", "Column", "Alias", "Param", "Dialect", "Phase",
             "Metric", "Throughput", "Progress", "Diagnosis", "Workload", "Extension", "Plan",
             "NodeSampler", "ToolSampler", "Launcher", "JobSpec", "RunInfo", "UserError"}
    assert needs <= set(api.__all__)


def accelbench_imports(module: str) -> set[str]:
    """The accelbench modules that the source ``module`` imports from."""
    found = set()
    for node in ast.walk(ast.parse(module)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("accelbench"):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("accelbench")}
    return found


def test_the_example_plugins_import_the_public_api_alone():
    assert accelbench_imports(test_plugin_system.SYSTEM_MODULE) == {"accelbench.api"}
    assert accelbench_imports(test_plugin_launcher.MODULE) == {"accelbench.api"}
