"""Issue 10: statistics that do not mislead. Each test is one point of the issue."""

import numpy as np
import polars as pl
import pytest
from cardsim.analysis import stats, strategy, verdicts
from cardsim.analysis.facts import facts
from cardsim.analysis.model import CHECK, QUESTION
from cardsim.analysis.report import build_report


def _section(report, key):
    return next(s for s in report.sections if s.key == key)


def _table(report, section, key):
    return next(t for t in _section(report, section).tables if t.key == key).df


# --- 1. deal-level measures count each deal once --------------------------------------------


def test_comparison_run_dao_check_has_the_plain_runs_chi2(yz_cmp_run, yz_plain_seed3):
    """The 刀 rank depends only on the deal: a comparison run (2 seat assignments per deal)
    must give the χ² of the plain run of the same deals, not twice it."""
    cmp_rep, plain_rep = build_report([yz_cmp_run]), build_report([yz_plain_seed3])
    for name in ("dao", "fallback", "first_receiver", "first_leader"):
        a = _table(cmp_rep, "yuanzi_dao", name).filter(pl.col("half") == 1)
        b = _table(plain_rep, "yuanzi_dao", name).filter(pl.col("half") == 1)
        assert a["n"].unique().to_list() == [300]  # deals, not deals × assignments
        assert a["k"].to_list() == b["k"].to_list()
    chi_c = stats.chi2_gof(*_half1(cmp_rep))
    chi_p = stats.chi2_gof(*_half1(plain_rep))
    assert chi_c.statistic == pytest.approx(chi_p.statistic) and chi_c.n == 300
    checks = [f for _, f in cmp_rep.findings if f.kind == CHECK]
    plain_checks = [f for _, f in plain_rep.findings if f.kind == CHECK]
    assert (
        checks[0].text.split("(")[1].split(",")[0]
        == plain_checks[0].text.split("(")[1].split(",")[0]
    )  # "χ² = …" of half 1 is the same sentence


def _half1(report):
    d = _table(report, "yuanzi_dao", "dao").filter(pl.col("half") == 1)
    return d["k"].to_numpy(), d["expected"].to_numpy()


def test_comparison_run_trend_tests_are_clustered_by_deal(yz_cmp_run):
    rep = build_report([yz_cmp_run])
    trend = [f for k, f in rep.findings if k == "yuanzi_dao" and f.unit == "deal" and f.se]
    assert trend and all(f.n == 300 for f in trend)  # independent units: deals


# --- 2. strategy effect against the seat-adjusted expectation --------------------------------


def _simulate(seat: int, theta: float, games: int = 4000, rounds: int = 4, seed: int = 0):
    """ATLAS-like rounds: the winner starts the next round; P(win) ∝ exp(θ·careful + γ_pos)."""
    rng = np.random.default_rng(seed)
    gamma = np.array([0.25, 0.0, -0.05, -0.1])
    rows = []
    for _ in range(games):
        first = 0
        for _ in range(rounds):
            u = np.array([gamma[(j - first) % 4] + (theta if j == seat else 0) for j in range(4)])
            p = np.exp(u) / np.exp(u).sum()
            w = int(rng.choice(4, p=p))
            rows.append((first, w))
            first = w
    df = pl.DataFrame(rows, schema=["first", "winner"], orient="row")
    return df.group_by("first", "winner").agg(c=pl.len()).sort("first", "winner")


def test_seat_adjusted_effect_agrees_across_seats_where_the_naive_share_does_not():
    units0 = {0: "careful", 1: "greedy", 2: "greedy", 3: "greedy"}
    units2 = {0: "greedy", 1: "greedy", 2: "careful", 3: "greedy"}
    a = strategy.seat_adjusted(_simulate(0, 0.0, seed=1), units0)
    b = strategy.seat_adjusted(_simulate(2, 0.0, seed=2), units2)
    ra = a.table.filter(pl.col("strategy") == "careful").row(0, named=True)
    rb = b.table.filter(pl.col("strategy") == "careful").row(0, named=True)
    # naive: share of wins − seats/n differs between the seats (seat 0 starts round 0) …
    naive = (ra["wins"] / ra["n"] - 0.25) - (rb["wins"] / rb["n"] - 0.25)
    assert abs(naive) > 0.02
    # … the seat-adjusted effects agree (both near the true 0) and the expectations differ
    assert abs(ra["effect"] - rb["effect"]) < 1.96 * np.hypot(ra["se"], rb["se"])
    assert ra["expected"] > rb["expected"]
    assert abs(ra["effect"]) < 2.5 * ra["se"] and abs(rb["effect"]) < 2.5 * rb["se"]
    # a real effect is found at either seat
    c = strategy.seat_adjusted(_simulate(2, 0.4, seed=3), units2)
    rc = c.table.filter(pl.col("strategy") == "careful").row(0, named=True)
    assert rc["logit"] == pytest.approx(0.4, abs=4 * 0.04) or rc["p"] < 1e-6


def test_strategy_and_seat_not_separable_when_every_round_starts_at_seat_0():
    adj = strategy.seat_adjusted(
        _simulate(0, 0.3, rounds=1), {0: "careful", 1: "greedy", 2: "greedy", 3: "greedy"}
    )
    assert not adj.identified and "cannot be told apart" in adj.note
    assert adj.table["expected"].is_nan().all()


def test_seat0_and_seat2_careful_atlas_runs_agree_on_careful(at_careful0, at_careful2):
    rows = []
    for run in (at_careful0, at_careful2):
        rep = build_report([run])
        t = _table(rep, "strategy", "rates").filter(pl.col("strategy") == "careful")
        f = next(f for k, f in rep.findings if k == "strategy" and f.clear.startswith("careful"))
        rows.append((t.row(0, named=True), f))
    (a, fa), (b, fb) = rows
    se = np.hypot(fa.se, fb.se)
    assert abs(a["effect"] - b["effect"]) < 1.96 * se
    assert fa.verdict == fb.verdict  # the same answer for the same strategy
    assert a["expected"] != b["expected"]  # the seats differ, the expectation says so
    assert "seat-adjusted expectation" in fa.text and "seats/n" not in fa.text


# --- 3. runs with different player counts compare excesses ------------------------------------


def test_four_vs_six_players_compare_excess_over_fair_share(at_run, at6_run):
    rep = build_report([at_run, at6_run])
    diffs = _table(rep, "comparison", "diffs")
    row = diffs.filter(pl.col("measure").str.contains("excess")).row(0, named=True)
    pos4 = _table(build_report([at_run]), "seats", "first_player").row(0, named=True)
    pos6 = _table(build_report([at6_run]), "seats", "first_player").row(0, named=True)
    assert pos4["fair_share"] == 0.25 and pos6["fair_share"] == pytest.approx(1 / 6)
    assert row["value"] == pytest.approx(pos6["rate"] - 1 / 6)
    assert row["baseline"] == pytest.approx(pos4["rate"] - 1 / 4)
    assert row["diff"] == pytest.approx(row["value"] - row["baseline"])
    raw = pos6["rate"] - pos4["rate"]
    assert abs(row["diff"] - raw) == pytest.approx(1 / 4 - 1 / 6)


def test_player_count_plot_marks_only_simulated_counts():
    from cardsim.analysis import plots

    df = pl.DataFrame(
        {"players": [4, 6], "rate": [0.27, 0.18], "rate_lo": [0.25, 0.16], "rate_hi": [0.29, 0.2]}
    )
    fig = plots.player_counts_fig(df)
    ax = fig.axes[0]
    points = sorted(float(x) for x in ax.collections[-1].get_offsets()[:, 0])
    assert points == [4.0, 6.0]  # no point (and no line) at the unsimulated 5
    assert [float(t) for t in ax.get_xticks()] == [4.0, 6.0]  # integer ticks, simulated counts
    fair = next(line for line in ax.lines if line.get_label() == "fair share 1/n")
    x, y = fair.get_xdata(), fair.get_ydata()
    assert np.allclose(y, 100 / x)
    assert not any(
        line.get_label() == "simulated" and line.get_linestyle() not in ("None", "")
        for line in ax.lines
    )
    assert ax.get_legend().get_bbox_to_anchor().x0 > ax.bbox.x1 - 1  # legend outside the data


# --- 4. three verdicts; checks outside the family; findings agree with their tables ------------


def _q(est, se, n, p):
    from cardsim.analysis.model import Finding

    return ("x", Finding("c", "u", p, estimate=est, se=se, n=n, measure="win rate", unit="deal"))


def test_three_verdicts():
    clear = _q(0.05, 0.01, 10000, 1e-7)
    equiv = _q(0.001, 0.002, 100000, 0.6)
    small = _q(0.002, 0.02, 300, 0.9)
    verdicts.judge([clear, equiv, small])
    assert clear[1].verdict == stats.CLEAR
    assert equiv[1].verdict == stats.EQUIVALENT and "Equivalent within ±1 point" in equiv[1].text
    assert small[1].verdict == stats.NOT_ENOUGH
    # games needed for ±1 point at 80 % power: n (z_.95 + z_.90)² se² / m²
    z = 1.6448536 + 1.2815516
    assert small[1].needed == pytest.approx(np.ceil(300 * (z * 0.02 / 0.01) ** 2), rel=1e-4)
    assert f"{small[1].needed:,.0f} deals" in small[1].text


def test_margin_is_settable():
    f = _q(0.004, 0.002, 100000, 0.05)
    verdicts.judge([f], {"win rate": 0.002})
    assert f[1].margin == 0.002 and f[1].verdict == stats.NOT_ENOUGH
    g = _q(0.004, 0.002, 100000, 0.05)
    verdicts.judge([g], {"win rate": 0.02})
    assert g[1].verdict == stats.EQUIVALENT


def test_checks_are_outside_the_holm_family(yz_run):
    rep = build_report([yz_run])
    checks = [f for _, f in rep.findings if f.kind == CHECK]
    qs = [f for _, f in rep.findings if f.kind == QUESTION and f.pvalue is not None]
    assert checks and all(f.p_adjusted is None and f.verdict in ("pass", "fail") for f in checks)
    # Holm over the questions only: the smallest adjusted p is the smallest p × #questions
    pmin = min(f.pvalue for f in qs)
    adj = min(f.p_adjusted for f in qs)
    assert adj == pytest.approx(min(1.0, pmin * len(qs)))


@pytest.mark.parametrize("runs", ["yz_cmp_run", "at_cmp_run", "yz_run"])
def test_a_finding_never_contradicts_its_table(runs, request):
    rep = build_report([request.getfixturevalue(runs)])
    linked = 0
    for sec in rep.sections:
        for f in sec.findings:
            if f.table is None or f.row is None:
                continue
            t = next(t for t in sec.tables if t.key == f.table).df
            row = t.row(f.row, named=True)
            assert row["verdict"] == verdicts.label(f)
            assert row["p_holm"] == pytest.approx(f.p_adjusted, nan_ok=True)
            est = row.get("diff", row.get("excess", row.get("effect")))
            assert est == pytest.approx(f.estimate)
            linked += 1
    assert linked >= 1


# --- calibration: null comparisons of two policies that behave alike but use randomness apart --


def _null_comparison(seed: int, deals: int = 400):
    """A team_swap comparison of ``coin_a`` and ``coin_b``: the same behaviour (a fair coin on
    top of the deal's luck), each its own random draws — so seats do not replay games."""
    rng = np.random.default_rng(seed)
    luck = rng.normal(size=deals)  # the deal favours team 0 by this much
    rows = []
    for a in (0, 1):  # assignment 0: coin_a is team 0; assignment 1: swapped
        noise = rng.normal(size=(deals, 2))
        score0 = luck + noise[:, 0]
        score1 = noise[:, 1]
        win0 = score0 > score1
        for seat in range(4):
            team = seat % 2
            label = ("coin_a", "coin_b")[(team + a) % 2]
            rows.append(
                pl.DataFrame(
                    {
                        "game": np.arange(deals),
                        "assignment": np.full(deals, a, dtype=np.int16),
                        "seat": np.full(deals, seat),
                        "team": np.full(deals, team),
                        "strategy": [label] * deals,
                        "won": win0 if team == 0 else ~win0,
                    }
                )
            )
    return pl.concat(rows)


def test_calibration_null_comparisons_are_clear_about_5_percent():
    from cardsim.analysis import duplicate

    clear = equivalent = 0
    reps = 200
    for seed in range(reps):
        pw = duplicate.pairwise_table(_null_comparison(seed))
        f = duplicate.pair_finding(pw.row(0, named=True), row=0)
        verdicts.judge([("duplicate", f)])
        clear += f.verdict == stats.CLEAR
        equivalent += f.verdict == stats.EQUIVALENT
    rate = clear / reps
    # 5 % nominal: binomial(200, 0.05) lies in [3, 18] with probability > 99.5 %
    assert 3 <= clear <= 18, rate
    assert equivalent == 0  # 400 deals cannot show ±1 point


def test_null_comparison_with_enough_deals_is_equivalent():
    from cardsim.analysis import duplicate

    pw = duplicate.pairwise_table(_null_comparison(1, deals=60000))
    f = duplicate.pair_finding(pw.row(0, named=True), row=0)
    verdicts.judge([("duplicate", f)], {"win rate": 0.02})
    assert f.verdict == stats.EQUIVALENT, f.text


def test_unknown_game_is_an_error():
    from cardsim.sim.errors import CardsimError

    with pytest.raises(CardsimError):
        facts("chess")


# --- 5. paired intervals for shared deals; the indicator card; t and clipping ------------------


def test_runs_that_share_a_root_seed_are_compared_paired(tmp_path, yz_plain_seed3):
    from cardsim.sim import runner
    from cardsim.sim.config import build_config
    from cardsim.sim.games import get_engine

    other = tmp_path / "random"
    cfg = build_config(get_engine("yuanzi"), games=300, seed=3, strategy="random")
    runner.run(cfg, other, chunk_size=300, progress=False, threads=1)
    rep = build_report([yz_plain_seed3, other])
    row = (
        _table(rep, "comparison", "diffs")
        .filter(pl.col("measure").str.contains("excess"))
        .row(0, named=True)
    )
    assert row["interval"].startswith("paired on 300 shared deals")
    ga = pl.read_parquet(other / "games" / "*.parquet").sort("game")
    gb = pl.read_parquet(yz_plain_seed3 / "games" / "*.parquet").sort("game")
    assert (ga["h1_first_leader"] == gb["h1_first_leader"]).all()  # the same deals
    d = (ga["winner_team"].to_physical() == ga["h1_first_leader"] % 2).cast(pl.Float64) - (
        gb["winner_team"].to_physical() == gb["h1_first_leader"] % 2
    ).cast(pl.Float64)
    from scipy.stats import t as student

    assert row["diff"] == pytest.approx(d.mean())
    half = student.ppf(0.975, 299) * d.std() / 300**0.5
    assert row["diff_hi"] - row["diff"] == pytest.approx(half)


def test_first_leader_advantage_with_and_without_the_indicator_card(yz_run):
    import statsmodels.api as sm

    rep = build_report([yz_run])
    f = next(f for _, f in rep.findings if "indicator card" in f.text)
    g = pl.read_parquet(yz_run / "games" / "*.parquet").sort("game")
    s = pl.read_parquet(yz_run / "seats" / "*.parquet")
    dao = s.group_by("game", "team").agg(pl.col("h1_dao_cards").cast(pl.Int64).sum())
    t0 = dao.filter(pl.col("team") == "南北").select("game", d0="h1_dao_cards")
    t1 = dao.filter(pl.col("team") == "东西").select("game", d1="h1_dao_cards")
    m = g.join(t0, on="game").join(t1, on="game").sort("game")
    fl = m["h1_first_leader"].cast(pl.Int64) % 2
    x = ((m["d0"] - m["d1"]) * (1 - 2 * fl)).to_numpy().astype(float)  # FL team − other
    y = (m["winner_team"].to_physical().cast(pl.Int64) == fl).to_numpy().astype(float)
    fit = sm.OLS(y, sm.add_constant(x)).fit(
        cov_type="cluster", cov_kwds={"groups": m["game"].to_numpy(), "use_correction": False}
    )
    g_n = m.height
    assert f.estimate == pytest.approx(fit.params[0] - 0.5)
    assert f.se == pytest.approx(fit.bse[0] * (g_n / (g_n - 1)) ** 0.5, rel=1e-6)  # CR1
    raw = y.mean()
    assert f"{100 * raw:.1f} % of matches" in f.text
    assert x.mean() > 0  # the first leader's team holds the indicator: more 刀 cards


def test_intervals_are_clipped_to_the_possible_range():
    from cardsim.analysis import duplicate

    # one strategy wins every game: the paired interval is [1, 1], never above 1
    df = _null_comparison(0, deals=50).with_columns(won=pl.col("strategy") == "coin_a")
    pw = duplicate.pairwise_table(df).row(0, named=True)
    assert pw["diff"] == 1.0 and pw["diff_hi"] <= 1.0 and pw["bonferroni_hi"] <= 1.0


# --- margins on the CLI and in study files; --out suffix picks the format ----------------------


def test_cli_margin_and_the_out_suffix_pick_the_format(tmp_path, yz_run, capsys):
    import json

    from cardsim.cli import main

    out = tmp_path / "r.json"
    with pytest.raises(SystemExit) as e:
        main(["report", str(yz_run), "--out", str(out), "--margin", "win rate=0.05"])
    assert e.value.code in (0, None)
    doc = json.loads(out.read_text())  # .json suffix: a JSON report
    assert doc["format"] == "cardsim-report" and doc["margins"]["win rate"] == 0.05
    first = next(f for f in doc["findings"] if f["section"] == "seats")
    assert first["margin"] in (None, 0.05)
    with pytest.raises(SystemExit) as e:
        main(["report", str(yz_run), "--out", str(tmp_path / "r.md"), "--format", "html"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "--format is html" in err and "Traceback" not in err
    assert not (tmp_path / "r.md").exists()
    with pytest.raises(SystemExit) as e:
        main(["report", str(yz_run), "--out", str(tmp_path / "r.html"), "--margin", "oops"])
    assert e.value.code == 2 and "MEASURE=VALUE" in capsys.readouterr().err


def test_study_file_margins():
    from cardsim.sim.errors import CardsimError

    from cardsim.workflows.study import parse_study

    base = '[[scenario]]\nname = "a"\ngame = "atlas"\ngames = 10\n'
    assert parse_study('[margins]\n"win rate" = 0.02\n' + base).margins == {"win rate": 0.02}
    with pytest.raises(CardsimError, match="positive"):
        parse_study('[margins]\n"win rate" = 0\n' + base)


def test_json_output_of_compare_rules_and_strategies(tmp_path, capsys):
    import json

    from cardsim.cli import main

    def run(args):
        with pytest.raises(SystemExit) as e:
            main(args)
        assert e.value.code in (0, None)
        return json.loads(capsys.readouterr().out)

    rules = run(["rules", "atlas", "--json"])
    assert {"name", "default", "allowed", "ruling", "help"} <= set(rules[0])
    assert any(r["name"] == "rounds" and r["default"] == 1 for r in rules)
    strategies = run(["strategies", "yuanzi", "--json"])
    assert {s["name"] for s in strategies["builtin"]} >= {"greedy", "random"}
    out = tmp_path / "cmp"
    doc = run(
        ["compare", "atlas", "--strategies", "greedy,careful", "--games", "40", "--seed", "4"]
        + ["--out", str(out), "--quiet", "--json"]
    )
    assert doc["deals"] == 40 and doc["pairwise"][0]["deals"] == 40
    assert {r["strategy"] for r in doc["ratings"]} == {"careful", "greedy"}


def test_side_by_side_tables_have_a_column_per_run(tmp_path, yz_run):
    from cardsim.sim import runner
    from cardsim.sim.config import build_config
    from cardsim.sim.games import get_engine

    other = tmp_path / "redraw"
    cfg = build_config(
        get_engine("yuanzi"), games=300, seed=2, rules=[("joker_indicator", "redraw")]
    )
    runner.run(cfg, other, chunk_size=300, progress=False, threads=1)
    rep = build_report([yz_run, other])
    t = next(t for t in _section(rep, "yuanzi_dao").tables if t.key == "dao")
    assert t.df.height == 52  # JSON: long, one row per run, half and rank
    assert t.display.height == 26  # page: one row per half and rank …
    names = [yz_run.name, "redraw"]
    for r in names:  # … a column group per run, expected per run where the rules differ
        assert {f"rate · {r}", f"k · {r}", f"expected · {r}"} <= set(t.display.columns)
    red = t.display.filter(pl.col("half") == 1)["expected · redraw"].to_list()
    assert red == pytest.approx([1 / 13] * 13)


def _simulate_fast(seat, theta, games, rounds, rng):
    """:func:`_simulate`, vectorised over games (calibration needs many runs)."""
    gamma = np.array([0.25, 0.0, -0.05, -0.1])
    first = np.zeros(games, dtype=int)
    rows = []
    for _ in range(rounds):
        j = np.arange(4)
        u = gamma[(j[None, :] - first[:, None]) % 4] + theta * (j[None, :] == seat)
        p = np.exp(u)
        p /= p.sum(1, keepdims=True)
        w = (rng.random(games)[:, None] > p.cumsum(1)).sum(1)
        rows.append(np.stack([first, w], 1))
        first = w
    a = np.concatenate(rows)
    df = pl.DataFrame({"first": a[:, 0], "winner": a[:, 1]})
    return df.group_by("first", "winner").agg(c=pl.len()).sort("first", "winner")


def test_calibration_seat_adjusted_strategy_effect_under_the_null():
    """A 'careful' that plays like the others, at seat 0 (which starts every match): the
    seat-adjusted test is clear about 5 % of the time; seats/n would be clear most of the time."""
    from scipy.stats import binomtest

    rng = np.random.default_rng(0)
    units = {0: "careful", 1: "greedy", 2: "greedy", 3: "greedy"}
    reps, adjusted, naive = 150, 0, 0
    for _ in range(reps):
        t = strategy.seat_adjusted(_simulate_fast(0, 0.0, 1000, 4, rng), units).table
        row = t.filter(pl.col("strategy") == "careful").row(0, named=True)
        adjusted += row["p"] < 0.05
        naive += binomtest(row["wins"], row["n"], 0.25).pvalue < 0.05
    assert 1 <= adjusted <= 15, adjusted  # binomial(150, 5 %): [1, 15] with > 99.5 %
    assert naive > 60, naive  # the old seats/n comparison: mostly "clear"
