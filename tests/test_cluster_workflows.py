"""``--scheduler ADDRESS`` for study, tune and ladder (issue 21 item 4), on a REAL cluster: a
``dask scheduler`` process and two ``dask worker`` processes (subprocesses, no nanny), shared by
the module. Each command's tables equal a local run's; a worker killed mid-study changes
nothing (Dask replays its chunks elsewhere: a chunk is a pure function of its game indices).
Kept small (a few hundred games of fast strategies)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import polars as pl
import pytest
from cardsim.sim import runner
from polars.testing import assert_frame_equal

from cardsim.cli import main

pytest.importorskip("dask.distributed")
pytestmark = pytest.mark.heavy  # the heavy tier (docs/testing.md): a real cluster per module

STUDY = """
[study]
name = "cluster"

[[scenario]]
name = "yz-random"
game = "yuanzi"
games = 400
strategy = "random"
chunk_size = 100

[[scenario]]
name = "yz-cmp"
game = "yuanzi"
compare = ["random", "greedy"]
games = 60
chunk_size = 20

[[design]]
name = "d"
game = "yuanzi"
games = 100
strategy = "random"
chunk_size = 50
options = { pass_is_final = [false, true] }

[[ladder]]
name = "lad"
game = "atlas"
players = 3
levels = ["random", "greedy"]
games = 60
chunk_size = 20
"""


def _worker(scheduler_file: Path, log: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "dask", "worker", "--scheduler-file", str(scheduler_file),
         "--nthreads", "1", "--no-nanny", "--no-dashboard"],
        stdout=subprocess.DEVNULL,
        stderr=open(log, "ab"),  # noqa: SIM115 (the process keeps it)
        start_new_session=True,
    )  # fmt: skip


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """(address, scheduler file, tmp dir): a `dask scheduler` and two `dask worker` processes."""
    from dask.distributed import Client

    tmp = tmp_path_factory.mktemp("dask")
    sched_file = tmp / "scheduler.json"
    log = tmp / "dask.log"
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "dask",
                "scheduler",
                "--scheduler-file",
                str(sched_file),
                "--port",
                "0",
                "--no-dashboard",
            ],
            stdout=subprocess.DEVNULL,
            stderr=open(log, "ab"),  # noqa: SIM115 (the process keeps it)
            start_new_session=True,
        )  # fmt: skip
    ]
    try:
        for _ in range(600):
            if sched_file.is_file() and sched_file.stat().st_size:
                break
            time.sleep(0.1)
        procs += [_worker(sched_file, log) for _ in range(2)]
        with Client(scheduler_file=str(sched_file), timeout=60) as c:
            c.wait_for_workers(2, timeout=120)
            address = c.scheduler.address
        yield address, sched_file, tmp
    finally:  # the workers are killed (a graceful close waited 10 s each), then the scheduler
        for p in procs[1:]:
            if p.poll() is None:
                p.kill()
        procs[0].send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def cli(capsys, *args) -> str:
    with pytest.raises(SystemExit) as e:
        main(list(map(str, args)))
    out = capsys.readouterr()
    assert e.value.code == 0, out.err
    return out.out


def run_tables(run_dir: Path) -> list[pl.DataFrame]:
    keys = ("game", "assignment", "round", "seat")
    out = []
    for t in runner.TABLES:
        df = pl.read_parquet(run_dir / t / "*.parquet")
        out.append(df.sort([k for k in keys if k in df.columns]))
    return out


def assert_same_runs(a: Path, b: Path) -> int:
    """Every run directory under ``a`` has the same tables under ``b``; returns how many."""
    runs = sorted(p.parent.relative_to(a) for p in a.rglob(runner.MANIFEST))
    assert runs == sorted(p.parent.relative_to(b) for p in b.rglob(runner.MANIFEST))
    for r in runs:
        for x, y in zip(run_tables(a / r), run_tables(b / r), strict=True):
            assert_frame_equal(x, y)
    return len(runs)


def numbers(path: Path) -> dict:
    """A report's JSON without what names the folder or the time."""
    doc = json.loads(path.read_text())
    drop = {"generated", "created", "out", "html", "verify", "path"}

    def clean(v):
        if isinstance(v, dict):
            return {k: clean(x) for k, x in v.items() if k not in drop}
        if isinstance(v, list):
            return [clean(x) for x in v]
        if isinstance(v, str) and os.sep in v:
            return Path(v).name
        return v

    return clean(doc)


def assert_same_numbers(a: Path, b: Path) -> None:
    """Two reports' numbers agree (floats to 1e-9 relative: grouped sums may run in another
    order, as in tests/test_ladder.py's resume test)."""

    def same(x, y, where):
        if isinstance(x, dict) and isinstance(y, dict):
            assert set(x) == set(y), where
            for k in x:
                same(x[k], y[k], f"{where}/{k}")
        elif isinstance(x, list) and isinstance(y, list):
            assert len(x) == len(y), where
            for i, (p, q) in enumerate(zip(x, y, strict=True)):
                same(p, q, f"{where}[{i}]")
        elif isinstance(x, float) and isinstance(y, float):
            assert x == pytest.approx(y, rel=1e-9, nan_ok=True), where
        else:
            assert x == y, where

    same(numbers(a), numbers(b), a.name)


def test_study_on_a_dask_scheduler_equals_a_local_study(cluster, tmp_path, capsys):
    address, _, _ = cluster
    (tmp_path / "s.toml").write_text(STUDY)
    cli(capsys, "study", tmp_path / "s.toml", "--out", tmp_path / "local", "--quiet")
    cli(capsys, "study", tmp_path / "s.toml", "--out", tmp_path / "dask", "--quiet",
        "--scheduler", address)  # fmt: skip
    # scenarios, a comparison, the design's cells, the ladder's sub-runs
    assert assert_same_runs(tmp_path / "local", tmp_path / "dask") == 2 + 2 + 3
    for name in ("lad-ladder.json", "d-factorial.json"):
        assert_same_numbers(tmp_path / "local" / name, tmp_path / "dask" / name)


def test_ladder_on_a_dask_scheduler_equals_a_local_ladder(cluster, tmp_path, capsys):
    """A sequential ladder (--until-decided, two looks at most: the plain ladder is the study
    test's [[ladder]]): the same sub-runs, looks and report."""
    address, _, _ = cluster
    args = ["ladder", "yuanzi", "--levels", "random,greedy", "--games", 60, "--deals", 30,
            "--chunk-size", 30, "--until-decided", "--max-games", 120, "--quiet"]  # fmt: skip
    cli(capsys, *args, "--out", tmp_path / "local")
    cli(capsys, *args, "--out", tmp_path / "dask", "--scheduler", address)
    assert assert_same_runs(tmp_path / "local", tmp_path / "dask") == 3
    assert_same_numbers(tmp_path / "local" / "ladder.json", tmp_path / "dask" / "ladder.json")
    looks = [
        json.loads((tmp_path / d / "ladder-looks.json").read_text()) for d in ("local", "dask")
    ]
    for doc in looks:
        for x in doc["looks"]:
            x.pop("seconds")
    assert looks[0] == looks[1] and looks[0]["looks"]


def test_tune_on_a_dask_scheduler_equals_a_local_tune(cluster, tmp_path):
    from cardsim.workflows.tune import tune

    address, _, _ = cluster
    kw = dict(options="pass_is_final", budget=400, min_games=200, verify_games=200,
              strategy="random", progress=False)  # fmt: skip
    local = tune("yuanzi", "first_excess", out=tmp_path / "local", **kw)
    dask = tune("yuanzi", "first_excess", out=tmp_path / "dask", scheduler=address, **kw)
    assert local.best == dask.best and local.rungs == dask.rungs
    assert_same_numbers(tmp_path / "local" / "tune.json", tmp_path / "dask" / "tune.json")
    assert assert_same_runs(tmp_path / "local", tmp_path / "dask") == 2 + 2  # rung 0, verify


def test_a_worker_killed_mid_study_still_gives_the_local_tables(cluster, tmp_path, capsys):
    """A third worker joins, gets chunks, and is killed (SIGKILL) while it plays them: the
    scheduler hands its chunks to the other two, and the tables equal a local study's."""
    from dask.distributed import Client

    from cardsim.workflows.study import load_study, run_study

    address, sched_file, tmp = cluster
    study = tmp_path / "s.toml"
    study.write_text(
        '[[scenario]]\nname = "a"\ngame = "yuanzi"\ngames = 6000\nstrategy = "greedy"\n'
        'chunk_size = 300\n\n[[scenario]]\nname = "b"\ngame = "yuanzi"\ngames = 1200\n'
        'strategy = "random"\nchunk_size = 100\n'
    )
    run_study(load_study(study), tmp_path / "local", progress=False)
    with Client(address, timeout=30) as c:
        before = set(c.scheduler_info()["workers"])
        extra = _worker(sched_file, tmp / "extra.log")
        c.wait_for_workers(len(before) + 1, timeout=120)
        (victim,) = set(c.scheduler_info()["workers"]) - before
        killed = threading.Event()

        def watch():  # kill the extra worker while it holds chunks of the study
            while extra.poll() is None and not killed.is_set():
                try:
                    busy = c.processing(workers=[victim]).get(victim)
                except Exception:
                    busy = None
                if busy:
                    os.kill(extra.pid, signal.SIGKILL)
                    killed.set()
                    return
                time.sleep(0.01)

        t = threading.Thread(target=watch, daemon=True)
        t.start()
        try:
            run_study(load_study(study), tmp_path / "dask", progress=False, scheduler=address)
        finally:
            stop_watching = not killed.is_set()
            killed.set()
            t.join(5)
            if extra.poll() is None:
                extra.kill()
            extra.wait(10)
        assert not stop_watching, "the extra worker never got a chunk to be killed in"
        for _ in range(100):  # the scheduler notices the loss
            if victim not in c.scheduler_info()["workers"]:
                break
            time.sleep(0.1)
        assert victim not in c.scheduler_info()["workers"]
    assert assert_same_runs(tmp_path / "local", tmp_path / "dask") == 2
    assert not any((tmp_path / "dask").rglob("*.tmp-*"))


def test_unreachable_scheduler_for_a_study_writes_nothing(tmp_path, capsys):
    (tmp_path / "s.toml").write_text(STUDY)
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as e:
        main(["study", str(tmp_path / "s.toml"), "--out", str(out), "--quiet",
              "--scheduler", "tcp://127.0.0.1:9"])  # fmt: skip
    err = capsys.readouterr().err
    assert e.value.code == 2 and len(err.strip().splitlines()) == 1, err
    assert "--scheduler tcp://127.0.0.1:9: cannot connect" in err
    assert not out.exists()
    with pytest.raises(SystemExit) as e:
        main(["tune", "yuanzi", "--objective", "first_excess", "--out", str(out), "--scheduler",
              "nowhere"])  # fmt: skip
    err = capsys.readouterr().err
    assert e.value.code == 2 and "expected local:N or a scheduler address" in err, err
    assert not out.exists()


def test_sweep_on_a_dask_scheduler_equals_a_local_sweep(cluster, tmp_path):
    """issue 47 item 5: a sweep's runs (and its confirmation run) on the cluster are a local
    sweep's, and so are its curves and targets."""
    from cardsim.workflows.sweep import run_sweep
    from cardsim.workflows.sweep_plan import build_sweep

    address, _, _ = cluster
    sw = build_sweep("atlas", ["hand_size=7..11/2"], games=150, players=3,
                     targets=["length=45"])  # fmt: skip
    run_sweep(sw, tmp_path / "local", progress=False)
    run_sweep(sw, tmp_path / "dask", progress=False, scheduler=address)
    assert assert_same_runs(tmp_path / "local", tmp_path / "dask") >= 3
    assert_same_numbers(tmp_path / "local" / "sweep.json", tmp_path / "dask" / "sweep.json")
