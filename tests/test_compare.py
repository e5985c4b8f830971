"""Duplicate-deal comparisons: assignments, pairing, paired vs unpaired intervals, ratings,
--until-ci stopping, and study files."""

import json

import polars as pl
import pytest
from cardsim.analysis.compare import pairwise, ratings
from cardsim.analysis.stopping import main_interval, until_ci_rule
from cardsim.sim import runner
from cardsim.sim.compare import DuplicateEngine, build_compare_config, seat_assignments
from cardsim.sim.errors import CardsimError

from cardsim.workflows.study import parse_study
from tests.fake_engine import FakeEngine


def test_yuanzi_assignments_swap_the_teams():
    assert seat_assignments("team_swap", 4, ["a", "b"]) == [
        ("a", "b", "a", "b"),
        ("b", "a", "b", "a"),
    ]
    # three strategies: every ordered pair of teams
    assert len(seat_assignments("team_swap", 4, ["a", "b", "c"])) == 6


def test_atlas_assignments_rotate_every_seat():
    rot = seat_assignments("rotation", 4, ["a", "b"])
    assert rot == [("a", "b", "a", "b"), ("b", "a", "b", "a")]
    rot3 = seat_assignments("rotation", 3, ["x", "y", "z"])
    assert len(rot3) == 3
    for seat in range(3):  # each strategy sits in each seat exactly once
        assert sorted(a[seat] for a in rot3) == ["x", "y", "z"]
    # more strategies than seats: every cyclic window of 2 in both rotations
    rot5 = seat_assignments("rotation", 4, list("abcde"))
    assert len(rot5) == 5 * 4
    for s in "abcde":  # each strategy: every seat equally often, left out of one window
        assert all(sum(a[seat] == s for a in rot5) == 4 for seat in range(4))
        assert sum(s not in a for a in rot5) == 4
    assert seat_assignments("rotation", 2, ["a", "b", "c"]) == [
        ("a", "b"), ("b", "a"), ("b", "c"), ("c", "b"), ("c", "a"), ("a", "c")
    ]  # fmt: skip
    with pytest.raises(CardsimError, match="at least two"):
        seat_assignments("rotation", 2, ["a"])


def compare_run(tmp_path, strategies, games=2000, name="cmp", **kw):
    engine = FakeEngine()
    cfg = build_compare_config(engine, strategies, games=games, seed=11)
    out = tmp_path / name
    res = runner.run(cfg, out, chunk_size=500, progress=False, engine=DuplicateEngine(engine), **kw)
    return cfg, out, res


def seats_of(out):
    return pl.read_parquet(out / "seats" / "*.parquet")


def test_every_deal_is_played_under_every_assignment(tmp_path):
    cfg, out, _ = compare_run(tmp_path, ["greedy", "random"], games=100)
    seats = seats_of(out)
    assert seats.height == 100 * 2 * 4
    per = seats.group_by("game").agg(pl.col("assignment").n_unique().alias("k"))
    assert per["k"].unique().to_list() == [2]
    m = json.loads((out / "manifest.json").read_text())
    assert m["assignments"] == [list(a) for a in cfg.assignments]


def test_self_comparison_shows_no_difference(tmp_path):
    _, out, _ = compare_run(tmp_path, ["greedy", "greedy"], games=500)
    row = pairwise(seats_of(out)).table.row(0, named=True)
    assert {row["a"], row["b"]} == {"greedy", "greedy@2"}
    assert row["lo"] <= 0 <= row["hi"]
    assert row["diff"] == pytest.approx(0.0)


def test_paired_interval_is_narrower_than_unpaired(tmp_path):
    _, out, _ = compare_run(tmp_path, ["greedy", "random"], games=2000)
    row = pairwise(seats_of(out)).table.row(0, named=True)
    paired = row["hi"] - row["lo"]
    unpaired = row["unpaired_hi"] - row["unpaired_lo"]
    assert row["diff"] > 0 and row["lo"] > 0  # greedy's bonus is detected
    assert paired < 0.9 * unpaired  # the deal's luck cancels (here: variance ratio ~1.37)
    assert row["equivalent_unpaired_games"] > row["games"] * 1.2


def test_unpaired_interval_matches_independent_deals(tmp_path):
    """The unpaired interval is what independent deals would give: check by simulation."""
    _, out, _ = compare_run(tmp_path, ["greedy", "random"], games=2000)
    row = pairwise(seats_of(out)).table.row(0, named=True)
    # the same design without pairing: each game on its own deal (seed 12 for the swapped one)
    engine = FakeEngine()
    from cardsim.sim.config import build_config

    parts = []
    for seed, seats in ((11, ("greedy", "random") * 2), (12, ("random", "greedy") * 2)):
        cfg = build_config(engine, games=2000, seed=seed)
        cfg = cfg.__class__(**{**cfg.__dict__, "seats": seats})
        parts.append(engine.play_chunk(cfg, 0, 2000)[1].filter(pl.col("seat") < 2))
    wins = [p.filter(pl.col("strategy") == "greedy")["won"].cast(float) for p in parts]
    diffs = pl.concat([2 * w - 1 for w in wins])  # greedy − random per independent game
    se_indep = diffs.std() / diffs.len() ** 0.5
    se_unpaired = (row["unpaired_hi"] - row["unpaired_lo"]) / (2 * 1.959964)
    assert se_unpaired == pytest.approx(se_indep, rel=0.15)
    assert (row["hi"] - row["lo"]) / (2 * 1.959964) < 0.9 * se_indep


def test_pairwise_on_hand_built_frame():
    # two deals, two assignments each: a wins 3 of 4 seat-games on deal 0, 2 of 4 on deal 1
    seats = pl.DataFrame(
        {
            "game": [0, 0, 0, 0, 1, 1, 1, 1],
            "assignment": [0, 0, 1, 1, 0, 0, 1, 1],
            "strategy": ["a", "b", "a", "b", "a", "b", "a", "b"],
            "won": [True, False, True, False, True, False, False, True],
        }
    )
    t = pairwise(seats).table.row(0, named=True)
    # W_a = (1, .5), W_b = (0, .5): D = (1, 0), mean .5, sd .7071, se .5
    assert t["win_a"] == pytest.approx(0.75) and t["win_b"] == pytest.approx(0.25)
    assert t["diff"] == pytest.approx(0.5)
    # Student t over the 2 deals (1 df: 12.71 × se), clipped to the possible range [−1, 1]
    from scipy.stats import t as student

    assert t["diff"] - t["lo"] == pytest.approx(min(student.ppf(0.975, 1) * 0.5, 1.5), rel=1e-5)
    assert t["hi"] == 1.0


def test_ratings_rank_the_better_strategy_first(tmp_path):
    _, out, _ = compare_run(tmp_path, ["greedy", "random"], games=2000)
    r = ratings(seats_of(out), "yuanzi")
    table = {row["strategy"]: row for row in r.table.iter_rows(named=True)}
    assert table["greedy"]["rating"] == 0.0  # reference strategy (alphabetical first)
    assert table["random"]["hi"] < 0  # clearly worse
    assert r.units == 2000 * 2


def test_until_ci_stops_when_the_interval_is_narrow(tmp_path):
    _, out, res = compare_run(
        tmp_path, ["greedy", "random"], games=20000, stop_rule=until_ci_rule(0.05)
    )
    m = json.loads((out / "manifest.json").read_text())
    assert res.stopped_by.startswith("until_ci")
    assert m["games_done"] < 20000 and m["main_interval"]["half_width"] < 0.05
    assert main_interval(out, m).half_width < 0.05


def test_until_ci_first_player_advantage_on_a_plain_run(tmp_path):
    from cardsim.sim.config import build_config

    cfg = build_config(FakeEngine(), games=50000, seed=2, strategy="random")
    res = runner.run(
        cfg,
        tmp_path / "r",
        chunk_size=1000,
        progress=False,
        engine=FakeEngine(),
        stop_rule=until_ci_rule(0.02),
    )
    m = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert res.stopped_by.startswith("until_ci") and m["games_done"] < 50000
    iv = m["main_interval"]
    assert iv["lo"] < iv["estimate"] < iv["hi"] and iv["hi"] - iv["lo"] < 0.04


@pytest.mark.parametrize(
    "text, message",
    [
        ("[[scenario]]\nname='a'\ngame='chess'\ngames=1\n", "unknown game 'chess'"),
        ("[[scenario]]\nname='a'\ngame='yuanzi'\n", "missing key 'games'"),
        ("[[scenario]]\nname='a'\ngame='yuanzi'\ngames=1\ncolour=1\n", "line 5 (colour)"),
        ("[[scenario]]\nname='a b'\ngame='yuanzi'\ngames=1\n", "letters, digits"),
        ("[[scenario]\n", "not valid TOML"),
        ("[[scenario]]\nname='a'\ngame='yuanzi'\ngames=1\nuntil_ci=3\n", "until_ci"),
        (
            "[[scenario]]\nname='a'\ngame='yuanzi'\ngames=1\n[[comparison]]\nscenarios=['a','z']\n",
            "unknown scenario 'z'",
        ),
        (
            "[[scenario]]\nname='a'\ngame='yuanzi'\ngames=1\n[[comparison]]\nscenarios=['a']\n",
            "at least two",
        ),
        ("[[scenario]]\nname='a'\ngame='yuanzi'\ngames=1\n[oops]\n", "unknown section"),
        ("[[scenario]]\nname='a'\ngame='yuanzi'\ngames=1\nstrategy=5\n", "strategy must be"),
        ("[[scenario]]\nname='a'\ngame='yuanzi'\ngames=true\n", "games must be"),
        ("study='x'\n[[scenario]]\nname='a'\ngame='yuanzi'\ngames=1\n", "must be a table"),
        ("scenario=[1, 2]\n", "one or more"),
        (
            "[[scenario]]\nname='a'\ngame='yuanzi'\ngames=1\n[comparison]\nname='x'\n",
            "double brackets",
        ),
    ],
)
def test_study_file_errors_name_the_place(text, message):
    with pytest.raises(CardsimError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_study(text, "my.toml")


def test_sprt_accepts_h1_for_a_real_difference_and_h0_for_none(tmp_path):
    from cardsim.analysis.stopping import sprt_rule

    # greedy's bonus is worth about +0.2 of win rate in the fake game: H1 (delta 0.05) holds
    _, out, res = compare_run(
        tmp_path,
        ["greedy", "random"],
        games=20000,
        name="h1",
        stop_rule=sprt_rule("greedy", "random", 0.05),
    )
    m = json.loads((out / "manifest.json").read_text())
    assert res.stopped_by.startswith("sprt: accepted H1")
    assert (
        m["games_done"] < 20000
        and m["sequential_test"]["llr"] >= m["sequential_test"]["accept_h1_at"]
    )
    # the other way round, random > greedy by 0.05 is clearly false: H0
    _, out, res = compare_run(
        tmp_path,
        ["greedy", "random"],
        games=20000,
        name="h0",
        stop_rule=sprt_rule("random", "greedy", 0.05),
    )
    assert res.stopped_by.startswith("sprt: accepted H0")


def test_one_deal_gives_no_test_not_a_false_p_value():
    seats = pl.DataFrame(
        {
            "game": [0, 0, 0, 0],
            "assignment": [0, 0, 1, 1],
            "strategy": ["a", "b", "b", "a"],
            "won": [True, False, False, True],
        }
    )
    row = pairwise(seats).table.row(0, named=True)
    assert row["deals"] == 1 and row["p"] != row["p"]  # NaN: nothing to test with one deal
