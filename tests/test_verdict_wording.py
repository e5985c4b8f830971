"""Verdict wording (issue 45 item 9): the look's level beside "not enough games", "games to
detect" called unadjusted, the ladder's ends said by rating or by value, and a resolution III
fraction whose main effects are all aliased offered its fold-over."""

from cardsim.analysis import factorial, verdicts
from cardsim.analysis.factorial import DesignSpec, design_cells
from cardsim.analysis.model import QUESTION, Finding


def _finding(p: float) -> Finding:
    return Finding(
        "x clear.", "x: +1.0 [+0.4, +1.6].", p, kind=QUESTION, estimate=0.010, se=0.003,
        n=400, measure="win rate", unit="deal", margin=0.005,
    )  # fmt: skip


def test_not_enough_at_a_look_names_the_looks_level():
    """issue 45 item 9: Holm p 0.009 is "not enough games" only because this look's level is
    0.0079 — the same sentence says so."""
    f = _finding(0.009)
    verdicts.judge([("s", f)], alpha=0.0079)
    assert f.verdict == "not enough games"
    assert "Not enough games to tell (Holm p 0.009 ≥ this look's level 0.0079)" in f.text
    g = _finding(0.2)
    verdicts.judge([("s", g)])  # the usual 5 %: no level to name
    assert "Not enough games to tell:" in g.text and "look's level" not in g.text


def test_games_to_detect_are_said_to_be_unadjusted():
    """issue 45 item 9: the number assumes the observed difference is true and ignores Holm."""
    f = _finding(0.2)
    verdicts.judge([("s", f)])
    assert f.needed_detect and "would detect the observed difference" in f.text
    assert "unadjusted: a two-sided 5 % test, if the observed difference is the true one" in f.text


def test_ladder_ends_say_rating_or_value():
    """issue 45 item 9: the finding's ends are the lowest- and highest-rated levels, the
    answer's the smallest and largest values; each says which."""
    from cardsim.analysis import ladder

    r = {
        "group": "", "measure": "first excess", "kind": "rate", "key": "first_excess",
        "unit": "round", "levels": 3, "lowest": "random", "value_lowest": -0.004,
        "highest": "pimc", "value_highest": 0.004, "change": 0.01, "change_lo": 0.004,
        "change_hi": 0.016, "n_per_level": 400, "min_value": -0.004, "max_value": 0.009,
        "min_level": "random", "max_level": "greedy",
    }  # fmt: skip
    clear, _ = ladder._texts(r, _finding(0.001))
    assert "at random (lowest rated) to +0.4 points at pimc (highest rated)" in clear


def test_resolution_three_with_every_main_effect_aliased_suggests_its_foldover():
    """issue 45 item 9: a 2^(3-1) fraction (I = abc) aliases each main effect with a 2fi."""
    import numpy as np
    import polars as pl

    from tests.test_sparse_factorial import RARE_FACTS

    spec = DesignSpec({"a": [0, 1], "b": [0, 1], "c": [0, 1]}, fraction=1, interactions=False)
    cells = design_cells(spec)
    rng = np.random.default_rng(0)
    tables = [
        pl.DataFrame({"game": np.arange(3000), "rare": (rng.random(3000) < 0.3).astype(int)})
        for _ in cells
    ]
    result = factorial.analyse(spec, cells, tables, RARE_FACTS, name="r3")
    assert result.resolution == 3
    assert sorted(result.suggested_foldover) == ["a", "b", "c"]
    assert any(a.startswith("Resolution III: every main effect") for a in factorial.answers(result))
