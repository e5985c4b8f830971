"""Runs that cannot be corrupted (issue 11): one writer, safe --force, crash safety at creation,
checks before writing, clean OS errors, prompt Ctrl-C, replay checksums, validated manifests,
outputs that never overwrite inputs, one-line errors and consistent parsing.

Where a point is about processes, real ``cardsim`` processes are used (kill -9, SIGINT,
SIGTERM, two concurrent writers, a file-size limit, a small tmpfs).
"""

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from cardsim.sim import rundir, runner
from cardsim.sim.config import build_config
from cardsim.sim.errors import CardsimError
from polars.testing import assert_frame_equal

from tests import hung_strategy
from tests.fake_engine import FakeEngine

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONUNBUFFERED": "1", "NUMBA_NUM_THREADS": "1"}


def cardsim(capsys, *args):
    from cardsim.cli import main

    with pytest.raises(SystemExit) as e:
        main(list(map(str, args)))
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


def one_line_error(code, err, message):
    assert code == 2, err
    assert message in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err


def cli_proc(*args, **kw):
    return subprocess.Popen(
        [sys.executable, "-m", "cardsim", *map(str, args)],
        env=ENV,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kw,
    )


def tables(out: Path):
    return [
        pl.read_parquet(out / t / "*.parquet").sort(
            [
                c
                for c in ("game", "assignment", "seat")
                if c in pl.read_parquet_schema(next((out / t).glob("*.parquet")))
            ]
        )  # fmt: skip
        for t in rundir.TABLES
    ]


def snapshot(d: Path) -> dict:
    return {p: p.read_bytes() for p in d.rglob("*") if p.is_file() and p.name != rundir.LOCK}


def fake_config(games=400, seed=3):
    return build_config(FakeEngine(), games=games, seed=seed)


def fake_run(out, games=400, chunk_size=100, **kw):
    return runner.run(
        fake_config(games), out, chunk_size=chunk_size, progress=False, engine=FakeEngine(), **kw
    )


RUN = ["run", "yuanzi", "--strategy", "random", "--threads", "1", "--quiet"]


# --- 1. one writer per directory -------------------------------------------------------------


def test_1_a_locked_directory_refuses_a_second_writer_and_report_warns(tmp_path):
    out = tmp_path / "run"
    fake_run(out, games=200)
    rundir.part_path(out, "games", 1).unlink()  # something for --resume to do
    before = snapshot(out)
    with rundir.RunLock.acquire(out):  # as a running writer holds it
        assert rundir.writer_pid(out) == os.getpid()
        with pytest.raises(CardsimError, match="being written by another cardsim process"):
            runner.run(
                fake_config(200), out, chunk_size=100, resume=True, progress=False,
                engine=FakeEngine(),
            )  # fmt: skip
        with pytest.raises(CardsimError, match="being written by another cardsim process"):
            fake_run(out, games=300, force=True)
        from cardsim.analysis.io import open_run

        assert any("is writing this run now" in w for w in open_run(out).warnings)
    assert snapshot(out) == before
    assert rundir.writer_pid(out) is None


@pytest.mark.heavy
def test_1_two_concurrent_cardsim_runs_on_one_directory(tmp_path):
    """Two real processes, seeds 1 and 2, one --out: one writes, the other is refused."""
    out = tmp_path / "run"
    args = [*RUN, "--games", "30000", "--chunk-size", "3000", "--out", out]
    a = cli_proc(*args, "--seed", "1")
    b = cli_proc(*args, "--seed", "2")
    results = [(p.wait(300), p.stderr.read()) for p in (a, b)]
    codes = sorted(rc for rc, _ in results)
    assert codes == [0, 2], results
    loser = next(err for rc, err in results if rc == 2)
    assert "Traceback" not in loser and len(loser.strip().splitlines()) == 1, loser
    assert "another" in loser or "not empty" in loser, loser
    m = rundir.read_manifest(out)
    assert m["status"] == "complete"
    for c in m["chunks"]:  # every part belongs to the run the manifest describes
        for t in rundir.TABLES:
            meta = rundir.read_part_metadata(rundir.part_path(out, t, c["index"]))
            assert meta["seed"] == m["seed"] and meta["chunk_index"] == c["index"]
    code = subprocess.run(
        [sys.executable, "-m", "cardsim", *map(str, args), "--seed", str(m["seed"]), "--resume"],
        env=ENV, cwd=ROOT, capture_output=True,
    ).returncode  # fmt: skip
    assert code == 0


def test_1_resume_redoes_a_part_of_another_run_even_with_its_checksum_recorded(tmp_path):
    """The mixture the issue found: a seed-1 part whose sha256 the manifest records."""
    a, b = tmp_path / "a", tmp_path / "b"
    runner.run(fake_config(200, seed=1), a, chunk_size=100, progress=False, engine=FakeEngine())
    runner.run(fake_config(200, seed=2), b, chunk_size=100, progress=False, engine=FakeEngine())
    ref = tables(b)
    for t in rundir.TABLES:
        shutil.copy(rundir.part_path(a, t, 1), rundir.part_path(b, t, 1))
    m = json.loads((b / "manifest.json").read_text())
    for t in rundir.TABLES:
        m["chunks"][1]["sha256"][t] = rundir.sha256_of(rundir.part_path(b, t, 1))
    m["status"] = "running"
    (b / "manifest.json").write_text(json.dumps(m))
    engine = FakeEngine()
    runner.run(fake_config(200, seed=2), b, resume=True, progress=False, engine=engine)
    assert (100, 100) in engine.calls or any(f >= 100 for f, _ in engine.calls[1:])
    for x, y in zip(ref, tables(b), strict=True):
        assert_frame_equal(x, y)


# --- 2. --force only over a real run, deleting only cardsim's files ---------------------------


def test_2_force_refuses_a_foreign_manifest_and_deletes_only_cardsim_files(tmp_path):
    foreign = tmp_path / "foreign"
    (foreign / "games").mkdir(parents=True)
    (foreign / "manifest.json").write_text('{"my": "own notes"}')
    (foreign / "games" / "data.csv").write_text("keep")
    before = snapshot(foreign)
    with pytest.raises(CardsimError, match="--force.*refusing to delete anything"):
        fake_run(foreign, force=True)
    assert snapshot(foreign) == before

    out = tmp_path / "run"
    fake_run(out, games=400)
    (out / "games" / "notes.txt").write_text("mine")
    (out / "README").write_text("mine too")
    fake_run(out, games=200, force=True)
    assert (out / "games" / "notes.txt").read_text() == "mine"
    assert (out / "README").read_text() == "mine too"
    parts = sorted(p.name for p in (out / "games").glob("part-*.parquet"))
    assert parts == ["part-00000.parquet", "part-00001.parquet"]  # old parts 2, 3 gone
    assert rundir.read_manifest(out)["games"] == 200


def test_2_a_cardsim_0_1_run_is_recognised_but_not_mixed_with_schema_v2(tmp_path):
    out = tmp_path / "old"
    fake_run(out, games=200)
    m = json.loads((out / "manifest.json").read_text())
    for k in ("format", "manifest_version"):
        m.pop(k)
    m["status"], m["cardsim_version"] = "running", "0.1.0"  # as cardsim 0.1 wrote it
    (out / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(CardsimError, match="cardsim 0.1.*--force"):
        fake_run(out, games=200, resume=True)
    fake_run(out, games=200, force=True)  # a validated 0.1 manifest is a run: --force works
    assert rundir.read_manifest(out)["format"] == rundir.FORMAT


# --- 3. crash at creation: every intermediate state is recoverable ----------------------------


@pytest.mark.parametrize("state", ["sibling", "lock_only", "lock_and_temp", "empty_tables"])
def test_3_every_intermediate_state_of_creation_is_reusable(tmp_path, state):
    out = tmp_path / "run"
    if state == "sibling":  # killed before the rename: only a temporary sibling exists
        sib = tmp_path / ".run.new-999999"
        sib.mkdir()
        (sib / rundir.LOCK).write_text("999999\n")
        (sib / ".manifest.json.tmp-999999").write_text('{"half')
    else:
        out.mkdir()
        (out / rundir.LOCK).write_text("999999\n")
        if state == "lock_and_temp":
            (out / ".manifest.json.tmp-999999").write_text('{"half')
        if state == "empty_tables":
            (out / "games").mkdir()
            (out / "games" / ".part-00000.parquet.tmp-999999").write_bytes(b"PAR1")
    fake_run(out, games=200)  # no --force needed, and no "not a cardsim run directory"
    assert rundir.read_manifest(out)["status"] == "complete"
    assert not list(out.rglob("*.tmp-*"))
    assert not list(tmp_path.glob(".run.new-*"))


@pytest.mark.heavy
def test_3_kill_9_at_the_moment_of_creation(tmp_path):
    """Real processes killed with SIGKILL as soon as anything of the run appears on disk."""
    ref = tmp_path / "ref"
    args = [*RUN, "--games", "2000", "--chunk-size", "500", "--seed", "4"]
    assert subprocess.run(
        [sys.executable, "-m", "cardsim", *map(str, args), "--out", str(ref)], env=ENV, cwd=ROOT
    ).returncode == 0  # fmt: skip
    seen = set()
    for attempt in range(4):
        out = tmp_path / f"k{attempt}"
        p = cli_proc(*args, "--out", out)
        deadline = time.time() + 120
        while time.time() < deadline and p.poll() is None:
            if out.exists() or (attempt < 2 and list(tmp_path.glob(f".{out.name}.new-*"))):
                break  # attempts 0, 1: the temporary sibling; 2, 3: the directory itself
            time.sleep(0.0002)
        assert p.poll() is None, "the kill must land while the run is being created"
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        state = sorted(x.name for x in out.iterdir()) if out.exists() else ["(no directory)"]
        seen.add(tuple(state))
        # the same command (no --force) works, whatever the kill left
        done = subprocess.run(
            [sys.executable, "-m", "cardsim", *map(str, args), "--out", str(out), "--resume"],
            env=ENV, cwd=ROOT, capture_output=True, text=True,
        )  # fmt: skip
        assert done.returncode == 0, (state, done.stderr)
        for a, b in zip(tables(ref), tables(out), strict=True):
            assert_frame_equal(a, b)
        assert not list(tmp_path.glob(f".{out.name}.new-*"))
    print("states left by kill -9 at creation:", seen)


# --- 4. what can fail before the first game is checked before anything is written -------------


@pytest.mark.heavy
def test_4_unreachable_scheduler_leaves_nothing(capsys, tmp_path):
    pytest.importorskip("dask.distributed")
    out = tmp_path / "run"
    code, _, err = cardsim(
        capsys, *RUN, "--games", "10", "--out", out, "--scheduler", "tcp://127.0.0.1:9"
    )
    one_line_error(code, err, "cannot connect")
    assert not out.exists()
    code, _, err = cardsim(capsys, *RUN, "--games", "10", "--out", out)  # same command works
    assert code == 0, err


def test_4_missing_dask_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # import fails as if absent
    out = tmp_path / "run"
    with pytest.raises(CardsimError, match="needs dask.distributed"):
        fake_run(out, scheduler="local:1")
    assert not out.exists()


# --- 5. OS errors: one line naming the path and the cause; the run stays resumable ------------


def _limit_file_size(limit):
    def pre():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return pre


@pytest.mark.heavy
def test_5_file_size_limit_is_one_line_and_resume_gives_the_uninterrupted_tables(tmp_path):
    ref, out = tmp_path / "ref", tmp_path / "run"
    args = [*RUN, "--games", "1200", "--chunk-size", "400", "--seed", "8"]
    assert subprocess.run(
        [sys.executable, "-m", "cardsim", *map(str, args), "--out", str(ref)], env=ENV, cwd=ROOT
    ).returncode == 0  # fmt: skip
    part = rundir.part_path(ref, "seats", 0).stat().st_size
    limited = subprocess.run(
        [sys.executable, "-m", "cardsim", *map(str, args), "--out", str(out)],
        env=ENV, cwd=ROOT, capture_output=True, text=True,
        preexec_fn=_limit_file_size(part // 2),
    )  # fmt: skip
    one_line_error(limited.returncode, limited.stderr, "File too large")
    assert "part-00000.parquet" in limited.stderr and "EFBIG" in limited.stderr
    assert rundir.read_manifest(out)["status"] == "running"  # valid, resumable
    done = subprocess.run(
        [sys.executable, "-m", "cardsim", *map(str, args), "--out", str(out), "--resume"],
        env=ENV, cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    for a, b in zip(tables(ref), tables(out), strict=True):
        assert_frame_equal(a, b)
    assert not list(out.rglob("*.tmp-*"))


@pytest.mark.heavy
def test_5_disk_full_on_a_small_tmpfs_then_resume(tmp_path):
    """ENOSPC on a real 1 MiB tmpfs (in a private mount namespace), then --resume after
    freeing space gives the uninterrupted tables."""
    if (
        not shutil.which("unshare")
        or subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode
    ):
        pytest.skip("cannot make a private mount namespace here")
    ref = tmp_path / "ref"
    args = [*RUN, "--games", "3000", "--chunk-size", "500", "--seed", "6"]
    cmd = " ".join([sys.executable, "-m", "cardsim", *map(str, args)])
    assert subprocess.run(f"{cmd} --out {ref}", shell=True, env=ENV, cwd=ROOT).returncode == 0
    size = sum(p.stat().st_size for p in ref.rglob("*.parquet"))
    mnt, copy = tmp_path / "mnt", tmp_path / "copy"
    mnt.mkdir()
    script = f"""
set -u
mount -t tmpfs -o size=1m tmpfs {mnt} || exit 77
head -c $((1024*1024 - {size // 2})) /dev/zero > {mnt}/filler 2>/dev/null
{cmd} --out {mnt}/run 2> {tmp_path}/full.err; echo $? > {tmp_path}/full.rc
cp -a {mnt}/run {tmp_path}/at_full
rm {mnt}/filler
{cmd} --out {mnt}/run --resume 2> {tmp_path}/resume.err; echo $? > {tmp_path}/resume.rc
cp -a {mnt}/run {copy}
"""
    r = subprocess.run(["unshare", "-m", "sh", "-c", script], env=ENV, cwd=ROOT)
    if r.returncode == 77:
        pytest.skip("cannot mount a tmpfs here")
    err = (tmp_path / "full.err").read_text()
    one_line_error(int((tmp_path / "full.rc").read_text()), err, "No space left on device")
    assert "ENOSPC" in err and "/run/" in err
    rundir.read_manifest(tmp_path / "at_full")  # the manifest left behind is valid
    assert (tmp_path / "resume.rc").read_text().strip() == "0", (
        tmp_path / "resume.err"
    ).read_text()
    for a, b in zip(tables(ref), tables(copy), strict=True):
        assert_frame_equal(a, b)


def test_5_over_long_names_are_one_line(capsys, tmp_path):
    long = tmp_path / ("x" * 300)
    code, _, err = cardsim(capsys, *RUN, "--games", "5", "--out", long)
    one_line_error(code, err, "File name too long")
    run_dir = tmp_path / "ok"
    assert cardsim(capsys, *RUN, "--games", "30", "--out", run_dir)[0] == 0
    code, _, err = cardsim(capsys, "report", run_dir, "--out", tmp_path / ("y" * 300 + ".html"))
    one_line_error(code, err, "File name too long")


def test_5_immutable_directory_during_resume_is_one_line(capsys, tmp_path):
    out = tmp_path / "run"
    assert cardsim(capsys, *RUN, "--games", "40", "--chunk-size", "20", "--out", out)[0] == 0
    rundir.part_path(out, "games", 1).unlink()
    if subprocess.run(["chattr", "+i", str(out / "games")], capture_output=True).returncode:
        pytest.skip("chattr +i is not available here")
    try:
        code, _, err = cardsim(
            capsys, *RUN, "--games", "40", "--chunk-size", "20", "--out", out, "--resume"
        )
    finally:
        subprocess.run(["chattr", "-i", str(out / "games")])
    one_line_error(code, err, "Operation not permitted")
    assert "games" in err
    code, _, err = cardsim(
        capsys, *RUN, "--games", "40", "--chunk-size", "20", "--out", out, "--resume"
    )
    assert code == 0, err


# --- 7. Ctrl-C / SIGTERM stop a run promptly at any moment, leaving it resumable --------------


@pytest.mark.parametrize(
    "sig", [signal.SIGINT, pytest.param(signal.SIGTERM, marks=pytest.mark.heavy)]
)
def test_7_signal_during_a_long_kernel_call_exits_promptly(tmp_path, sig):
    """A chunk of 200,000 games is minutes of kernel work; the signal lands mid-chunk."""
    out = tmp_path / "run"
    p = cli_proc(*RUN, "--games", "400000", "--chunk-size", "200000", "--out", out)
    deadline = time.time() + 180
    while time.time() < deadline and not (out / rundir.MANIFEST).exists():
        time.sleep(0.05)
    time.sleep(2.0)  # well inside the first chunk's kernel calls
    assert p.poll() is None
    t0 = time.monotonic()
    p.send_signal(sig)
    p.wait(30)  # generous bound; the measured time is printed
    seconds = time.monotonic() - t0
    print(f"{signal.Signals(sig).name} to exit: {seconds:.3f} s")
    err = p.stderr.read()
    assert p.returncode == 128 + sig, err
    assert "resumable" in err and "Traceback" not in err
    m = rundir.read_manifest(out)
    assert m["status"] == "running" and rundir.writer_pid(out) is None


def test_7_a_hung_user_strategy_is_ended_by_ctrl_c_with_its_name(tmp_path):
    """The strategy prints (Numba's print) and then never returns; Ctrl-C once it loops."""
    hang = hung_strategy.write(tmp_path)
    out = tmp_path / "run"
    p = cli_proc(*RUN, "--games", "10", "--seat", f"0={hang}:choose", "--out", out)
    hung_strategy.wait_until_looping(p)
    time.sleep(1.0)
    assert p.poll() is None
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    p.wait(30)
    print(f"SIGINT to exit with a hung user strategy: {time.monotonic() - t0:.3f} s")
    err = p.stderr.read()
    assert p.returncode == 130 and "Traceback" not in err, err
    assert f"user strategy {hang}:choose" in err and "stuck in a loop" in err, err
    assert "nothing was written" in err and not out.exists()


def test_7_a_slow_user_strategy_gets_a_notice_naming_it(tmp_path, monkeypatch, capsys):
    from dataclasses import replace

    f = tmp_path / "slow.py"
    f.write_text("def choose(): pass\n")

    class SlowEngine(FakeEngine):
        def play_chunk(self, config, first, count):
            if first > 0:
                time.sleep(0.6)
            return super().play_chunk(replace(config, seats=("greedy",) * 4), first, count)

    monkeypatch.setattr(runner, "STUCK_NOTICE_SECONDS", 0.2)
    cfg = replace(fake_config(40), seats=(f"{f}:choose",) * 4)
    runner.run(cfg, tmp_path / "run", chunk_size=20, progress=True, engine=SlowEngine())
    err = capsys.readouterr().err
    assert "have been playing for" in err and f"user strategy {f}:choose" in err, err


# --- 8. replay checks the strategy file's checksum --------------------------------------------


def test_8_replay_from_refuses_an_edited_strategy_file(capsys, tmp_path):
    out = tmp_path / "run"
    assert cardsim(capsys, *RUN, "--games", "3", "--out", out)[0] == 0
    strat = tmp_path / "mine.py"
    strat.write_text("def choose(own, played, pub, legal, n_legal, rng):\n    return 0\n")
    m = json.loads((out / "manifest.json").read_text())
    m["seats"][0] = f"{strat}:choose"
    m["strategy_files"] = {str(strat): "0" * 64}  # the file as it was for the run
    (out / "manifest.json").write_text(json.dumps(m))
    code, _, err = cardsim(capsys, "replay", "yuanzi", "--from", out, "--game", "1")
    one_line_error(code, err, "has changed since the run")


# --- 9. manifests are validated; --resume verifies the chunk plan -----------------------------


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda m: [], "a JSON object is expected"),
        (lambda m: {k: v for k, v in m.items() if k != "chunks"}, "chunks"),
        (lambda m: {**m, "chunks": None}, "chunks"),
        (
            lambda m: {
                **m,
                "chunks": [
                    {k: v for k, v in m["chunks"][0].items() if k != "index"},
                    *m["chunks"][1:],
                ],
            },
            "index",
        ),  # fmt: skip
        (
            lambda m: {
                **m,
                "chunks": [{**m["chunks"][0], "status": "done", "rows": None}, *m["chunks"][1:]],
            },
            "rows",
        ),  # fmt: skip
        (
            lambda m: {
                **m,
                "chunks": [m["chunks"][0], {**m["chunks"][1], "first": 0}, *m["chunks"][2:]],
            },
            "the plan says 20+20",
        ),  # fmt: skip
    ],
)
def test_9_a_broken_manifest_is_one_line_on_resume(capsys, tmp_path, edit, message):
    out = tmp_path / "run"
    assert cardsim(capsys, *RUN, "--games", "60", "--chunk-size", "20", "--out", out)[0] == 0
    m = json.loads((out / "manifest.json").read_text())
    (out / "manifest.json").write_text(json.dumps(edit(m)))
    before = snapshot(out)
    code, _, err = cardsim(
        capsys, *RUN, "--games", "60", "--chunk-size", "20", "--out", out, "--resume"
    )
    one_line_error(code, err, message)
    assert snapshot(out) == before


def test_9_an_edited_games_count_is_refused_not_a_silent_no_op(capsys, tmp_path):
    out = tmp_path / "run"
    assert cardsim(capsys, *RUN, "--games", "60", "--chunk-size", "20", "--out", out)[0] == 0
    m = json.loads((out / "manifest.json").read_text())
    m["games"] = 100
    (out / "manifest.json").write_text(json.dumps(m))
    code, _, err = cardsim(
        capsys, *RUN, "--games", "100", "--chunk-size", "20", "--out", out, "--resume"
    )
    one_line_error(code, err, "chunk plan does not match")


# --- 10. outputs never overwrite inputs or each other -----------------------------------------


def test_10_report_outputs_never_overwrite_inputs_or_each_other(capsys, tmp_path):
    out = tmp_path / "run"
    assert cardsim(capsys, *RUN, "--games", "30", "--out", out)[0] == 0
    before = snapshot(out)
    x = tmp_path / "x.html"
    code, _, err = cardsim(capsys, "report", out, "--out", x, "--json", x)
    one_line_error(code, err, "the same file as --out")
    code, _, err = cardsim(capsys, "report", out, "--out", out / "manifest.json")
    one_line_error(code, err, "inside the run directory")
    code, _, err = cardsim(capsys, "report", out, "--out", out / "games" / "r.html")
    one_line_error(code, err, "inside the run directory")
    assert snapshot(out) == before and not x.exists()


def test_10_study_does_not_overwrite_a_foreign_report(capsys, tmp_path):
    study = tmp_path / "s.toml"
    study.write_text('[[scenario]]\nname = "a"\ngame = "yuanzi"\ngames = 30\nstrategy = "random"\n')
    out = tmp_path / "study"
    out.mkdir()
    (out / "report.html").write_text("<p>my report</p>")
    code, _, err = cardsim(capsys, "study", study, "--out", out, "--quiet")
    one_line_error(code, err, "not this study's report")
    assert (out / "report.html").read_text() == "<p>my report</p>" and not (out / "a").exists()


# --- 11. error messages -----------------------------------------------------------------------


def test_11_the_users_exception_message_survives_numba_wrapping():
    try:
        try:
            raise ValueError("my strategy's own message")
        except ValueError as inner:
            raise SystemError(
                "CPUDispatcher(...) returned a result with an exception set"
            ) from inner
    except SystemError as e:
        caught = e
        err = runner._strategy_error(e, ["/x/mine.py:choose"], "while playing")
    assert "my strategy's own message" in str(err) and "ValueError" in str(err)
    assert "mine.py:choose" in str(err)
    wrapped = CardsimError("user strategy x failed: CPUDispatcher(...) returned a result ...")
    wrapped.__cause__ = caught  # what an engine makes of it
    assert runner._lost_message(wrapped)
    assert "my strategy's own message" in str(runner._strategy_error(wrapped, ["m"], "now"))
    assert not runner._lost_message(CardsimError("a plain error"))


def test_11_sys_exit_in_a_strategy_file_is_one_line_exit_2(capsys, tmp_path):
    f = tmp_path / "quits.py"
    f.write_text("import sys\nsys.exit(3)\n")
    out = tmp_path / "run"
    code, _, err = cardsim(capsys, *RUN, "--games", "5", "--seat", f"0={f}:choose", "--out", out)
    one_line_error(code, err, "sys.exit(3)")
    assert "quits.py" in err and not out.exists()


def test_11_study_errors_do_not_advise_resume(capsys, tmp_path):
    study = tmp_path / "s.toml"
    study.write_text('[[scenario]]\nname = "a"\ngame = "yuanzi"\ngames = 30\nstrategy = "random"\n')
    out = tmp_path / "study"
    (out / "a").mkdir(parents=True)
    (out / "a" / "notes.txt").write_text("mine")
    code, _, err = cardsim(capsys, "study", study, "--out", out, "--quiet")
    one_line_error(code, err, "not a cardsim run directory")
    assert "--resume" not in err


# --- 12. consistent parsing -------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, message",
    [
        (["--games", "２"], "ASCII digits"),
        (["--games", "1_0"], "ASCII digits"),
        (["--games", "5", "--chunk-size", "1_0"], "ASCII digits"),
        (["--games", "5", "--threads", "１"], "ASCII digits"),
        (["--games", "5", "--until-ci", "０.1"], "ASCII digits"),
        (["--games", "5", "--rule", "dao_bomb=over_all", "--rule", "dao_bomb=over_all"], "twice"),
        (["--games", "5", "--strategy", ""], "empty strategy name"),
    ],
)
def test_12_one_parser_for_every_option(capsys, tmp_path, args, message):
    out = tmp_path / "run"
    code, _, err = cardsim(capsys, "run", "yuanzi", *args, "--out", out, "--quiet")
    one_line_error(code, err, message)
    assert not out.exists()


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--delta", "0.05"], "give --test A>B too"),
        (["--alpha", "0.01"], "give --test A>B too"),
        (["--strategies", "greedy,,random"], "empty strategy name"),
    ],
)
def test_12_compare_options_that_need_another(capsys, tmp_path, extra, message):
    out = tmp_path / "cmp"
    base = ["--strategies", "greedy,random"] if "--strategies" not in extra else []
    code, _, err = cardsim(
        capsys, "compare", "yuanzi", *base, *extra, "--games", "5", "--out", out, "--quiet"
    )
    one_line_error(code, err, message)
    assert not out.exists()


def test_12_study_comparison_listing_a_scenario_twice_is_an_error():
    from cardsim.workflows.study import parse_study

    text = (
        '[[scenario]]\nname = "a"\ngame = "yuanzi"\ngames = 10\n'
        '[[comparison]]\nscenarios = ["a", "a"]\n'
    )
    with pytest.raises(CardsimError, match="twice"):
        parse_study(text, "s.toml")


def test_12_study_verifies_a_reused_scenario_like_resume(tmp_path):
    from cardsim.workflows.study import parse_study, run_study

    study = parse_study(
        '[[scenario]]\nname = "a"\ngame = "yuanzi"\ngames = 400\nstrategy = "random"\n'
        "chunk_size = 100\n"
    )
    out = tmp_path / "study"
    run_study(study, out, progress=False, report=False)
    ref = tables(out / "a")
    assert run_study(study, out, progress=False, report=False).reused == ["a"]
    rundir.part_path(out / "a", "games", 1).unlink()  # a reused run is verified: redone
    assert run_study(study, out, progress=False, report=False).reused == []
    for a, b in zip(ref, tables(out / "a"), strict=True):
        assert_frame_equal(a, b)
