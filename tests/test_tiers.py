"""The two test tiers (docs/testing.md): plain ``pytest`` is the fast tier, ``-m heavy`` the
heavy one, and every guarantee in docs/testing.md's table keeps a fast-tier test — so nothing is
guarded only by a tier nobody runs while working."""

from __future__ import annotations

import importlib
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TABLE_ROW = re.compile(r"^\| (?P<what>[^|]+) \| (?P<fast>[^|]+) \| (?P<heavy>[^|]+) \|$")
NODE = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")


def _rows() -> list[tuple[str, list[tuple[str, str]], list[tuple[str, str]]]]:
    text = (ROOT / "docs" / "testing.md").read_text(encoding="utf-8")
    table = text.split("## Every guarantee has a fast-tier test", 1)[1]
    rows = []
    for line in table.splitlines():
        m = TABLE_ROW.match(line.strip())
        if m and m["fast"].strip() not in ("fast tier", "---"):
            rows.append((m["what"].strip(), NODE.findall(m["fast"]), NODE.findall(m["heavy"])))
    return rows


def _marks(path: str, name: str) -> tuple[set[str], set[str]]:
    """The marks on test ``name`` of ``path`` (its own and its module's), and the marks that some
    of its parameters carry."""
    module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
    fn = getattr(module, name)  # AttributeError: the table names a test that does not exist
    own = {m.name for m in getattr(fn, "pytestmark", [])}
    module_marks = getattr(module, "pytestmark", [])
    own |= {m.name for m in (module_marks if isinstance(module_marks, list) else [module_marks])}
    params = set()
    for m in getattr(fn, "pytestmark", []):
        if m.name == "parametrize":
            for value in m.args[1]:
                params |= {x.name for x in getattr(value, "marks", ())}
    return own, params


def test_every_guarantee_has_a_fast_test_and_the_table_names_real_tests():
    rows = _rows()
    assert len(rows) >= 20, "docs/testing.md's table was not found"
    for what, fast, heavy in rows:
        assert fast, f"{what}: no fast-tier test"
        for path, name in fast:
            own, _ = _marks(path, name)
            assert not own & {"heavy", "slow"}, f"{what}: {path}::{name} is not in the fast tier"
        for path, name in heavy:
            own, params = _marks(path, name)
            assert "heavy" in own | params, f"{what}: {path}::{name} is not in the heavy tier"


def test_the_table_covers_every_guarantee_docs_cli_lists():
    """Each bold guarantee of docs/cli.md "What a run directory guarantees" has a row."""
    cli = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    section = cli.split("### What a run directory guarantees", 1)[1].split("\n## ", 1)[0]
    listed = [g.rstrip(".") for g in re.findall(r"^- \*\*([^*]+)\*\*", section, re.M)]
    assert len(listed) >= 10
    rows = " ".join(what for what, _, _ in _rows()).replace("`", "").lower()
    for g in listed:
        key = g.replace("`", "").split(":")[0].split(" (")[0].lower()
        assert key in rows, f"docs/testing.md has no row for {g!r}"


def test_plain_pytest_is_the_fast_tier_and_ci_runs_both():
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert options["addopts"] == "-m 'not slow and not heavy'"
    assert {m.split(":")[0] for m in options["markers"]} == {"heavy", "slow"}
    ci = (ROOT / ".ci" / "run").read_text()
    fast, heavy = "-m pytest -q -n auto 2>&1", "-m pytest -q -n auto -m heavy 2>&1"
    assert fast in ci and heavy in ci and ci.index(fast) < ci.index(heavy)
