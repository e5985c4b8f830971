"""`import cardsim` works and docs/python-api.md's example runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import cardsim

DOC = Path(__file__).resolve().parent.parent / "docs" / "python-api.md"


def test_api_names_are_documented():
    text = DOC.read_text()
    for name in cardsim.__all__:
        if not name.startswith("_") and name != "CardsimError":
            assert f"cardsim.{name}(" in text, name


def test_bad_input_raises_cardsim_error():
    with pytest.raises(cardsim.CardsimError, match="unknown"):
        cardsim.simulate("atlas", games=5, rules={"nope": 1})


def test_documented_example_runs(tmp_path, capsys, monkeypatch):
    block = re.search(r"```python\n(.*?)```", DOC.read_text(), re.S).group(1)
    monkeypatch.chdir(tmp_path)
    exec(compile(block, str(DOC), "exec"), {"__name__": "__doc_example__"})
    out = capsys.readouterr().out
    assert "first player wins" in out and "双夹 ends" in out and "report:" in out
