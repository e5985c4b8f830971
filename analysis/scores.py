"""Scores: points won per seat; 原子 team half-scores and match deltas; ATLAS winner points."""

from __future__ import annotations

import polars as pl

from analysis import plots
from analysis.exprs import length_summary, mean_ci, with_rate
from analysis.model import Figure, Finding, RunData, Section, Table, fmt_num, prefix, stack

KEY = "scores"


def yuanzi_values(games: pl.LazyFrame, seats: pl.LazyFrame) -> pl.LazyFrame:
    """Long table ``measure, value``: team half-scores per played half, seat points per half."""
    parts = []
    for h in (0, 1):
        played = games.filter(pl.col(f"tricks_{h}") >= 0)
        for t in (0, 1):
            parts.append(
                played.select(
                    pl.lit(f"team {t} points, half {h + 1}").alias("measure"),
                    pl.col(f"team_points_{h}_t{t}").cast(pl.Int64).alias("value"),
                )
            )
        parts.append(
            seats.filter(pl.col(f"points_{h}") >= 0).select(
                pl.lit(f"seat points, half {h + 1}").alias("measure"),
                pl.col(f"points_{h}").cast(pl.Int64).alias("value"),
            )
        )
    return pl.concat(parts)


def yuanzi_delta(games: pl.LazyFrame) -> pl.LazyFrame:
    """Distribution of team 0's match delta (+2 双夹 win, +1, −1, −2), with Wilson intervals."""
    counts = games.group_by(pl.col("delta_0").cast(pl.Int64).alias("delta")).agg(
        matches=pl.len().cast(pl.Int64)
    )
    total = games.select(n=pl.len().cast(pl.Int64))
    return with_rate(counts.join(total, how="cross"), "matches", "n", "share").sort("delta")


def atlas_values(games: pl.LazyFrame) -> pl.LazyFrame:
    """Long table ``measure, value``: winner points per decided round."""
    return games.filter(pl.col("winner") >= 0).select(
        pl.lit("winner points").alias("measure"),
        pl.col("winner_points").cast(pl.Int64).alias("value"),
    )


def summary(values: pl.LazyFrame) -> pl.LazyFrame:
    return values.group_by("measure", maintain_order=True).agg(length_summary(pl.col("value")))


def histogram(values: pl.LazyFrame) -> pl.LazyFrame:
    return (
        values.group_by("measure", "value")
        .agg(count=pl.len().cast(pl.Int64))
        .sort("measure", "value")
    )


def queries(run) -> dict[str, pl.LazyFrame]:
    if run.game == "yuanzi":
        v = yuanzi_values(run.games, run.seats)
        return {"summary": summary(v), "histogram": histogram(v), "delta": yuanzi_delta(run.games)}
    v = atlas_values(run.games)
    return {"summary": summary(v), "histogram": histogram(v)}


def section(items: list[RunData]) -> Section:
    game = items[0].run.game
    sec = Section(
        KEY,
        "Scores",
        "Team half-scores (300 points per half, YZ-24), points per seat and the match delta "
        "(+2/−2 for 双夹, +1/−1 otherwise, YZ-25/26), from team 0 (南北)'s side."
        if game == "yuanzi"
        else "Points the winner receives (the hand values of the others, AT-24).",
    )
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
    sec.tables.append(Table("summary", "Score distribution", summ))
    hist = stack(items, f"{KEY}.histogram")
    group = "run" if len(items) > 1 else None
    if game == "yuanzi":
        delta = stack(items, f"{KEY}.delta")
        sec.tables.append(Table("delta", "Match delta of team 0 (南北)", delta, ("share",)))
        h = hist.filter(pl.col("measure") == "team 0 points, half 1")
        sec.figures.append(
            Figure(
                "team_points",
                "team half-scores",
                plots.histogram(
                    h, "value", group=group, title="Team 0 (南北) score in half 1", xlabel="points"
                ),
            )
        )
        sec.figures.append(
            Figure(
                "delta",
                "match delta",
                plots.bar_rates(
                    delta,
                    "delta",
                    "share",
                    group=group,
                    title="Match delta of team 0 (95 % CI)",
                    ylabel="share of matches",
                ),
            )
        )
        for it in items:
            d = it.get(f"{KEY}.delta")
            s = (
                it.get(f"{KEY}.summary")
                .filter(pl.col("measure") == "team 0 points, half 1")
                .row(0, named=True)
            )
            big = d.filter(pl.col("delta").abs() == 2)
            share = float(big["share"].sum()) if big.height else 0.0
            sec.findings.append(
                Finding(
                    f"{prefix(items, it)}Team 0 scores {fmt_num(s['mean'], 1)} of 300 points in the "
                    f"first half on average (median {fmt_num(s['median'], 0)}); "
                    f"{100 * share:.1f} % of matches end ±2 (双夹)."
                )
            )
    else:
        h = hist.filter(pl.col("measure") == "winner points")
        sec.figures.append(
            Figure(
                "winner_points",
                "winner points",
                plots.histogram(
                    h, "value", group=group, title="Points of the round winner", xlabel="points"
                ),
            )
        )
        for it in items:
            s = mean_ci(it.get(f"{KEY}.summary")).row(0, named=True)
            sec.findings.append(
                Finding(
                    f"{prefix(items, it)}A round winner receives {fmt_num(s['mean'], 1)} points on "
                    f"average (95 % CI {fmt_num(s['mean_lo'], 1)}–{fmt_num(s['mean_hi'], 1)}; "
                    f"median {fmt_num(s['median'], 0)})."
                )
            )
    return sec
