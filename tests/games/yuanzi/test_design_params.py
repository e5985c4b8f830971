"""原子 design parameters (docs/RULES-yuanzi.md "Design parameters"): YZ-D1 the 双夹 threshold,
YZ-D2 / YZ-D3 the match scores. Each does what the ruling says, on the engine's tables and in
the reference; the kernel agrees with the reference on sampled non-default values; the
defaults are today's rules (the pinned sample, tests/test_pinned_sample.py, checks them too).
"""

import random

import numpy as np
import polars as pl
import pytest
from cardsim.kernels.options import RuleOption, RuleOptionError
from cardsim.kernels.yuanzi import pimc
from cardsim.kernels.yuanzi import state as KS
from cardsim.kernels.yuanzi.options import OPTIONS
from cardsim.sim.game import RunConfig
from cardsim.sim.games.yuanzi import ENGINE
from cardsim.sim.games.yuanzi.reference import rules as ref

from tests.games.yuanzi.test_agreement import STRATEGIES, agree

SEATS = ("greedy", "points", "planner", "random")
GAMES = 300
DESIGN = ("shuangjia_threshold", "match_points_win", "match_points_shuangjia")


def play(seed=5, count=GAMES, **rules):
    cfg = RunConfig("yuanzi", 4, SEATS, dict(rules), seed, count)
    return ENGINE.play_chunk(cfg, 0, count)


def first_half(games: pl.DataFrame) -> pl.DataFrame:
    """Per match: 1-2 finish, the tested team Y of both readings of YZ-25, and Y's score."""
    fin = [pl.col(f"h1_finish_s{s}") for s in range(4)]
    pts = [pl.col(f"h1_team_points_t{t}").cast(pl.Int64) for t in (0, 1)]
    down_team = pl.when((fin[0] == 4) | (fin[2] == 4)).then(0).otherwise(1)  # has a 下游
    up_team = pl.when((fin[0] == 1) | (fin[2] == 1)).then(0).otherwise(1)
    return games.select(
        one_two=pl.sum_horizontal([(f == 4).cast(pl.Int8) for f in fin]) == 2,
        # both_out_team: Y is the team that is not both out, i.e. the 下游's (both 下游 on 1-2)
        y_both=pl.when(down_team == 0).then(pts[0]).otherwise(pts[1]),
        x_both=1 - down_team,
        # upstream_team: Y is the team without the 上游
        y_up=pl.when(up_team == 0).then(pts[1]).otherwise(pts[0]),
        x_up=up_team,
        shuangjia=pl.col("shuangjia"),
        winner=pl.col("winner_team").to_physical().cast(pl.Int64),
    )


# --- the table ----------------------------------------------------------------------------------


def test_design_parameters_are_options_with_ruling_ids_and_steps():
    rows = {o.name: o for o in OPTIONS}
    assert [rows[n].ruling for n in DESIGN] == ["YZ-D1", "YZ-D2", "YZ-D3"]
    assert [rows[n].default for n in DESIGN] == [60, 1, 2]  # the numbers of the text
    # appended after the readings: no earlier rule-array offset moved
    assert OPTIONS.names()[-3:] == DESIGN and KS.R_SHUANGJIA == 7
    t = rows["shuangjia_threshold"]
    assert (t.min, t.max, t.step) == (0, 300, 5) and len(t.values()) == 61
    assert t.check("65") == 65 and t.check(300) == 300 and t.check(0) == 0
    for bad in (62, "62", 305, -5, "60.0", True):
        with pytest.raises(RuleOptionError, match=r"integer 0\.\.300 in steps of 5"):
            t.check(bad)
    with pytest.raises(RuleOptionError, match="match_points_win: invalid value 0"):
        OPTIONS.resolve({"match_points_win": 0})  # the winners always score
    assert ref.RULE_CHOICES["match_points_shuangjia"] == tuple(range(1, 11))


def test_a_malformed_step_is_a_one_line_error():
    with pytest.raises(ValueError, match="step needs an int option with min and max"):
        RuleOption("x", "T-01", "a", "h", ("a", "b"), step=2)
    with pytest.raises(ValueError, match="step needs"):
        RuleOption("x", "T-01", 10, "h", min=0, max=20, step=0)
    with pytest.raises(ValueError, match=r"default 7 is not integer 0\.\.20 in steps of 5"):
        RuleOption("x", "T-01", 7, "h", min=0, max=20, step=5)


# --- YZ-D1: the threshold -----------------------------------------------------------------------


def test_yz_d1_reference_threshold_is_strictly_under():
    # three out, seat 3 the 下游: X = team 0 (seats 0, 2 out), Y = team 1 with 55 points
    h = ref.HalfResult(0, [0, 1, 2], False, [1, 2, 3, 4], [], [], [200, 50, 45, 5], [245, 55])
    assert ref.shuangjia(h) == (True, 0)  # 55 < 60
    assert ref.shuangjia(h, {"shuangjia_threshold": 55}) == (False, 0)  # not under 55
    assert ref.shuangjia(h, {"shuangjia_threshold": 0}) == (False, 0)
    # upstream_team: Y = the team without the 上游 (seat 0): team 1 again
    assert ref.shuangjia(h, {"shuangjia": "upstream_team", "shuangjia_threshold": 60}) == (True, 0)
    # a 1-2 finish is 双夹 whatever the threshold, even with Y keeping points (hand_only)
    one_two = ref.HalfResult(0, [1, 3], True, [4, 1, 4, 2], [], [], [20, 200, 0, 80], [20, 280])
    for t in (0, 5, 300):
        assert ref.shuangjia(one_two, {"shuangjia_threshold": t}) == (True, 1)


@pytest.mark.parametrize("variant", ["both_out_team", "upstream_team"])
def test_yz_d1_threshold_decides_shuangjia_exactly_as_the_ruling_says(variant):
    """On the same deals: the first half never depends on the threshold (no pimc seat); the
    match is 双夹 iff a 1-2 finish or Y scored under the threshold; the 双夹 winner is X."""
    base = None
    rates = {}
    for t in (0, 60, 150, 300):
        games, _ = play(shuangjia=variant, shuangjia_threshold=t)
        h1 = games.select(pl.col("^h1_.*$"))
        if base is None:
            base = h1
        else:
            assert h1.equals(base)  # threshold acts only after the first half
        f = first_half(games)
        y, x = (f["y_both"], f["x_both"]) if variant == "both_out_team" else (f["y_up"], f["x_up"])
        want = f["one_two"] | (y < t)
        assert (f["shuangjia"] == want).all(), t
        sj = f.filter(pl.col("shuangjia"))
        xs = x.filter(f["shuangjia"])
        assert (sj["winner"] == xs).all()
        assert (games["second_half"] == ~games["shuangjia"]).all()
        assert games.filter(~pl.col("second_half"))["h2_tricks"].null_count() == (
            games["shuangjia"].sum()
        )
        rates[t] = float(f["shuangjia"].mean())
        if t == 0:  # only the 1-2 finishes: no score is under 0
            assert (f["shuangjia"] == f["one_two"]).all()
            assert 0 < rates[0] < 1
        if t == 300:  # everything but a three-out half in which Y took all 300 points
            assert (f["shuangjia"] == (f["one_two"] | (y != 300))).all()
    assert rates[0] < rates[60] < rates[150] < rates[300]


# --- YZ-D2 / YZ-D3: the match scores ------------------------------------------------------------


def test_yz_d2_d3_match_scores_set_the_score_columns_only():
    default_games, default_seats = play(seed=8)
    games, seats = play(seed=8, match_points_win=3, match_points_shuangjia=5)
    score = [f"delta_s{s}" for s in range(4)]
    # who wins, 双夹 and every other column are unchanged; only the scores scale
    assert games.drop(score).equals(default_games.drop(score))
    assert seats.drop("delta").equals(default_seats.drop("delta"))
    sj = games["shuangjia"].to_numpy()
    assert 0 < sj.sum() < len(sj)
    for s in range(4):
        d0 = default_games[f"delta_s{s}"].to_numpy().astype(int)
        d = games[f"delta_s{s}"].to_numpy().astype(int)
        assert (np.abs(d0) == np.where(sj, 2, 1)).all()
        assert (d == np.sign(d0) * np.where(sj, 5, 3)).all()
    assert (games.select(pl.sum_horizontal(score) == 0).to_series()).all()
    assert (seats["won"] == (seats["delta"] > 0)).all()
    # a 双夹 worth no more than a win: delta no longer tells them apart, the column does
    games, _ = play(seed=8, count=60, match_points_win=2, match_points_shuangjia=2)
    assert set(games["delta_s0"].abs().to_list()) == {2}


def test_yz_d2_d3_reference_match_scores():
    deal = ref.deal_from_seed(3, 1)
    m = ref.play_match(deal, ref.random_chooser(0))
    w = m.outcome["winner_team"]
    rules = {"match_points_win": 4, "match_points_shuangjia": 7}
    again = ref.play_match(deal, ref.random_chooser(0), rules)
    stake = 7 if m.outcome["shuangjia"] else 4
    assert again.outcome["delta"] == [stake if s % 2 == w else -stake for s in range(4)]
    assert {k: v for k, v in again.outcome.items() if k != "delta"} == {
        k: v for k, v in m.outcome.items() if k != "delta"
    }


def test_pimc_objective_reads_the_design_parameters():
    """pimc plays for the match score in force (kernels/yuanzi/pimc.py ``objective``)."""
    st = np.zeros(KS.N_ST, np.int64)
    st[KS.ST_HALF] = 0
    st[KS.ST_OUT : KS.ST_OUT + 3] = [0, 1, 2]  # three out, seat 3 the 下游: X = team 0
    st[KS.ST_FINISH : KS.ST_FINISH + 4] = [1, 2, 3, 4]
    st[KS.ST_TEAM_PTS : KS.ST_TEAM_PTS + 2] = [245, 55]

    def value(team, **rules):
        return int(pimc.objective(st, team, KS.rules_array(rules)))

    assert value(0) == 2000 + 245 and value(1) == -2000 + 55  # 55 < 60: 双夹, +2 / −2
    assert value(0, match_points_shuangjia=5) == 5000 + 245
    # no 双夹: what the half carries into the match, 190 points up with the 上游 (issue 45 item 7)
    assert value(0, shuangjia_threshold=55) == 1000 * (2 * 190 + 5) // 610
    assert value(1, shuangjia_threshold=55, match_points_win=3) == 3000 * (-2 * 190 - 5) // 610
    st[KS.ST_HALF] = 1
    assert value(0, match_points_win=4) == 4000 + 245


# --- kernel and reference agree on sampled values -----------------------------------------------


def _sampled_variants(n: int, seed: int = 14) -> list[dict]:
    r = random.Random(seed)
    t = OPTIONS["shuangjia_threshold"]
    out = []
    for k in range(n):
        v = {
            "shuangjia_threshold": r.choice([x for x in t.values() if x != t.default]),
            "match_points_win": r.randint(1, 10),
            "match_points_shuangjia": r.randint(1, 10),
        }
        if k % 2:
            v["shuangjia"] = "upstream_team"
        out.append(v)
    return out


@pytest.mark.parametrize("variant", _sampled_variants(4))
def test_kernel_agrees_with_reference_on_sampled_design_values(variant):
    total, changed = 0, 0  # the scores enter every delta the agreement compares
    for k in range(2):
        seats = tuple(STRATEGIES[(k + s) % 5] for s in range(4))
        cfg = RunConfig("yuanzi", 4, seats, variant, 950, 10**6)
        total += agree(cfg, 30 * k, 30)
        default = RunConfig("yuanzi", 4, seats, {"shuangjia": variant.get("shuangjia",
                            "both_out_team")}, 950, 10**6)  # fmt: skip
        a, _ = ENGINE.play_chunk(cfg, 30 * k, 30)
        b, _ = ENGINE.play_chunk(default, 30 * k, 30)
        changed += int((a["shuangjia"] != b["shuangjia"]).sum())
    assert total > 60 * 50
    assert changed > 0  # the sampled threshold changes outcomes: the agreement checks it


def test_report_of_a_run_without_second_halves(tmp_path):
    """shuangjia_threshold=300 ends (nearly) every match in 双夹: the report says so instead of
    checking the 刀 of a half that was never dealt, and its 双夹 share and score come from the
    shuangjia column and the run's rules (not from |delta| == 2)."""
    from cardsim.analysis.report import build_report
    from cardsim.sim import runner
    from cardsim.sim.config import build_config

    cfg = build_config(ENGINE, games=120, seed=3, rules={"shuangjia_threshold": "300",
                       "match_points_shuangjia": "3"})  # fmt: skip
    runner.run(cfg, tmp_path / "r", chunk_size=120, threads=1, progress=False)
    text = [f.clear for s in build_report([tmp_path / "r"]).sections for f in s.findings]
    assert any("Half 2: no match reached it" in t for t in text)
    assert any("100.0 % of matches end in 双夹 (±3)" in t for t in text)
