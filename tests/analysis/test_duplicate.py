"""Comparison runs in the report: the duplicate-deal section on hand-built frames, the ordinary
analyses counting every played game once, and real ``cardsim compare`` runs of both games."""

import json
from types import SimpleNamespace

import numpy as np
import polars as pl
import pytest
from cardsim.analysis import compare, duplicate, seats, stats, strategy
from cardsim.analysis.exprs import deal_cluster
from cardsim.analysis.facts import facts
from cardsim.analysis.model import RunData
from cardsim.analysis.report import write_report

from tests.analysis.conftest import copy_run
from tests.analysis.rates import win_rates


def _table(doc, section, table):
    return pl.DataFrame(doc["sections"][section]["tables"][table]["rows"])


# --- hand-built frames -----------------------------------------------------------------------


def yz_seats(wins_a: list[bool]) -> pl.DataFrame:
    """原子 comparison seats table: deal d under assignments 0 (a = team 0) and 1 (a = team 1);
    ``wins_a[2 * d + k]`` says whether a won deal d under assignment k."""
    rows = []
    for i, won_a in enumerate(wins_a):
        d, k = divmod(i, 2)
        for seat in range(4):
            team = seat % 2
            label = ("a", "b")[team] if k == 0 else ("b", "a")[team]
            rows.append(
                {
                    "game": d,
                    "assignment": k,
                    "seat": seat,
                    "team": team,
                    "strategy": label,
                    "won": (label == "a") == won_a,
                }
            )
    return pl.DataFrame(rows)


def fake_item(seats_df: pl.DataFrame, game: str = "yuanzi", label: str = "cmp") -> RunData:
    assignments = (
        [["a", "b", "a", "b"], ["b", "a", "b", "a"]]
        if game == "yuanzi"
        else [sorted(seats_df["strategy"].unique().to_list())]
    )
    run = SimpleNamespace(
        game=game,
        is_comparison=True,
        assignments=assignments,
        compared=sorted(seats_df["strategy"].unique().to_list()),
        players=4,
    )
    return RunData(label, run, {"duplicate.seats": seats_df})


def test_pairwise_table_renames_and_keeps_every_number():
    df = yz_seats([True, True, True, False, False, False, True, True])
    t = duplicate.pairwise_table(df).row(0, named=True)
    raw = compare.pairwise(df).table.row(0, named=True)
    # deals 0..3: D = 1, 0, -1, 1 -> mean .25
    assert t["diff"] == pytest.approx(0.25) and t["win_a"] == pytest.approx(5 / 8)
    assert (t["diff_lo"], t["diff_hi"]) == (raw["lo"], raw["hi"])
    assert (t["bonferroni_lo"], t["bonferroni_hi"]) == (raw["lo_adj"], raw["hi_adj"])
    assert (t["unpaired_lo"], t["unpaired_hi"]) == (raw["unpaired_lo"], raw["unpaired_hi"])
    # p_holm is not kept: the report's verdicts (Holm over its questions) fill it
    assert "p_holm" not in t and t["p"] == raw["p"] and t["se"] == raw["se"]
    assert t["equivalent_unpaired_games"] == pytest.approx(raw["equivalent_unpaired_games"])


def test_matrix_is_antisymmetric_with_swapped_intervals():
    pw = pl.DataFrame(
        {
            "a": ["x", "x", "y"],
            "b": ["y", "z", "z"],
            "diff": [0.1, 0.2, 0.05],
            "diff_lo": [0.05, 0.1, -0.01],
            "diff_hi": [0.15, 0.3, 0.11],
        }
    )
    d, lo, hi = duplicate.matrix(pw, ["x", "y", "z"])
    assert d[0, 1] == 0.1 and d[1, 0] == -0.1
    assert (lo[1, 0], hi[1, 0]) == (-0.15, -0.05)
    assert d[2, 1] == -0.05 and np.isnan(d[1, 1])
    np.testing.assert_allclose(d, -d.T)


def test_findings_in_plain_words():
    row = {
        "a": "random",
        "b": "greedy",
        "win_a": 0.4385,
        "win_b": 0.5615,
        "diff": -0.123,
        "diff_lo": -0.131,
        "diff_hi": -0.115,
        "deals": 20000,
        "p": 1e-30,
    }
    f = duplicate.pair_finding(row)
    assert f.clear.startswith("greedy beats random by 12.3 ± 0.8 points of win rate")
    f.verdict = stats.NOT_ENOUGH
    assert f.text.startswith("random vs greedy: 43.9 % vs 56.1 % (difference -12.3 ± 0.8")


def test_section_on_a_hand_built_comparison():
    rng = np.random.default_rng(5)
    df = yz_seats(list(rng.random(400) < 0.7))  # a wins 70 % of games
    sec = duplicate.section([fake_item(df)])
    keys = [t.key for t in sec.tables]
    assert keys == ["assignments", "pairwise", "ratings", "position"]
    pw = sec.tables[1].df.row(0, named=True)
    assert pw["a"] == "a" and pw["diff"] > 0.3 and pw["diff_lo"] > 0
    assert [f.key for f in sec.figures] == ["matrix", "ratings"]
    assert all(f.png[:8] == b"\x89PNG\r\n\x1a\n" for f in sec.figures)
    assert sec.findings[0].clear.startswith("a beats b by ")
    ratings = sec.tables[2].df
    assert {"rating", "rating_lo", "rating_hi", "se"} <= set(ratings.columns)
    b = ratings.filter(pl.col("strategy") == "b").row(0, named=True)
    assert b["rating_hi"] < 0  # clearly worse
    # every played game of a strategy: a's rate from the frame directly
    assert pw["win_a"] == pytest.approx(df.filter(pl.col("strategy") == "a")["won"].mean())


def test_team_outcomes_count_every_played_game_of_a_comparison():
    df = yz_seats([True, False, True, True])  # 2 deals x 2 assignments
    games = df.filter(pl.col("seat") == 0).select(
        "game",
        "assignment",
        pl.lit(0, pl.Int8).alias("h1_first_leader"),
        pl.when(pl.col("won")).then(0).otherwise(1).alias("winner_team"),
    )
    out = seats.side_outcomes(games.lazy(), 2, facts("yuanzi"))
    team = win_rates(out, "side", deal_cluster(games.lazy())).collect()
    assert team["n"].to_list() == [4, 4]  # 4 played games, not 2 deals
    assert team["clusters"].to_list() == [2, 2]  # … in 2 deals: the variance is clustered
    # team 0 plays a under assignment 0: a won games 0 and 2 -> team 0 wins 2; team 0 plays b
    # under assignment 1: b won game 1 -> team 0 wins 1 more
    assert team["wins"].to_list() == [3, 1]


def test_strategy_rates_use_the_labels_of_a_comparison():
    df = yz_seats([True, False, True, True])
    got = strategy.label_rates(df.lazy(), facts("yuanzi")).collect()
    assert got["strategy"].to_list() == ["a", "b"]
    assert got["wins"].to_list() == [3, 1] and got["n"].to_list() == [4, 4]
    assert got["expected"].to_list() == [0.5, 0.5]
    # ATLAS: 3 seats (x, y, y), rounds of two games; one round undecided
    at = pl.DataFrame(
        {
            "game": [0] * 6 + [1] * 3,
            "assignment": [0] * 9,
            "round": [0, 0, 0, 1, 1, 1, 0, 0, 0],
            "seat": [0, 1, 2] * 3,
            "strategy": ["x", "y", "y@2"] * 3,
            "won": [True, False, False, False, False, False, False, False, True],
        }
    )
    got = strategy.label_rates(at.lazy(), facts("atlas")).collect()
    assert got["n"].to_list() == [2, 2, 2]  # two decided rounds
    assert got["wins"].to_list() == [1, 0, 1]
    assert got["expected"].to_list() == pytest.approx([1 / 3] * 3)


# --- real comparison runs ----------------------------------------------------------------------


def test_yuanzi_comparison_report_equals_direct_polars(tmp_path, yz_cmp_run):
    res = write_report([yz_cmp_run], tmp_path / "r.html", json_out=tmp_path / "r.json")
    doc = json.loads(res.json_out.read_text())
    assert list(doc["sections"])[:3] == ["config", "duplicate", "seats"]
    s = pl.read_parquet(yz_cmp_run / "seats" / "*.parquet")
    g = pl.read_parquet(yz_cmp_run / "games" / "*.parquet")
    pw = _table(doc, "duplicate", "pairwise").row(0, named=True)
    assert (pw["a"], pw["b"], pw["deals"], pw["games"]) == ("greedy", "random", 300, 600)
    # win rate = share of a strategy's seats that won, over every played game
    for who, col in (("greedy", "win_a"), ("random", "win_b")):
        assert pw[col] == pytest.approx(s.filter(pl.col("strategy") == who)["won"].mean())
    per_deal = (
        s.group_by("game", "strategy")
        .agg(pl.col("won").mean())
        .pivot(on="strategy", index="game", values="won")
        .select(d=pl.col("greedy") - pl.col("random"))["d"]
    )
    assert pw["diff"] == pytest.approx(per_deal.mean())
    from scipy.stats import t as student

    t975 = student.ppf(0.975, per_deal.len() - 1)  # Student t over deals (docs/report.md)
    half = t975 * (per_deal.std() / per_deal.len() ** 0.5 if per_deal.std() else 0.0)
    assert pw["diff_hi"] - pw["diff"] == pytest.approx(half, abs=1e-9)
    # the ordinary analyses count every played game once (two per deal)
    team = _table(doc, "seats", "team")
    assert team["n"].to_list() == [600, 600]
    assert team["wins"].to_list() == [
        int((g["winner_team"] == "南北").sum()),
        int((g["winner_team"] == "东西").sum()),
    ]
    rates = _table(doc, "strategy", "labels")
    assert rates["strategy"].to_list() == ["greedy", "random"] and rates["n"].to_list() == [600] * 2
    assert any("pooled over the 2 seat assignments" in n for n in doc["sections"]["seats"]["notes"])
    runs = _table(doc, "config", "runs")
    assert "comparison of greedy, random" in runs["strategies"][0]
    texts = [f["text"] for f in doc["findings"] if f["section"] == "duplicate"]
    # (a pair where one side won every game is said so: issue 19 #17)
    assert any(" beats " in t or " won every game against " in t for t in texts)
    page = (tmp_path / "r.html").read_text()
    assert "Strategy comparison on duplicate deals" in page and "row − column" in page


def test_atlas_comparison_of_three_labels(tmp_path, at_cmp_run):
    res = write_report([at_cmp_run], tmp_path / "r.md", fmt="md", json_out=tmp_path / "r.json")
    doc = json.loads(res.json_out.read_text())
    pw = _table(doc, "duplicate", "pairwise")
    assert pw.select("a", "b").rows() == [
        ("careful", "greedy"),
        ("careful", "greedy@2"),
        ("greedy", "greedy@2"),
    ]
    assert (pw["deals"] == 300).all() and (pw["games"] == 900).all()
    assert (pw["bonferroni_hi"] - pw["bonferroni_lo"] > pw["diff_hi"] - pw["diff_lo"]).all()
    s = pl.read_parquet(at_cmp_run / "seats" / "*.parquet")
    want = compare.pairwise(s).table
    assert pw["diff"].to_list() == pytest.approx(want["diff"].to_list())
    ratings = _table(doc, "duplicate", "ratings")
    assert sorted(ratings["strategy"]) == ["careful", "greedy", "greedy@2"]
    pos = _table(doc, "duplicate", "position")
    assert pos["position"].to_list() == ["0", "1", "2"]
    # seat table: every played round (3 rotations of every deal)
    games = pl.read_parquet(at_cmp_run / "games" / "*.parquet")
    seat = _table(doc, "seats", "seat")
    assert seat["n"].to_list() == [int(games["winner"].is_not_null().sum())] * 3
    text = (tmp_path / "r.md").read_text()
    assert "## Strategy comparison on duplicate deals" in text
    assert "r_files/duplicate-matrix.png" in text and "r_files/duplicate-ratings.png" in text


def test_stopped_early_by_until_ci_is_stated(tmp_path, yz_cmp_run):
    run = copy_run(yz_cmp_run, tmp_path / "run")
    mpath = run / "manifest.json"
    m = json.loads(mpath.read_text())
    m["chunks"][1]["status"] = "pending"
    m["stopped_by"] = "until_ci: ±0.0400 < ±0.05"
    m["main_interval"] = {
        "label": "win rate greedy − random (paired)",
        "estimate": 0.4,
        "lo": 0.36,
        "hi": 0.44,
        "n": 150,
        "half_width": 0.04,
        "target_half_width": 0.05,
    }
    mpath.write_text(json.dumps(m))
    res = write_report([run], tmp_path / "r.html", json_out=tmp_path / "r.json")
    doc = json.loads(res.json_out.read_text())
    runs = _table(doc, "config", "runs").row(0, named=True)
    assert runs["status"] == "stopped early"
    assert runs["stopped"].startswith("by --until-ci ±0.05 after 150 deals")
    facts = [f["text"] for f in doc["findings"] if f["section"] == "config"]
    assert facts and "stopped early" in facts[0] and "40.0 % ± 4.0 %" in facts[0]
    assert "150 of 300 planned deals" in facts[0]  # issue 45 item 10: deals, not games
    assert "stopped early" in (tmp_path / "r.html").read_text()
