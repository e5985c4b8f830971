"""ATLAS: win rate against ATLAS and action cards dealt; meld-kind frequencies."""

from __future__ import annotations

from functools import partial

import polars as pl
from cardsim.analysis import plots, stats
from cardsim.analysis.exprs import (
    Partwise,
    clustered_rate_finish,
    clustered_rate_sums,
    length_summary,
    mean_ci,
    slope_moments,
)
from cardsim.analysis.model import Figure, Finding, RunData, Section, Table, fmt_num, prefix, stack

#: unit of each table: what one counted row is
UNITS = {"melds": "round"}
KEY = "atlas_cards"
MELDS = ("triples", "quads", "fives")


def dealt_win(seats: pl.LazyFrame, expr: pl.Expr) -> pl.LazyFrame:
    """Seat win rate by the count ``expr`` in its dealt hand. Unit: one seat-round; the seats
    of a round (and the rounds of a game, or the assignments of a deal) are not independent,
    so the intervals are clustered by game."""
    return dealt_win_partwise(expr).direct(seats, seats)


def dealt_win_partwise(expr: pl.Expr) -> Partwise:
    """:func:`dealt_win` batch by batch of parts (the per-game cluster sums hold a batch)."""
    return Partwise(
        lambda _, seats: clustered_rate_sums(
            seats.with_columns(expr.cast(pl.Int64).alias("dealt")),
            ["dealt"],
            pl.col("won"),
            ["game"],
        ),
        ("dealt",),
        lambda agg: clustered_rate_finish(agg, ["dealt"]).rename({"k": "wins"}),
    )


def dealt_trend(seats: pl.LazyFrame, expr: pl.Expr) -> pl.LazyFrame:
    """Moments of the trend test: slope of a seat's win on the count dealt, clustered by game."""
    return slope_moments(seats, expr, pl.col("won"), ["game"])


ACTIONS = pl.col("skip_dealt") + pl.col("reverse_dealt") + pl.col("trade_dealt")


def melds(games: pl.LazyFrame) -> pl.LazyFrame:
    """Per meld kind: mean per round (sd, n) and its share of all melds laid."""
    long = pl.concat(
        [
            games.select(pl.lit(m).alias("kind"), pl.col(m).cast(pl.Int64).alias("value"))
            for m in MELDS
        ]
    )
    per = long.group_by("kind", maintain_order=True).agg(
        *length_summary(pl.col("value"))[:3], pl.col("value").sum().alias("total")
    )
    return per.with_columns(share=pl.col("total") / pl.col("total").sum())


def queries(run) -> dict[str, pl.LazyFrame]:
    return {
        # clustered by game: batch by batch of parts (cardsim.analysis.exprs.Partwise)
        "atlas": dealt_win_partwise(pl.col("atlas_dealt")),
        "actions": dealt_win_partwise(ACTIONS),
        "atlas_trend": Partwise(lambda _, s: dealt_trend(s, pl.col("atlas_dealt"))),
        "actions_trend": Partwise(lambda _, s: dealt_trend(s, ACTIONS)),
        "melds": melds(run.games),
    }


def section(items: list[RunData]) -> Section:
    sec = Section(
        KEY,
        "ATLAS and action cards, melds",
        "A seat's round win rate by the ATLAS (wild) and action cards (SKIP, REVERSE, TRADE) in "
        "its dealt hand (13 cards unless the hand_size option sets it, AT-D1), with a trend test (slope of the win on the count, variance clustered by game: the seats of a round are not independent); melds laid per round by kind.",
    )
    for it in items:
        it.data[f"{KEY}.melds"] = mean_ci(it.get(f"{KEY}.melds")).select(
            "kind", "n", "mean", "mean_lo", "mean_hi", "sd", "total", "share"
        )
    a = stack(items, f"{KEY}.atlas").drop("var")
    b = stack(items, f"{KEY}.actions").drop("var")
    m = stack(items, f"{KEY}.melds")
    sec.tables += [
        Table("atlas", "Win rate by ATLAS cards dealt", a, ("rate",), unit="seat-round"),
        Table("actions", "Win rate by action cards dealt", b, ("rate",), unit="seat-round"),
        Table("melds", "Melds per round by kind", m, ("share",)),
    ]
    group = "run" if len(items) > 1 else None
    for key, df, what in (("atlas", a, "ATLAS cards"), ("actions", b, "action cards")):
        sec.figures.append(
            Figure(
                key,
                what,
                partial(
                    plots.line_rates,
                    df.filter(pl.col("n") >= 30),
                    "dealt",
                    group=group,
                    xlabel=f"{what} dealt",
                    title=f"Win rate by {what} dealt (95 % band; n ≥ 30)",
                ),
            )
        )
    for it in items:
        for key, what in (("atlas", "ATLAS cards"), ("actions", "action cards")):
            d = it.get(f"{KEY}.{key}")
            tr = stats.clustered_slope(it.get(f"{KEY}.{key}_trend").row(0, named=True))
            slope = f"{100 * tr.slope:+.2f} ± {196 * tr.se:.2f} points per card"
            big = d.filter(pl.col("n") >= 30).sort("dealt")
            ends = (
                f"{100 * big['rate'][0]:.1f} % with {big['dealt'][0]} to "
                f"{100 * big['rate'][-1]:.1f} % with {big['dealt'][-1]}"
                if big.height >= 2
                else "–"
            )
            sec.findings.append(
                Finding(
                    f"{prefix(items, it)}{what[0].upper()}{what[1:]} dealt matter: a seat's win "
                    f"rate changes by {slope} ({ends}; n = {tr.n:,} seat-rounds in "
                    f"{tr.clusters:,} games).",
                    f"{prefix(items, it)}{what[0].upper()}{what[1:]} dealt and winning: {slope} "
                    f"({ends}; n = {tr.n:,} seat-rounds in {tr.clusters:,} games).",
                    tr.pvalue,
                    unit="game",
                    estimate=tr.slope,
                    se=tr.se,
                    n=tr.clusters,
                    measure="win rate",
                    answer=True,
                )
            )
        md = it.get(f"{KEY}.melds")
        parts = ", ".join(f"{fmt_num(r['mean'], 2)} {r['kind']}" for r in md.iter_rows(named=True))
        sec.findings.append(Finding(f"{prefix(items, it)}A round sees {parts} on average."))
    for t in sec.tables:  # what one counted row is (docs/report.md, "Units")
        t.unit = t.unit or UNITS.get(t.key, "")
    return sec
