"""Trust at the edges of files and processes (issue 19, points 8-11 and 13's warning).

8: one writer per output folder of ``study``, ``ladder`` and ``tune``; 9: never through a
linked ``games/``; 10: ``--scheduler local:N`` bounded, a cluster run stopped quietly; 11: parts
checked against the manifest on reading, ``cardsim verify``; 13: the AT-D1 thin-stock warning.
Where a point is about processes, locks, signals or files, real ``cardsim`` processes are used.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from cardsim.sim import rundir
from cardsim.sim.errors import CardsimError

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONUNBUFFERED": "1", "NUMBA_NUM_THREADS": "1"}
RANDOM = ["--strategy", "random", "--threads", "1", "--quiet"]


def cli_proc(*args, **kw) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "cardsim", *map(str, args)],
        env=ENV, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw,
    )  # fmt: skip


def cardsim(capsys, *args) -> tuple[int, str, str]:
    from cardsim.cli import main

    with pytest.raises(SystemExit) as e:
        main(list(map(str, args)))
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


def one_line(err: str) -> str:
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def wait_for(check, seconds: float = 240, proc: subprocess.Popen | None = None) -> None:
    deadline = time.time() + seconds
    while not check():
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"exited {proc.returncode} early: {proc.stderr.read()}")
        assert time.time() < deadline, "timed out"
        time.sleep(0.1)


def complete(run_dir: Path) -> bool:
    try:
        return rundir.read_manifest(run_dir)["status"] == "complete"
    except CardsimError:
        return False


def snapshot(d: Path) -> dict:
    return {p: p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file() and p.name != ".lock"}


def refused_second_writer(first: subprocess.Popen, out: Path, *args) -> None:
    """Start a second writer on ``out`` while ``first`` runs: refused in one line, exit 2."""
    second = cli_proc(*args)
    err = second.communicate(timeout=120)[1]
    assert second.returncode == 2, err
    line = one_line(err)
    assert f"{out} is being written by another cardsim process (pid {first.pid})" in line, line
    assert "one writer per output folder" in line, line
    assert first.poll() is None, "the first writer should still be running"


# --- 8. one writer per output folder ----------------------------------------------------------


STUDY = """
[[scenario]]
name = "short"
game = "yuanzi"
games = 2000
chunk_size = 1000
strategy = "random"

[[scenario]]
name = "long"
game = "yuanzi"
games = {long}
chunk_size = 5000
strategy = "random"
"""


@pytest.mark.heavy
def test_8_a_second_study_with_force_is_refused_and_the_first_is_intact(tmp_path):
    """The issue's case: the second study --force replaced the first's finished scenario."""
    study, out = tmp_path / "s.toml", tmp_path / "study"
    study.write_text(STUDY.format(long=150_000))
    first = cli_proc("study", study, "--out", out, "--threads", "1", "--quiet")
    wait_for(lambda: complete(out / "short") and (out / "long" / "manifest.json").exists(),
             proc=first)  # fmt: skip
    before = snapshot(out / "short")
    refused_second_writer(first, out, "study", study, "--out", out, "--force", "--games", "500")
    assert snapshot(out / "short") == before  # nothing of the first's was touched
    assert first.wait(300) == 0, first.stderr.read()
    for name, games in (("short", 2000), ("long", 150_000)):
        m = rundir.read_manifest(out / name)
        assert (m["games"], m["status"]) == (games, "complete")
        assert rundir.verify(out / name)[0]
    assert (out / "report.html").is_file()
    assert rundir.writer_pid(out) is None


@pytest.mark.heavy
def test_8_a_second_ladder_with_force_is_refused_and_the_first_keeps_its_rating(tmp_path):
    out = tmp_path / "lad"
    base = ["ladder", "yuanzi", "--levels", "random,greedy", "--out", out, "--threads", "1"]
    first = cli_proc(*base, "--deals", "300", "--games", "60000", "--quiet")
    wait_for(lambda: complete(out / "rating") and (out / "L0-random" / "manifest.json").exists(),
             proc=first)  # fmt: skip
    refused_second_writer(first, out, *base, "--deals", "100", "--games", "100", "--force")
    assert first.wait(300) == 0, first.stderr.read()
    assert rundir.read_manifest(out / "rating")["games"] == 300  # its own rating, not the 2nd's
    assert (out / "ladder.json").is_file()


@pytest.mark.heavy
def test_8_a_second_tune_with_force_is_refused_and_the_first_finishes(tmp_path):
    """The issue's case: the second --force deleted configs/ and the first crashed."""
    out = tmp_path / "tune"
    base = ["tune", "yuanzi", "--objective", "first_excess", "--options", "pass_only_if_unable",
            "--strategy", "random", "--threads", "1", "--out", out]  # fmt: skip
    first = cli_proc(*base, "--budget", "120000", "--quiet")
    wait_for(lambda: complete(out / "configs" / "c000" / "r0"), proc=first)
    refused_second_writer(first, out, *base, "--budget", "1000", "--force")
    assert first.wait(300) == 0, first.stderr.read()
    assert json.loads((out / "tune.json").read_text())["budget"] == 120_000


def test_8_the_folder_lock_is_the_run_directory_lock_and_a_refused_command_leaves_nothing(
    tmp_path, capsys
):
    """One mechanism: a folder held by a study refuses a run there too; a study refused on a
    new folder leaves no folder behind; the lock nests (ladder runs a study in its folder)."""
    out = tmp_path / "held"
    out.mkdir()
    with rundir.RunLock.acquire(out):  # as a running study holds it
        code, _, err = cardsim(capsys, "run", "yuanzi", "--games", "10", "--out", out, *RANDOM)
        assert code == 2 and "being written by another cardsim process" in one_line(err)
        code, _, err = cardsim(capsys, "study", "--out", out, "--games", "10", "--force")
        assert code == 2 and "one writer per output folder" in one_line(err)
    assert [p.name for p in out.iterdir()] == [".lock"]
    fresh = tmp_path / "fresh"
    code, _, err = cardsim(capsys, "tune", "yuanzi", "--objective", "nonsense", "--out", fresh)
    assert code == 2 and not fresh.exists(), err
    with rundir.hold_folder(out, "ladder"), rundir.hold_folder(out, "study"):
        assert rundir.writer_pid(out) == os.getpid()
    assert rundir.writer_pid(out) is None


# --- 9. never through a linked games/ or seats/ --------------------------------------------


def test_9_force_and_resume_never_follow_a_linked_table_folder(tmp_path, capsys):
    victim, out = tmp_path / "victim", tmp_path / "run"
    args = ["run", "yuanzi", "--games", "400", "--chunk-size", "100", *RANDOM]
    assert cardsim(capsys, *args, "--seed", "7", "--out", victim)[0] == 0
    assert cardsim(capsys, *args, "--out", out)[0] == 0
    shutil.rmtree(out / "games")
    (out / "games").symlink_to(victim / "games", target_is_directory=True)
    m = json.loads((out / "manifest.json").read_text())
    m["status"] = "running"  # something for --resume to do
    (out / "manifest.json").write_text(json.dumps(m))
    before = snapshot(victim)
    for flag in ("--force", "--resume"):
        code, _, err = cardsim(capsys, *args, "--out", out, flag)
        assert code == 2, err
        line = one_line(err)
        assert f"{flag}: {out / 'games'} is a symbolic link" in line and "rm " in line, line
        assert snapshot(victim) == before  # all 4 of the victim's parts, unchanged
    assert (out / "games").is_symlink()
    assert rundir.verify(victim)[0]
    empty = tmp_path / "empty"  # a vacant directory whose games/ links elsewhere
    empty.mkdir()
    (empty / "games").symlink_to(victim / "games", target_is_directory=True)
    code, _, err = cardsim(capsys, *args, "--out", empty)
    assert code == 2 and "symbolic link" in one_line(err)
    assert snapshot(victim) == before


# --- 10. --scheduler local:N bounded; a cluster run stopped quietly -------------------------


def test_10_local_workers_are_bounded_by_the_cores(tmp_path, capsys):
    limit = 2 * (os.cpu_count() or 1)
    out = tmp_path / "run"
    code, _, err = cardsim(capsys, "run", "yuanzi", "--games", "10", "--scheduler",
                           f"local:{limit + 1}", "--out", out, *RANDOM)  # fmt: skip
    assert code == 2 and f"at most {limit} local workers" in one_line(err)
    assert not out.exists()


def children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(stat.parent.name))
        except (OSError, ValueError, IndexError):
            pass
    return out


@pytest.mark.heavy
@pytest.mark.parametrize(
    "how", ["SIGTERM while the cluster starts", "SIGTERM", "Ctrl-C to the process group"]
)
def test_10_a_local_cluster_run_stops_with_one_line(tmp_path, how):
    pytest.importorskip("dask.distributed")
    out = tmp_path / "run"
    p = cli_proc("run", "yuanzi", "--games", "2000000", "--chunk-size", "20000", "--scheduler",
                 "local:2", "--out", out, *RANDOM, start_new_session=True)  # fmt: skip
    if how.endswith("starts"):  # the case: tracebacks of a half-started cluster
        wait_for(lambda: len(children(p.pid)) >= 2, proc=p)
        assert not out.exists()
    else:
        wait_for(lambda: rundir.part_path(out, "games", 0).exists(), proc=p)
    t0 = time.monotonic()
    if how.startswith("SIGTERM"):
        p.send_signal(signal.SIGTERM)
    else:  # what a terminal does: the workers, children of the run, get it too
        os.killpg(p.pid, signal.SIGINT)
    err = p.communicate(timeout=90)[1]
    print(f"{how} to exit: {time.monotonic() - t0:.2f} s")
    assert p.returncode == (143 if how.startswith("SIGTERM") else 130), err
    line = one_line(err)  # no worker warnings, no multiprocessing tracebacks
    if how.endswith("starts"):
        assert "nothing was written" in line and not out.exists(), line
    else:
        assert "is resumable" in line, line
        assert rundir.read_manifest(out)["status"] == "running"


# --- 11. parts checked against the manifest; cardsim verify ---------------------------------


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    from cardsim.cli import main

    d = tmp_path_factory.mktemp("runs")
    for seed in (1, 7):
        with pytest.raises(SystemExit) as e:
            main(["run", "yuanzi", "--games", "2000", "--chunk-size", "500", "--seed", str(seed),
                  "--out", str(d / f"seed{seed}"), *RANDOM])  # fmt: skip
        assert e.value.code == 0
    return d


def _edit_manifest(run_dir: Path, edit) -> None:
    m = json.loads((run_dir / "manifest.json").read_text())
    edit(m)
    (run_dir / "manifest.json").write_text(json.dumps(m))


def _chunk(m, i, **kw):
    m["chunks"][i].update(kw)


def _copy_seed7_part(d: Path, run: Path) -> None:
    shutil.copy(rundir.part_path(d / "seed7", "games", 1), rundir.part_path(run, "games", 1))


TAMPER = {
    "a part copied from a seed-7 run": (_copy_seed7_part, "its seed is 7, the manifest says 1"),
    "an edited games count": (
        lambda d, r: _edit_manifest(r, lambda m: m.update(games=4000)),
        "chunk plan does not match",
    ),
    "an edited chunk first": (
        lambda d, r: _edit_manifest(r, lambda m: _chunk(m, 2, first=900)),
        "chunk 2 records games 900+500",
    ),
    "an edited games and last count": (
        lambda d, r: _edit_manifest(r, lambda m: (m.update(games=1900), _chunk(m, 3, count=400))),
        "its chunk_count is 500, the manifest says 400",
    ),
    "edited rows": (
        lambda d, r: _edit_manifest(r, lambda m: m["chunks"][0]["rows"].update(seats=1)),
        "seats/part-00000.parquet has 2,000 rows, the manifest records 1",
    ),
}


@pytest.mark.parametrize("case", list(TAMPER))
def test_11_report_open_run_and_verify_refuse_parts_that_do_not_match(runs, tmp_path, capsys,
                                                                      case):  # fmt: skip
    from cardsim.analysis.io import open_run

    run = tmp_path / "run"
    shutil.copytree(runs / "seed1", run)
    tamper, message = TAMPER[case]
    tamper(runs, run)
    code, _, err = cardsim(capsys, "report", run, "--out", tmp_path / "r.json")
    assert code == 2, err
    assert message in one_line(err), err
    assert "cardsim verify" in err or "the manifest was edited" in err, err
    assert not (tmp_path / "r.json").exists()
    with pytest.raises(CardsimError) as e:
        open_run(run)
    assert message in str(e.value)
    code, out, err = cardsim(capsys, "verify", run)
    assert code == 1 and message in out and "DAMAGED" in out, (out, err)
    assert len(out.strip().splitlines()) == 1


def test_11_verify_checks_checksums_a_report_does_not_read(runs, tmp_path, capsys):
    run = tmp_path / "run"
    shutil.copytree(runs / "seed1", run)
    code, out, _ = cardsim(capsys, "verify", run)
    assert code == 0 and out.strip() == (
        f"{run}: ok: 4 of 4 chunks, 2,000 of 2,000 games; every part matches the manifest "
        "(sha256, rows, metadata)"
    )
    part = rundir.part_path(run, "seats", 2)  # the same rows and metadata, other bytes
    meta = pl.read_parquet_metadata(part)
    pl.read_parquet(part).write_parquet(part, compression="uncompressed", metadata=meta)
    assert cardsim(capsys, "report", run, "--out", tmp_path / "r.json")[0] == 0
    code, out, _ = cardsim(capsys, "verify", run)
    assert code == 1 and "seats/part-00002.parquet: its sha256 differs" in out, out
    code, _, err = cardsim(capsys, "verify", tmp_path / "nothing")
    assert code == 2 and "no such directory" in one_line(err)


# --- 13. AT-D1: a deal that leaves under 2 cards per player to draw -------------------------


@pytest.mark.heavy
def test_13_run_study_and_tune_warn_of_a_thin_stock(tmp_path, capsys):
    warning = "hand_size 19 × 10 players leaves 14 of the deck's 204 cards to draw"
    base = ["run", "atlas", "--players", "10", "--games", "20", "--threads", "1"]
    code, _, err = cardsim(capsys, *base, "--rule", "hand_size=19", "--out", tmp_path / "a")
    assert code == 0 and sum(warning in ln for ln in err.splitlines()) == 1, err
    code, _, err = cardsim(capsys, *base, "--rule", "hand_size=14", "--out", tmp_path / "b")
    assert code == 0 and "warning" not in err, err  # 64 cards for 10 players: no warning
    code, _, err = cardsim(capsys, *base, "--rule", "hand_size=15", "--out", tmp_path / "c")
    assert code == 0 and "under 6 per player" in err, err  # 54 cards: 5.4 each (AT-D1 table)
    study = tmp_path / "s.toml"
    study.write_text('[[scenario]]\nname = "thin"\ngame = "atlas"\nplayers = 10\ngames = 300\n'
                     'rules = { hand_size = 19 }\n')  # fmt: skip
    code, _, err = cardsim(capsys, "study", study, "--out", tmp_path / "s")
    assert code == 0 and sum(warning in ln for ln in err.splitlines()) == 1, err
    code, _, err = cardsim(capsys, "tune", "atlas", "--objective", "first_excess", "--options",
                           "hand_size=14..15", "--players", "10", "--budget", "800",
                           "--threads", "1", "--no-verify", "--out", tmp_path / "t")  # fmt: skip
    assert code == 0, err
    lines = [ln for ln in err.splitlines() if "warning" in ln]
    thin = "hand_size 15 × 10 players leaves 54 of the deck's 204 cards to draw"  # 14: 64, fine
    assert len(lines) == 1 and "1 of 2 configurations" in lines[0] and thin in lines[0], err
