"""Game length: the measures the game declares (``GameAnalysis.length_values``), summarised per game."""

from __future__ import annotations

from functools import partial

import polars as pl
from cardsim.analysis import plots
from cardsim.analysis.exprs import mean_ci, summary_from_counts
from cardsim.analysis.facts import facts
from cardsim.analysis.games import analysis_of
from cardsim.analysis.model import Figure, Finding, RunData, Section, Table, fmt_num, prefix, stack

KEY = "length"


def summary(lengths: pl.LazyFrame) -> pl.LazyFrame:
    """Per measure: n, mean, sd, min, 5/25/50/75/95 % quantiles, max."""
    return summary_from_counts(histogram(lengths), ["measure"])


def histogram(lengths: pl.LazyFrame) -> pl.LazyFrame:
    """Per measure and value: the number of games (``count``)."""
    return (
        lengths.group_by("measure", "value")
        .agg(count=pl.len().cast(pl.Int64))
        .sort("measure", "value")
    )


def queries(run) -> dict[str, pl.LazyFrame]:
    values = analysis_of(run.game).length_values
    if values is None:
        return {}
    lengths = values(run.games)
    return {"summary": summary(lengths), "histogram": histogram(lengths)}


def section(items: list[RunData]) -> Section:
    game = items[0].run.game
    f = facts(game)
    sec = Section(
        KEY,
        "Game length",
        analysis_of(game).length_intro
        + f" Unit: one {f.row_unit}; means with Student-t 95 % intervals.",
    )
    if any(f"{KEY}.summary" not in it.data for it in items):
        sec.notes.append("the game registers no length measures")
        return sec
    summ = pl.concat(
        [
            mean_ci(it.get(f"{KEY}.summary")).select(
                *([pl.lit(it.label).alias("run")] if len(items) > 1 else []), pl.all()
            )
            for it in items
        ]
    )
    summ = summ.select(
        *(["run"] if len(items) > 1 else []),
        "measure",
        "n",
        "mean",
        "mean_lo",
        "mean_hi",
        "sd",
        "min",
        "q05",
        "q25",
        "median",
        "q75",
        "q95",
        "max",
    )
    sec.tables.append(Table("summary", "Length distribution", summ, unit=f.row_unit))
    hist = stack(items, f"{KEY}.histogram")
    main = analysis_of(game).length_main
    group = "run" if len(items) > 1 else None
    sec.figures.append(
        Figure(
            "histogram",
            main,
            partial(
                plots.histogram,
                hist.filter(pl.col("measure") == main),
                "value",
                group=group,
                title=f"Distribution of {main}",
                xlabel=main,
            ),
        )
    )
    extra = analysis_of(game).length_figures
    if extra is not None:
        sec.figures += extra(hist, items)
    for it in items:
        row = mean_ci(it.get(f"{KEY}.summary")).filter(pl.col("measure") == main).row(0, named=True)
        sec.findings.append(
            Finding(
                f"{prefix(items, it)}A {f.row_unit} lasts {fmt_num(row['mean'], 1)} "
                f"[{fmt_num(row['mean_lo'], 1)}, {fmt_num(row['mean_hi'], 1)}] "
                f"{main.split(' ')[0]} on average (n = {row['n']:,}; median "
                f"{fmt_num(row['median'], 0)}, 90 % between {fmt_num(row['q05'], 0)} and "
                f"{fmt_num(row['q95'], 0)}).",
                answer=True,
            )
        )
    return sec
