"""sim/warmup.py: the first run compiles every game's kernels at once, in separate processes,
after one notice naming what compiles and roughly how long; a study waits for a game's
kernels before its first scenario. (How fast that is is measured, not tested: README.)"""

import subprocess
import sys
import time
from pathlib import Path

import pytest
from cardsim.sim import warmup
from cardsim.sim.config import build_config
from cardsim.sim.games import get_engine

from cardsim.workflows.study import parse_study, run_study

ROOT = Path(__file__).resolve().parents[1]


def pretend_compiler(tmp_path):
    """A command for the compile processes: it says it started, then waits to be released."""

    def command(game, purpose):
        code = (
            "import pathlib, sys, time\n"
            "d = pathlib.Path(sys.argv[1]); d.mkdir(exist_ok=True); (d / 'started').touch()\n"
            "t = time.time()\n"
            "while not (d / 'release').exists() and time.time() - t < 60: time.sleep(0.01)\n"
            "(d / 'done').write_text(str((d / 'release').exists()))\n"
        )
        return [sys.executable, "-c", code, str(tmp_path / f"{game}-{purpose}")]

    return command


@pytest.fixture
def nothing_cached(monkeypatch, tmp_path):
    """Nothing cached; compiling 'here' waits until every other game's process has started
    (so it can finish only if they compile at the same time), then releases them."""
    monkeypatch.setattr(warmup, "is_cached", lambda game, purpose="run": False)
    compiled_here = []

    def compile_here(game, purpose="run"):
        others = [d for d in tmp_path.iterdir() if d.is_dir() and d.name != f"{game}-{purpose}"]
        t = time.time()
        while not all((d / "started").exists() for d in others) and time.time() - t < 60:
            time.sleep(0.01)
        compiled_here.append((game, purpose, all((d / "started").exists() for d in others)))
        for d in others:
            (d / "release").touch()
        return 0.0

    monkeypatch.setattr(warmup, "compile_here", compile_here)
    monkeypatch.setattr(  # a split compile is tested on its own (below)
        warmup, "compile_split", lambda game, command=None: compiled_here.append((game, "split"))
    )
    return compiled_here


def configs(*games):
    return [build_config(get_engine(g), games=10, seed=0) for g in games]


def test_both_games_compile_at_once_after_one_notice(tmp_path, nothing_cached):
    said = []
    compiling = warmup.start(
        configs("yuanzi", "yuanzi", "atlas"),
        say=said.append,
        command=pretend_compiler(tmp_path),
        cores=2,
    )
    assert len(said) == 1 and not nothing_cached  # the notice comes before any compiling
    assert said[0].startswith("compiling the kernels of 原子 and ATLAS (first run only")
    slowest = max(warmup.compile_seconds(g, "run") for g in ("yuanzi", "atlas"))
    # 原子 here, its split's side process, ATLAS
    assert f"3 processes at once: {warmup._about(slowest)}" in said[0]
    (tmp_path / "atlas-run").mkdir()  # where the ATLAS process will say it started
    compiling.wait("yuanzi")  # the first game compiles here, while ATLAS compiles elsewhere
    compiling.wait("atlas")
    # its split share first, then the driver, while ATLAS had started meanwhile
    assert nothing_cached == [("yuanzi", "split"), ("yuanzi", "run", True)]
    assert (tmp_path / "atlas-run" / "done").read_text() == "True"  # and was released by it


def test_cached_kernels_and_user_strategies_compile_nothing_here(tmp_path, monkeypatch):
    monkeypatch.setattr(warmup, "is_cached", lambda game, purpose="run": True)
    said = []
    c = warmup.start(
        configs("yuanzi", "atlas"), say=said.append, command=pretend_compiler(tmp_path)
    )
    assert said == [] and not c.here and not c.processes
    user = build_config(
        get_engine("yuanzi"),
        games=5,
        seed=0,
        seat_strategies={0: "examples/yuanzi_strategy.py:choose"},
    )
    monkeypatch.setattr(warmup, "is_cached", lambda game, purpose="run": False)
    assert not warmup.start([user], say=said.append).here  # its own driver: the runner's job
    # issue 19 #15: no "user strategies are not cached" — the user driver is cached, and
    # cardsim.sim.user_strategies announces its compile only when it happens
    assert warmup.notice_for(user) is None


@pytest.mark.heavy
def test_a_cached_user_driver_is_announced_by_nothing(tmp_path):
    """Issue 19 #15, a real process: the second run with an unchanged user strategy file says
    nothing about compiling (the first may compile it, and then says so)."""
    cmd = [sys.executable, "-m", "cardsim", "run", "yuanzi", "--games", "2",
           "--seat", "0=examples/yuanzi_strategy.py:choose"]  # fmt: skip
    runs = [
        subprocess.run(
            [*cmd, "--out", str(tmp_path / f"r{i}")],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=900,
        )  # fmt: skip
        for i in range(2)
    ]
    assert all(r.returncode == 0 for r in runs), runs[0].stderr + runs[1].stderr
    assert "compil" not in runs[1].stderr and "not cached" not in runs[0].stderr


def test_a_later_game_compiles_in_its_own_process_while_the_first_plays(tmp_path, monkeypatch):
    monkeypatch.setattr(warmup, "is_cached", lambda game, purpose="run": game == "yuanzi")
    said = []
    c = warmup.start(
        configs("yuanzi", "atlas"), say=said.append, command=pretend_compiler(tmp_path)
    )
    assert not c.here and set(c.processes) == {("atlas", "run")}  # not deferred to its turn
    assert said[0].startswith("compiling the kernels of ATLAS (first run only")
    (tmp_path / "atlas-run" / "release").parent.mkdir(exist_ok=True)
    (tmp_path / "atlas-run" / "release").touch()
    c.wait("atlas")
    assert (tmp_path / "atlas-run" / "done").read_text() == "True"


def test_a_failed_compile_process_leaves_the_compiling_to_the_run(tmp_path, nothing_cached):
    def failing(game, purpose):
        return [sys.executable, "-c", "import sys; sys.exit('no compiler here')"]

    c = warmup.start(configs("yuanzi", "atlas"), command=failing)
    c.wait("atlas")  # no error here: the run compiles in-process and shows any real error
    assert c.failed == {("atlas", "run"): "no compiler here"}
    c.close()


def test_close_stops_a_compile_process_still_running(tmp_path, nothing_cached):
    def slow(game, purpose):
        return [sys.executable, "-c", "import time; time.sleep(60)"]

    c = warmup.start(configs("yuanzi", "atlas"), command=slow)
    proc = c.processes[("atlas", "run")]
    c.close()
    assert proc.poll() is not None and not c.processes


def test_a_study_compiles_every_game_it_will_play_at_once_and_waits_before_each(
    tmp_path, monkeypatch
):
    calls = []

    class Recorder:
        def wait(self, game, purpose="run"):
            calls.append(("wait", game))

        def close(self):
            calls.append(("close",))

    def start(configs, *, say=None, **kw):
        calls.append(("start", [c.game for c in configs]))
        return Recorder()

    monkeypatch.setattr(warmup, "start", start)
    played = []
    from cardsim.sim import runner

    def fake_run(config, out, **kw):
        played.append(config.game)
        calls.append(("run", config.game))
        return runner.RunResult(out, {}, config.games, 0.0)

    monkeypatch.setattr(runner, "run", fake_run)
    study = parse_study(
        "[[scenario]]\nname='a'\ngame='yuanzi'\ngames=5\n"
        "[[scenario]]\nname='b'\ngame='atlas'\ngames=5\n"
        "[[scenario]]\nname='c'\ngame='yuanzi'\ngames=5\n"
    )
    run_study(study, tmp_path / "s", progress=False, report=False)
    assert calls == [
        ("start", ["yuanzi", "atlas", "yuanzi"]),  # once, before the first scenario plays
        ("wait", "yuanzi"), ("run", "yuanzi"),
        ("wait", "atlas"), ("run", "atlas"),
        ("wait", "yuanzi"), ("run", "yuanzi"),
        ("close",),
    ]  # fmt: skip


def test_the_notice_estimates_from_the_measured_compile_times():
    jobs = [("yuanzi", "run"), ("atlas", "run")]
    both = warmup.compile_seconds("yuanzi", "run") + warmup.compile_seconds("atlas", "run")
    assert warmup.estimate_seconds(jobs, cores=1) == both
    assert warmup.estimate_seconds(jobs, cores=2) == max(
        warmup.compile_seconds(g, "run") for g in ("yuanzi", "atlas")
    )
    assert warmup.notice(jobs, cores=1).endswith(warmup._about(both))
    # the side process of a split is counted only for the job that compiles here
    assert ", 3 processes at once" in warmup.notice(jobs)
    assert ", 2 processes at once" in warmup.notice(jobs, here=("atlas", "run"))
    assert ", 2 processes at once" in warmup.notice(jobs, here=("", ""))
    assert warmup.notice([("atlas", "replay")]).startswith(
        "compiling the replay kernels of ATLAS (first replay only"
    )


def test_the_compile_process_command_line(capsys):
    assert warmup.main([]) == 2 and "usage" in capsys.readouterr().err
    assert warmup.main(["chess"]) == 2
    assert warmup.main(["atlas", "soon"]) == 2
    assert warmup.main(["atlas", "side"]) == 0  # a game without a split: nothing to do
    assert warmup.main(["yuanzi", "side"]) == 0  # 原子's side share (loaded if cached)


def test_a_split_compile_runs_its_own_share_while_the_side_process_compiles(tmp_path, monkeypatch):
    """``Warmup.split``: the side share starts in a process of its own ("side"), this process
    compiles its own share meanwhile, then waits for the side before the driver compiles."""
    from cardsim.sim.game import Warmup

    split = Warmup("X", {}, {}, split=(("m", "side"), ("m", "own")))
    monkeypatch.setattr(warmup, "_warmup", lambda game: split)
    monkeypatch.setattr(warmup, "is_cached", lambda game, purpose="run": False)
    side = tmp_path / "yuanzi-side"
    seen = []

    def own():  # runs while the side process is up; releases it once it has started
        t = time.time()
        while not (side / "started").exists() and time.time() - t < 60:
            time.sleep(0.01)
        seen.append((side / "started").exists() and not (side / "done").exists())
        (side / "release").touch()

    monkeypatch.setattr(warmup, "_function", lambda where: own if where == ("m", "own") else None)
    assert warmup.compile_split("yuanzi", pretend_compiler(tmp_path)) > 0
    assert seen == [True] and (side / "done").read_text() == "True"  # waited for the side
    monkeypatch.setattr(warmup, "is_cached", lambda game, purpose="run": True)
    assert warmup.compile_split("yuanzi", pretend_compiler(tmp_path)) == 0.0  # cached: nothing


def test_a_hung_side_process_is_stopped_and_leaves_the_compiling_to_the_driver(monkeypatch):
    from cardsim.sim.game import Warmup

    split = Warmup("X", {}, {}, split=(("m", "side"), ("m", "own")))
    monkeypatch.setattr(warmup, "_warmup", lambda game: split)
    monkeypatch.setattr(warmup, "is_cached", lambda game, purpose="run": False)
    monkeypatch.setattr(warmup, "_function", lambda where: lambda: None)
    monkeypatch.setattr(warmup, "SIDE_TIMEOUT_S", 0.5)
    procs = []
    real_popen = subprocess.Popen

    def popen(*a, **kw):
        procs.append(real_popen(*a, **kw))
        return procs[-1]

    monkeypatch.setattr(subprocess, "Popen", popen)
    hang = [sys.executable, "-c", "import time; time.sleep(60)"]
    assert warmup.compile_split("yuanzi", lambda game, purpose: hang) < 30
    assert len(procs) == 1 and procs[0].poll() is not None  # stopped, not left running


def test_a_split_declares_the_types_the_driver_calls_its_kernels_with():
    """原子's split (``compile_side``, ``compile_own``) compiles each kernel with the exact
    types the play loop calls it with: after them, a game of every built-in compiles no second
    specialization (which would compile the kernel twice on a first run)."""
    from cardsim.kernels.yuanzi import driver

    w = get_engine("yuanzi").warmup
    assert w.split == (
        ("cardsim.kernels.yuanzi.driver", "compile_side"),
        ("cardsim.kernels.yuanzi.driver", "compile_own"),
    )
    driver.compile_side()
    driver.compile_own()
    engine = get_engine("yuanzi")
    seats = {0: "greedy:eps=0.1", 1: "points", 2: "bomber", 3: "soft:temp=1"}
    engine.play_chunk(build_config(engine, games=20, seed=0, seat_strategies=seats), 0, 20)
    for fn in (driver.choose_builtin, driver.choose_level, driver.legal_call):
        assert len(fn.signatures) == 1, (fn, fn.signatures)


@pytest.mark.parametrize("game", ["yuanzi", "atlas"])
def test_compiled_kernels_are_seen_in_the_cache(game):
    warmup.compile_here(game)  # compiles, or loads what an earlier test compiled
    assert warmup.is_cached(game, "run")
    assert warmup.notice_for(build_config(get_engine(game), games=1, seed=0)) is None
