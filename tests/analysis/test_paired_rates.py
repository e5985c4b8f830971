"""Issue 19, point 5: every rate of "Comparison of the runs" is paired on the shared deals when
two runs share the root seed and the deal rules; Newcomb only for truly independent runs."""

from types import SimpleNamespace

import numpy as np
import polars as pl
import pytest
from cardsim.analysis import stats
from cardsim.analysis.games.yuanzi.finish import partner_of_upstream
from cardsim.analysis.report import build_report, newcomb_label, shares_deals

SJ, ONE_TWO = "双夹 (share of matches)", "1-2 finish in half 1"
GAMES = 3000


def _run(tmp_path_factory, name, seed, rules=None):
    from cardsim.sim import runner
    from cardsim.sim.config import build_config
    from cardsim.sim.games import get_engine

    out = tmp_path_factory.mktemp(name) / "run"
    cfg = build_config(get_engine("yuanzi"), games=GAMES, seed=seed, rules=rules or {})
    runner.run(cfg, out, chunk_size=GAMES, progress=False, threads=1)
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    return {
        "default": _run(tmp_path_factory, "default", 11),
        "same_count": _run(tmp_path_factory, "same", 11, {"dao_bomb": "same_count_only"}),
        "other_seed": _run(tmp_path_factory, "other", 12, {"dao_bomb": "same_count_only"}),
    }


def _rows(base, other):
    rep = build_report([base, other])
    sec = next(s for s in rep.sections if s.key == "comparison")
    df = next(t for t in sec.tables if t.key == "diffs").df
    return {r["measure"]: r for r in df.iter_rows(named=True)}


def _games(run):
    return pl.read_parquet(run / "games" / "*.parquet").sort("game")


def _hand_paired(ya: np.ndarray, yb: np.ndarray) -> tuple[float, float]:
    """Paired difference of proportions, one match per deal: mean and CR1 se by deal."""
    d = ya.astype(float) - yb.astype(float)
    g = d.size
    se = np.sqrt(g / (g - 1) * ((d - d.mean()) ** 2).sum()) / g
    return float(d.mean()), float(se)


@pytest.mark.parametrize(
    ("measure", "indicator"),
    [(SJ, lambda g: g["shuangjia"]), (ONE_TWO, lambda g: g.select(partner_of_upstream(0) == 2))],
)
def test_same_seed_runs_are_paired_on_every_rate(runs, measure, indicator):
    rows = _rows(runs["default"], runs["same_count"])
    r = rows[measure]
    assert (
        r["interval"] == f"paired on {GAMES:,} shared deals (same root seed; se clustered by deal)"
    )
    ga, gb = _games(runs["same_count"]), _games(runs["default"])
    assert (ga["h1_first_leader"] == gb["h1_first_leader"]).all()  # the same deals
    ya = indicator(ga).to_series().to_numpy() if measure != SJ else indicator(ga).to_numpy()
    yb = indicator(gb).to_series().to_numpy() if measure != SJ else indicator(gb).to_numpy()
    mean, se = _hand_paired(ya, yb)
    assert r["diff"] == pytest.approx(mean, abs=1e-12)
    assert r["diff_hi"] - r["diff"] == pytest.approx(1.959964 * se, rel=1e-5)
    # narrower than the independent-runs interval of the same counts (the deal's luck cancels)
    _, lo, hi, _ = stats.diff_proportions(ya.sum(), ya.size, yb.sum(), yb.size)
    assert r["diff_hi"] - r["diff_lo"] < float(hi[0] - lo[0])
    assert "Newcomb" not in " ".join(str(x["interval"]) for x in rows.values())


def test_different_seeds_stay_newcomb(runs):
    rows = _rows(runs["default"], runs["other_seed"])
    r = rows[SJ]
    assert r["interval"] == "Newcomb (independent runs)"
    ga, gb = _games(runs["other_seed"]), _games(runs["default"])
    d, lo, hi, _ = stats.diff_proportions(
        ga["shuangjia"].sum(), ga.height, gb["shuangjia"].sum(), gb.height
    )
    assert (r["diff"], r["diff_lo"], r["diff_hi"]) == pytest.approx((d[0], lo[0], hi[0]))


def _atlas(seed=1, players=4, **rules):
    base = {"hand_size": 13, "atlas_cards": 6, "skip_cards": 6, "reverse_cards": 6,
            "trade_cards": 6, "self_melds": "any"}  # fmt: skip
    return SimpleNamespace(
        game="atlas", manifest={"seed": seed}, players=players, is_comparison=False,
        rules={**base, **rules},
    )  # fmt: skip


def test_atlas_runs_with_another_deck_do_not_share_deals():
    """AT-D1..D3: the same seed deals other cards from a deck of another size (docs/design.md,
    'Common deals'); a rule of play (self_melds) keeps the cards."""
    assert shares_deals(_atlas(), _atlas(self_melds="after_claim_only"))
    for opt, v in (("hand_size", 16), ("atlas_cards", 0), ("trade_cards", 3)):
        other = _atlas(**{opt: v})
        assert not shares_deals(_atlas(), other)
        assert newcomb_label(other, _atlas()) == (
            f"Newcomb (independent: {opt} changes the cards dealt)"
        )
    assert newcomb_label(_atlas(seed=2), _atlas()) == "Newcomb (independent runs)"
