"""Papercuts a first week finds (issue 19 #18, the parts outside ``tune``): one version number,
Ctrl-C and full-disk messages of ``report`` (real processes), integers in study files, empty
``--out``, scenario and study names checked before anything is written."""

from __future__ import annotations

import json
import re
import resource
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from cardsim.sim import __version__ as VERSION

from cardsim.cli import main

ROOT = Path(__file__).resolve().parents[1]


def cardsim(capsys, *args):
    with pytest.raises(SystemExit) as e:
        main(list(map(str, args)))
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "yz"
    with pytest.raises(SystemExit) as e:
        main(["run", "yuanzi", "--games", "40", "--out", str(out), "--quiet"])
    assert e.value.code == 0
    return out


# --- one version number -------------------------------------------------------------------------
def test_the_version_is_one_number_that_the_changelog_names(capsys, small_run):
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in conf["project"] and "version" in conf["project"]["dynamic"]
    assert conf["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "cardsim.sim.__version__"}
    heading = re.search(r"^## (.*)$", (ROOT / "CHANGELOG.md").read_text(), re.M).group(1)
    named = re.search(r"\d+\.\d+(\.\d+)?", heading).group(0)
    assert VERSION.startswith(named), (heading, VERSION)
    code, out, _ = cardsim(capsys, "--version")
    assert code == 0 and out.strip().endswith(VERSION)
    from cardsim.sim import rundir

    meta = rundir.read_part_metadata(rundir.part_path(small_run, "games", 0))
    assert meta["version"] == VERSION
    manifest = json.loads((small_run / "manifest.json").read_text())
    assert manifest["cardsim_version"] == VERSION


# --- report: Ctrl-C and a full disk, in real processes -------------------------------------------
@pytest.mark.heavy
def test_ctrl_c_in_report_advises_no_resume(small_run, tmp_path):
    script = (
        "import sys, time\n"
        "import cardsim.analysis.report as r\n"
        "real = r.build_report\n"
        "def slow(*a, **k):\n"
        "    print('reading', flush=True)\n"
        "    time.sleep(60)\n"
        "r.build_report = slow\n"
        "from cardsim.cli import main\n"
        "main(sys.argv[1:])\n"
    )
    p = subprocess.Popen(
        [sys.executable, "-c", script, "report", str(small_run), "--out", str(tmp_path / "r.html")],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert p.stdout.readline().strip() == "reading"
    time.sleep(0.2)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert err.strip() == "cardsim: interrupted (the report was not written; run the command again)"
    assert not (tmp_path / "r.html").exists()


@pytest.mark.heavy
def test_a_full_disk_names_the_report_file(small_run, tmp_path):
    """Past the file-size limit (``ulimit -f``: EFBIG, like ENOSPC an error of the write that
    names no file) the one line names the report being written, never "(None)"."""
    out = tmp_path / "big.html"

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))

    r = subprocess.run(
        [sys.executable, "-m", "cardsim", "report", str(small_run), "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, preexec_fn=limit, timeout=300,
    )  # fmt: skip
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip() == f"cardsim: error: cannot write the report {out}: File too large"
    assert not out.exists() and not list(tmp_path.glob(".*tmp*"))


# --- study files and output paths: refused before anything is written ------------------------------
@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('[[scenario]]\nname = "a"\ngame = "yuanzi"\ngames = 100.0\n',
         "games must be an integer (no decimal point), got 100.0"),
        ('[[scenario]]\nname = "a"\ngame = "yuanzi"\ngames = 10\nseed = 1.5\n',
         "seed must be an integer"),
        (f'[[scenario]]\nname = "{"a" * 300}"\ngame = "yuanzi"\ngames = 10\n',
         "(at most 64 characters)"),
        ('[[scenario]]\nname = "a b"\ngame = "yuanzi"\ngames = 10\n', "letters, digits"),
        (f'[[ladder]]\nname = "{"l" * 65}"\ngame = "yuanzi"\ngames = 10\n',
         "(at most 64 characters)"),
        ('[study]\nname = 5\n\n[[scenario]]\nname = "a"\ngame = "yuanzi"\ngames = 10\n',
         "[study] name must be a non-empty string, got 5"),
        ('[study]\nname = " "\n\n[[scenario]]\nname = "a"\ngame = "yuanzi"\ngames = 10\n',
         "[study] name must be a non-empty string"),
    ],
)  # fmt: skip
def test_bad_study_files_are_refused_before_any_folder_exists(capsys, tmp_path, toml, message):
    f = tmp_path / "s.toml"
    f.write_text(toml, encoding="utf-8")
    code, _, err = cardsim(capsys, "study", f, "--out", tmp_path / "out", "--quiet")
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "out").exists()


def test_the_longest_name_still_runs(capsys, tmp_path):
    name = "n" * 64
    f = tmp_path / "s.toml"
    f.write_text(f'[[scenario]]\nname = "{name}"\ngame = "yuanzi"\ngames = 5\n', encoding="utf-8")
    code, _, err = cardsim(capsys, "study", f, "--out", tmp_path / "out", "--quiet")
    assert code == 0, err
    assert (tmp_path / "out" / name / "manifest.json").is_file()


@pytest.mark.parametrize(
    "args",
    [
        ["run", "yuanzi", "--games", "5", "--out", ""],
        ["compare", "yuanzi", "--strategies", "greedy,random", "--games", "5", "--out", " "],
        ["study", "--out", "", "--games", "5"],
        ["ladder", "yuanzi", "--levels", "random,greedy", "--games", "5", "--out", ""],
        ["report", "{run}", "--out", ""],
        ["report", "{run}", "--out", "{tmp}/r.html", "--json", ""],
    ],
)
def test_an_empty_out_is_refused_not_the_current_directory(
    capsys, tmp_path, monkeypatch, small_run, args
):
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    args = [a.format(run=small_run, tmp=tmp_path) for a in args]
    code, _, err = cardsim(capsys, *args)
    assert code == 2 and "is empty: name the directory or file to write" in err
    assert list(work.iterdir()) == [] and not (tmp_path / "r.html").exists()
