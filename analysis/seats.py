"""Seat and position advantage, read from the game facts (no game is named here).

A *side* is what wins (原子: a team, ATLAS: a seat; ``facts.side``). Per game (one games row:
a 原子 match, an ATLAS round; ``facts.row_unit``) the winning side is ``facts.winner_side()``
(null: no winner) and the first player's side ``facts.first_side()``. Rates are over the games
with a winner: per side, and per position after the first player's side (position 0 = the
first player's side). The first-player advantage is the position-0 rate's **excess over the
fair share** ``1 / sides`` — the one number comparable across player counts.

Unit: one game (``facts.row_unit``). In a comparison run each deal is played once per seat
assignment, so the rows of a deal are not independent: the variances are clustered by deal
(``game``); ATLAS rounds of one game are clustered by game too.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import polars as pl
from cardsim.analysis import plots, stats
from cardsim.analysis.exprs import (
    Partwise,
    clustered_rate_finish,
    clustered_rate_sums,
    deal_cluster,
    game_keys,
    position,
)
from cardsim.analysis.facts import facts
from cardsim.analysis.model import (
    Figure,
    Finding,
    RunData,
    Section,
    Table,
    plural,
    pm,
    prefix,
    stack,
)

KEY = "seats"


def side_outcomes(games: pl.LazyFrame, sides: int, f) -> pl.LazyFrame:
    """Per game × side: ``side``, ``position`` after the first player's side, ``won``,
    ``decided`` (the game had a winner)."""
    keys = game_keys(games)
    base = games.select(
        *keys,
        f.first_side().to_physical().cast(pl.Int64).alias("first"),
        f.winner_side().to_physical().cast(pl.Int64).alias("winner"),
    )
    # one lazy select per side (no list column): streams part by part
    return pl.concat(
        [
            base.select(
                *keys,
                pl.lit(s, pl.Int64).alias("side"),
                position(pl.lit(s, pl.Int64), pl.col("first"), sides).alias("position"),
                (pl.col("winner") == s).fill_null(False).alias("won"),
                pl.col("winner").is_not_null().alias("decided"),
            )
            for s in range(sides)
        ]
    )


def queries(run) -> dict[str, pl.LazyFrame]:
    f = facts(run.game)
    sides, cl = f.sides(run.players), deal_cluster(run.games)

    def rates(by: str) -> Partwise:  # batch by batch of parts (the cluster sums hold a batch)
        return Partwise(
            lambda g, _: clustered_rate_sums(
                side_outcomes(g, sides, f).filter(pl.col("decided")), [by], pl.col("won"), cl
            ),
            (by,),
            lambda agg: clustered_rate_finish(agg, [by]).rename({"k": "wins"}),
        )

    return {"side": rates("side"), "position": rates("position")}


# --- report section ------------------------------------------------------------------------


def first_player_row(it: RunData) -> dict:
    """The first player's side: wins, n, rate, excess over the fair share with its interval,
    and the p-value of "no excess" (one dict, also used by the comparison of runs)."""
    f = facts(it.run.game)
    fair = f.fair_share(it.run.players)
    pos = it.get(f"{KEY}.position").filter(pl.col("position") == 0)
    if pos.height == 0:  # no game had a winner (e.g. AT-D1 hand sizes near the deck's share)
        nan = float("nan")
        keys = ("rate", "rate_lo", "rate_hi", "excess", "excess_lo", "excess_hi", "se", "deff", "p")
        return {"wins": 0, "n": 0, "fair_share": fair, **dict.fromkeys(keys, nan)}
    r = pos.row(0, named=True)
    d, lo, hi, p = stats.clustered_diff_from(r["wins"], r["n"], fair, r["var"], r["deff"])
    return {
        "wins": r["wins"],
        "n": r["n"],
        "rate": r["rate"],
        "rate_lo": r["rate_lo"],
        "rate_hi": r["rate_hi"],
        "fair_share": fair,
        "excess": float(d[0]),
        "excess_lo": float(lo[0]),
        "excess_hi": float(hi[0]),
        "se": float(np.sqrt(r["var"])),
        "deff": r["deff"],
        "p": float(p[0]),
    }


def section(items: list[RunData]) -> Section:
    f = facts(items[0].run.game)
    unit = f.row_unit
    sec = Section(
        KEY,
        "Seat and position advantage",
        f"Win rate per {f.side} and per position after the {f.first_player_label}, over the "
        f"{plural(unit)} that had a winner (unit: one {unit}; 95 % Wilson intervals, clustered by deal in "
        f"comparison runs). Position 0 is the {f.first_player_label}; its **excess over the "
        f"fair share** (1 / number of {f.side}s) is the first-player advantage.",
    )
    for it in items:
        if it.run.is_comparison:
            sec.notes.append(
                f"{prefix(items, it)}comparison run: rates are pooled over the "
                f"{len(it.run.assignments)} seat assignments of each deal (every strategy sits "
                "in every seat equally often), so they describe the seats, not a strategy; the "
                "intervals are clustered by deal."
            )
    rows = []
    for it in items:
        pre = prefix(items, it)
        _add_first_player(sec, it, pre, rows, f)
    if not rows:
        return sec
    _add_tables_and_figures(sec, items, rows, f)
    return sec


def _add_first_player(sec: Section, it: RunData, pre: str, rows: list[dict], f) -> None:
    """One run's first-player row, its χ² note over the sides and its first-player finding."""
    unit = f.row_unit
    fp = first_player_row(it)
    if fp["n"] == 0:
        sec.notes.append(
            f"{pre}no {unit} had a winner: there is no seat or position advantage to measure."
        )
        return
    rows.append({"run": it.label, "what": f.first_player_label, **fp})
    side = it.get(f"{KEY}.side")
    chi = stats.chi2_gof(side["wins"].to_numpy())
    sec.notes.append(
        f"{pre}all {f.side}s equal (χ², decided {plural(unit)}, not clustered): "
        f"χ² = {chi.statistic:.2f}, dof = {chi.dof}, p = {chi.pvalue:.3g}, n = {chi.n:,}"
    )
    ex = pm(fp["excess"], fp["excess_lo"], fp["excess_hi"]).replace(" %", "")
    sec.findings.append(
        Finding(
            f"{pre}The {f.first_player_label} wins "
            f"{pm(fp['rate'], fp['rate_lo'], fp['rate_hi'])} of {plural(unit)} with a winner: "
            f"{ex} points above the fair share of {100 * fp['fair_share']:.1f} % "
            f"(n = {fp['n']:,} {plural(unit)}).",
            f"{pre}First-player advantage: the {f.first_player_label} wins "
            f"{pm(fp['rate'], fp['rate_lo'], fp['rate_hi'])} of {plural(unit)}, {ex} points over "
            f"the fair share of {100 * fp['fair_share']:.1f} % (n = {fp['n']:,}).",
            fp["p"],
            unit=unit,
            estimate=fp["excess"],
            se=fp["se"] if np.isfinite(fp["se"]) else None,
            n=_units(it, fp["n"]),
            measure="win rate",
            table="first_player",
            row=len(rows) - 1,
            answer=True,
        )
    )


def _add_tables_and_figures(sec: Section, items: list[RunData], rows: list[dict], f) -> None:
    unit = f.row_unit
    first = pl.DataFrame(rows).drop("se", "deff")
    if len(items) == 1:
        first = first.drop("run")
    side = stack(items, f"{KEY}.side").drop("var", "clusters").rename({"side": f.side})
    position_df = stack(items, f"{KEY}.position").drop("var", "clusters")
    pct = ("rate", "fair_share", "excess")
    sec.tables += [
        Table(f"{f.side}", f"Win rate per {f.side}", side, pct, unit=unit),
        Table(
            "position",
            f"Win rate per position after the {f.first_player_label}",
            position_df,
            pct,
            f"position 0 = the {f.first_player_label}; rates over the {plural(unit)} that had a winner",
            unit=unit,
        ),
        Table(
            "first_player",
            "First-player advantage: excess over the fair share",
            first,
            pct,
            unit=unit,
        ),
    ]
    group = "run" if len(items) > 1 else None
    fair = [f.fair_share(it.run.players) for it in items]
    same = len(set(fair)) == 1
    for key, what in ((f.side, f"Win rate per {f.side}"), ("position", "Win rate per position")):
        df = side if key == f.side else position_df
        sec.figures.append(
            Figure(
                key,
                what,
                partial(
                    plots.bar_rates,
                    df,
                    key,
                    group=group,
                    expected=fair[0] if same else None,
                    title=f"{what} (95 % CI)",
                    xlabel=f.side
                    if key == f.side
                    else f"position after the {f.first_player_label}",
                ),
            )
        )


def _units(it: RunData, n: int) -> int:
    """Independent units behind ``n`` games: deals in a comparison run."""
    k = len(it.run.assignments)
    return n // k if k else n
