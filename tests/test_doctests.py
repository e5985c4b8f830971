"""The examples in docstrings run and print what they show (``doctest``), in every module of
``cardsim`` that has some: an example that drifts from the code is a failing test."""

import doctest
import importlib
import importlib.util
import pkgutil
from pathlib import Path

import pytest

#: cardsim's packages (an editable install maps sim, analysis and kernels apart from cardsim/)
PACKAGES = ("cardsim", "cardsim.sim", "cardsim.analysis", "cardsim.kernels", "cardsim.workflows")


def _modules_with_examples() -> list[str]:
    infos = [
        info
        for pkg in PACKAGES
        for info in pkgutil.walk_packages(importlib.import_module(pkg).__path__, pkg + ".")
    ]
    names = []
    for info in infos:
        spec = importlib.util.find_spec(info.name)
        if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
            continue
        if ">>> " in Path(spec.origin).read_text(encoding="utf-8"):
            names.append(info.name)
    return sorted(set(names))


MODULES = _modules_with_examples()


def test_the_package_has_examples_to_run():
    found = {n.split(".")[1] for n in MODULES}
    assert {"sim", "analysis"} <= found, MODULES  # the walk reached the mapped packages


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    flags = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
    result = doctest.testmod(module, optionflags=flags, verbose=False, report=True)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
