"""Balance search (issue 14): racing finds the known optimum of a synthetic objective; resumes;
bad input is a clear error; a small real run writes its tables and a verify study."""

import dataclasses
import json
import math
import re

import numpy as np
import pytest
from cardsim.analysis.objective import parse_objective
from cardsim.kernels.options import OptionTable, RuleOption
from cardsim.kernels.rng import bounded, new_stream
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import Measure, column
from cardsim.sim.games import get_engine, register_engine

from cardsim.workflows.tune import parse_space, tune
from tests.fake_engine import FACTS, FakeEngine, fake_tables

#: P(first leader's team wins) = 1/2 + EDGE (cap − 6) + SPICE [flavour = spicy]: the fair
#: game (first_excess = 0) is cap = 6, plain. Length = 30 + 3 cap + deal noise: 45 at cap = 5.
EDGE, SPICE = 0.04, 0.2


class TunableEngine(FakeEngine):
    name = "tunable"
    facts = dataclasses.replace(
        FACTS,
        headline=(
            *FACTS.headline,
            Measure("length", "length", "match", "continuous", column("length"), "length"),
        ),
    )
    rule_options = OptionTable(
        "tunable",
        (
            RuleOption("flavour", "T-01", "plain", "a choice option", choices=("plain", "spicy")),
            RuleOption("cap", "T-02", 9, "an int option", min=1, max=20),
        ),
    )

    def play_chunk(self, config, first, count):
        self.calls.append((first, count))
        cap = config.rules["cap"]
        p = 0.5 + EDGE * (cap - 6) + (SPICE if config.rules["flavour"] == "spicy" else 0.0)
        idx = np.arange(first, first + count, dtype=np.int64)
        winner, leader, length = [], [], []
        for i in idx:
            deal = new_stream(config.seed, int(i), 0)
            lead = bounded(deal, 4)
            first_wins = bounded(deal, 1_000_000) / 1_000_000 < p
            winner.append(lead % 2 if first_wins else 1 - lead % 2)
            leader.append(lead)
            length.append(30 + 3 * cap + bounded(deal, 9) - 4)
        return fake_tables(idx, leader, winner, length, config.seats)


try:
    get_engine("tunable")
except CardsimError:
    register_engine(TunableEngine())


def test_finds_the_fair_configuration(tmp_path):
    result = tune(
        "tunable", "first_excess", out=tmp_path / "t", options="flavour,cap=3..9",
        budget=24_000, seed=3, progress=False, min_games=100,
    )  # fmt: skip
    assert result.configurations == 14
    assert result.best.rules == {"flavour": "plain", "cap": "6"}
    assert result.games_spent <= 24_000
    # the best's interval covers the truth (0), and clearly worse ones were dropped by the test
    assert result.best.estimate - 1.96 * result.best.se <= 0.0
    assert sum(r["dropped_by_test"] for r in result.rungs) > 0
    # every comparison is against the best, on shared deals, and none is better than it
    assert all(c.diff >= 0 for c in result.comparisons)
    doc = json.loads((tmp_path / "t" / "tune.json").read_text())
    assert doc["best"]["id"] == result.best.id
    md = (tmp_path / "t" / "tune.md").read_text()
    assert "Is the best really best?" in md and "verdict" in md
    verify = (tmp_path / "t" / "verify.toml").read_text()
    assert "seed = 1003" in verify and 'cap = "6"' in verify


def test_rerun_resumes_with_the_same_answer(tmp_path):
    kw = dict(
        out=tmp_path / "t",
        options="flavour,cap=4..8",
        budget=8_000,
        seed=2,
        progress=False,
        min_games=100,
    )
    first = tune("tunable", "length=45", **kw)
    engine = get_engine("tunable")
    engine.calls.clear()
    again = tune("tunable", "length=45", **kw)
    assert engine.calls == []  # every rung reused
    assert again.best == first.best and again.games_spent == first.games_spent
    assert first.best.rules["cap"] == "5"


def test_weighted_objective_trades_off(tmp_path):
    # first_excess wants cap 6; a heavy length=36 target (cap 2) wins when weighted up
    result = tune(
        "tunable", "first_excess*1,length=36*1", out=tmp_path / "t", options="cap=2|6",
        budget=2_000, seed=4, progress=False, min_games=100,
    )  # fmt: skip
    assert result.best.rules["cap"] == "2"
    assert math.isclose(result.margin, 0.01 + 0.5)


def test_other_tune_run_in_out_is_an_error(tmp_path):
    tune(
        "tunable",
        "first_excess",
        out=tmp_path / "t",
        options="cap=5|6",
        budget=400,
        progress=False,
        min_games=100,
    )
    with pytest.raises(CardsimError, match="holds a different tune run"):
        tune(
            "tunable",
            "seat_spread",
            min_games=100,
            out=tmp_path / "t",
            options="cap=5|6",
            budget=400,
            progress=False,
        )


@pytest.mark.parametrize(
    ("objective", "message"),
    [
        ("fairness", "unknown objective 'fairness'"),
        ("length", "length needs a target"),
        ("first_excess=3", "takes no target"),
        ("first_excess*-1", "weights must be positive"),
        # issue 19, point 18: a length is a positive number of turns / tricks
        ("length=-5", "length target must be a positive number"),
        ("length=0", "length target must be a positive number"),
        ("length=inf", "length target must be a positive number"),
    ],
)
def test_bad_objectives(objective, message):
    with pytest.raises(CardsimError, match=message):
        parse_objective(objective)


def test_bad_spaces():
    engine = get_engine("tunable")
    # a bare integer option: its range by its step, the default first (tests/test_integer_levels)
    assert parse_space(engine, "cap") == {"cap": [9, *range(1, 9), *range(10, 21)]}
    with pytest.raises(CardsimError, match="unknown tunable rule option"):
        parse_space(engine, "colour")
    with pytest.raises(CardsimError, match="invalid value"):
        parse_space(engine, "cap=0..3")
    assert parse_space(engine, None) == {"flavour": ["plain", "spicy"]}
    assert parse_space(engine, "cap=2..8/3") == {"cap": [2, 5, 8]}


def test_small_real_run_cli(tmp_path, capsys):
    from cardsim.cli import main

    out = tmp_path / "yz"
    with pytest.raises(SystemExit) as e:
        main([
            "tune", "yuanzi", "--objective", "first_excess", "--options",
            "pass_is_final,lead_after_out", "--budget", "4800", "--out", str(out), "--quiet",
            "--threads", "1",
        ])  # fmt: skip
    assert e.value.code == 0
    text = capsys.readouterr().out
    assert "Best:" in text and "games spent" in text
    doc = json.loads((out / "tune.json").read_text())
    assert doc["configurations"] == 4 and doc["games_spent"] <= 4800
    assert (out / "configs" / "c000" / "r0" / "manifest.json").is_file()
    from cardsim.workflows.study import load_study

    study = load_study(out / "verify.toml")
    assert [s.name for s in study.scenarios] == ["winner", "default"]
    # issue 19, point 18: --seed defaults to 0 (README, docs/cli.md); fresh seeds from 1000
    assert [r["seed"] for r in doc["rungs"]][0] == 0
    assert study.scenarios[0].seed == 1000


def test_18_budget_too_large_names_budget_and_writes_nothing(tmp_path, capsys):
    from cardsim.cli import main

    out = tmp_path / "t"
    with pytest.raises(SystemExit) as e:
        main(["tune", "yuanzi", "--objective", "first_excess", "--budget", str(10**15),
              "--out", str(out)])  # fmt: skip
    err = capsys.readouterr().err
    assert e.value.code == 2 and len(err.strip().splitlines()) == 1, err
    assert "--budget must be at most 20,000,000,000 games" in err and "--games" not in err, err
    assert not out.exists()  # no tune-manifest.json left behind


@pytest.mark.heavy
def test_18_ctrl_c_advises_rerunning_the_command_not_resume(tmp_path):
    """A real `cardsim tune` process, SIGINT mid-rung: the line names what resumes a tune (the
    same command again; tune has no --resume; resuming is test_interrupted_race_resumes…)."""
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    out = tmp_path / "t"
    args = [sys.executable, "-m", "cardsim", "tune", "yuanzi", "--objective", "first_excess",
            "--options", "pass_is_final", "--budget", "400000", "--threads", "1",
            "--out", str(out)]  # fmt: skip
    p = subprocess.Popen(args, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 600
    while time.time() < deadline and not list(out.glob("configs/*/r0/manifest.json")):
        time.sleep(0.05)
    time.sleep(1.0)  # inside rung 0 (200,000 games of one configuration: many seconds)
    assert p.poll() is None, p.stderr.read()
    p.send_signal(signal.SIGINT)
    p.wait(60)
    err = p.stderr.read()
    assert p.returncode == 130, err
    assert "run the same cardsim tune command again" in err and "--resume" not in err, err
    assert "Traceback" not in err


def test_cli_bad_objective_is_one_line(tmp_path, capsys):
    from cardsim.cli import main

    with pytest.raises(SystemExit) as e:
        main(["tune", "yuanzi", "--objective", "nope", "--out", str(tmp_path / "x")])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("cardsim: error:") and "Traceback" not in err


@pytest.mark.heavy
def test_real_winner_confirmed_on_fresh_seeds(tmp_path):
    """原子 tricks per match: both `pass_only_if_unable=true` and `lead_after_out=partner` shorten
    a match (by about 1.5 tricks each); the race for a short target picks a configuration
    whose advantage over the defaults holds on the fresh deals of verify.toml."""
    from cardsim.analysis.objective import compare_runs

    from cardsim.workflows.study import parse_study, run_study

    out = tmp_path / "t"
    result = tune(
        "yuanzi", "length=15", out=out, options="pass_only_if_unable,lead_after_out",
        budget=6000, seed=9, progress=False, threads=1,
    )  # fmt: skip
    assert result.best.rules != {"pass_only_if_unable": "false", "lead_after_out": "next"}
    text = (out / "verify.toml").read_text().replace("games = 2000", "games = 1500")
    study = parse_study(text, "verify.toml")
    assert {s.seed for s in study.scenarios} == {1009}  # fresh: the race used seeds 9, 10, …
    done = run_study(study, tmp_path / "v", progress=False, report=False, threads=1)
    diff, se, p, deals = compare_runs("length=15", done.runs["winner"], done.runs["default"])
    assert deals == 1500 and diff < 0 and p < 0.001  # clearly shorter on the fresh deals


@pytest.mark.heavy
def test_interrupted_race_resumes_to_the_same_answer(tmp_path):
    kw = dict(
        out=tmp_path / "t",
        options="flavour,cap=4..8",
        budget=8_000,
        seed=6,
        progress=False,
        min_games=100,
    )
    first = tune("tunable", "first_excess", **kw)
    last = tmp_path / "t" / "configs" / first.best.id / f"r{first.best.rungs - 1}"
    (last / "games" / "part-00000.parquet").unlink()  # as if killed while writing that rung
    engine = get_engine("tunable")
    engine.calls.clear()
    again = tune("tunable", "first_excess", **kw)
    # only that chunk is replayed (the runner plays it in sub-chunks: contiguous calls from its
    # first game, one chunk's worth; the 1-game call is the warm-up)
    played = sorted(c for c in engine.calls if c[1] > 1)
    assert played and all(a[0] + a[1] == b[0] for a, b in zip(played, played[1:], strict=False))
    chunk = played[0][0], sum(c[1] for c in played)
    assert chunk[1] <= kw["budget"] and len({c[0] for c in played}) == len(played)
    assert again.best == first.best and again.games_spent == first.games_spent


def test_out_holding_something_else_is_never_touched(tmp_path):
    other = tmp_path / "run"
    other.mkdir()
    (other / "manifest.json").write_text("{}")
    for force in (False, True):
        with pytest.raises(CardsimError, match="not a tune run"):
            tune("tunable", "first_excess", out=other, options="cap=5|6", budget=400,
                 progress=False, min_games=100, force=force)  # fmt: skip
    assert sorted(p.name for p in other.iterdir()) == ["manifest.json"]
    with pytest.raises(CardsimError, match="--budget must be at least 800"):
        tune("tunable", "first_excess", out=tmp_path / "new", options="cap=5|6", budget=10)
    assert not (tmp_path / "new").exists()


def test_a_linked_configs_folder_is_refused_and_kept(tmp_path, capsys):
    """--force (or a resume) never deletes or writes through a linked OUT/configs: one line,
    exit 2, the linked folder's files untouched (was a bare OS error)."""
    kw = dict(options="cap=5|6", budget=1600, seed=3, progress=False, min_games=100)
    first = tune("tunable", "first_excess", out=tmp_path / "t", **kw)
    assert first.best is not None
    kept = tmp_path / "elsewhere"
    (tmp_path / "t" / "configs").rename(kept)
    (tmp_path / "t" / "configs").symlink_to(kept, target_is_directory=True)
    before = sorted(str(p.relative_to(kept)) for p in kept.rglob("*"))
    for force in (False, True):
        with pytest.raises(CardsimError, match="configs is a symbolic link"):
            tune("tunable", "first_excess", out=tmp_path / "t", force=force, **kw)
    from cardsim.cli import main

    cli_out = tmp_path / "cli"  # a real game on the command line, its configs/ a link too
    cli_out.mkdir()
    (cli_out / "configs").symlink_to(kept, target_is_directory=True)
    argv = ["tune", "yuanzi", "--objective", "first_excess", "--options", "pass_is_final",
            "--budget", "1600", "--out", str(cli_out), "--force"]  # fmt: skip
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "configs is a symbolic link" in err and "Traceback" not in err
    assert sorted(str(p.relative_to(kept)) for p in kept.rglob("*")) == before


@pytest.mark.heavy
def test_unplayable_configurations_are_left_out_and_said(tmp_path):
    """AT-D1: 20 cards × 10 players cannot be dealt from a deck without ATLAS cards (198); the
    race leaves that configuration out before playing, says so, and races the others."""
    res = tune(
        "atlas", "first_excess", out=tmp_path / "at", options="hand_size=19|20,atlas_cards=0|12",
        players=10, budget=2400, verify_games=400, threads=1, progress=False,
    )  # fmt: skip
    assert res.configurations == 3
    assert {(c.rules["hand_size"], c.rules["atlas_cards"]) for c in res.top} <= {
        ("19", "0"),
        ("19", "12"),
        ("20", "12"),
    }
    assert any("hand_size=20, atlas_cards=0" in line and "AT-D1" in line for line in res.log)
    assert "cannot be played" in (tmp_path / "at" / "tune.md").read_text()
    # issue 19, point 7: hand_size 19/20 vs the default 13 deals other cards from the same
    # seed: the objective's comparison and the verify page do not call it paired
    v = res.verification
    assert not v["paired"] and "hand_size" in v["label"]
    verify_page = (tmp_path / "at" / "verify" / "report.html").read_text()
    assert "paired on" not in verify_page.split("Differences from the first run")[1]
    assert "Newcomb (independent: hand_size" in verify_page
    with pytest.raises(CardsimError, match="no configuration"):  # at most 184 cards for 190+
        tune("atlas", "first_excess", out=tmp_path / "none", players=10, budget=2400,
             options="hand_size=19|20,atlas_cards=0|1,skip_cards=0|1,reverse_cards=0|1,"
             "trade_cards=0|1", progress=False)  # fmt: skip


def test_7_verify_retests_the_objective_and_tune_writes_its_page(tmp_path):
    """verify.toml re-tests the tuned objective itself (its study report has the finding), tune
    plays it and writes tune.html: the objective first, defaults vs winner on fresh seeds, the
    objective's own paired comparison, the racing history."""
    from cardsim.analysis.objective import compare_runs

    out = tmp_path / "t"
    res = tune("tunable", "length=45", out=out, options="cap=4..8", budget=4_000, seed=2,
               progress=False, min_games=100, verify_games=1500)  # fmt: skip
    assert res.best.rules == {"cap": "5"}
    verify = (out / "verify.toml").read_text()
    assert 'objective = "length=45*1"' in verify
    v = res.verification
    assert v["paired"] and v["label"] == "paired on 1,500 shared deals (same root seed)"
    diff, se, p, deals = compare_runs("length=45", out / "verify/winner", out / "verify/default")
    assert (v["diff"], v["se"], v["deals"]) == pytest.approx((diff, se, deals))
    # the defaults (cap 9: length 57) are 12 tricks off the target, the winner on it
    assert v["b"]["estimate"] == pytest.approx(12.0, abs=0.5) and v["a"]["estimate"] < 0.5
    assert v["verdict"] == "clear difference"
    page = (out / "tune.html").read_text()
    i = [page.index(s) for s in ("Objective:</strong> length=45*1", "<h2>Defaults vs winner on "
         "fresh seeds", "<h2>The objective&#39;s own comparison", "<h2>Racing history")]  # fmt: skip
    assert i == sorted(i)
    assert "paired on 1,500 shared deals" in page and "clear difference" in page
    study_page = (out / "verify" / "report.html").read_text()
    assert "Tuned objective length=45*1" in study_page
    assert str(out / "tune.html") in (out / "tune.md").read_text()


class DeckEngine(TunableEngine):
    """The tunable game with ``cap`` declared a deal option (as ATLAS hand_size, AT-D1)."""

    name = "tunable_deck"
    facts = dataclasses.replace(TunableEngine.facts, deal_options=("cap",))


try:
    get_engine("tunable_deck")
except CardsimError:
    register_engine(DeckEngine())


def test_7_configurations_with_other_cards_are_not_called_paired(tmp_path):
    out = tmp_path / "t"
    res = tune("tunable_deck", "length=45", out=out, options="cap=4..7", budget=4_000,
               seed=2, progress=False, min_games=100, verify_games=600)  # fmt: skip
    assert res.comparisons and not any(c.paired for c in res.comparisons)
    v = res.verification
    assert not v["paired"] and v["label"] == "independent samples (cap changes the cards dealt)"
    assert v["se"] == pytest.approx(math.hypot(v["a"]["se"], v["b"]["se"]))
    for page in (out / "tune.html", out / "verify" / "report.html"):
        text = page.read_text()  # no row or sentence calls a comparison paired
        assert not re.search(r"paired on [\d,]+ shared deals|>paired on shared deals<", text)
    assert "independent (a deck or hand-size option differs" in (out / "tune.html").read_text()
    assert (
        "Newcomb (independent: cap changes the cards dealt)"
        in (out / "verify" / "report.html").read_text()
    )
