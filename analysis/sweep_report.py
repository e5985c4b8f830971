"""The sweep page (``DIR/sweep.html``, template ``sweep.html.j2``): the answers first, then per
measure a figure (the per-value means with their intervals, the fitted curve and its band, the
target and the confirmation run) and its table; two parameters: a heat map per measure."""

from __future__ import annotations

import math
from functools import partial

import numpy as np
import polars as pl
from cardsim.analysis import render
from cardsim.analysis.model import FACT, Figure, Finding, Section, Table
from cardsim.analysis.sweep import MeasureSweep, SweepResult, TargetAnswer

METHOD_NOTE = (
    "Every value is played on the same deals (one root seed). Means per value with 95 % "
    "intervals clustered by deal; the curve is a GLM (logistic for a rate, linear for a "
    "number) on a natural cubic spline of the parameter, its band pointwise 95 % with "
    "deal-clustered covariance. A target's interval is the set of values whose band holds the "
    "target; an open end means the band still holds it at the edge of the range."
)


def curve_plot(ms: MeasureSweep, param: str, targets: list[TargetAnswer] = ()) -> bytes:
    """PNG: per-value means with 95 % error bars, the curve and its band, the target line and
    its crossing intervals, the confirmation run."""
    from cardsim.analysis import plots

    plt = plots.plt
    scale = 100.0 if ms.kind == "binary" else 1.0
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    c = ms.curve
    if c is not None:
        x = np.asarray(c.x)
        ax.fill_between(
            x,
            scale * np.asarray(c.lo),
            scale * np.asarray(c.hi),
            color=plots.COLORS[0],
            alpha=0.18,
            lw=0,
            label="curve, 95 % band",
        )
        ax.plot(x, scale * np.asarray(c.mean), color=plots.COLORS[0], lw=1.6)
    xs = np.array([p.value for p in ms.points])
    m = scale * np.array([p.mean for p in ms.points])
    err = scale * np.clip(
        np.vstack([[p.mean - p.lo for p in ms.points], [p.hi - p.mean for p in ms.points]]), 0, None
    )
    ax.errorbar(xs, m, yerr=err, fmt="o", color="#222222", ms=4, capsize=3, lw=1,
                label="mean per value, 95 %")  # fmt: skip
    for k, target in enumerate(targets):
        ax.axhline(scale * target.target, color=plots.COLORS[1], ls="--", lw=1,
                   label="target" if k == 0 else None)  # fmt: skip
        for cr in target.crossings:
            lo = cr.lo if cr.lo is not None else xs.min()
            hi = cr.hi if cr.hi is not None else xs.max()
            ax.axvspan(lo, hi, color=plots.COLORS[1], alpha=0.12, lw=0)
        cf = target.confirmation
        if cf is not None:
            p = cf.point
            ax.errorbar([p.value], [scale * p.mean], yerr=[[scale * (p.mean - p.lo)],
                        [scale * (p.hi - p.mean)]], fmt="s", color=plots.COLORS[2], ms=6,
                        capsize=3, label="confirmation (fresh deals)" if k == 0 else None)  # fmt: skip
    ax.set_xlabel(param)
    ax.set_ylabel(ms.label + (" (%)" if ms.kind == "binary" else ""))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    return plots._png(fig)


def heat_map(ms: MeasureSweep, params: dict[str, list[int]]) -> bytes:
    """PNG: the measure's mean over a two-parameter grid, each cell written in."""
    from cardsim.analysis import plots

    plt = plots.plt
    (a, va), (b, vb) = params.items()
    scale = 100.0 if ms.kind == "binary" else 1.0
    grid = scale * np.array(ms.grid, dtype=float)
    fig, ax = plt.subplots(figsize=(1.0 + 0.55 * len(vb) + 1.5, 1.0 + 0.45 * len(va)))
    im = ax.imshow(grid, cmap="viridis", aspect="auto", origin="lower")
    ax.set_xticks(range(len(vb)), [str(v) for v in vb])
    ax.set_yticks(range(len(va)), [str(v) for v in va])
    ax.set_xlabel(b)
    ax.set_ylabel(a)
    for i in range(len(va)):
        for j in range(len(vb)):
            if math.isfinite(grid[i, j]):
                ax.text(j, i, f"{grid[i, j]:.3g}", ha="center", va="center", fontsize=7,
                        color="white" if grid[i, j] < np.nanmean(grid) else "black")  # fmt: skip
    fig.colorbar(im, ax=ax, label=ms.label + (" (%)" if ms.kind == "binary" else ""))
    ax.grid(False)
    return plots._png(fig)


def _points_table(ms: MeasureSweep, params: dict[str, list[int]]) -> pl.DataFrame:
    names = list(params)
    rows = []
    grid = [
        (a, b) for a in params[names[0]] for b in (params[names[1]] if len(names) > 1 else [None])
    ]
    for p, (a, b) in zip(ms.points, grid, strict=True):
        row = {names[0]: a}
        if b is not None:
            row[names[1]] = b
        row |= {"mean": p.mean, "mean_lo": p.lo, "mean_hi": p.hi, "rows": p.rows, "deals": p.deals}
        if ms.curve is not None:
            x = np.asarray(ms.curve.x)
            k = int(np.abs(x - p.value).argmin())
            row |= {
                "curve": ms.curve.mean[k],
                "curve_lo": ms.curve.lo[k],
                "curve_hi": ms.curve.hi[k],
            }
        rows.append(row)
    return pl.DataFrame(rows)


def sections(result: SweepResult) -> list[Section]:
    names = list(result.params)
    out = []
    for ms in result.measures:
        s = Section(ms.name, ms.label, ms.sentence)
        if len(names) == 1:
            s.figures.append(
                Figure(
                    ms.name,
                    f"{ms.label} by {names[0]}",
                    partial(
                        curve_plot,
                        ms,
                        names[0],
                        [t for t in result.targets if t.measure == ms.name],
                    ),
                )
            )
            if ms.curve is not None:
                s.notes.append(f"Curve: {ms.curve.basis}.")
        else:
            s.figures.append(Figure(ms.name, f"{ms.label} over {names[0]} × {names[1]}",
                                    partial(heat_map, ms, result.params)))  # fmt: skip
        pct = ("mean", "mean_lo", "mean_hi", "curve", "curve_lo", "curve_hi")
        s.tables.append(Table(ms.name, f"{ms.label} per value ({ms.unit})",
                              _points_table(ms, result.params),
                              percent=pct if ms.kind == "binary" else (), unit=ms.unit))  # fmt: skip
        out.append(s)
    return out


def findings(result: SweepResult) -> list[Finding]:
    fs = [Finding(t.sentence, kind=FACT) for t in result.targets]
    fs += [Finding(m.sentence, kind=FACT) for m in result.measures if m.sentence]
    fs += [Finding(n, kind=FACT) for n in result.notes]
    return fs


def sweep_html(result: SweepResult) -> str:
    names = list(result.params)
    ranges = "; ".join(f"{k} = {v[0]}..{v[-1]} ({len(v)} values)" for k, v in result.params.items())
    return (
        render._env()
        .get_template("sweep.html.j2")
        .render(
            title=f"cardsim sweep — {render.game_title(result.game)}: {' × '.join(names)}",
            subtitle=f"{ranges} · {result.games:,} games per value, seed {result.seed} · "
            f"{result.setting}",
            css=render.CSS,
            answers=[render._finding_ctx(f) for f in findings(result)],
            method_note=METHOD_NOTE,
            sections=[render._section_ctx(s) for s in sections(result)],
            json_name="sweep.json",
        )
    )
