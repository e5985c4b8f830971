"""Games needed (issue 19, point 6): besides the games that would show equivalence if the true
difference were 0, the games that would detect the observed difference at 80 % power, when
the estimate is not well inside the margin; checked against statsmodels' power functions."""

import dataclasses
import math

import numpy as np
import polars as pl
import pytest
from cardsim.analysis import factorial, stats, verdicts
from cardsim.analysis.factorial import DesignSpec, design_cells
from cardsim.analysis.model import QUESTION, Finding
from cardsim.sim.game import Measure, column
from statsmodels.stats.power import NormalIndPower

from tests.fake_engine import FACTS


def _statsmodels_units(estimate, se, n):
    """One-sample two-sided z-test sample size (ratio=0) for effect size |d| / σ, σ = se √n."""
    sd = se * math.sqrt(n)
    return NormalIndPower().solve_power(
        effect_size=abs(estimate) / sd, nobs1=None, alpha=0.05, power=0.8, ratio=0.0
    )


@pytest.mark.parametrize(
    ("estimate", "se", "n"),
    [(-2.05, 1.095, 1000), (0.74, 0.6, 400), (0.012, 0.008, 40_000), (-0.3, 0.05, 5000)],
)
def test_units_to_detect_matches_statsmodels(estimate, se, n):
    ours = stats.units_to_detect(estimate, se, n)
    theirs = _statsmodels_units(estimate, se, n)
    # statsmodels adds the far tail's (negligible) power; ours is the closed form, rounded up
    assert theirs <= ours <= theirs + 1.0 + 1e-3 * theirs, (ours, theirs)


def test_issue_example_gives_both_figures_each_labelled():
    """ATLAS careful vs greedy, 1,000 deals, −2.05 points, margin ±1: the old text gave only
    'about 10,273 deals would show equivalence'; at that size the difference is clear."""
    se = 1.095
    f = Finding("clear", "unclear.", 2 * (1 - 0.9694), kind=QUESTION, estimate=-2.05, se=se,
                n=1000, measure="mean", margin=1.0, unit="deal")  # fmt: skip
    verdicts.judge([("x", f)])
    assert f.verdict == stats.NOT_ENOUGH
    assert f.needed == stats.units_needed(se, 1000, 1.0)  # 10,268: the equivalence figure
    assert f.needed_detect == math.ceil(1000 * ((1.959964 + 0.841621) * se / 2.05) ** 2)
    text = verdicts.text(f)
    assert (
        f"about {f.needed:,.0f} deals would show equivalence within ±1 at 80 % power if the "
        "true difference is 0" in text
    )
    assert f"about {f.needed_detect:,.0f} deals would detect the observed difference " in text
    assert "(-2.05 per deal) at 80 % power" in text
    assert f.needed_detect < f.needed / 4


def test_estimate_well_inside_the_margin_gives_one_figure():
    f = Finding("clear", "unclear.", 0.8, kind=QUESTION, estimate=0.002, se=0.008, n=4000,
                measure="rate", margin=0.01, unit="match")  # fmt: skip
    verdicts.judge([("x", f)])
    assert f.verdict == stats.NOT_ENOUGH and f.needed_detect is None
    assert "detect" not in verdicts.text(f) and "would show equivalence" in verdicts.text(f)


def test_factorial_not_enough_games_names_the_games_to_detect_it():
    """A +0.74 effect on a length with margin ±1 (the issue's factorial case): the term's
    deals to detect it, the table and the Answers say both figures."""
    facts = dataclasses.replace(
        FACTS,
        headline=(Measure("length", "length", "match", "continuous", column("length"), "length"),),
    )
    spec = DesignSpec({"flavour": ["plain", "spicy"]})
    cells = design_cells(spec)
    rng = np.random.default_rng(7)
    n = 400
    tables = [
        pl.DataFrame({"game": np.arange(n), "length": 50 + rng.normal(0, 7, n) + shift})
        for shift in (0.0, 0.74)
    ]
    res = factorial.analyse(spec, cells, tables, facts, margins={"length": 1.0})
    (e,) = res.measures[0].effects
    assert e.verdict == factorial.NOT_ENOUGH and abs(e.effect) > 0.5
    assert e.deals_to_detect == stats.units_to_detect(e.effect, e.se, n)
    theirs = _statsmodels_units(e.effect, e.se, n)
    assert theirs <= e.deals_to_detect <= theirs + 1 + 1e-3 * theirs
    (line,) = factorial.answers(res)
    assert f"about {e.deals_needed:,.0f} deals per cell would show them equivalent" in line
    assert f"about {e.deals_to_detect:,.0f} deals per cell would detect the observed" in line
    assert "to detect the observed" in factorial._table_html(res.measures[0])
