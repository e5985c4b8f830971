"""Plots: CJK text drawn with a CJK font, legends outside the data, axes around the reference
line, integer ticks for counts, the player-count plot at simulated counts only."""

import shutil
import subprocess

import polars as pl
import pytest
from cardsim.analysis import plots
from matplotlib import font_manager


def _cjk_installed() -> bool:
    if shutil.which("fc-list") is None:
        return False
    out = subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True).stdout
    return bool(out.strip())


@pytest.mark.skipif(not _cjk_installed(), reason="no CJK font installed (fonts-noto-cjk)")
def test_plots_use_a_cjk_font_for_cjk_text():
    import warnings

    import matplotlib.pyplot as plt

    assert plots.CJK_FONT is not None
    assert plots.CJK_FONT in plt.rcParams["font.family"]
    assert plots.label("刀 rank, 双夹") == "刀 rank, 双夹"  # not romanised
    path = font_manager.findfont(font_manager.FontProperties(family=plots.CJK_FONT))
    assert font_manager.get_font(path).get_char_index(ord("刀"))  # the font has the glyph
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        png = plots.bar_rates(
            pl.DataFrame({"rank": ["3", "A"], "rate": [0.11, 0.07]}),
            "rank",
            title="刀 rank, 双夹, 上游, 南北",
        )
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert not [w for w in caught if "missing from" in str(w.message)]  # every glyph drawn


def test_rates_plot_shows_differences_around_the_reference_and_legend_outside():
    df = pl.DataFrame(
        {"team": ["0", "1"], "rate": [0.47, 0.53], "rate_lo": [0.46, 0.52], "rate_hi": [0.48, 0.54]}
    )
    fig = plots.bar_rates_fig(df, "team", expected=0.5, title="win rate per team")
    ax = fig.axes[0]
    lo, hi = ax.get_ylim()
    assert lo > 40 and hi < 60  # not from 0: 47 % vs 53 % is visible
    assert not ax.patches  # points with error bars, no bars from 0
    leg = ax.get_legend()
    assert leg is not None and leg.get_bbox_to_anchor().x0 > ax.bbox.x1 - 1


def test_count_axes_have_integer_ticks():
    import matplotlib.pyplot as plt

    captured = {}
    real = plots._png

    def keep(fig):
        captured["fig"] = fig
        return real(fig)

    plots._png = keep
    try:
        plots.line_rates(
            pl.DataFrame(
                {"dealt": [0, 1, 2, 3], "rate": [0.2, 0.3, 0.4, 0.5], "rate_lo": [0.1] * 4,
                 "rate_hi": [0.6] * 4}
            ),
            "dealt",
        )  # fmt: skip
    finally:
        plots._png = real
    ticks = [t for t in captured["fig"].axes[0].get_xticks() if 0 <= t <= 3]
    assert ticks and all(float(t).is_integer() for t in ticks)
    plt.close("all")


def test_category_ticks_never_overlap():
    """Issue 19 #17: the ATLAS round ends as ticks (words, wrapped) do not overlap, however
    many runs share the plot."""
    ends = ["claim", "self_meld", "last_card_draw", "last_card_claim", "action_card",
            "no_winner", "turn_cap", "last_discard"]  # fmt: skip
    for runs in (1, 3):
        df = pl.DataFrame(
            {"end": ends * runs, "rate": [0.1] * 8 * runs,
             "run": [f"run-{i}" for i in range(runs) for _ in ends]}
        )  # fmt: skip
        fig = plots.bar_rates_fig(df, "end", group="run" if runs > 1 else None)
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        boxes = [t.get_window_extent(renderer) for t in fig.axes[0].get_xticklabels()]
        assert [t.get_text() for t in fig.axes[0].get_xticklabels()][2] == "last card\ndraw"
        for a, b in zip(boxes, boxes[1:], strict=False):
            assert a.x1 < b.x0, (a, b)


@pytest.mark.heavy
def test_figures_are_byte_identical_to_matplotlibs_tight_bbox(
    yz_run, yz_cmp_run, at_run, at6_run, monkeypatch
):
    """``_png`` finds the tight bounding box from the layout and draws once; matplotlib's
    ``bbox_inches="tight"`` draws twice. A figure of each plot function of these reports, with
    a legend and without (rates, histograms, lines, the duplicate matrix and ratings, player
    counts), a ladder's trend panels and a factorial study's interaction plot come out the same
    bytes both ways."""
    import io

    from cardsim.analysis.report import build_report

    def tight(fig) -> bytes:
        plots._relabel(fig)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=plots.DPI, bbox_inches="tight")
        plots.plt.close(fig)
        return buf.getvalue()

    kinds = {}  # (plot function, grouped): the first such figure
    for runs in ([yz_run], [yz_cmp_run], [at_run, at6_run]):
        for f in (f for s in build_report(runs).sections for f in s.figures):
            kinds.setdefault((f.draw.func.__name__, bool(f.draw.keywords.get("group"))), f.draw)
    values = pl.DataFrame({
        "key": ["a", "a", "b", "b"], "label": ["bombs", "bombs", "刀 held", "刀 held"],
        "kind": ["mean"] * 4, "level": ["random", "greedy"] * 2, "x": [-1.0, 1.0] * 2,
        "estimate": [2.0, 3.0, 0.4, 0.5], "estimate_lo": [1.5, 2.5, 0.3, 0.4],
        "estimate_hi": [2.5, 3.5, 0.5, 0.6], "se": [0.25, 0.25, 0.05, 0.05],
    })  # fmt: skip
    trends = pl.DataFrame({"key": ["a", "b"], "slope": [0.5, 0.05], "change": [1.0, 0.1]})
    cells = pl.DataFrame({"a": [0, 0, 1, 1], "b": ["x", "y"] * 2,
                          "mean": [0.1, 0.2, 0.15, 0.3], "half": [0.02] * 4})  # fmt: skip
    drawers = [
        *kinds.values(),
        lambda: plots.trend_panels(values, trends),
        lambda: plots.interaction(cells, "a", "b", [0, 1], ["x", "y"], "刀 held (share)"),
    ]
    assert {name for name, _ in kinds} >= {"bar_rates", "histogram", "line_rates", "diff_matrix",
                                           "interval_points", "player_counts"}  # fmt: skip
    ours = [draw() for draw in drawers]
    monkeypatch.setattr(plots, "_png", tight)
    assert [draw() for draw in drawers] == ours
