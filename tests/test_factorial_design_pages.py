"""Factorial pages that read as designs (issue 47 item 4): effects are differences of predicted
means in the measure's own unit whose intervals hold the cell-mean differences; integer levels
in numeric order with per-level means."""

import json

import polars as pl
import pytest
from cardsim.analysis import factorial

from cardsim.workflows.study import parse_study, run_study

STUDY = """
[[design]]
name = "sj"
game = "yuanzi"
games = 6000
seed = 3
options = { shuangjia_threshold = [60, 30, 90, 120] }
"""


@pytest.fixture(scope="module")
def threshold_design(tmp_path_factory):
    out = tmp_path_factory.mktemp("sj")
    result = run_study(parse_study(STUDY, "sj.toml"), out, progress=False)
    doc = json.loads(result.designs["sj"].with_suffix(".json").read_text())
    return out, result.designs["sj"], doc


def test_threshold_effect_interval_contains_the_cell_mean_difference(threshold_design):
    """Issue 47 item 4 ("done when"): the effect of shuangjia_threshold 120 vs 60 (YZ-D1) on the
    双夹 rate is a difference of predicted means: its interval contains the difference of the
    two cells' means on the same deals (the page said +22.12 points [+21.41, +22.84] while the
    cell means differed by +21.0: β·p̄(1−p̄) is not a difference of shares)."""
    out, _, doc = threshold_design
    sj = next(m for m in doc["measures"] if m["name"] == "shuangjia")
    cells = {r["shuangjia_threshold"]: r["mean"] for r in doc["cell_means"]["shuangjia"]}
    effects = {e["term"]: e for e in sj["effects"]}
    for level in ("120", "90", "30"):
        e = effects[f"shuangjia_threshold={level}"]
        diff = cells[level] - cells["60"]
        assert e["lo"] <= diff <= e["hi"], (level, e, diff)
        assert e["effect"] == pytest.approx(diff, abs=1e-9)  # one option: a saturated model
    # the cell means themselves, read afresh from the runs: the same deals in both cells
    g120 = pl.read_parquet(out / "sj-c003" / "games" / "*.parquet")
    g60 = pl.read_parquet(out / "sj-c000" / "games" / "*.parquet")
    assert g120["game"].to_list() == g60["game"].to_list()
    diff = g120["shuangjia"].cast(float).mean() - g60["shuangjia"].cast(float).mean()
    e = effects["shuangjia_threshold=120"]
    assert e["lo"] <= diff <= e["hi"] and diff > 0.05


def test_integer_levels_in_numeric_order_with_per_level_means(threshold_design):
    """Issue 47 item 4: per-level means list 30, 60, 90, 120 (not the baseline 60 first), each
    the mean of its cell, and the page shows them with a plot per option."""
    _, page, doc = threshold_design
    for m in doc["measures"]:
        levels = [r for r in m["levels"] if r["factor"] == "shuangjia_threshold"]
        assert [r["level"] for r in levels] == ["30", "60", "90", "120"]
        cells = {r["shuangjia_threshold"]: r["mean"] for r in doc["cell_means"][m["name"]]}
        for r in levels:
            assert r["mean"] == pytest.approx(cells[r["level"]]) and r["lo"] <= r["mean"] <= r["hi"]
    html = page.read_text()
    assert "Per-level means" in html and "differences of predicted means" in html
    assert "by shuangjia_threshold (per-level means" in html
    assert "p̄(1−p̄)" not in html


def test_numeric_order_leaves_choices_alone():
    assert factorial.numeric_order(["60", "30", "120"]) == ["30", "60", "120"]
    assert factorial.numeric_order(["jump", "stay"]) == ["jump", "stay"]
