"""The screen page (`cardsim screen`, issue 47 item 3) and the Pareto tune page (item 4) in a
real browser (headless Chromium),
as tests/analysis/test_browser.py does for the report: it loads, its tables are there, and a
screenshot is taken (CARDSIM_REPORT_SCREENSHOT=path.png keeps it)."""

import os
import re
import shutil

import pytest

import cardsim
from tests.analysis.test_browser import CHROMIUM, PROBE, chromium, screenshot

pytestmark = [
    pytest.mark.heavy,
    pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed"),
]


def test_screen_page_renders_in_chromium(tmp_path):
    run = cardsim.screen("yuanzi", tmp_path / "screen", games=300, seed=0)
    html = run.report.read_text()
    assert "http://" not in html and "https://" not in html  # offline
    probe = tmp_path / "probe.html"
    probe.write_text(html.replace("</body>", PROBE + "</body>"))
    res = chromium(
        "--dump-dom", "--virtual-time-budget=5000", probe.resolve().as_uri(), tmp=tmp_path
    )
    m = re.search(r"images=(\d+) decoded=(\d+) tables=(\d+) rows=(\d+)", res.stdout)
    assert m, f"no probe output from chromium: {res.stderr[-2000:]}"
    _, _, tables, rows = map(int, m.groups())
    changes = len(run.result.changes)
    assert tables == (2 if changes else 1) and rows == len(run.result.rows) + changes
    assert "Readings that change an answer" in res.stdout and "Every reading" in res.stdout
    png = screenshot(run.report, tmp_path / "screen.png", tmp_path, height=2400)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 50_000
    keep = os.environ.get("CARDSIM_REPORT_SCREENSHOT")
    if keep:
        shutil.copy(png, keep)


def test_pareto_tune_page_renders_in_chromium(tmp_path):
    """Issue 47 item 4: the page of a two-objective tune (front table, trade-off plot) loads
    and its plot decodes."""
    from cardsim.workflows.pareto import pareto_tune
    from tests.test_tune import TunableEngine  # noqa: F401  (registers the "tunable" game)

    r = pareto_tune("tunable", ["first_excess", "length=45"], out=tmp_path / "t",
                    options="flavour,cap=4..7", budget=1600, min_games=100, progress=False)  # fmt: skip
    html = (tmp_path / "t" / "tune.html").read_text()
    probe = tmp_path / "probe.html"
    probe.write_text(html.replace("</body>", PROBE + "</body>"))
    res = chromium(
        "--dump-dom", "--virtual-time-budget=5000", probe.resolve().as_uri(), tmp=tmp_path
    )
    m = re.search(r"images=(\d+) decoded=(\d+) tables=(\d+) rows=(\d+)", res.stdout)
    assert m, f"no probe output from chromium: {res.stderr[-2000:]}"
    images, decoded, tables, rows = map(int, m.groups())
    assert images == decoded == 1 and tables == 2 and rows == len(r.front) + len(r.points)
    png = screenshot(tmp_path / "t" / "tune.html", tmp_path / "pareto.png", tmp_path, 1800)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 50_000
