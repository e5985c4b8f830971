"""A factorial never declares "clear difference" from a handful of events (issue 45 item 1).

A yes/no measure that happens in 8 rows of 16 cells (one per cell in half of them) makes the
logistic fit separate: coefficients run off to ±12 with standard error 0 and p 0. The analysis
must see it (fewer than 10 events per estimated term, SE 0, coefficients beyond a bound) and
fall back to cell-mean differences with exact binomial intervals, none of them "clear".
"""

import dataclasses
import json
import math

import numpy as np
import polars as pl
from cardsim.analysis import factorial
from cardsim.analysis.factorial import CLEAR, NOT_ENOUGH, DesignSpec, design_cells
from cardsim.sim.game import Measure, column

from tests.fake_engine import FACTS

RARE_FACTS = dataclasses.replace(
    FACTS,
    headline=(Measure("rare", "rare event", "round", "binary", column("rare"), "rarity"),),
)


def _tables(cells, events_in: set[int], deals: int = 400, dense: bool = False):
    rng = np.random.default_rng(1)
    out = []
    for i, _ in enumerate(cells):
        rare = (
            rng.random(deals) < (0.3 if i % 2 else 0.1)
            if dense
            else np.isin(np.arange(deals), [0] if i in events_in else [])
        )
        out.append(pl.DataFrame({"game": np.arange(deals), "rare": rare.astype(np.int64)}))
    return out


SPEC = {"a": [0, 1], "b": [0, 1], "c": [0, 1], "d": [0, 1]}


def test_eight_events_give_no_clear_term_and_say_why():
    """issue 45 item 1: one event in each of 8 of 16 cells separates the logistic fit."""
    spec = DesignSpec(dict(SPEC))
    cells = design_cells(spec)
    events = {i for i, c in enumerate(cells) if c["a"] == 1}  # "a" alone carries every event
    result = factorial.analyse(spec, cells, _tables(cells, events), RARE_FACTS, name="rare")
    (mr,) = result.measures
    assert "fewer than 10 per estimated term" in mr.fallback and "8 of 6,400" in mr.fallback
    assert not [e.term for e in mr.effects if e.verdict == CLEAR]
    a = next(e for e in mr.effects if e.term == "a=1")
    # the cell-mean difference: 8 / 3,200 − 0 / 3,200, inside an exact interval
    assert math.isclose(a.effect, 8 / 3200) and a.lo < 0 < a.effect < a.hi
    assert all(e.se > 0 for e in mr.effects)  # no standard error of 0 behind any verdict
    answer = factorial.answers(result)[0]
    assert "no option or interaction clearly matters" in answer and "exact binomial" in answer
    doc = json.loads(result.to_json())
    assert doc["measures"][0]["effects"][0]["coef"] is None  # no logistic coefficient claimed


def test_verdict_is_never_clear_with_standard_error_zero():
    """issue 45 item 1: a p-value of 0 from SE 0 is not a finding."""
    assert factorial.verdict(0.0008, 0.0, 0.0, 0.01, 1000)[0] == NOT_ENOUGH  # nor equivalent
    assert factorial.verdict(0.0008, float("nan"), 0.0, 0.01, 1000)[0] == NOT_ENOUGH


def test_plenty_of_events_keep_the_logistic_fit():
    """The fallback is for sparse data only: a common outcome is still fitted and can be clear."""
    spec = DesignSpec({"a": [0, 1], "b": [0, 1]})
    cells = design_cells(spec)
    tables = _tables(cells, set(), deals=2000, dense=True)
    (mr,) = factorial.analyse(spec, cells, tables, RARE_FACTS, name="d").measures
    assert mr.fallback == ""
    assert [e.term for e in mr.effects if e.verdict == CLEAR][0].startswith("b=1")


def test_sparse_interval_is_exact_binomial():
    """The fallback's interval holds the Clopper–Pearson bounds of the two pooled rates."""
    lo, hi = factorial._clopper_pearson(0, 3200, 0.025)
    assert lo == 0 and math.isclose(hi, 1 - (0.0125) ** (1 / 3200))


def test_the_fallback_interval_is_built_from_pooled_exact_bounds():
    """Review of issue 45 item 1: with events spread unevenly over the cells, each effect's
    interval is ``S·(L_P − U_M)`` to ``S·(U_P − L_M)`` from the pooled Clopper–Pearson bounds
    (97.5 % each) of the cells its contrast counts positively (P) and negatively (M), and the
    effect lies inside it; recomputed here with scipy's beta quantiles."""
    from scipy import stats as ss

    spec = DesignSpec(dict(SPEC))
    cells = design_cells(spec)
    rng = np.random.default_rng(3)
    deals = 400
    tables = []
    for c in cells:
        k = int(rng.integers(0, 2)) + (1 if c["a"] == 1 and c["b"] == 1 else 0)
        rare = np.isin(np.arange(deals), np.arange(k))
        tables.append(pl.DataFrame({"game": np.arange(deals), "rare": rare.astype(np.int64)}))
    (mr,) = factorial.analyse(spec, cells, tables, RARE_FACTS, name="uneven").measures
    assert mr.fallback  # sparse: the cell-mean fallback
    events = np.array([int(t["rare"].sum()) for t in tables], float)

    def exact(k, n):
        lo = 0.0 if k == 0 else ss.beta.ppf(0.0125, k, n - k + 1)
        hi = 1.0 if k == n else ss.beta.ppf(0.9875, k + 1, n - k)
        return lo, hi

    for e in (x for x in mr.effects if x.term.count("=") == 1):  # the main effects
        name, level = e.term.split("=")
        pos = np.array([str(c[name]) == level for c in cells])
        s = 1 / pos.sum()  # a main effect: mean of P's cells − mean of M's cells
        lp, up = exact(events[pos].sum(), deals * pos.sum())
        lm, um = exact(events[~pos].sum(), deals * (~pos).sum())
        assert math.isclose(e.effect, s * (events[pos].sum() - events[~pos].sum()) / deals)
        assert math.isclose(e.lo, s * pos.sum() * (lp - um), rel_tol=1e-9, abs_tol=1e-12)
        assert math.isclose(e.hi, s * pos.sum() * (up - lm), rel_tol=1e-9, abs_tol=1e-12)
        assert e.lo <= e.effect <= e.hi
