"""The report section of a strategy comparison on duplicate deals (``cardsim compare`` runs).

The statistics are :mod:`cardsim.analysis.compare`'s: :func:`~cardsim.analysis.compare.pairwise` (paired
differences of win rate per pair of strategy labels, over deals) and
:func:`~cardsim.analysis.compare.ratings` (conditional logit with a position term, deal-clustered
errors). This module turns them into tables, a strategy × strategy matrix, a ratings plot and
plain-words findings. Runs without seat assignments get no rows here.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import polars as pl
from cardsim.analysis import compare, plots
from cardsim.analysis.facts import facts
from cardsim.analysis.model import Figure, Finding, RunData, Section, Table, plural, prefix

KEY = "duplicate"
#: |rating| beyond this (logit scale): no finite rating (one threshold, compare's)
SEPARATION = compare.SEPARATION


def queries(run) -> dict[str, pl.LazyFrame]:
    if not run.is_comparison:
        return {}
    names = run.seats.collect_schema().names()
    cols = ("game", "assignment", "round", "seat", "team", "position", "strategy", "won")
    return {
        "seats": run.seats.select([c for c in cols if c in names]).with_columns(
            pl.col("strategy").cast(pl.String)
        )
    }


def pairwise_table(seats: pl.DataFrame) -> pl.DataFrame:
    """:func:`cardsim.analysis.compare.pairwise`'s table in the report's column convention.

    ``diff`` with ``diff_lo``/``diff_hi`` (paired 95 %), ``bonferroni`` (the same estimate with
    the Bonferroni-adjusted simultaneous interval), ``unpaired`` (with the interval the same
    number of unpaired games would give), then ``p``, ``p_holm``, ``variance_ratio``,
    ``equivalent_unpaired_games``.
    """
    t = compare.pairwise(seats).table
    if t.height == 0:
        return t
    return t.select(
        "a",
        "b",
        "deals",
        "games",
        "win_a",
        "win_b",
        "diff",
        pl.col("lo").alias("diff_lo"),
        pl.col("hi").alias("diff_hi"),
        pl.col("diff").alias("bonferroni"),
        pl.col("lo_adj").alias("bonferroni_lo"),
        pl.col("hi_adj").alias("bonferroni_hi"),
        pl.col("diff").alias("unpaired"),
        "unpaired_lo",
        "unpaired_hi",
        "p",
        "se",
        "variance_ratio",
        "equivalent_unpaired_games",
    )


def matrix(pw: pl.DataFrame, names: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(diff, lo, hi)`` matrices: cell (i, j) = win rate of names[i] − names[j] (paired)."""
    k = len(names)
    idx = {n: i for i, n in enumerate(names)}
    d, lo, hi = (np.full((k, k), np.nan) for _ in range(3))
    for r in pw.iter_rows(named=True):
        i, j = idx[r["a"]], idx[r["b"]]
        d[i, j], lo[i, j], hi[i, j] = r["diff"], r["diff_lo"], r["diff_hi"]
        d[j, i], lo[j, i], hi[j, i] = -r["diff"], -r["diff_hi"], -r["diff_lo"]
    return d, lo, hi


def _points(x: float) -> str:
    return f"{100 * x:.1f}" if abs(x) >= 0.0005 or x == 0 else f"{100 * x:.2f}"


def pair_finding(r: dict, pre: str = "", row: int | None = None) -> Finding:
    """ "a beats b by 12.3 ± 0.8 points of win rate" / "a vs b: … (difference …)"."""
    half = (r["diff_hi"] - r["diff_lo"]) / 2
    win, lose = (r["a"], r["b"]) if r["diff"] >= 0 else (r["b"], r["a"])
    w_win, w_lose = (r["win_a"], r["win_b"]) if r["diff"] >= 0 else (r["win_b"], r["win_a"])
    rates = f"{100 * w_win:.1f} % vs {100 * w_lose:.1f} %"
    deals = f"paired on {r['deals']:,} duplicate deals"
    text = (
        f"{pre}{win} beats {lose} by {_points(abs(r['diff']))} ± {_points(half)} points of win "
        f"rate ({rates}, {deals})."
    )
    if w_win >= 1 and w_lose <= 0:  # separated: no interval to give, say what happened
        text = f"{pre}{win} won every game against {lose} ({deals})."
    return Finding(
        text,
        f"{pre}{r['a']} vs {r['b']}: {100 * r['win_a']:.1f} % vs {100 * r['win_b']:.1f} % "
        f"(difference {100 * r['diff']:+.1f} ± {_points(half)} points, {deals}).",
        r["p"],
        unit="deal",
        estimate=r["diff"],
        se=r.get("se"),
        n=r["deals"],
        measure="win rate",
        table="pairwise",
        row=row,
        answer=True,
    )


def _ratings(seats: pl.DataFrame, game: str, sec: Section, pre: str):
    try:
        return compare.ratings(seats, game)
    except (ValueError, np.linalg.LinAlgError) as e:
        sec.notes.append(f"{pre}no ratings: {e}")
        return None


def section(items: list[RunData]) -> Section:
    game = items[0].run.game
    f = facts(game)
    sec = Section(
        KEY,
        "Strategy comparison on duplicate deals",
        "Every deal is played once per seat assignment, so each pair of strategies meets on the "
        "same cards with the seats swapped or rotated: the deal's luck and the seat effect "
        "cancel from the paired difference. Win rate of a strategy in a game = the share of its "
        "seats"
        + (f" (its {f.side})" if f.side_column != "seat" else f" and {plural(f.row_unit)}")
        + " that won; the difference is averaged per deal, with a t-interval over deals. "
        "'bonferroni' is the simultaneous interval over all pairs, 'unpaired' the interval the "
        "same number of games on independent deals would give, 'equivalent_unpaired_games' the "
        "independent games needed for the paired precision.",
    )
    have = [it for it in items if f"{KEY}.seats" in it.data]
    if not have:
        sec.notes.append("No comparison run (made by cardsim compare) among these runs.")
        return sec
    pw_frames, rating_frames, position_frames, assign_rows = [], [], [], []
    for it in have:
        pre = prefix(items, it)
        seats = it.get(f"{KEY}.seats")
        names = it.run.compared
        for i, a in enumerate(it.run.assignments):
            assign_rows.append(
                {"run": it.label, "assignment": i, **{f"seat {s}": x for s, x in enumerate(a)}}
            )
        pw = pairwise_table(seats)
        it.data[f"{KEY}.pairwise"] = pw
        if pw.height == 0:
            sec.notes.append(f"{pre}no pair of strategies to compare")
            continue
        offset = sum(fr.height for fr in pw_frames)
        pw_frames.append(pw.select(pl.lit(it.label).alias("run"), pl.all()))
        _add_pair_findings(sec, pw, pre, offset)
        suffix = f"-{it.label}" if len(have) > 1 else ""
        d, lo, hi = matrix(pw, names)
        sec.figures.append(
            Figure(
                f"matrix{suffix}",
                f"{pre}paired difference of win rate, row − column",
                partial(
                    plots.diff_matrix,
                    names,
                    d,
                    lo,
                    hi,
                    title=f"{pre}win rate row − column (points, 95 % CI)",
                ),
            )
        )
        rt = _ratings(seats, it.run.game, sec, pre)
        if rt is None:
            continue
        table, position = _add_ratings(sec, rt, f, pre, suffix)
        rating_frames.append(table.select(pl.lit(it.label).alias("run"), pl.all()))
        position_frames.append(position.select(pl.lit(it.label).alias("run"), pl.all()))
    _add_tables(sec, items, f, assign_rows, pw_frames, rating_frames, position_frames)
    return sec


def _add_pair_findings(sec: Section, pw: pl.DataFrame, pre: str, offset: int) -> None:
    """One finding per pair, and how much pairing on duplicate deals bought."""
    for i, r in enumerate(pw.iter_rows(named=True)):
        sec.findings.append(pair_finding(r, pre, offset + i))
    best = pw.filter(pl.col("equivalent_unpaired_games").is_finite()).sort("variance_ratio")
    if best.height:
        r = best.row(0, named=True)
        sec.findings.append(
            Finding(
                f"{pre}Pairing on duplicate deals: the {r['a']} − {r['b']} difference is "
                f"known as precisely as from {r['equivalent_unpaired_games']:,.0f} games on "
                f"independent deals ({r['variance_ratio']:.2f} × the {r['games']:,} played)."
            )
        )


def _is_reference(col: str) -> pl.Expr:
    """The model's reference row (fixed at 0 with SE 0): shown as "reference" (issue 45 item 10)."""
    return ((pl.col(col) == 0) & (pl.col("se") == 0)).fill_null(False).alias("reference")


def _add_ratings(sec, rt, f, pre: str, suffix: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The rating model's finding, note and figure; its rating and position tables."""
    ordered = rt.table.sort("rating", descending=True)
    table = compare.shown_ratings(ordered).select(
        "strategy",
        "rating",
        pl.col("lo").alias("rating_lo"),
        pl.col("hi").alias("rating_hi"),
        "se",
        "wins",
        "played",
        "bound",
        _is_reference("rating"),
    )
    position = rt.position.select(
        "position",
        "effect",
        pl.col("lo").alias("effect_lo"),
        pl.col("hi").alias("effect_hi"),
        "se",
        _is_reference("effect"),
    )
    # the reference (0, no interval): the first strategy, or the first with a finite rating
    ref = rt.table.filter((pl.col("rating") == 0) & (pl.col("se") == 0))["strategy"][0]
    if not rt.table["finite"].all():
        sec.notes.append(
            f"{pre}a strategy won or lost (almost) every game: its rating is not finite (the "
            "model separates), so no number is given for it, only the bound (docs/ladder.md)."
        )
    sec.findings.append(
        Finding(
            f"{pre}Ratings (logit scale, against {ref}, the reference at 0): "
            + "; ".join(
                f"{r['strategy']} {compare.rating_text(r)}"
                for r in table.iter_rows(named=True)
                if r["strategy"] != ref
            )
            + f" (fitted on {rt.units:,} games).",
            answer=True,
        )
    )
    sec.figures.append(
        Figure(
            f"ratings{suffix}",
            f"{pre}ratings and position term",
            partial(
                plots.interval_points,
                [
                    (f"{pre}rating (logit, {ref} = 0)", table, "strategy", "rating"),
                    (
                        "position term" + (f" ({f.side})" if f.side_column != "seat" else ""),
                        position,
                        "position",
                        "effect (logit, position 0 = 0)",
                    ),
                ],
            ),
        )
    )
    return table, position


def _add_tables(sec, items, f, assign_rows, pw_frames, rating_frames, position_frames) -> None:
    """The assignment, pairwise, rating and position tables over all runs."""

    def joined(frames: list[pl.DataFrame]) -> pl.DataFrame:
        df = pl.concat(frames, how="diagonal_relaxed")
        return df if len(items) > 1 else df.drop("run")

    pct = ("win_a", "win_b", "diff", "bonferroni", "unpaired")
    sec.tables.append(
        Table("assignments", "Seat assignments per deal", joined_rows(assign_rows, items))
    )
    if pw_frames:
        sec.tables.append(
            Table(
                "pairwise",
                "Pairwise paired differences (a − b)",
                joined(pw_frames),
                pct,
                "p: paired t-test over deals; p_holm and verdict: Holm over this report's "
                "questions (each pair counted once), equivalence margin as stated in 'Verdicts'.",
                unit="deal",
            )
        )
    if rating_frames:
        sec.tables.append(
            Table(
                "ratings",
                "Ratings (conditional logit with a position term, deal-clustered errors)",
                joined(rating_frames),
                note="logit scale: a difference of 1 multiplies the odds of winning by e ≈ 2.7",
            )
        )
        sec.tables.append(
            Table(
                "position",
                "Position term of the rating model"
                + (
                    f" ({f.side})" if f.side_column != "seat" else " (steps after the first player)"
                ),
                joined(position_frames),
            )
        )


def joined_rows(rows: list[dict], items: list[RunData]) -> pl.DataFrame:
    df = pl.DataFrame(rows)
    return df if len(items) > 1 else df.drop("run")
