"""The sweep page (issue 47 item 5) in headless Chromium: every figure decodes, the answers come
first and no table is wider than the page (one parameter with a target; two parameters)."""

from __future__ import annotations

import pytest

from tests.analysis.test_browser import CHROMIUM, layout, probe

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed")


@pytest.mark.parametrize(
    "params, targets",
    [(["hand_size=7..11/2"], ["length=50"]), (["hand_size=7,9", "atlas_cards=0,6"], [])],
)
def test_the_sweep_page_renders(tmp_path, params, targets):
    from cardsim.workflows.sweep import run_sweep
    from cardsim.workflows.sweep_plan import build_sweep

    sw = build_sweep("atlas", params, games=60, players=3, targets=targets)
    run_sweep(sw, tmp_path / "sw", progress=False)
    html = (tmp_path / "sw" / "sweep.html").read_text()
    images, decoded, tables, rows, dom = probe(html, tmp_path)
    assert images == html.count("<img ") >= 4 and decoded == images
    assert tables >= 4 and rows >= 4 * (3 if len(params) == 1 else 4)
    assert "turns per round" in dom
    width, first, wide = layout(html, tmp_path)
    assert first == "Answers" and width <= 1280 and wide == "[]", (width, first, wide)
