"""Integer design parameters in the balance search and in factorial designs (issue 14): a bare
integer option searches its range by its step, ranges and lists are checked against the range
and the step, and the tuner / a factorial study recover a planted integer effect."""

import dataclasses
import json

import numpy as np
import pytest
from cardsim.analysis import factorial
from cardsim.kernels.options import OptionTable, RuleOption
from cardsim.kernels.rng import bounded, new_stream
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import Measure, column
from cardsim.sim.games import get_engine, register_engine

from cardsim.workflows.study import parse_study, run_study
from cardsim.workflows.tune import MAX_GRID_LEVELS, integer_grid, parse_space, tune
from tests.fake_engine import FACTS, FakeEngine, fake_tables

#: P(first leader's team wins) = 1/2 + WIN * (gap − 40): fair at gap = 40;
#: length = 30 + gap / 5 + deal noise (−4 … 4, common to every level) + play noise (−3 … 3,
#: its own per level): the planted length effect of gap a vs b is (a − b) / 5
WIN = 0.004


class SteppedEngine(FakeEngine):
    name = "stepped"
    facts = dataclasses.replace(
        FACTS,
        headline=(
            *FACTS.headline,
            Measure("length", "length", "match", "continuous", column("length"), "length"),
        ),
    )
    rule_options = OptionTable(
        "stepped",
        (
            RuleOption("gap", "T-05", 60, "an int option with a step", min=0, max=100, step=10),
            RuleOption("bonus", "T-06", 1, "an int option without a step", min=1, max=4),
        ),
    )

    def play_chunk(self, config, first, count):
        self.calls.append((first, count))
        gap = config.rules["gap"]
        p = 0.5 + WIN * (gap - 40)
        idx = np.arange(first, first + count, dtype=np.int64)
        winner, leader, length = [], [], []
        for i in idx:
            deal = new_stream(config.seed, int(i), 0)
            lead = bounded(deal, 4)
            first_wins = bounded(deal, 1_000_000) / 1_000_000 < p  # common to every cell
            winner.append(lead % 2 if first_wins else 1 - lead % 2)
            leader.append(lead)
            play = new_stream(config.seed, int(i), 2 + gap // 10)  # play noise: per level
            length.append(30 + gap // 5 + bounded(deal, 9) - 4 + bounded(play, 7) - 3)
        return fake_tables(idx, leader, winner, length, config.seats)


try:
    get_engine("stepped")
except CardsimError:
    register_engine(SteppedEngine())


# --- the search space -----------------------------------------------------------------------


def test_bare_integer_option_searches_its_range_by_its_step():
    engine = get_engine("stepped")
    assert parse_space(engine, "gap") == {"gap": [60, 0, 10, 20, 30, 40, 50, 70, 80, 90, 100]}
    assert parse_space(engine, "bonus") == {"bonus": [1, 2, 3, 4]}
    # a long range: an even grid on the step, ends and default included
    from cardsim.kernels.yuanzi.options import OPTIONS

    grid = integer_grid(OPTIONS["shuangjia_threshold"])
    assert len(grid) == MAX_GRID_LEVELS and grid[0] == 60
    assert sorted(grid) == list(range(0, 301, 15)) and all(v % 5 == 0 for v in grid)
    turn_cap = integer_grid(get_engine("atlas").rule_options["turn_cap"])
    assert turn_cap[0] == 2000 and {1, 1_000_000} <= set(turn_cap) and len(turn_cap) <= 22


def test_integer_ranges_use_and_check_the_step():
    engine = get_engine("stepped")
    assert parse_space(engine, "gap=20..50") == {"gap": [20, 30, 40, 50]}  # the option's step
    assert parse_space(engine, "gap=0..100/50") == {"gap": [0, 50, 100]}
    assert parse_space(engine, "gap=30|70") == {"gap": [30, 70]}
    for spec, message in (
        ("gap=25|70", r"invalid value '25' \(allowed: integer 0\.\.100 in steps of 10\)"),
        ("gap=5..45", r"invalid value 5 \(allowed: integer 0\.\.100 in steps of 10\)"),
        ("gap=0..60/15", "step 15 is not a multiple of gap's step 10"),
        ("gap=0..110", "invalid value 110"),
        ("gap=60..60", "two or more levels"),
        ("gap=a..b", r"expected lo\.\.hi\[/step\]"),
    ):
        with pytest.raises(CardsimError, match=message):
            parse_space(engine, spec)


def test_tuner_finds_the_fair_integer_level(tmp_path):
    """A bare integer option: the race over gap 0..100 by 10 finds the fair gap = 40."""
    result = tune(
        "stepped", "first_excess", out=tmp_path / "t", options="gap", budget=20_000, seed=3,
        progress=False, min_games=200,
    )  # fmt: skip
    assert result.configurations == 11
    assert result.best.rules == {"gap": "40"}
    assert result.best.estimate - 1.96 * result.best.se <= 0.0
    assert 'gap = "40"' in (tmp_path / "t" / "verify.toml").read_text()


# --- factorial designs with integer levels --------------------------------------------------


def _design(options: str, games: int = 10) -> str:
    return f'[[design]]\nname = "d"\ngame = "stepped"\ngames = {games}\nseed = 5\n{options}\n'


def test_design_integer_levels_list_and_range():
    (d,) = parse_study(_design("options = { gap = [40, 60, 80] }"), "s.toml").designs
    assert [s.rules["gap"] for s in d.scenarios] == ["40", "60", "80"]  # the first is baseline
    (d,) = parse_study(_design('options = { gap = "20..40", bonus = [1, 3] }'), "s.toml").designs
    assert len(d.scenarios) == 6
    assert {(s.rules["gap"], s.rules["bonus"]) for s in d.scenarios} == {
        (g, b) for g in ("20", "30", "40") for b in ("1", "3")
    }


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ("options = { gap = [40, 65] }", r"invalid value 65 \(allowed: integer 0\.\.100 in steps"),
        ("options = { gap = [40, 110] }", "invalid value 110"),
        ('options = { gap = "all" }', r'integer option .*like \[40, 60, 80\] or .*"40\.\.80/20"'),
        ('options = { gap = "0..50/15" }', "not a multiple of gap's step 10"),
        ('options = { gap = "10..10" }', "fewer than two levels"),
        ("options = { gap = [40, 40] }", "lists a level twice"),
    ],
)
def test_bad_integer_design_levels_are_clear_errors(options, message):
    with pytest.raises(CardsimError, match=message):
        parse_study(_design(options), "bad.toml")


def test_factorial_recovers_a_planted_integer_effect(tmp_path):
    study = parse_study(_design("options = { gap = [40, 20, 80] }", games=1500), "s.toml")
    result = run_study(study, tmp_path, progress=False)
    doc = json.loads(result.designs["d"].with_suffix(".json").read_text())
    by = {m["name"]: {e["term"]: e for e in m["effects"]} for m in doc["measures"]}
    for level in (20, 80):
        e = by["length"][f"gap={level}"]  # linear: level vs the baseline 40, exactly (a-b)/5
        truth = (level - 40) / 5
        assert e["lo"] <= truth <= e["hi"] and np.sign(e["effect"]) == np.sign(truth)
        assert e["verdict"] == factorial.CLEAR
        w = by["first_side_wins"][f"gap={level}"]  # the share moves by WIN * (level − 40)
        assert np.sign(w["effect"]) == np.sign(level - 40) and w["verdict"] == factorial.CLEAR


def test_cardsim_rules_shows_range_and_step(capsys):
    from cardsim.cli import main

    with pytest.raises(SystemExit) as e:
        main(["rules", "yuanzi", "--json"])
    assert e.value.code == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    t = rows["shuangjia_threshold"]
    assert (t["default"], t["min"], t["max"], t["step"], t["ruling"]) == (60, 0, 300, 5, "YZ-D1")
    assert rows["match_points_win"]["step"] is None
    with pytest.raises(SystemExit):
        main(["rules", "yuanzi"])
    assert "[integer 0..300 in steps of 5]  YZ-D1" in capsys.readouterr().out


def test_off_step_rule_on_the_command_line_is_one_line(tmp_path, capsys):
    from cardsim.cli import main

    out = tmp_path / "r"
    with pytest.raises(SystemExit) as e:
        main(["run", "yuanzi", "--games", "10", "--rule", "shuangjia_threshold=62", "--out",
              str(out), "--quiet"])  # fmt: skip
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "invalid value '62' (allowed: integer 0..300 in steps of 5)" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1 and not out.exists()


@pytest.mark.heavy
def test_real_integer_winner_confirmed_on_fresh_seeds(tmp_path):
    """原子: a higher 双夹 threshold (YZ-D1) ends more matches after the first half, so matches
    are shorter; racing shuangjia_threshold = 60, 180, 300 for a short length picks 300, and its
    advantage over the default holds on the fresh deals of verify.toml."""
    from cardsim.analysis.objective import compare_runs

    out = tmp_path / "t"
    result = tune(
        "yuanzi", "length=5", out=out, options="shuangjia_threshold=60..300/120", budget=2400,
        seed=21, progress=False, threads=1,
    )  # fmt: skip
    assert result.configurations == 3 and result.best.rules == {"shuangjia_threshold": "300"}
    text = (out / "verify.toml").read_text().replace("games = 2000", "games = 800")
    study = parse_study(text, "verify.toml")
    assert {s.seed for s in study.scenarios} == {1021}  # fresh: the race used seeds 21, 22
    done = run_study(study, tmp_path / "v", progress=False, report=False, threads=1)
    diff, se, p, deals = compare_runs("length=5", done.runs["winner"], done.runs["default"])
    assert deals == 800 and diff < 0 and p < 0.001  # clearly shorter on the fresh deals


def test_design_doc_example_with_design_parameters_parses():
    import re
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "design.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"^```toml\n(.*?)^```", doc, re.S | re.M) if "yz-sj" in b]
    (d,) = parse_study(block, "design.md").designs
    assert len(d.scenarios) == 8 and d.scenarios[0].rules["shuangjia_threshold"] == "60"
    alt = block.replace("[60, 40, 80, 120]", '"40..120/40"')
    (d,) = parse_study(alt, "design.md").designs
    assert sorted({s.rules["shuangjia_threshold"] for s in d.scenarios}) == ["120", "40", "80"]
