"""Every analysis on small hand-built frames with known answers."""

from fractions import Fraction

import numpy as np
import polars as pl
import pytest
from cardsim.analysis import length, seats, stats, strategy
from cardsim.analysis.exprs import rate_table
from cardsim.analysis.facts import facts
from cardsim.analysis.games.atlas import cards as atlas_cards
from cardsim.analysis.games.atlas import end as atlas_end
from cardsim.analysis.games.yuanzi import dao, finish
from polars.testing import assert_frame_equal

from tests.analysis.rates import win_rates

TEAM = pl.Enum(["南北", "东西"])
RANK = pl.Enum(["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"])


def wilson_cols(k, n, name="rate"):
    lo, hi = stats.wilson(k, n)
    return {
        name: [a / b for a, b in zip(k, n, strict=True)],
        f"{name}_lo": list(lo),
        f"{name}_hi": list(hi),
    }


# --- common ----------------------------------------------------------------------------------


def test_rate_table_counts_and_intervals():
    lf = pl.LazyFrame({"g": [1, 1, 2, 2, 2], "w": [True, False, True, True, False]})
    got = rate_table(lf, ["g"], pl.col("w")).collect()
    want = pl.DataFrame({"g": [1, 2], "k": [1, 2], "n": [2, 3], **wilson_cols([1, 2], [2, 3])})
    assert_frame_equal(got, want)


def test_side_outcomes_positions_and_decided_rates():
    """ATLAS facts: sides are seats, winner null means no winner."""
    games = pl.LazyFrame(
        {"game": [0, 1, 2], "round": [0, 0, 0], "first_player": [0, 1, 2], "winner": [0, 2, None]}
    )
    f = facts("atlas")
    out = seats.side_outcomes(games, 3, f).collect().sort("game", "side")
    assert out["position"].to_list() == [0, 1, 2, 2, 0, 1, 1, 2, 0]
    assert out["won"].to_list() == [True, False, False, False, False, True, False, False, False]
    got = win_rates(seats.side_outcomes(games, 3, f), "position").collect()
    # round 0: first player (pos 0) won; round 1: seat 2 = position 1 won; round 2 undecided
    assert got["position"].to_list() == [0, 1, 2]
    assert got["wins"].to_list() == [1, 1, 0] and got["n"].to_list() == [2, 2, 2]
    lo, hi = stats.wilson([1, 1, 0], [2, 2, 2])
    assert got["rate_lo"].to_list() == pytest.approx(list(lo))
    assert got["deff"].to_list() == pytest.approx([1.0, 1.0, 1.0])


def test_side_outcomes_teams_and_first_leader_team():
    """原子 facts: sides are teams; position 0 = the first leader's team."""
    games = pl.LazyFrame(
        {"game": [0, 1], "h1_first_leader": [1, 2], "winner_team": ["东西", "东西"]},
        schema_overrides={"winner_team": TEAM},
    )
    out = seats.side_outcomes(games, 2, facts("yuanzi")).collect().sort("game", "side")
    assert out["position"].to_list() == [1, 0, 0, 1]
    fl = win_rates(seats.side_outcomes(games, 2, facts("yuanzi")), "position").collect()
    # game 0: leader seat 1 (team 1) won; game 1: leader seat 2 (team 0) lost
    assert fl.filter(pl.col("position") == 0)["wins"].item() == 1


def test_length_summary_quantiles():
    games = pl.LazyFrame({"turns": [10, 20, 30, 40], "reshuffles": [0, 0, 1, 1]})
    got = length.summary(atlas_end.length_values(games)).collect()
    row = got.filter(pl.col("measure") == "turns per round").row(0, named=True)
    assert row["n"] == 4 and row["mean"] == 25 and row["min"] == 10 and row["max"] == 40
    hist = length.histogram(atlas_end.length_values(games)).collect()
    assert hist.filter(pl.col("measure") == "reshuffles per round")["count"].to_list() == [2, 2]


def test_strategy_side_units():
    assert strategy.side_units(["a", "b", "a", "b"], {0: 0, 1: 1, 2: 2, 3: 3}) == {
        0: "a",
        1: "b",
        2: "a",
        3: "b",
    }
    teams = strategy.side_units(["greedy", "random", "greedy", "random"], {0: 0, 1: 1, 2: 0, 3: 1})
    assert teams == {0: "greedy + greedy", 1: "random + random"}


def test_strategy_counts_by_first_and_winner():
    games = pl.LazyFrame({"first_player": [0, 0, 1, 1, 0], "winner": [0, 2, 1, None, 0]})
    got = strategy.first_winner_counts(games, facts("atlas")).collect()
    assert got.rows() == [(0, 0, 2), (0, 2, 1), (1, 1, 1)]


# --- 原子 刀 -----------------------------------------------------------------------------------


def test_exact_dao_probabilities_default():
    h0, h1 = dao.exact(0)["dao"], dao.exact(1)["dao"]
    assert h0[3] == Fraction(18, 162) and h0[7] == Fraction(12, 162)
    assert h1[3] == Fraction(12 + 6 + 36, 162)
    assert h1[5] == h1[10] == h1[13] == 0 and h1[1] == Fraction(12, 162)
    assert sum(h0.values()) == sum(h1.values()) == 1
    assert dao.exact(0)["fallback"] == {0: Fraction(156, 162), 1: Fraction(6, 162), 2: 0}
    assert dao.exact(1)["fallback"][2] == Fraction(36, 162)


def test_exact_dao_probabilities_redraw():
    h0, h1 = dao.exact(0, "redraw")["dao"], dao.exact(1, "redraw")["dao"]
    assert all(p == Fraction(1, 13) for p in h0.values())
    assert h1[3] == Fraction(48, 156)
    assert dao.exact(0, "redraw")["fallback"][1] == 0


def test_exact_first_receiver_and_leader():
    fr = dao.exact(0)["first_receiver"]
    # value mod 4: 0 <- 4 8 Q; 1 <- A 5 9 K; 2 <- 2 6 10; 3 <- 3 7 J + 6 jokers
    assert fr == {
        0: Fraction(36, 162),
        1: Fraction(48, 162),
        2: Fraction(36, 162),
        3: Fraction(42, 162),
    }
    fl = dao.exact(0)["first_leader"]
    off = [Fraction(41, 162), Fraction(41, 162), Fraction(40, 162), Fraction(40, 162)]
    assert fl[0] == sum(fr[r] * off[(0 - r) % 4] for r in range(4))
    assert sum(fl.values()) == 1


def test_dao_frequency_keeps_zero_rows_and_checks_intervals():
    games = pl.LazyFrame(
        {"h1_dao": ["3", "3", "7", "A"], "h2_dao": ["3", None, "3", "A"]},
        schema_overrides={"h1_dao": RANK, "h2_dao": RANK},
    )
    expected = dao.exact_frame("dao", "three")
    got = dao.frequency(games, "dao", "dao", expected).collect()
    assert got.height == 26  # 13 ranks x 2 halves, unseen ranks included
    h1 = got.filter(pl.col("half") == 1)
    assert h1.filter(pl.col("dao") == 3)["k"].item() == 2 and h1["n"].unique().item() == 4
    h2 = got.filter(pl.col("half") == 2)
    assert h2["n"].unique().item() == 3  # the unplayed second half is left out
    # a point rank can never be 刀 in half 2: expected 0, observed 0 -> inside
    assert h2.filter(pl.col("dao") == 5)["within_ci"].item() is True


def test_dealt_win_team0_perspective():
    st = pl.LazyFrame(
        {
            "game": [0] * 4 + [1] * 4,
            "team": ["南北", "东西", "南北", "东西"] * 2,
            "h1_dao_cards": [2, 3, 1, 6, 4, 4, 2, 2],
            "won": [True, False, True, False, False, True, False, True],
        },
        schema_overrides={"team": TEAM},
    )
    got = dao.dealt_win(st, "h1_dao_cards").collect()
    want = pl.DataFrame(
        {"dealt": [3, 6], "wins": [1, 0], "n": [1, 1], **wilson_cols([1, 0], [1, 1])}
    )
    assert_frame_equal(got.select(want.columns), want)
    tr = dao.trend(dao.dealt_trend(st, "h1_dao_cards").collect())
    assert tr.n == 2 and np.isnan(tr.slope)  # two matches: too few for a test


def test_hand41_upstream():
    st = pl.LazyFrame(
        {
            "game": [0, 0, 0, 0],
            "h1_finish": [1, 2, 3, 4],
            "h1_long_hand": [True, True, False, False],
            "h2_finish": [None, None, None, None],
            "h2_long_hand": [None] * 4,
        }
    )
    got = dao.hand41_upstream(st).collect()
    assert got["half"].to_list() == [1] and got["k"].to_list() == [1] and got["n"].to_list() == [1]


# --- 原子 finish -------------------------------------------------------------------------------


def _finish_games():
    return pl.LazyFrame(
        {
            # game 0: seats 0 & 2 out 1-2 (双夹 won by team 0); game 1: 1-3, second half 1-4
            "h1_finish_s0": [1, 2],
            "h1_finish_s1": [4, 1],
            "h1_finish_s2": [2, 4],
            "h1_finish_s3": [4, 3],
            "h2_finish_s0": [None, 1],
            "h2_finish_s1": [None, 2],
            "h2_finish_s2": [None, 4],
            "h2_finish_s3": [None, 3],
            "h1_tricks": [10, 12],
            "h2_tricks": [None, 11],
            "shuangjia": [True, False],
            "second_half": [False, True],
            "winner_team": ["南北", "东西"],
        },
        schema_overrides={"winner_team": TEAM},
    )


def test_finish_patterns():
    got = finish.patterns(_finish_games()).collect()
    want = pl.DataFrame(
        {
            "half": [1, 1, 1, 2, 2, 2],
            "pattern": ["1-2", "1-3", "1-4"] * 2,
            "k": [1, 1, 0, 0, 0, 1],
            "n": [2, 2, 2, 1, 1, 1],
            **wilson_cols([1, 1, 0, 0, 0, 1], [2, 2, 2, 1, 1, 1]),
        }
    )
    assert_frame_equal(got, want)


def test_shuangjia_rates():
    got = finish.match_rates(_finish_games()).collect()
    assert got["k"].to_list() == [1, 1, 0, 1] and got["n"].to_list() == [2] * 4
    up = finish.upstream_team_wins(_finish_games()).collect()
    assert up["wins"].item() == 2  # the 上游's team won both


# --- ATLAS -----------------------------------------------------------------------------------


def test_atlas_ends_zero_filled():
    games = pl.LazyFrame({"end": ["claim", "claim", "no_winner", "self_meld"]})
    got = atlas_end.ends(games).collect()
    assert got["end"].to_list() == list(atlas_end.END_NAMES)
    assert got["k"].to_list() == [2, 1, 0, 0, 0, 1, 0, 0] and set(got["n"]) == {4}


def test_atlas_melds_and_dealt():
    games = pl.LazyFrame({"triples": [2, 0], "quads": [1, 1], "fives": [0, 0]})
    m = atlas_cards.melds(games).collect()
    assert m["total"].to_list() == [2, 2, 0] and m["share"].to_list() == [0.5, 0.5, 0.0]
    st = pl.LazyFrame(
        {"game": [0, 0, 1, 1], "atlas_dealt": [0, 1, 1, 2], "won": [False, True, False, True]}
    )
    d = atlas_cards.dealt_win(st, pl.col("atlas_dealt")).collect()
    assert d["wins"].to_list() == [0, 1, 1] and d["n"].to_list() == [1, 2, 1]
