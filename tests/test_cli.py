"""The cardsim command line: help, bad input (one line, exit 2, nothing written), overwrite
refusal, determinism across threads and chunk sizes, and resume after a real kill -9."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from cardsim.cli import cli, main

COMMANDS = ["run", "compare", "study", "report", "replay", "rules", "strategies"]


def cardsim(capsys, *args):
    """Run the CLI in-process; returns (exit code, stdout, stderr)."""
    with pytest.raises(SystemExit) as e:
        main(list(map(str, args)))
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


def tables(out: Path):
    return [
        pl.read_parquet(out / t / "*.parquet").sort(["game", "seat"] if t == "seats" else ["game"])
        for t in ("games", "seats")
    ]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(capsys, command):
    code, out, _ = cardsim(capsys, command, "--help")
    assert code == 0 and "Usage:" in out and command in out
    assert command in cli.commands


def test_version(capsys):
    code, out, _ = cardsim(capsys, "--version")
    assert code == 0 and "cardsim" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["run", "chess", "--games", "5"], "'chess' is not one of 'yuanzi', 'atlas'"),
        (["run", "yuanzi", "--games", "5", "--strategy", "nope"], "allowed: "),
        (["run", "yuanzi", "--games", "5", "--rule", "nope=1"], "unknown yuanzi rule option"),
        (["run", "yuanzi", "--games", "5", "--rule", "dao_bomb=maybe"], "over_all"),
        (["run", "yuanzi", "--games", "5", "--rule", "dao_bomb"], "KEY=VALUE"),
        (["run", "yuanzi", "--games", "5", "--seat", "4=greedy"], "seats are 0..3"),
        (["run", "yuanzi", "--games", "5", "--players", "5"], "4 players"),
        (["run", "atlas", "--games", "5", "--players", "11"], "2..10 players"),
        (["run", "atlas", "--games", "5", "--players", "1"], "2..10 players"),
        (["run", "yuanzi", "--games", "0"], "--games must be a positive integer"),
        (["run", "yuanzi", "--games", "-3"], "--games must be a positive integer"),
        (["run", "yuanzi", "--games", "5", "--seed", "-1"], "not a non-negative integer"),
        (["run", "yuanzi", "--games", "5", "--seed", "abc"], "not a non-negative integer"),
        (["run", "atlas", "--games", "5", "--rule", "turn_cap=0"], "integer 1..1000000"),
        (["run", "yuanzi", "--games", "5", "--strategy", "missing.py:f"], "not found"),
        (["run", "yuanzi", "--games", "5", "--threads", "0"], "--threads"),
        (["compare", "yuanzi", "--strategies", "greedy", "--games", "5"], "at least two"),
        (["replay", "yuanzi", "--game", "-1"], "--game must be a game index"),
        (
            ["compare", "yuanzi", "--strategies", "greedy,random", "--games", "5", "--test", "x>y"],
            "--test must be A>B",
        ),
        (["run", "yuanzi", "--games", "5", "--until-ci", "2"], "--until-ci"),
        (["run", "yuanzi", "--games", "5", "--seed", "²"], "not a non-negative integer"),
        (["run", "yuanzi", "--games", "5", "--seat", "²=greedy"], "SEAT=STRATEGY"),
        (["run", "yuanzi", "--games", "5", "--seat", "0=greedy", "--seat", "0=random"], "twice"),
        (["run", "yuanzi", "--games", "5", "--chunk-size", "0"], "--chunk-size"),
        (["run", "atlas", "--games", "1000000000000000"], "at most"),
        (["run", "atlas", "--games", "100000000000", "--chunk-size", "1"], "raise --chunk-size"),
        (["replay", "atlas", "--game", "99999999999999999999"], "--game must be"),
        (["replay", "atlas", "--game", "1", "--assignment", "1"], "--assignment needs --from"),
    ],
)
def test_bad_input_is_one_clear_line_exit_2_and_writes_nothing(capsys, tmp_path, args, message):
    out = tmp_path / "run"
    if args[0] in ("run", "compare"):
        args = [*args, "--out", out, "--quiet"]
    code, _, err = cardsim(capsys, *args)
    assert code == 2, err
    assert message in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert not out.exists()


def test_unwritable_out_is_a_clear_error(capsys, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("keep me")
    code, _, err = cardsim(
        capsys, "run", "yuanzi", "--games", "5", "--out", blocker / "x", "--quiet"
    )
    assert code == 2 and "cannot write" in err and len(err.strip().splitlines()) == 1
    assert blocker.read_text() == "keep me"


def test_rules_and_strategies_list_every_option(capsys):
    from cardsim.sim.games import get_engine

    for game in ("yuanzi", "atlas"):
        engine = get_engine(game)
        code, out, _ = cardsim(capsys, "rules", game)
        assert code == 0
        for o in engine.rule_options:
            assert o.name in out and o.ruling in out
        code, out, _ = cardsim(capsys, "strategies", game)
        assert code == 0
        for s in engine.strategies:
            assert s.name in out


@pytest.mark.parametrize("game, extra", [("yuanzi", []), ("atlas", ["--players", "3"])])
def test_tables_identical_for_threads_and_chunk_sizes(capsys, tmp_path, game, extra):
    runs = [
        ("a", ["--threads", "1", "--chunk-size", "400"]),
        ("b", ["--threads", "2", "--chunk-size", "137"]),
    ]
    for name, opts in runs:
        code, _, err = cardsim(
            capsys,
            "run",
            game,
            "--games",
            "400",
            "--seed",
            "9",
            "--out",
            tmp_path / name,
            "--quiet",
            "--strategy",
            "random",
            *extra,
            *opts,
        )
        assert code == 0, err
    for a, b in zip(tables(tmp_path / "a"), tables(tmp_path / "b"), strict=True):
        assert_frame_equal(a, b)
        assert a.height > 0


def test_refuses_to_overwrite_and_leaves_results_intact(capsys, tmp_path):
    out = tmp_path / "run"
    assert cardsim(capsys, "run", "yuanzi", "--games", "50", "--out", out, "--quiet")[0] == 0
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    code, _, err = cardsim(capsys, "run", "yuanzi", "--games", "60", "--out", out, "--quiet")
    assert code == 2 and "not empty" in err
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    code, _, err = cardsim(
        capsys, "run", "yuanzi", "--games", "60", "--seed", "1", "--out", out, "--quiet", "--resume"
    )
    assert code == 2 and "different run" in err
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_resume_after_kill_9_equals_an_uninterrupted_run(tmp_path):
    """A real `cardsim run` process is killed with SIGKILL mid-run, then resumed."""
    args = [
        "run",
        "yuanzi",
        "--games",
        "6000",
        "--seed",
        "5",
        "--chunk-size",
        "300",
        "--strategy",
        "random",
        "--threads",
        "1",
        "--quiet",
    ]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    ref, out = tmp_path / "ref", tmp_path / "killed"
    subprocess.run([sys.executable, "-m", "cardsim", *args, "--out", str(ref)], check=True, env=env)
    proc = subprocess.Popen([sys.executable, "-m", "cardsim", *args, "--out", str(out)], env=env)
    deadline = time.time() + 120
    while time.time() < deadline:  # wait until a few chunks are done, then kill
        m = out / "manifest.json"
        if m.is_file():
            try:
                done = sum(c["status"] == "done" for c in json.loads(m.read_text())["chunks"])
            except (json.JSONDecodeError, KeyError):
                done = 0
            if done >= 3:
                break
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    manifest = json.loads((out / "manifest.json").read_text())
    done = sum(c["status"] == "done" for c in manifest["chunks"])
    assert 0 < done < len(manifest["chunks"]), "the kill must land mid-run"
    # atomic writes: every visible part file is complete and matches the manifest
    for c in manifest["chunks"]:
        for t in ("games", "seats"):
            p = out / t / f"part-{c['index']:05d}.parquet"
            if c["status"] == "done":
                assert pl.read_parquet(p).height == c["rows"][t]
    for p in (out / "games").glob("part-*.parquet"):
        pl.read_parquet(p)  # no truncated part under a final name
    subprocess.run(
        [sys.executable, "-m", "cardsim", *args, "--out", str(out), "--resume"], check=True, env=env
    )
    assert json.loads((out / "manifest.json").read_text())["status"] == "complete"
    for a, b in zip(tables(ref), tables(out), strict=True):
        assert_frame_equal(a, b)
    assert not list(out.rglob(".*tmp*"))


def test_user_strategy_that_does_not_compile_is_one_line_and_writes_nothing(capsys, tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text('def choose(own, played, pub, legal, n_legal, rng):\n    return "x" + {}\n')
    out = tmp_path / "run"
    code, _, err = cardsim(
        capsys,
        "run",
        "yuanzi",
        "--games",
        "5",
        "--seat",
        f"0={bad}:choose",
        "--out",
        out,
        "--quiet",
    )
    assert code == 2 and "user strategy" in err and "bad.py line 2" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not out.exists()


def test_force_refuses_a_directory_that_is_not_a_run(capsys, tmp_path):
    out = tmp_path / "mine"
    (out / "games").mkdir(parents=True)
    (out / "games" / "precious.txt").write_text("keep")
    code, _, err = cardsim(
        capsys, "run", "yuanzi", "--games", "5", "--out", out, "--force", "--quiet"
    )
    assert code == 2 and "not a cardsim run directory" in err
    assert (out / "games" / "precious.txt").read_text() == "keep"


def test_resume_rejects_a_comparison_directory_for_a_plain_run(capsys, tmp_path):
    out = tmp_path / "cmp"
    code, _, err = cardsim(
        capsys,
        "compare",
        "atlas",
        "--strategies",
        "greedy,random",
        "--games",
        "20",
        "--chunk-size",
        "10",
        "--out",
        out,
        "--quiet",
    )
    assert code == 0, err
    (out / "games" / "part-00001.parquet").unlink()
    code, _, err = cardsim(
        capsys,
        "run",
        "atlas",
        "--games",
        "20",
        "--chunk-size",
        "10",
        "--seat",
        "1=random",
        "--seat",
        "3=random",
        "--out",
        out,
        "--resume",
        "--quiet",
    )
    assert code == 2 and "different run" in err and "assignments" in err
    assert not (out / "games" / "part-00001.parquet").exists()


def test_replay_from_a_run_refuses_conflicting_options(capsys, tmp_path):
    out = tmp_path / "run"
    assert cardsim(capsys, "run", "yuanzi", "--games", "3", "--out", out, "--quiet")[0] == 0
    code, stdout, _ = cardsim(capsys, "replay", "yuanzi", "--from", out, "--game", "2")
    assert code == 0 and stdout.strip()
    code, _, err = cardsim(capsys, "replay", "yuanzi", "--from", out, "--game", "2", "--seed", "4")
    assert code == 2 and "--from takes the configuration" in err
    code, _, err = cardsim(capsys, "replay", "yuanzi", "--from", out, "--game", "3")
    assert code == 2 and "games 0..2" in err


def test_atlas_user_strategy_that_does_not_compile_is_one_line(capsys, tmp_path):
    bad = tmp_path / "bad_at.py"
    bad.write_text('def choose(dtype, hand, pub, options, n, rng):\n    return "x" + {}\n')
    out = tmp_path / "run"
    code, _, err = cardsim(
        capsys, "run", "atlas", "--games", "5", "--seat", f"0={bad}:choose", "--out", out, "--quiet"
    )
    assert code == 2 and "user strategy" in err and "bad_at.py line 2" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not out.exists()
