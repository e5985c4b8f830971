"""Scores: the measures the game declares (``GameAnalysis.score_values``, ``score_section``)."""

from __future__ import annotations

import polars as pl
from cardsim.analysis.exprs import mean_ci, summary_from_counts
from cardsim.analysis.facts import facts
from cardsim.analysis.games import analysis_of
from cardsim.analysis.model import RunData, Section, Table, stack

KEY = "scores"


def summary(values: pl.LazyFrame) -> pl.LazyFrame:
    return summary_from_counts(histogram(values), ["measure"])


def histogram(values: pl.LazyFrame) -> pl.LazyFrame:
    return (
        values.group_by("measure", "value")
        .agg(count=pl.len().cast(pl.Int64))
        .sort("measure", "value")
    )


def queries(run) -> dict[str, pl.LazyFrame]:
    values = analysis_of(run.game).score_values
    if values is None:
        return {}
    v = values(run.games, run.seats)
    extra = analysis_of(run.game).score_queries
    return {"summary": summary(v), "histogram": histogram(v), **(extra(run) if extra else {})}


def section(items: list[RunData]) -> Section:
    game = items[0].run.game
    decl = analysis_of(game)
    note = f" ({decl.score_unit_note})" if decl.score_unit_note else ""
    sec = Section(KEY, "Scores", decl.score_intro + f" Unit: one {facts(game).row_unit}{note}.")
    if any(f"{KEY}.summary" not in it.data for it in items):
        sec.notes.append("the game registers no score measures")
        return sec
    summ = pl.concat(
        [
            mean_ci(it.get(f"{KEY}.summary")).select(
                *([pl.lit(it.label).alias("run")] if len(items) > 1 else []), pl.all()
            )
            for it in items
        ]
    ).select(
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
    fixed = decl.score_fixed_means
    if fixed:  # a mean fixed by the rules (e.g. seat points: 300 per half over 4 seats)
        is_fixed = pl.col("measure").is_in(list(fixed))
        summ = summ.with_columns(
            pl.when(is_fixed).then(None).otherwise(pl.col(c)).alias(c)
            for c in ("mean_lo", "mean_hi")
        )
        sec.notes.append(
            "no interval for "
            + ", ".join(f"{k} (mean {v:g} by construction)" for k, v in fixed.items())
        )
    sec.tables.append(
        Table(
            "summary",
            "Score distribution",
            summ,
            unit=f"{facts(game).row_unit}{note}",
        )
    )
    hist = stack(items, f"{KEY}.histogram")
    if decl.score_section is not None:
        decl.score_section(sec, items, hist)
    return sec
