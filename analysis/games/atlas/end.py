"""ATLAS: how rounds end (claim, self-meld, last card, action card, …), no-winner and turn-cap
rates, and the effect of the player count when several runs are given."""

from __future__ import annotations

from functools import partial

import polars as pl
from cardsim.analysis import plots
from cardsim.analysis.exprs import mean_ci, with_rate
from cardsim.analysis.model import (
    Figure,
    Finding,
    RunData,
    Section,
    Table,
    fmt_num,
    pm,
    prefix,
    stack,
    words,
)
from cardsim.kernels.atlas.encoding import END_NAMES  # protocol §6 end codes, in order

#: the protocol §6 end names in words (tables and notes; the JSON keeps the names)
END_WORDS = {
    "claim": "a winning claim",
    "self_meld": "a self-meld",
    "last_card_draw": "last card paired by a draw",
    "last_card_claim": "last card paired by a claim",
    "action_card": "a last action card",
    "no_winner": "no winner",
    "turn_cap": "the turn cap",
    "last_discard": "a last discard (variant)",
}
#: unit of each table: what one counted row is
UNITS = {"ends": "round", "players": "run"}
KEY = "atlas_end"
#: rates the comparison of runs sets side by side: (measure, query, row filter); unit: round
HEADLINE = (
    ("no winner", "atlas_end.ends", {"end": "no_winner"}),
    ("turn cap", "atlas_end.ends", {"end": "turn_cap"}),
    ("won by claim", "atlas_end.ends", {"end": "claim"}),
)
#: per-row definitions of the HEADLINE rates (games table: indicator, rows counted), so runs on
#: the same deals are compared paired (analysis/report.py)
HEADLINE_ROWS = {
    what: (lambda end=filt["end"]: (pl.col("end").cast(pl.String) == end, pl.lit(True)))
    for what, _, filt in HEADLINE
}


def ends(games: pl.LazyFrame) -> pl.LazyFrame:
    """Share of rounds per end kind (all kinds listed, zero-filled), 95 % Wilson intervals."""
    counts = games.group_by(pl.col("end").cast(pl.String)).agg(k=pl.len().cast(pl.Int64))
    n = games.select(n=pl.len().cast(pl.Int64))
    grid = pl.LazyFrame({"end": list(END_NAMES), "order": list(range(len(END_NAMES)))})
    joined = (
        grid.join(counts, on="end", how="left")
        .with_columns(pl.col("k").fill_null(0))
        .join(n, how="cross")
        .sort("order")
        .select("end", "k", "n")
    )
    return with_rate(joined)


def by_players(games: pl.LazyFrame, players: int) -> pl.LazyFrame:
    """One row: players, rounds, no-winner share, mean turns, first-player share of wins."""
    decided = pl.col("winner").is_not_null()
    return games.select(
        pl.lit(players, pl.Int64).alias("players"),
        pl.len().cast(pl.Int64).alias("rounds"),
        (~decided).sum().cast(pl.Int64).alias("no_winner"),
        pl.col("turns").mean().alias("mean_turns"),
        decided.sum().cast(pl.Int64).alias("decided"),
        (decided & (pl.col("winner") == pl.col("first_player")))
        .sum()
        .cast(pl.Int64)
        .alias("first_wins"),
    )


def queries(run) -> dict[str, pl.LazyFrame]:
    return {"ends": ends(run.games), "players": by_players(run.games, run.players)}


def _no_winner_answers(items: list[RunData]) -> list[Finding]:
    """Per run the no-winner and turn-cap shares, as an Answer: only the ones that happened (a
    share of nothing is no answer, issue 45 item 10)."""
    out = []
    for it in items:
        e = {r["end"]: r for r in it.get(f"{KEY}.ends").iter_rows(named=True)}
        said = [
            f"{pm(r['rate'], r['rate_lo'], r['rate_hi'])} of rounds {what}"
            for r, what in (
                (e["no_winner"], "end with no winner"),
                (e["turn_cap"], "hit the turn cap"),
            )
            if r["k"] > 0
        ]
        if said:
            out.append(Finding(f"{prefix(items, it)}{' and '.join(said)}.", answer=True))
    return out


def section(items: list[RunData]) -> Section:
    sec = Section(
        KEY,
        "How rounds end",
        "Share of rounds by how they end (protocol §6): a winning claim, a self-meld that "
        "empties the hand, the last card paired by a draw or a claim, a last action card, a "
        "last discard (variant), or no winner (empty piles, AT-23) and the turn cap.",
    )
    df = stack(items, f"{KEY}.ends")
    # an end no run ever reached is no row (nothing to say), only named in a note (issue 45 item 10)
    never = [e for e in END_NAMES if df.filter(pl.col("end") == e)["k"].sum() == 0]
    shown = df.filter(~pl.col("end").is_in(never))  # the JSON keeps every row
    if never:
        sec.notes.append(
            f"never seen (0 rounds each): {', '.join(END_WORDS.get(e, e) for e in never)}."
        )
    sec.tables.append(
        Table("ends", "How rounds end", df, ("rate",), display=words(shown, "end", END_WORDS))
    )
    group = "run" if len(items) > 1 else None
    sec.figures.append(
        Figure(
            "ends",
            "round ends",
            partial(
                plots.bar_rates,
                words(shown, "end", END_WORDS),
                "end",
                group=group,
                title="How rounds end (95 % CI)",
                xlabel="",
                ylabel="share",
            ),
        )
    )
    sec.findings.extend(_no_winner_answers(items))
    if len(items) > 1:
        rows = []
        for it in items:
            r = it.get(f"{KEY}.players")
            rows.append(r.select(pl.lit(it.label).alias("run"), pl.all()))
        pdf = pl.concat(rows)
        pdf = with_rate(pdf.lazy(), "no_winner", "rounds", "no_winner_rate")
        pdf = (
            with_rate(pdf, "first_wins", "decided", "first_share")
            .with_columns(fair_share=1.0 / pl.col("players"))
            .collect()
        )
        sec.tables.append(
            Table(
                "players",
                "Effect of the player count",
                pdf.sort("players"),
                ("no_winner_rate", "first_share", "fair_share"),
            )
        )
        sec.figures.append(
            Figure(
                "players",
                "player count",
                partial(
                    plots.player_counts,
                    pdf.with_columns(
                        rate=pl.col("first_share"),
                        rate_lo=pl.col("first_share_lo"),
                        rate_hi=pl.col("first_share_hi"),
                    ),
                ),
            )
        )
    for t in sec.tables:  # what one counted row is (docs/report.md, "Units")
        t.unit = t.unit or UNITS.get(t.key, "")
    return sec


# --- game length measures (read by analysis/length.py) ---------------------------------------


def length_values(games: pl.LazyFrame) -> pl.LazyFrame:
    """Long table ``measure, value``: turns per round and reshuffles per round."""
    return pl.concat(
        [
            games.select(
                pl.lit(f"{m} per round").alias("measure"), pl.col(m).cast(pl.Int64).alias("value")
            )
            for m in ("turns", "reshuffles")
        ]
    )


LENGTH_MAIN = "turns per round"
LENGTH_INTRO = (
    "Turns per round (AT-23 counts every turn, claims excluded) and reshuffles of the discard "
    "pile per round."
)


# --- score measures (read by analysis/scores.py) ---------------------------------------------


def score_values(games: pl.LazyFrame, seats: pl.LazyFrame) -> pl.LazyFrame:
    """Long table ``measure, value``: winner points per decided round."""
    return games.filter(pl.col("winner").is_not_null()).select(
        pl.lit("winner points").alias("measure"),
        pl.col("winner_points").cast(pl.Int64).alias("value"),
    )


SCORE_INTRO = "Points the winner receives (the hand values of the others, AT-24)."


def score_section(sec: Section, items: list[RunData], hist: pl.DataFrame) -> None:
    """The ATLAS part of the scores section: the winner's points."""
    KEY = "scores"  # noqa: N806  (the shared section's results)
    group = "run" if len(items) > 1 else None
    h = hist.filter(pl.col("measure") == "winner points")
    sec.figures.append(
        Figure(
            "winner_points",
            "winner points",
            partial(
                plots.histogram,
                h,
                "value",
                group=group,
                title="Points of the round winner",
                xlabel="points",
            ),
        )
    )
    for it in items:
        summary = mean_ci(it.get(f"{KEY}.summary"))
        if summary.height == 0:  # no round had a winner (AT-D1 hand sizes near the deck's share)
            sec.notes.append(f"{prefix(items, it)}no round had a winner: nobody scored.")
            continue
        s = summary.row(0, named=True)
        sec.findings.append(
            Finding(
                f"{prefix(items, it)}A round winner receives {fmt_num(s['mean'], 1)} points on "
                f"average (95 % CI {fmt_num(s['mean_lo'], 1)}–{fmt_num(s['mean_hi'], 1)}; "
                f"median {fmt_num(s['median'], 0)})."
            )
        )
