"""`cardsim screen` (issue 47 item 3): every variant of every open reading against the default
rules on the same deals, every headline measure, Holm over the whole screen."""

import json

import pytest
from cardsim.analysis import stats

import cardsim
from cardsim.cli import main
from cardsim.workflows.screen import readings

VERDICTS = {stats.CLEAR, stats.EQUIVALENT, stats.NOT_ENOUGH}


def cardsim_cli(capsys, *args):
    with pytest.raises(SystemExit) as e:
        main(list(map(str, args)))
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


@pytest.mark.parametrize("game", ["atlas", "yuanzi"])
def test_screen_through_the_cli_and_the_api_and_resume(game, capsys, tmp_path):
    """Issue 47 item 3: the CLI plays the default and every reading's variant on one seed and
    writes the page and its JSON; the API gives the same numbers; running it again reuses every
    finished run."""
    from cardsim.sim.games import get_engine

    out = tmp_path / "screen"
    code, stdout, err = cardsim_cli(
        capsys, "screen", game, "--games", 40, "--seed", 3, "--out", out, "--quiet", "--json"
    )
    assert code == 0, err
    doc = json.loads(stdout)
    assert doc == json.loads((out / "screen.json").read_text()) | {"generated": doc["generated"]}
    assert (out / "screen.html").read_text().count("<table>") >= 2
    variants = readings(game)
    engine = get_engine(game)
    reading_options = {o.name for o in engine.rule_options if o.role == "reading"}
    assert {v.option for v in variants} == reading_options  # only readings, every one of them
    measures = [m.name for m in engine.facts.headline if m.value is not None]
    assert len(doc["rows"]) == len(variants) * len(measures)
    assert {r["verdict"] for r in doc["rows"]} <= VERDICTS
    for v in variants:  # every run on the screen's seed, with its one variant
        m = json.loads((out / v.scenario / "manifest.json").read_text())
        assert m["seed"] == 3 and str(m["rules"][v.option]).lower() == v.value
    # Holm over the whole screen: the adjusted p of the smallest p is p × (number of rows)
    ps = sorted((r["p"], r["p_holm"]) for r in doc["rows"])
    assert ps[0][1] == pytest.approx(min(1.0, ps[0][0] * len(doc["rows"])))
    sizes = [r["size"] for r in doc["changes"]]
    assert sizes == sorted(sizes, reverse=True)

    stamps = {v.scenario: (out / v.scenario / "manifest.json").stat().st_mtime_ns for v in variants}
    api = cardsim.screen(game, out, games=40, seed=3)  # resumes: every run is reused
    assert sorted(api.reused) == sorted(["default", *stamps])
    assert all((out / s / "manifest.json").stat().st_mtime_ns == t for s, t in stamps.items())
    assert [r["diff"] for r in api.result.rows] == [r["diff"] for r in doc["rows"]]
    assert [r["verdict"] for r in api.result.rows] == [r["verdict"] for r in doc["rows"]]


@pytest.mark.parametrize(
    "args, words",
    [
        (["yuanzi", "--players", "3"], "yuanzi is played by 4 players, got --players 3"),
        (["atlas", "--players", "11"], "players"),
        (["atlas", "--games", "1"], "--games must be an integer >= 2"),
        (["atlas", "--games", "ten"], "is not an integer"),
        (["chess"], "'chess' is not one of"),
    ],
)
def test_bad_screen_input_is_one_line_and_exit_2(args, words, capsys, tmp_path):
    """Issue 47 item 3: bad input is one line on stderr, exit 2, nothing played."""
    code, stdout, err = cardsim_cli(capsys, "screen", *args, "--out", tmp_path / "s")
    assert code == 2 and stdout == ""
    assert len(err.strip().splitlines()) == 1 and words in err and "Traceback" not in err
    assert not (tmp_path / "s").exists()


def test_the_api_speaks_of_arguments():
    with pytest.raises(cardsim.CardsimError, match="^games must be an integer >= 2"):
        cardsim.screen("atlas", "unused", games=0)


@pytest.mark.heavy
def test_screen_agrees_with_separate_two_run_comparisons(capsys, tmp_path):
    """Issue 47 item 3 ("done when"): the screen's finding for two readings (YZ-19 lead after
    out, YZ-23 1-2 settlement) is that of separate two-run comparisons — two `cardsim run`s on
    the same seed, compared by `cardsim report A B` (paired on the shared deals) — the same
    estimate, interval and verdict on the measures both report (the 双夹 rate, the first
    leader's team's win)."""
    games, seed = 2000, 11
    screen = cardsim.screen("yuanzi", tmp_path / "screen", games=games, seed=seed).result
    rows = {(r["option"], r["measure"]): r for r in screen.rows}
    base = tmp_path / "default"
    assert cardsim_cli(capsys, "run", "yuanzi", "--games", games, "--seed", seed, "--out", base,
                       "--quiet")[0] == 0  # fmt: skip
    checked = set()
    for option, value in (("lead_after_out", "partner"), ("one_two_settlement", "hand_only")):
        run = tmp_path / option
        code, _, err = cardsim_cli(capsys, "run", "yuanzi", "--games", games, "--seed", seed,
                                   "--rule", f"{option}={value}", "--out", run, "--quiet")  # fmt: skip
        assert code == 0, err
        report = tmp_path / f"{option}.json"
        code, _, err = cardsim_cli(capsys, "report", base, run, "--out", report)
        assert code == 0, err
        doc = json.loads(report.read_text())
        diffs = doc["sections"]["comparison"]["tables"]["diffs"]["rows"]
        by_measure = {d["measure"]: d for d in diffs}
        pairs = {"shuangjia": "双夹 (share of matches)", "first_side_wins": "first leader's team"}
        for measure, theirs in pairs.items():
            d = next(v for k, v in by_measure.items() if k.startswith(theirs))
            mine = rows[(option, measure)]
            assert "paired" in d["interval"]
            assert mine["diff"] == pytest.approx(d["diff"], abs=1e-12)
            assert mine["diff_lo"] == pytest.approx(d["diff_lo"], abs=2e-3)
            assert mine["diff_hi"] == pytest.approx(d["diff_hi"], abs=2e-3)
            assert mine["verdict"] == d["verdict"], (option, measure, mine, d)
            checked.add((option, measure, mine["verdict"]))
    # the two readings give different answers: one changes the 双夹 rate, one changes nothing
    assert ("lead_after_out", "shuangjia", stats.CLEAR) in checked
    assert ("one_two_settlement", "shuangjia", stats.EQUIVALENT) in checked


def test_a_paired_difference_without_spread_is_exact():
    """Issue 47 item 3: a reading that changes nothing on any deal (ATLAS AT-18 with 4 players)
    has a paired difference of exactly 0 with no spread: p 1 (equivalent), never p 0 (the
    report read it as a clear difference); a constant non-zero shift is p 0."""
    from cardsim.analysis.report import paired_rate_from

    none = {"g": 50.0, "n": 50.0, "s": 0.0, "ss": 0.0, "sm": 0.0, "mm": 50.0}
    assert paired_rate_from(none)["p"] == 1.0
    shift = {"g": 50.0, "n": 50.0, "s": 50.0, "ss": 50.0, "sm": 50.0, "mm": 50.0}
    r = paired_rate_from(shift)
    assert r["diff"] == 1.0 and r["_se"] == 0.0 and r["p"] == 0.0


@pytest.mark.heavy
def test_screen_on_a_dask_scheduler_gives_the_local_tables(capsys, tmp_path):
    """Issue 47 item 3: `--scheduler local:1` plays every run of the screen on a Dask cluster;
    the tables and the screen's numbers are those of a local screen."""
    pytest.importorskip("dask.distributed")
    import polars as pl
    from polars.testing import assert_frame_equal

    docs = []
    for where, extra in (("local", []), ("cluster", ["--scheduler", "local:1"])):
        code, stdout, err = cardsim_cli(capsys, "screen", "yuanzi", "--games", 200, "--out",
                                        tmp_path / where, "--quiet", "--json", *extra)  # fmt: skip
        assert code == 0, err
        docs.append(json.loads(stdout))
    assert [r["diff"] for r in docs[0]["rows"]] == [r["diff"] for r in docs[1]["rows"]]
    assert [r["verdict"] for r in docs[0]["rows"]] == [r["verdict"] for r in docs[1]["rows"]]
    for v in readings("yuanzi")[:2]:
        a, b = (pl.read_parquet(tmp_path / w / v.scenario / "games" / "*.parquet")
                for w in ("local", "cluster"))  # fmt: skip
        assert_frame_equal(a, b)


STUDY_SCREEN = """
[[screen]]
name = "yzs"
game = "yuanzi"
games = 40
seed = 3

[margins]
mean = 2.0
"""


def test_a_study_screen_section(capsys, tmp_path):
    """Issue 47 item 3: a study's [[screen]] plays the same runs as `cardsim screen` (named
    <name>-default, <name>-<option>-<value>) and writes <name>-screen.html and .json; the
    study's [margins] apply; bad keys are one line."""
    f = tmp_path / "s.toml"
    f.write_text(STUDY_SCREEN)
    code, stdout, err = cardsim_cli(capsys, "study", f, "--out", tmp_path / "st", "--quiet")
    assert code == 0, err
    assert "screen of yzs:" in stdout
    doc = json.loads((tmp_path / "st" / "yzs-screen.json").read_text())
    assert (tmp_path / "st" / "yzs-screen.html").is_file()
    assert {r["margin"] for r in doc["rows"] if r["kind"] == "continuous"} == {2.0}
    code, stdout, _ = cardsim_cli(capsys, "screen", "yuanzi", "--games", 40, "--seed", 3,
                                  "--out", tmp_path / "cmd", "--quiet", "--json")  # fmt: skip
    alone = json.loads(stdout)
    assert [r["diff"] for r in alone["rows"]] == [r["diff"] for r in doc["rows"]]
    for v in readings("yuanzi", "yzs-"):
        assert (tmp_path / "st" / v.scenario / "manifest.json").is_file()
    f.write_text(STUDY_SCREEN.replace("seed = 3", "sed = 3"))
    code, _, err = cardsim_cli(capsys, "study", f, "--out", tmp_path / "bad", "--quiet")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "'sed'" in err
