"""tune reports the measure itself beside its distance, and says when the winner sits at the
edge of the searched range (issue 45 item 4)."""

import json
import re

from cardsim.workflows.tune import tune
from tests.test_tune import TunableEngine  # noqa: F401  (registers the "tunable" game)


def test_length_objective_reports_the_length_and_an_unreachable_target(tmp_path):
    """issue 45 item 4: length = 30 + 3 cap ≥ 33 at cap's own minimum 1: a target of 20 cannot
    be met, and the answer says so with the length itself (not only the distance 13)."""
    result = tune(
        "tunable", "length=20", out=tmp_path / "t", options="cap=1..4", budget=2_000, seed=1,
        progress=False, min_games=100, run_verify=False,
    )  # fmt: skip
    assert result.best.rules["cap"] == "1"
    (measure,) = result.best.measures.values()
    assert re.fullmatch(r"length 3[23]\.\d \(target 20\)", measure), measure
    (edge,) = result.edges
    assert "cap=1 is the lowest value searched (1..4)" in edge
    assert "the option's own limit" in edge and "target may be unreachable" in edge
    md = (tmp_path / "t" / "tune.md").read_text()
    distance = re.search(rf"{re.escape(measure)} — objective \(distance\) (\d+\.\d+)", md)
    length = float(re.fullmatch(r"length (\d+\.\d) .*", measure)[1])
    assert distance and abs(float(distance[1]) - (length - 20)) < 0.051, (distance, measure)
    assert "At the edge" in md
    doc = json.loads((tmp_path / "t" / "tune.json").read_text())
    assert doc["best"]["measures"] == {"length=20": measure}
    assert measure in (tmp_path / "t" / "tune.html").read_text()


def test_winner_at_the_end_of_a_narrow_range_suggests_a_wider_one(tmp_path):
    """issue 45 item 4: the range 2..4 stops short of the target (cap 10 gives 60)."""
    result = tune(
        "tunable", "length=60", out=tmp_path / "t", options="cap=2..4", budget=2_000, seed=1,
        progress=False, min_games=100, run_verify=False,
    )  # fmt: skip
    assert result.best.rules["cap"] == "4"
    (edge,) = result.edges
    assert "cap=4 is the highest value searched (2..4): the best may lie beyond it" in edge


def test_winner_inside_the_range_has_no_edge_note(tmp_path):
    result = tune(
        "tunable", "length=45", out=tmp_path / "t", options="cap=3..7", budget=4_000, seed=1,
        progress=False, min_games=100, run_verify=False,
    )  # fmt: skip
    assert result.best.rules["cap"] == "5" and result.edges == []
    assert "first side's win share" not in result.best.measures["length=45"]
