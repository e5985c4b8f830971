"""Game length: tricks and plays per half (原子), turns per round (ATLAS)."""

from __future__ import annotations

import polars as pl

from analysis import plots
from analysis.exprs import length_summary, mean_ci
from analysis.model import Figure, Finding, RunData, Section, Table, fmt_num, prefix, stack

KEY = "length"


def yuanzi_lengths(games: pl.LazyFrame) -> pl.LazyFrame:
    """Long table ``measure, value``: tricks / plays per played half and tricks per match."""
    parts = []
    for h in (0, 1):
        played = games.filter(pl.col(f"tricks_{h}") >= 0)
        for m in ("tricks", "plays"):
            parts.append(
                played.select(
                    pl.lit(f"{m} in half {h + 1}").alias("measure"),
                    pl.col(f"{m}_{h}").cast(pl.Int64).alias("value"),
                )
            )
    parts.append(
        games.select(
            pl.lit("tricks per match").alias("measure"),
            (pl.col("tricks_0") + pl.col("tricks_1").clip(lower_bound=0))
            .cast(pl.Int64)
            .alias("value"),
        )
    )
    return pl.concat(parts)


def atlas_lengths(games: pl.LazyFrame) -> pl.LazyFrame:
    """Long table ``measure, value``: turns per round and reshuffles per round."""
    return pl.concat(
        [
            games.select(
                pl.lit(f"{m} per round").alias("measure"), pl.col(m).cast(pl.Int64).alias("value")
            )
            for m in ("turns", "reshuffles")
        ]
    )


def summary(lengths: pl.LazyFrame) -> pl.LazyFrame:
    """Per measure: n, mean, sd, min, 5/25/50/75/95 % quantiles, max."""
    return lengths.group_by("measure", maintain_order=True).agg(length_summary(pl.col("value")))


def histogram(lengths: pl.LazyFrame) -> pl.LazyFrame:
    """Per measure and value: the number of games (``count``)."""
    return (
        lengths.group_by("measure", "value")
        .agg(count=pl.len().cast(pl.Int64))
        .sort("measure", "value")
    )


def queries(run) -> dict[str, pl.LazyFrame]:
    lengths = yuanzi_lengths(run.games) if run.game == "yuanzi" else atlas_lengths(run.games)
    return {"summary": summary(lengths), "histogram": histogram(lengths)}


def section(items: list[RunData]) -> Section:
    game = items[0].run.game
    sec = Section(
        KEY,
        "Game length",
        "Tricks and plays (non-pass moves) per half, and tricks per match."
        if game == "yuanzi"
        else "Turns per round (AT-23 counts every turn, claims excluded) and reshuffles of the "
        "discard pile per round.",
    )
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
    sec.tables.append(Table("summary", "Length distribution", summ))
    hist = stack(items, f"{KEY}.histogram")
    main = "tricks per match" if game == "yuanzi" else "turns per round"
    group = "run" if len(items) > 1 else None
    sec.figures.append(
        Figure(
            "histogram",
            main,
            plots.histogram(
                hist.filter(pl.col("measure") == main),
                "value",
                group=group,
                title=f"Distribution of {main}",
                xlabel=main,
            ),
        )
    )
    if game == "yuanzi":
        h1 = hist.filter(pl.col("measure").str.starts_with("tricks in half"))
        sec.figures.append(
            Figure(
                "tricks_half",
                "tricks per half",
                plots.histogram(
                    h1,
                    "value",
                    group="measure" if len(items) == 1 else None,
                    title="Tricks per half" + (" (all runs)" if len(items) > 1 else ""),
                    xlabel="tricks",
                ),
            )
        )
    for it in items:
        row = mean_ci(it.get(f"{KEY}.summary")).filter(pl.col("measure") == main).row(0, named=True)
        sec.findings.append(
            Finding(
                f"{prefix(items, it)}A {'match' if game == 'yuanzi' else 'round'} lasts "
                f"{fmt_num(row['mean'], 1)} {main.split(' ')[0]} on average (median "
                f"{fmt_num(row['median'], 0)}, 90 % between {fmt_num(row['q05'], 0)} and "
                f"{fmt_num(row['q95'], 0)})."
            )
        )
    return sec
