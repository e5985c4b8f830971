"""Report figures with matplotlib (Agg backend), returned as PNG bytes."""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
from matplotlib import font_manager  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

COLORS = ["#3867d6", "#eb3b5a", "#20bf6b", "#f7b731", "#8854d0", "#0fb9b1", "#fa8231", "#4b6584"]
EXPECTED = "#222222"

_CJK_FONTS = (
    "Noto Sans CJK SC",
    "WenQuanYi Zen Hei",
    "Source Han Sans SC",
    "SimHei",
    "Microsoft YaHei",
    "PingFang SC",
)


def _find_cjk() -> str | None:
    available = {f.name for f in font_manager.fontManager.ttflist}
    found = next((f for f in _CJK_FONTS if f in available), None)
    if found is None:  # installed after matplotlib cached its font list (fonts-noto-cjk)
        for path in font_manager.findSystemFonts():
            if any(k in path for k in ("NotoSansCJK", "wqy", "SourceHanSans")):
                font_manager.fontManager.addfont(path)
        available = {f.name for f in font_manager.fontManager.ttflist}
        found = next((f for f in _CJK_FONTS if f in available), None)
    return found


CJK_FONT = _find_cjk()


def _roman() -> dict[str, str]:
    """Used in plot text when no CJK font is installed (tables and HTML keep the characters):
    every game's romanised words (``GameAnalysis.plot_words``)."""
    from cardsim.analysis.games import analysis_of
    from cardsim.sim.games import game_names

    return {k: v for g in game_names() for k, v in analysis_of(g).plot_words.items()}


def label(text: str) -> str:
    """Plot text: as is with a CJK font available, else with the CJK words romanised."""
    if CJK_FONT or not text:
        return text
    for k, v in _roman().items():
        text = text.replace(k, v)
    return text


plt.rcParams.update(
    {
        "font.size": 9,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": True,
        "axes.grid.axis": "y",
        "grid.alpha": 0.3,
        "figure.dpi": 100,
        "font.family": ["DejaVu Sans", *([CJK_FONT] if CJK_FONT else []), "sans-serif"],
    }
)


#: the PNGs' resolution (dots per inch)
DPI = 110


def _png(fig) -> bytes:
    _relabel(fig)
    # the tight bounding box from the layout alone: bbox_inches="tight" draws the whole figure
    # once just to find it, then again; this box is the same (the PNG is byte-identical,
    # tests/analysis/test_plots.py) and the figure is drawn once, ~25 % less time
    fig.set_dpi(DPI)
    box = fig.get_tightbbox(fig.canvas.get_renderer()).padded(plt.rcParams["savefig.pad_inches"])
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, bbox_inches=box)
    plt.close(fig)
    return buf.getvalue()


def _relabel(fig) -> None:
    """Titles, axis labels, category ticks and legend entries in readable words."""
    for ax in fig.axes:
        ax.set_title(label(ax.get_title()), fontsize=10)
        ax.set_xlabel(label(ax.get_xlabel()))
        ax.set_ylabel(label(ax.get_ylabel()))
        texts = [t.get_text() for t in ax.get_xticklabels()]
        if any(label(t) != t for t in texts):
            lim = ax.get_xlim()
            ax.set_xticks(ax.get_xticks(), [label(t) for t in texts])
            ax.set_xlim(lim)
        leg = ax.get_legend()
        if leg is not None:
            for t in leg.get_texts():
                t.set_text(label(t.get_text()))


def _groups(df: pl.DataFrame, group: str | None) -> list[tuple[str, pl.DataFrame]]:
    if group is None or group not in df.columns:
        return [("", df)]
    return [(str(k[0]), d) for k, d in df.group_by(group, maintain_order=True)]


def _legend(ax) -> None:
    """The legend outside the data, right of the axes."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))


def tick_text(category: object, width: int = 10) -> str:
    r"""A category as an axis tick: words, not snake_case, wrapped at ``width`` characters.

    Examples
    --------
    >>> tick_text("last_card_claim"), tick_text("claim")
    ('last card\nclaim', 'claim')
    """
    import textwrap

    text = str(category).replace("_", " ")
    return "\n".join(textwrap.wrap(text, width)) or text


def bar_rates(df: pl.DataFrame, x: str, y: str = "rate", **kw) -> bytes:
    """:func:`bar_rates_fig` as PNG bytes."""
    return _png(bar_rates_fig(df, x, y, **kw))


def bar_rates_fig(
    df: pl.DataFrame,
    x: str,
    y: str = "rate",
    *,
    group: str | None = None,
    expected: float | str | None = None,
    title: str = "",
    xlabel: str = "",
    ylabel: str = "win rate",
    percent: bool = True,
):
    """Points of ``y`` per ``x`` (one colour per ``group``) with 95 % error bars and the
    expected line / markers; the y axis spans the data and the reference (not from 0, so that
    47 % vs 53 % shows), the legend sits outside the data."""
    groups = _groups(df, group)
    cats = list(dict.fromkeys(df[x].to_list()))
    pos = {c: i for i, c in enumerate(cats)}
    width = 0.8 / len(groups)
    ticks = [tick_text(c) for c in cats]
    # room per category for its longest tick line (about 0.08 in per character at 9 pt)
    per_cat = max(
        0.6 * max(1, len(groups)),
        0.08 * max((len(t) for s in ticks for t in s.split("\n")), default=0),
    )
    fig, ax = plt.subplots(figsize=(max(4.0, per_cat * len(cats) + 1.5), 2.8))
    scale = 100.0 if percent else 1.0
    for gi, (label, d) in enumerate(groups):
        xs = np.array([pos[c] for c in d[x].to_list()]) + (gi - (len(groups) - 1) / 2) * width
        vals = d[y].fill_null(np.nan).to_numpy() * scale
        err = None
        if f"{y}_lo" in d.columns:
            lo = d[f"{y}_lo"].fill_null(np.nan).to_numpy() * scale
            hi = d[f"{y}_hi"].fill_null(np.nan).to_numpy() * scale
            err = np.clip(np.vstack([vals - lo, hi - vals]), 0, None)
        ax.errorbar(
            xs,
            vals,
            yerr=err,
            fmt="o",
            ms=5,
            color=COLORS[gi % len(COLORS)],
            ecolor=COLORS[gi % len(COLORS)],
            elinewidth=1.2,
            capsize=3,
            label=label or None,
        )
    if isinstance(expected, int | float):
        ax.axhline(expected * scale, color=EXPECTED, ls="--", lw=1, label="expected")
    elif isinstance(expected, str) and expected in df.columns:
        d0 = groups[0][1]
        xs = np.array([pos[c] for c in d0[x].to_list()])
        ax.scatter(
            xs,
            d0[expected].to_numpy() * scale,
            marker="D",
            s=28,
            color="#fa8231",
            edgecolors="#222",
            linewidths=0.6,
            zorder=5,
            label="expected (exact)",
        )
    ax.set_xticks(range(len(cats)), ticks)
    ax.set_xlim(-0.6, len(cats) - 0.4)
    ax.set_xlabel(xlabel or x)
    ax.set_ylabel(ylabel + (" (%)" if percent else ""))
    if title:
        ax.set_title(title, fontsize=10)
    _legend(ax)
    return fig


def histogram(
    df: pl.DataFrame,
    value: str,
    count: str = "count",
    *,
    group: str | None = None,
    title: str = "",
    xlabel: str = "",
    bins: int = 40,
) -> bytes:
    """Histogram (share of rows) from a table of values and their counts, one step per group."""
    lo = df[value].min()
    hi = df[value].max()
    fig, ax = plt.subplots(figsize=(6.0, 2.8))
    if lo is None:
        return _png(fig)
    distinct = df[value].n_unique()
    if distinct <= bins:
        edges = np.unique(np.sort(df[value].unique().to_numpy()))
        step = np.min(np.diff(edges)) if len(edges) > 1 else 1
        edges = np.append(edges, edges[-1] + step) - step / 2
    else:
        edges = np.linspace(lo, hi + 1, bins + 1)
    for gi, (label, d) in enumerate(_groups(df, group)):
        w = d[count].to_numpy().astype(float)
        ax.hist(
            d[value].to_numpy(),
            bins=edges,
            weights=100 * w / w.sum(),
            histtype="stepfilled" if gi == 0 and group is None else "step",
            lw=1.5,
            alpha=0.85,
            color=COLORS[gi % len(COLORS)],
            label=label or None,
        )
    ax.set_xlabel(xlabel or value)
    ax.set_ylabel("share (%)")
    if df[value].dtype.is_integer():  # counts: integer ticks only
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if title:
        ax.set_title(title, fontsize=10)
    if group is not None and df[group].n_unique() > 1:
        _legend(ax)
    return _png(fig)


def line_rates(
    df: pl.DataFrame,
    x: str,
    y: str = "rate",
    *,
    group: str | None = None,
    title: str = "",
    xlabel: str = "",
    ylabel: str = "win rate",
    expected: float | None = None,
) -> bytes:
    """``y`` against a numeric ``x`` with a 95 % band, one line per group."""
    fig, ax = plt.subplots(figsize=(5.5, 2.8))
    for gi, (label, d) in enumerate(_groups(df, group)):
        d = d.sort(x)
        xs = d[x].to_numpy()
        c = COLORS[gi % len(COLORS)]
        ax.plot(xs, 100 * d[y].to_numpy(), marker="o", ms=3, color=c, label=label or None)
        if f"{y}_lo" in d.columns:
            ax.fill_between(
                xs,
                100 * d[f"{y}_lo"].to_numpy(),
                100 * d[f"{y}_hi"].to_numpy(),
                color=c,
                alpha=0.2,
                lw=0,
            )
    if expected is not None:
        ax.axhline(100 * expected, color=EXPECTED, ls="--", lw=1, label="even")
    ax.set_xlabel(xlabel or x)
    ax.set_ylabel(ylabel + " (%)")
    if df.height and df[x].dtype.is_integer():  # counts dealt: integer ticks only
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if title:
        ax.set_title(title, fontsize=10)
    _legend(ax)
    return _png(fig)


def diff_matrix(
    names: list[str],
    diff: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    *,
    title: str = "",
) -> bytes:
    """Strategy × strategy heat map: cell (row i, column j) = win rate of i − win rate of j
    (points), with its 95 % interval as text; the diagonal is empty."""
    k = len(names)
    fig, ax = plt.subplots(figsize=(max(3.6, 1.45 * k + 1.6), max(2.8, 1.0 * k + 1.2)))
    vals = 100 * np.asarray(diff, dtype=float)
    # the colour scale spans the intervals, so a difference with a wide interval stays pale
    ends = 100 * np.concatenate([np.ravel(lo), np.ravel(hi), np.ravel(diff)]).astype(float)
    finite = np.abs(ends[np.isfinite(ends)])
    vmax = max(float(finite.max()) if finite.size else 1.0, 1e-9)
    im = ax.imshow(np.ma.masked_invalid(vals), cmap="RdBu", vmin=-vmax, vmax=vmax)
    for i in range(k):
        for j in range(k):
            if i == j or not np.isfinite(vals[i, j]):
                ax.text(j, i, "–", ha="center", va="center", color="#888")
                continue
            dark = abs(vals[i, j]) > 0.6 * vmax
            ax.text(
                j,
                i,
                f"{vals[i, j]:+.1f}\n[{100 * lo[i, j]:+.1f}, {100 * hi[i, j]:+.1f}]",
                ha="center",
                va="center",
                fontsize=8,
                color="white" if dark else "#222",
            )
    ax.set_xticks(range(k), [label(n) for n in names])
    ax.set_yticks(range(k), [label(n) for n in names])
    ax.set_xlabel("against (column)")
    ax.set_ylabel("strategy (row)")
    ax.grid(False)
    cb = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    cb.set_label("row − column, points of win rate")
    if title:
        ax.set_title(title, fontsize=10)
    return _png(fig)


def interval_points(
    panels: list[tuple[str, pl.DataFrame, str, str]],
    *,
    value: str = "rating",
) -> bytes:
    """Estimates with 95 % error bars, one horizontal panel per ``(title, df, label, xlabel)``
    (``df`` has ``label``, ``value`` or ``effect`` and its ``_lo``, ``_hi``); a line at 0."""
    fig, axes = plt.subplots(
        1,
        len(panels),
        figsize=(4.6 * len(panels), max(1.8, 0.45 * max(d.height for _, d, _, _ in panels) + 1.2)),
        squeeze=False,
    )
    for ax, (title, d, lab, xlabel) in zip(axes[0], panels, strict=True):
        col = value if value in d.columns else "effect"
        ys = np.arange(d.height)
        est = d[col].to_numpy().astype(float)
        lo, hi = d[f"{col}_lo"].to_numpy(), d[f"{col}_hi"].to_numpy()
        err = np.clip(np.vstack([est - lo, hi - est]).astype(float), 0, None)
        ax.errorbar(est, ys, xerr=err, fmt="o", color=COLORS[0], capsize=4, ms=5, elinewidth=1.2)
        ax.axvline(0, color=EXPECTED, ls="--", lw=1)
        ax.set_yticks(ys, [label(str(x)) for x in d[lab].to_list()])
        ax.set_ylim(-0.7, d.height - 0.3)
        ax.invert_yaxis()
        ax.grid(True, axis="x", alpha=0.3)
        ax.grid(False, axis="y")
        ax.set_xlabel(xlabel)
        ax.set_title(title, fontsize=10)
    return _png(fig)


def level_means(rows: list[dict], factor: str, ylabel: str, numeric: bool) -> bytes:
    """A measure's mean (± its 95 % interval) at each level of ``factor`` (``rows``: ``level``,
    ``mean``, ``lo``, ``hi``, in the order to draw): integer levels on a numeric axis joined by a
    line (a steady effect draws as a slope, issue 47 item 4), other levels as categories."""
    fig, ax = plt.subplots(figsize=(6.0, 3.2))
    xs = [int(r["level"]) for r in rows] if numeric else list(range(len(rows)))
    mean = np.array([r["mean"] for r in rows], dtype=float)
    err = np.clip(
        np.vstack([mean - [r["lo"] for r in rows], np.array([r["hi"] for r in rows]) - mean]),
        0,
        None,
    )
    ax.errorbar(xs, mean, yerr=err, marker="o", capsize=3, color=COLORS[0],
                ls="-" if numeric else "none")  # fmt: skip
    if numeric:
        ax.set_xticks(xs, [str(x) for x in xs])
    else:
        ax.set_xticks(xs, [label(str(r["level"])) for r in rows])
        ax.margins(x=0.15)
    ax.set_xlabel(factor)
    ax.set_ylabel(label(ylabel))
    ax.grid(True, axis="y", alpha=0.3)
    return _png(fig)


def tradeoff(points: list[dict], xlabel: str, ylabel: str) -> bytes:
    """The trade-off of two objectives (lower is better on both): every evaluated configuration
    with its 95 % intervals (``x``, ``x_lo``, ``x_hi``, ``y``, …, ``front``, ``id``), the Pareto
    front highlighted and joined in order of ``x``."""
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for front, color, name in ((False, EXPECTED, "dominated"), (True, COLORS[0], "Pareto front")):
        sel = [p for p in points if p["front"] == front]
        if not sel:
            continue
        x = np.array([p["x"] for p in sel])
        y = np.array([p["y"] for p in sel])
        xerr = np.clip(
            np.vstack([x - [p["x_lo"] for p in sel], [p["x_hi"] for p in sel] - x]), 0, None
        )
        yerr = np.clip(
            np.vstack([y - [p["y_lo"] for p in sel], [p["y_hi"] for p in sel] - y]), 0, None
        )
        ax.errorbar(x, y, xerr=xerr, yerr=yerr, fmt="o", color=color, capsize=2, ms=5,
                    elinewidth=0.8, label=name, alpha=1.0 if front else 0.6)  # fmt: skip
        if front:
            order = np.argsort(x)
            ax.plot(x[order], y[order], color=color, lw=1)
            for p in sel:
                ax.annotate(p["id"], (p["x"], p["y"]), textcoords="offset points", xytext=(4, 4),
                            fontsize=7)  # fmt: skip
    ax.set_xlabel(label(xlabel))
    ax.set_ylabel(label(ylabel))
    ax.grid(True, alpha=0.3)
    _legend(ax)
    return _png(fig)


def interaction(df: pl.DataFrame, x: str, line: str, xs: list, lines: list, ylabel: str) -> bytes:
    """An interaction plot: ``mean`` (± ``half``, the 95 % half-width) at each level of ``x`` (in
    the order ``xs``), one line per level of ``line`` (in the order ``lines``)."""
    fig, ax = plt.subplots(figsize=(7.0, 3.6))
    for i, lv in enumerate(lines):
        part = df.filter(pl.col(line) == lv)
        ax.errorbar(
            [xs.index(v) for v in part[x].to_list()],
            part["mean"].to_numpy(),
            yerr=part["half"].to_numpy(),
            marker="o",
            capsize=3,
            label=f"{line}={lv}",
            color=COLORS[i % len(COLORS)],
        )
    ax.set_xticks(range(len(xs)), [str(v) for v in xs])
    ax.set_xlabel(x)
    ax.set_ylabel(ylabel)
    ax.margins(x=0.15)
    _legend(ax)
    return _png(fig)


def player_counts_fig(df: pl.DataFrame, y: str = "rate", ylabel: str = "first player's share"):
    """``y`` (with ``y_lo``/``y_hi``) per simulated player count: points with 95 % error bars,
    no line between counts (counts in between were not simulated), the fair share 1/n as a
    dashed reference, integer ticks at the simulated counts, the legend outside the data."""
    d = df.sort("players")
    xs = d["players"].to_numpy().astype(float)
    yv = 100 * d[y].to_numpy()
    err = np.vstack([yv - 100 * d[f"{y}_lo"].to_numpy(), 100 * d[f"{y}_hi"].to_numpy() - yv])
    fig, ax = plt.subplots(figsize=(5.5, 2.8))
    grid = np.linspace(xs.min() - 0.3, xs.max() + 0.3, 200)
    ax.plot(grid, 100 / grid, color=EXPECTED, ls="--", lw=1, label="fair share 1/n")
    ax.errorbar(
        xs, yv, yerr=err, fmt="o", ms=5, color=COLORS[0], capsize=3, label="simulated", lw=0
    )
    ax.scatter(xs, yv, s=0)  # the simulated points as a collection (ax.collections[0])
    ax.set_xticks(xs, [str(int(x)) for x in xs])
    ax.set_xlabel("players")
    ax.set_ylabel(ylabel + " (%)")
    ax.set_title("First player's share of wins by player count (95 % CI)", fontsize=10)
    ax.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return fig


def player_counts(df: pl.DataFrame, y: str = "rate", ylabel: str = "first player's share") -> bytes:
    """:func:`player_counts_fig` as PNG bytes."""
    return _png(player_counts_fig(df, y, ylabel))


def trend_panels(
    values: pl.DataFrame, trends: pl.DataFrame, xlabel: str = "level's rating (logit)"
) -> bytes:
    """The skill ladder (analysis/ladder.py): one panel per measure — each level's value with
    its 95 % interval against the level's position ``x`` (its rating), and the fitted line.
    ``values``: ``key, label, kind, level, x, estimate, estimate_lo, estimate_hi``;
    ``trends``: ``key, slope, change`` per measure."""
    keys = list(dict.fromkeys(values["key"].to_list()))
    cols = min(3, max(len(keys), 1))
    rows = -(-len(keys) // cols) if keys else 1
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 2.9 * rows), squeeze=False)
    for ax in axes.flat[len(keys) :]:
        ax.set_visible(False)
    fits = {r["key"]: r for r in trends.iter_rows(named=True)}
    for ax, key in zip(axes.flat, keys, strict=False):
        d = values.filter(pl.col("key") == key).sort("x")
        share = d["kind"][0] != "mean"
        k = 100.0 if share else 1.0
        xs = d["x"].to_numpy().astype(float)
        est = k * d["estimate"].to_numpy().astype(float)
        lo = k * d["estimate_lo"].to_numpy().astype(float)
        hi = k * d["estimate_hi"].to_numpy().astype(float)
        err = np.clip(np.vstack([est - lo, hi - est]), 0, None)
        ax.errorbar(xs, est, yerr=err, fmt="o", color=COLORS[0], capsize=4, ms=5, elinewidth=1.2)
        for x, y, name in zip(xs, est, d["level"].to_list(), strict=True):
            ax.annotate(label(name), (x, y), textcoords="offset points", xytext=(4, 4), fontsize=7)
        fit = fits.get(key)
        if fit is not None and np.isfinite(fit["slope"] or np.nan):
            w = 1.0 / np.maximum(d["se"].to_numpy().astype(float), 1e-12) ** 2
            y0 = float(np.average(d["estimate"].to_numpy() - fit["slope"] * xs, weights=w))
            grid = np.linspace(xs.min(), xs.max(), 20)
            ax.plot(grid, k * (y0 + fit["slope"] * grid), color=COLORS[1], lw=1.2, ls="--")
        ax.set_title(label(d["label"][0]), fontsize=9)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("points / %" if share else "mean")
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    return _png(fig)
