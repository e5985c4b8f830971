"""The HTML report in a real browser (headless Chromium): it loads, every image decodes and
the tables are there. Set CARDSIM_REPORT_SCREENSHOT=path.png to keep a screenshot to look at."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from cardsim.analysis.report import write_report

CHROMIUM = (
    shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
)
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium not installed (apt-get install chromium chromium-driver)"
)

PROBE = """<script>
window.addEventListener('load', () => {
  const imgs = [...document.images];
  const ok = imgs.filter(i => i.complete && i.naturalWidth > 0).length;
  const p = document.createElement('pre');
  p.id = 'probe';
  p.textContent = `images=${imgs.length} decoded=${ok} tables=${document.querySelectorAll('table').length}`
    + ` rows=${document.querySelectorAll('tbody tr').length}`;
  document.body.appendChild(p);
});
</script>"""


def chromium(*args: str, tmp: Path) -> subprocess.CompletedProcess:
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp / 'profile'}",
    ]
    return subprocess.run(
        [CHROMIUM, *flags, *args], capture_output=True, text=True, timeout=120, check=False
    )


def screenshot(html: Path, png: Path, tmp: Path, height: int = 5000) -> Path:
    """Render ``html`` to ``png`` (1280 px wide) with headless Chromium."""
    chromium(
        f"--screenshot={png}",
        f"--window-size=1280,{height}",
        "--hide-scrollbars",
        html.resolve().as_uri(),
        tmp=tmp,
    )
    return png


def test_report_renders_in_chromium(tmp_path, yz_run):
    out = write_report([yz_run], tmp_path / "report.html").out
    html = out.read_text()
    n_img = html.count("<img ")
    assert n_img >= 8 and "http://" not in html and "https://" not in html  # offline
    probe = tmp_path / "probe.html"
    probe.write_text(html.replace("</body>", PROBE + "</body>"))
    res = chromium(
        "--dump-dom", "--virtual-time-budget=5000", probe.resolve().as_uri(), tmp=tmp_path
    )
    m = re.search(r"images=(\d+) decoded=(\d+) tables=(\d+) rows=(\d+)", res.stdout)
    assert m, f"no probe output from chromium: {res.stderr[-2000:]}"
    images, decoded, tables, rows = map(int, m.groups())
    assert images == n_img and decoded == images
    assert tables >= 15 and rows >= 60
    assert "Answers" in res.stdout and "Seat and position advantage" in res.stdout

    png = screenshot(out, tmp_path / "report.png", tmp_path)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 50_000
    keep = os.environ.get("CARDSIM_REPORT_SCREENSHOT")
    if keep:
        shutil.copy(png, keep)


def probe(html: str, tmp: Path) -> tuple[int, int, int, int, str]:
    """Load ``html`` in Chromium: (images, decoded images, tables, table rows, the DOM)."""
    page = tmp / "probe.html"
    page.write_text(html.replace("</body>", PROBE + "</body>"))
    res = chromium("--dump-dom", "--virtual-time-budget=5000", page.resolve().as_uri(), tmp=tmp)
    m = re.search(r"images=(\d+) decoded=(\d+) tables=(\d+) rows=(\d+)", res.stdout)
    assert m, f"no probe output from chromium: {res.stderr[-2000:]}"
    return (*map(int, m.groups()), res.stdout)


def test_comparison_report_renders_in_chromium(tmp_path, yz_cmp_run):
    out = write_report([yz_cmp_run], tmp_path / "cmp.html").out
    html = out.read_text()
    images, decoded, tables, rows, dom = probe(html, tmp_path)
    assert images == html.count("<img ") >= 10 and decoded == images
    assert tables >= 15 and rows >= 60
    assert "Strategy comparison on duplicate deals" in dom and "Pairwise paired differences" in dom
    assert 'alt="paired difference of win rate, row − column"' in dom


LAYOUT = """<script>
window.addEventListener('load', () => {
  document.querySelectorAll('details').forEach(d => d.open = true);
  const wide = [...document.querySelectorAll('.tablewrap')]
    .filter(w => w.querySelector('table').scrollWidth > w.clientWidth + 1)
    .map(w => w.previousElementSibling ? w.previousElementSibling.textContent : '?');
  const first = document.querySelector('main h2');
  const p = document.createElement('pre');
  p.id = 'layout';
  p.textContent = `page=${document.documentElement.scrollWidth} first=${first.textContent}`
    + ` wide=${JSON.stringify(wide)}`;
  document.body.appendChild(p);
});
</script>"""


def layout(html: str, tmp: Path) -> tuple[int, str, str]:
    """Load ``html`` 1280 px wide with every <details> open: (page scrollWidth, first heading,
    the titles of tables wider than their box)."""
    page = tmp / "layout.html"
    page.write_text(html.replace("</body>", LAYOUT + "</body>"))
    res = chromium(
        "--dump-dom",
        "--window-size=1280,2000",
        "--virtual-time-budget=5000",
        page.resolve().as_uri(),
        tmp=tmp,
    )
    m = re.search(r"page=(\d+) first=(.*?) wide=(\[.*?\])</pre>", res.stdout, re.S)
    assert m, f"no layout output from chromium: {res.stderr[-2000:]}"
    return int(m.group(1)), m.group(2), m.group(3)


@pytest.mark.parametrize("which", ["yz_run", "yz_cmp_run", "at_cmp_run", "two_runs"])
def test_answers_first_and_no_table_wider_than_the_page(which, request, tmp_path, yz_run):
    runs = (
        [yz_run, request.getfixturevalue("yz_cmp_run")]
        if which == "two_runs"
        else [request.getfixturevalue(which)]
    )
    if which == "two_runs":  # two runs side by side: every table gets a run column
        runs = [yz_run, yz_run]
    out = write_report(runs, tmp_path / "r.html").out
    width, first, wide = layout(out.read_text(), tmp_path)
    assert first == "Answers"
    assert width <= 1280, width
    assert wide == "[]", wide
