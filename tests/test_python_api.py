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


# --- issue 19 #16: resume/force, the API's own words, notebook views ----------------------------
def test_a_second_identical_compare_says_what_to_pass(tmp_path):
    out = tmp_path / "cmp"
    first = cardsim.compare("yuanzi", ["greedy", "random"], out, games=40, seed=3)
    with pytest.raises(cardsim.CardsimError) as err:
        cardsim.compare("yuanzi", ["greedy", "random"], out, games=40, seed=3)
    text = str(err.value)
    assert "resume=True" in text and "force=True" in text and "--" not in text
    again = cardsim.compare("yuanzi", ["greedy", "random"], out, games=40, seed=3, resume=True)
    assert again.equals(first)  # finished: read back, nothing played
    replaced = cardsim.compare("yuanzi", ["greedy", "random"], out, games=40, seed=4, force=True)
    assert replaced.height == 1 and cardsim.open_run(out).manifest["seed"] == 4


@pytest.mark.parametrize(
    ("call", "word"),
    [
        (lambda tmp: cardsim.simulate("yuanzi", games=0), "games must be a positive integer"),
        (lambda tmp: cardsim.run("yuanzi", tmp / "r", games=5, chunk_size=0), "chunk_size must"),
        (lambda tmp: cardsim.compare("yuanzi", ["greedy"], tmp / "c", games=5), "strategies"),
        (lambda tmp: cardsim.run("yuanzi", "", games=5), "out is empty"),
        (lambda tmp: cardsim.config("yuanzi", games=5, seats={7: "greedy"}), "seats"),
    ],
)
def test_api_errors_name_arguments_not_command_line_options(tmp_path, call, word):
    with pytest.raises(cardsim.CardsimError) as err:
        call(tmp_path)
    assert word in str(err.value) and "--" not in str(err.value)


@pytest.mark.heavy
def test_results_show_themselves_in_a_notebook(tmp_path):
    result = cardsim.run("yuanzi", tmp_path / "r", games=30, seed=1)
    html = result._repr_html_()
    assert html.startswith("<div>") and "cardsim run: 30 games" in html
    assert str(tmp_path / "r") in html and "manifest" not in html
    assert "<table>" in cardsim.open_run(tmp_path / "r")._repr_html_()
    report = cardsim.report(tmp_path / "r", tmp_path / "r.html")
    assert "cardsim report" in report._repr_html_()


def test_tune_is_part_of_the_api():
    import inspect

    from cardsim.workflows.tune import tune

    params = inspect.signature(cardsim.tune).parameters
    assert {"objective", "out", "options", "budget", "seed", "force"} <= set(params)
    assert set(params) - {"progress"} <= set(inspect.signature(tune).parameters) | {"out"}
    with pytest.raises(cardsim.CardsimError) as err:
        cardsim.tune("yuanzi", "first_player", "")
    assert "out is empty" in str(err.value)


def test_a_tune_result_shows_itself_in_a_notebook():
    from cardsim.workflows.tune import Candidate, TuneResult

    best = Candidate("c001", {"dao_bomb": "same_count_only"})
    result = TuneResult("yuanzi", "first_excess*1", {"dao_bomb": ["any"]}, 2, 1000, 900, [], best,
                        [best], [], 0.01, "tune/verify.toml", "tune")  # fmt: skip
    html = result._repr_html_()
    assert html.startswith("<div><strong>cardsim tune</strong>") and "first_excess*1" in html
    assert "racing" not in html and "<th style='text-align:left'>log</th>" not in html
