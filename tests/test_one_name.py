"""Installed under one name (issue 22): a user's own ``cardsim.sim.py``, ``cardsim.analysis.py`` or
``cardsim.kernels.py`` must not break cardsim, and the distribution installs ``cardsim`` alone."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CARDSIM = Path(sys.executable).with_name("cardsim")

SCRIPT = """
import cardsim
games, seats = cardsim.simulate("yuanzi", games=30, seed=2)
assert games.height == 30, games.height
cardsim.run("atlas", "runs/at", games=40, seed=1)
r = cardsim.report(["runs/at"], "rep.html")
print("ok", cardsim.__version__, type(r).__name__)
"""


@pytest.mark.heavy
def test_a_folder_with_sim_analysis_and_kernels_modules_of_its_own(tmp_path):
    for name in ("sim", "analysis", "kernels"):
        (tmp_path / f"{name}.py").write_text(f"raise ImportError('the user file {name}.py')\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # the folder is first on sys.path, as in a notebook or `python -c` there
    out = subprocess.run([sys.executable, "-c", SCRIPT], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=900)  # fmt: skip
    assert out.returncode == 0 and out.stdout.startswith("ok "), out.stderr[-2000:]
    assert (tmp_path / "rep.html").stat().st_size > 1000
    cli = subprocess.run([str(CARDSIM), "run", "yuanzi", "--games", "20", "--out", "r2", "--quiet"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)  # fmt: skip
    assert cli.returncode == 0, cli.stderr[-2000:]
    rep = subprocess.run([str(CARDSIM), "report", "r2", "--out", "r2.html"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=900)  # fmt: skip
    assert rep.returncode == 0 and (tmp_path / "r2.html").exists(), rep.stderr[-2000:]


@pytest.mark.heavy
def test_the_distribution_installs_cardsim_alone(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    (wheel,) = tmp_path.glob("cardsim-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        top = next(n for n in names if n.endswith(".dist-info/top_level.txt"))
        assert z.read(top).decode().split() == ["cardsim"]
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"cardsim"}, tops
    for part in ("sim/runner.py", "kernels/jit.py", "analysis/templates/report.html.j2"):
        assert f"cardsim/{part}" in names, part
