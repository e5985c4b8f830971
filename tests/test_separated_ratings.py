"""A strategy that never wins has no finite rating, and compare / report / JSON say so instead
of printing a precise meaningless number (issue 45 item 2; docs/ladder.md: |rating| > 8)."""

import json
import math

import numpy as np
import polars as pl
import pytest
from cardsim.analysis import compare, ladder

STRATS = ["choose", "careful", "greedy"]  # "careful" sorts first: the usual reference


def _seats(never: str = "choose", deals: int = 300, seed: int = 2) -> pl.DataFrame:
    """An ATLAS-like seats table: 4 seats, every rotation of (a, b, c, a); ``never`` never wins."""
    rng = np.random.default_rng(seed)
    base = ["careful", "greedy", "choose", "careful"]
    rows = []
    for g in range(deals):
        for a in range(4):
            seats = base[a:] + base[:a]
            able = [s for s in range(4) if seats[s] != never]
            winner = able[rng.integers(len(able))] if rng.random() < 0.97 else -1
            for s, name in enumerate(seats):
                rows.append((g, a, s, s, name, s == winner))
    return pl.DataFrame(
        rows, schema=["game", "assignment", "seat", "position", "strategy", "won"], orient="row"
    )


def test_never_winning_strategy_is_not_given_a_number():
    """issue 45 item 2: 0 wins reads 'below every other' with a one-sided bound, not −28."""
    rt = compare.ratings(_seats(), "atlas")
    row = rt.table.filter(pl.col("strategy") == "choose").row(0, named=True)
    assert not row["finite"] and row["wins"] == 0 and row["played"] > 0
    assert row["bound"].startswith("below every other: 0 wins in ")
    assert "seat-rounds" in row["bound"] and "one-sided 95 %" in row["bound"]
    assert compare.rating_text(row) == row["bound"]  # the words, never the number
    shown = compare.shown_ratings(rt.table).filter(pl.col("strategy") == "choose")
    assert shown["rating"][0] is None and shown["lo"][0] is None and shown["hi"][0] is None
    others = rt.table.filter(pl.col("strategy") != "choose")
    assert others["finite"].all() and (others["rating"].abs() < 3).all()


def test_reference_that_never_wins_is_replaced_by_the_first_finite_one():
    """issue 45 item 2: against a never-winning reference every rating would be ±28."""
    rt = compare.ratings(_seats(never="careful"), "atlas")
    t = {r["strategy"]: r for r in rt.table.iter_rows(named=True)}
    assert not t["careful"]["finite"] and t["careful"]["bound"].startswith("below every other")
    assert t["choose"]["rating"] == 0 and t["choose"]["se"] == 0  # the new reference
    assert t["greedy"]["finite"] and abs(t["greedy"]["rating"]) < 1 and t["greedy"]["se"] > 0


def test_report_section_and_json_say_not_finite():
    """issue 45 item 2: the report's finding and its ratings table carry the bound."""
    from cardsim.analysis import duplicate
    from cardsim.analysis.model import Section

    sec = Section("duplicate", "t", "")
    rt = compare.ratings(_seats(), "atlas")
    from cardsim.analysis.facts import facts

    table, _ = duplicate._add_ratings(sec, rt, facts("atlas"), "", "")
    text = sec.findings[0].text
    assert "choose below every other: 0 wins in" in text and "-28" not in text
    row = table.filter(pl.col("strategy") == "choose").row(0, named=True)
    assert row["rating"] is None and row["bound"]
    doc = json.loads(json.dumps(table.to_dicts(), allow_nan=False))
    assert [r["rating"] for r in doc if r["strategy"] == "choose"] == [None]


def test_ladder_out_of_order_uses_the_ratings_covariance():
    """issue 45 item 11: the interval of a rating difference uses the fit's covariance (it was
    taken as independent, conservative); without the covariance it still falls back."""
    r = pl.DataFrame(
        {
            "level": ["random", "greedy", "pimc"],
            "rating": [0.0, -0.3, 0.5],
            "se": [0.0, 0.2, 0.2],
            "cov": [
                json.dumps({"random": 0, "greedy": 0, "pimc": 0}),
                json.dumps({"random": 0, "greedy": 0.04, "pimc": 0.035}),
                json.dumps({"random": 0, "greedy": 0.035, "pimc": 0.04}),
            ],
        }
    )
    _, text, _ = ladder.out_of_order(["pimc", "greedy"], r)
    # independent: se = 0.283 → [−1.35, −0.25]; with covariance 0.035: se = 0.1 → [−1.0, −0.6]
    assert "greedy rated -0.80 [-1.00, -0.60]" in text
    _, text, _ = ladder.out_of_order(["pimc", "greedy"], r.drop("cov"))
    assert "greedy rated -0.80 [-1.35, -0.25]" in text


def test_ratings_covariance_matches_the_standard_errors():
    rt = compare.ratings(_seats(), "atlas")
    assert rt.cov is not None
    assert np.sqrt(np.diag(rt.cov)) == pytest.approx(rt.table["se"].to_numpy())
    assert math.isfinite(float(rt.cov.sum()))


def test_bounds_never_contradict_each_other_nor_exceed_100_percent():
    """Review of issue 45 item 2: two strategies that never won are not each 'below every
    other'; an unbeaten record over 60,000 seat-rounds is a loss share below a bound, never a
    win share 'above 100 %'."""
    wins, played = np.array([0, 0, 500]), np.array([900, 900, 900])
    table = pl.DataFrame({"strategy": ["a", "b", "c"], "rating": [-20.0, -20.0, 0.0]})
    rows = compare._mark_separated(table, wins, played, "seat-rounds")["bound"].to_list()
    assert rows[0].startswith("below every strategy that won: 0 wins in 900 seat-rounds")
    assert rows[1].startswith("below every strategy that won") and rows[2] == ""
    wins, played = np.array([60_000, 10]), np.array([60_000, 60_000])
    table = pl.DataFrame({"strategy": ["a", "b"], "rating": [20.0, 0.0]})
    (top, _) = compare._mark_separated(table, wins, played, "seat-rounds")["bound"].to_list()
    assert top.startswith("above every other: 60,000 wins in 60,000 seat-rounds")
    assert "loss share < 0.005 %" in top and "100 %" not in top
