"""`cardsim tune` with two or more objectives (issue 47 item 4): the Pareto front, each point
with its measures and intervals, a trade-off plot; no point of the front is dominated."""

import json

import pytest
from cardsim.sim.games import get_engine

from cardsim.cli import main
from cardsim.workflows.pareto import dominates, pareto_tune
from tests.test_tune import TunableEngine  # noqa: F401  (registers the "tunable" game)

KW = dict(options="flavour,cap=3..9", budget=14_000, seed=4, progress=False, min_games=100)


@pytest.fixture(scope="module")
def front(tmp_path_factory):
    out = tmp_path_factory.mktemp("pareto") / "t"
    return out, pareto_tune("tunable", ["first_excess", "length=45"], out=out, **KW)


def test_no_point_of_the_front_is_dominated(front):
    """Issue 47 item 4 ("done when"): no point of the front is dominated by another evaluated
    point, and every point off the front is dominated by one (lower is better on each)."""
    _, result = front
    assert result.configurations == 14 and len(result.points) == 14
    values = {p.id: [o["estimate"] for o in p.objectives] for p in result.points}
    on = [p for p in result.points if p.front]
    assert on and len(on) < len(result.points)
    for p in on:
        assert not any(dominates(v, values[p.id]) for q, v in values.items() if q != p.id)
    for p in result.points:
        if not p.front:
            assert dominates(values[p.dominated_by], values[p.id])
    # the planted trade-off: fair at cap 6 (plain), length 45 at cap 5 — both ends on the front
    rules = [(p.rules["flavour"], p.rules["cap"]) for p in on]
    assert ("plain", "6") in rules and ("plain", "5") in rules


def test_each_point_has_its_measures_with_intervals(front):
    """Issue 47 item 4: each point of the front carries each objective and each objective's
    measure itself (e.g. "length 45.0 (target 45)") with its 95 % interval; the page shows the
    front, its measures and a trade-off plot; the JSON lists the front."""
    out, result = front
    for p in result.front:
        assert [o["objective"] for o in p.objectives] == ["first_excess*1", "length=45*1"]
        for o in p.objectives:
            assert o["lo"] <= o["estimate"] <= o["hi"]
        length = next(m for m in p.measures if m["term"] == "length=45")
        assert length["lo"] <= length["estimate"] <= length["hi"]
        assert length["text"].startswith("length ") and "(target 45)" in length["text"]
    doc = json.loads((out / "tune.json").read_text())
    assert doc["front"] == [p.id for p in result.front]
    html = (out / "tune.html").read_text()
    assert "Pareto front" in html and "Trade-off: first_excess*1 against length=45*1" in html
    assert html.count("<img") == 1
    md = (out / "tune.md").read_text()
    assert "Pareto front" in md and md.count("| c0") == len(result.front)


def test_rerun_resumes(front):
    out, result = front
    engine = get_engine("tunable")
    engine.calls.clear()
    again = pareto_tune("tunable", ["first_excess", "length=45"], out=out, **KW)
    assert engine.calls == [] and [p.id for p in again.front] == [p.id for p in result.front]


def test_pareto_through_the_cli_and_bad_input(tmp_path, capsys):
    args = ["tune", "yuanzi", "--objective", "first_excess", "--objective", "length=20",
            "--options", "shuangjia_threshold=40..80/20", "--budget", "1200",
            "--out", str(tmp_path / "c"), "--quiet"]  # fmt: skip
    with pytest.raises(SystemExit) as e:
        main(args)
    out = capsys.readouterr()
    assert e.value.code == 0, out.err
    assert "Pareto front" in out.out and "tricks per match" in out.out
    doc = json.loads((tmp_path / "c" / "tune.json").read_text())
    assert doc["configurations"] == 3 and doc["front"]
    with pytest.raises(SystemExit) as e:
        main(["tune", "yuanzi", "--objective", "length=20", "--objective", "length=20",
              "--out", str(tmp_path / "d")])  # fmt: skip
    err = capsys.readouterr().err
    assert e.value.code == 2 and len(err.strip().splitlines()) == 1 and "given twice" in err


def test_the_api_takes_a_list_of_objectives(tmp_path):
    """Issue 47 item 4: `cardsim.tune(game, [a, b], out)` returns the Pareto front."""
    import cardsim
    from cardsim.workflows.pareto import ParetoResult

    r = cardsim.tune("tunable", ["first_excess", "length=45"], tmp_path / "api",
                     options="cap=4..7", budget=1600)  # fmt: skip
    assert isinstance(r, ParetoResult) and r.configurations == 4 and r.front
    one = cardsim.tune("tunable", ["length=45"], tmp_path / "one", options="cap=4..7",
                       budget=1600)  # fmt: skip
    from cardsim.workflows.tune import TuneResult

    assert isinstance(one, TuneResult) and one.objective == "length=45*1"  # one: the race
