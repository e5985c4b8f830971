"""One folder per layer, one installed name (issues 20, 22).

The layers contract in pyproject.toml ([tool.importlinter]) runs here, inside the test suite:
``lint-imports`` needs the physical package tree, so the test lays the installed layout out
(``cardsim/`` with ``sim/``, ``kernels/``, ``analysis/`` inside it, as setuptools' package-dir
maps them) in a temporary folder and runs it there. Injected upward imports must break it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CONF = tomllib.loads((ROOT / "pyproject.toml").read_text())
PACKAGE_DIR = CONF["tool"]["setuptools"]["package-dir"]
LAYERS = CONF["tool"]["importlinter"]["contracts"][0]["layers"]
LINT = Path(sys.executable).with_name("lint-imports")


def _installed_layout(dest: Path) -> Path:
    """Copy the sources into ``dest`` as they are installed (package-dir mapping)."""
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc")
    for package, folder in sorted(PACKAGE_DIR.items(), key=lambda kv: kv[0].count(".")):
        shutil.copytree(ROOT / folder, dest / package.replace(".", "/"), ignore=skip,
                        dirs_exist_ok=True)  # fmt: skip
    shutil.copy(ROOT / "pyproject.toml", dest)
    return dest


def _lint(tree: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run([str(LINT), "--no-cache"], cwd=tree, env=env, capture_output=True,
                          text=True, timeout=300)  # fmt: skip


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return _installed_layout(tmp_path_factory.mktemp("layout"))


def test_the_layers_contract_holds(tree):
    out = _lint(tree)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 kept, 0 broken" in out.stdout


@pytest.mark.parametrize(
    "module, injected",
    [
        ("cardsim/kernels/rng.py", "import cardsim.sim.progress"),  # kernels -> sim core
        ("cardsim/kernels/options.py", "import cardsim.sim"),  # kernels -> the sim package
        ("cardsim/sim/runner.py", "import cardsim.analysis.stats"),  # core -> analysis
        ("cardsim/analysis/stats.py", "import cardsim.workflows.study"),  # analysis -> workflows
        ("cardsim/workflows/study.py", "import cardsim.cli"),  # workflows -> commands
    ],
)
def test_an_upward_import_breaks_the_contract(tmp_path, module, injected):
    t = _installed_layout(tmp_path)
    path = t / module
    path.write_text(path.read_text() + f"\n\ndef _injected():\n    {injected}\n")
    out = _lint(t)
    assert out.returncode != 0 and "BROKEN" in out.stdout.upper(), out.stdout


def test_every_module_sits_in_a_layer():
    """Every module of the tree is in a layer, or is the package root (the Python API)."""
    roots = {"cardsim", "cardsim.__main__"}
    for package, folder in PACKAGE_DIR.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            rel = path.relative_to(ROOT / folder).with_suffix("")
            name = ".".join([package, *rel.parts]).removesuffix(".__init__")
            if name in roots or any(name == lay or name.startswith(lay + ".") for lay in LAYERS):
                continue
            if package == "cardsim" and any(f"cardsim.{p}" in PACKAGE_DIR for p in rel.parts[:1]):
                continue  # a mapped folder's own modules are checked under its own name
            pytest.fail(f"{name} ({path.relative_to(ROOT)}) is in no layer of pyproject.toml")


def test_every_package_folder_is_installed():
    listed = set(CONF["tool"]["setuptools"]["packages"])
    for package, folder in PACKAGE_DIR.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            name = ".".join([package, *rel.parts])
            assert name in listed, f"{name} ({init.parent.relative_to(ROOT)}) is not in packages"


#: Import circles left (issue 46 breaks them): each a set of modules that import each other,
#: directly or through others, function-level imports included. A circle not listed fails, and
#: so does a listed one that is gone (the list only shrinks).
CIRCLES_LEFT = [
    {"cardsim.workflows.study", "cardsim.workflows.ladder", "cardsim.workflows.tune"},
    {"cardsim.analysis.render", "cardsim.analysis.report"},
    # a game package's __init__ and the modules that read its ENGINE back
    {"cardsim.sim.games.atlas", "cardsim.sim.games.atlas.adapter", "cardsim.sim.games.atlas.check"},
]  # fmt: skip

_CIRCLES = """
import json, grimp
g = grimp.build_graph("cardsim")
mods = sorted(g.modules)
edges = {m: sorted(g.find_modules_directly_imported_by(m)) for m in mods}
index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
def visit(v):
    index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
    for w in edges[v]:
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v: break
        if len(comp) > 1: out.append(sorted(comp))
import sys; sys.setrecursionlimit(10000)
for m in mods:
    if m not in index: visit(m)
print(json.dumps(out))
"""


def test_no_import_circles_but_the_listed_ones(tree):
    """Modules that import each other (strongly connected parts of the import graph, grimp on
    the installed layout): only :data:`CIRCLES_LEFT`."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, "-c", _CIRCLES], cwd=tree, env=env, check=True,
                         capture_output=True, text=True, timeout=300)  # fmt: skip
    import json

    found = [set(c) for c in json.loads(out.stdout)]
    assert [c for c in found if c not in CIRCLES_LEFT] == [], found
    assert [c for c in CIRCLES_LEFT if c not in found] == [], "a listed circle is gone: drop it"
