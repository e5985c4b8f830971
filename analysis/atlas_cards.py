"""ATLAS: win rate against ATLAS and action cards dealt; meld-kind frequencies."""

from __future__ import annotations

import polars as pl
from statsmodels.stats.contingency_tables import Table as CTable

from analysis import plots
from analysis.exprs import length_summary, mean_ci, rate_table
from analysis.model import Figure, Finding, RunData, Section, Table, fmt_num, prefix, stack

KEY = "atlas_cards"
MELDS = ("triples", "quads", "fives")


def dealt_win(seats: pl.LazyFrame, expr: pl.Expr) -> pl.LazyFrame:
    """Seat win rate by the count ``expr`` in its dealt hand (one row per seat and round)."""
    return rate_table(
        seats.with_columns(expr.cast(pl.Int64).alias("dealt")), ["dealt"], pl.col("won")
    ).rename({"k": "wins"})


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
        "atlas": dealt_win(run.seats, pl.col("atlas_dealt")),
        "actions": dealt_win(run.seats, ACTIONS),
        "melds": melds(run.games),
    }


def trend_p(df: pl.DataFrame) -> float:
    d = df.filter(pl.col("n") > 0).sort("dealt")
    if d.height < 2:
        return float("nan")
    t = CTable([[w, n - w] for w, n in zip(d["wins"], d["n"], strict=True)])
    return float(t.test_ordinal_association(row_scores=d["dealt"].to_numpy().astype(float)).pvalue)


def section(items: list[RunData]) -> Section:
    sec = Section(
        KEY,
        "ATLAS and action cards, melds",
        "A seat's round win rate by the ATLAS (wild) and action cards (SKIP, REVERSE, TRADE) in "
        "its 13 dealt cards, with a linear-by-linear trend test; melds laid per round by kind.",
    )
    for it in items:
        it.data[f"{KEY}.melds"] = mean_ci(it.get(f"{KEY}.melds")).select(
            "kind", "n", "mean", "mean_lo", "mean_hi", "sd", "total", "share"
        )
    a, b = stack(items, f"{KEY}.atlas"), stack(items, f"{KEY}.actions")
    m = stack(items, f"{KEY}.melds")
    sec.tables += [
        Table("atlas", "Win rate by ATLAS cards dealt", a, ("rate",)),
        Table("actions", "Win rate by action cards dealt", b, ("rate",)),
        Table("melds", "Melds per round by kind", m, ("share",)),
    ]
    group = "run" if len(items) > 1 else None
    for key, df, what in (("atlas", a, "ATLAS cards"), ("actions", b, "action cards")):
        sec.figures.append(
            Figure(
                key,
                what,
                plots.line_rates(
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
            p = trend_p(d)
            big = d.filter(pl.col("n") >= 30).sort("dealt")
            ends = (
                f"{100 * big['rate'][0]:.1f} % with {big['dealt'][0]} to "
                f"{100 * big['rate'][-1]:.1f} % with {big['dealt'][-1]}"
                if big.height >= 2
                else "–"
            )
            sec.findings.append(
                Finding(
                    f"{prefix(items, it)}{what[0].upper()}{what[1:]} dealt matter: a seat's win rate goes "
                    f"from {ends} (trend p = {p:.3g}).",
                    f"{prefix(items, it)}No effect of {what} dealt on winning is detectable "
                    f"(trend p = {p:.2f}).",
                    p,
                )
            )
        md = it.get(f"{KEY}.melds")
        parts = ", ".join(f"{fmt_num(r['mean'], 2)} {r['kind']}" for r in md.iter_rows(named=True))
        sec.findings.append(Finding(f"{prefix(items, it)}A round sees {parts} on average."))
    return sec
