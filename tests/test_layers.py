"""The layering contracts (pyproject.toml [tool.importlinter]) cover every module of sim/."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: modules that sit on top of the core and analysis: the commands
COMMANDS = {"sim.cli", "sim.study", "sim.__main__", "sim.tune", "sim.strategy_check", "sim.ladder"}


def test_every_sim_module_is_in_a_layer():
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    core = set(conf["contracts"][0]["source_modules"])
    for path in sorted((ROOT / "sim").glob("*.py")):
        name = "sim" if path.stem == "__init__" else f"sim.{path.stem}"
        if name == "sim":
            continue
        assert name in core or name in COMMANDS, (
            f"{name} is in no layer: add it to the core contract in pyproject.toml "
            "or to the commands"
        )
