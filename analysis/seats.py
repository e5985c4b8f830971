"""Seat and position advantage: win rate per seat / per position after the first player.

原子: seats 0 and 2 (and 1 and 3) share every result, so "all seats equal" is tested on the two
teams (expected 1/2 each), and "first player" is the team of the first half's first leader.
ATLAS: a round has at most one winner; rates and tests are over the rounds that had a winner
(expected 1/n per seat).
"""

from __future__ import annotations

import polars as pl

from analysis import plots, stats
from analysis.exprs import game_keys, position, rate_table, with_rate
from analysis.model import Figure, Finding, RunData, Section, Table, pm, prefix, stack

KEY = "seats"


# --- outcomes per (game, seat): won, position after the first player -----------------------


def yuanzi_outcomes(games: pl.LazyFrame, seats: pl.LazyFrame) -> pl.LazyFrame:
    """Per match × seat: ``won``, ``position`` after the first half's first leader, ``team``."""
    keys = game_keys(games)
    first = games.select(*keys, pl.col("first_leader_0").cast(pl.Int64).alias("first"))
    return seats.join(first, on=keys).select(
        *keys,
        pl.col("seat").cast(pl.Int64),
        pl.col("team").cast(pl.Int64),
        position(pl.col("seat").cast(pl.Int64), pl.col("first"), 4).alias("position"),
        pl.col("won"),
    )


def team_outcomes(outcomes: pl.LazyFrame) -> pl.LazyFrame:
    """原子: one row per (match, team); partners share the result, so each team counts once."""
    return outcomes.group_by(*game_keys(outcomes), "team").agg(pl.col("won").first())


def atlas_outcomes(games: pl.LazyFrame, players: int) -> pl.LazyFrame:
    """Per round × seat: ``won`` and ``position`` after the round's first player."""
    seat = pl.int_range(0, players, dtype=pl.Int64).alias("seat")
    return (
        games.select("game", "round", "first_player", "winner", seat.implode())
        .explode("seat")
        .select(
            "game",
            "round",
            "seat",
            position(pl.col("seat"), pl.col("first_player").cast(pl.Int64), players).alias(
                "position"
            ),
            (pl.col("winner").cast(pl.Int64) == pl.col("seat")).alias("won"),
            (pl.col("winner") >= 0).alias("decided"),
        )
    )


def win_rates(outcomes: pl.LazyFrame, by: str) -> pl.LazyFrame:
    """Win rate per value of ``by`` (``seat``, ``position``, ``team``) with 95 % Wilson CI."""
    return rate_table(outcomes, [by], pl.col("won")).rename({"k": "wins"})


def first_team_rate(games: pl.LazyFrame, col: str = "first_leader_0") -> pl.LazyFrame:
    """原子: matches won by the team of seat ``col`` (first leader or first receiver)."""
    return with_rate(
        games.select(
            n=pl.len().cast(pl.Int64),
            wins=(pl.col("winner_team") == pl.col(col) % 2).cast(pl.Int64).sum(),
        ).select("wins", "n"),
        "wins",
    )


def queries(run) -> dict[str, pl.LazyFrame]:
    if run.game == "yuanzi":
        out = yuanzi_outcomes(run.games, run.seats)
        return {
            "seat": win_rates(out, "seat"),
            "position": win_rates(out, "position"),
            "team": win_rates(team_outcomes(out), "team"),
            "first_leader_team": first_team_rate(run.games, "first_leader_0"),
            "first_receiver_team": first_team_rate(run.games, "first_receiver_0"),
        }
    decided = atlas_outcomes(run.games, run.players).filter(pl.col("decided"))
    return {"seat": win_rates(decided, "seat"), "position": win_rates(decided, "position")}


# --- report section ------------------------------------------------------------------------


def _diff_table(k: int, n: int, p0: float) -> dict:
    d, lo, hi, p = stats.diff_from(k, n, p0)
    return {"diff": float(d[0]), "diff_lo": float(lo[0]), "diff_hi": float(hi[0]), "p": float(p[0])}


def section(items: list[RunData]) -> Section:
    game = items[0].run.game
    sec = Section(
        KEY,
        "Seat and position advantage",
        "Win rate per seat and per position after the first player, with 95 % Wilson intervals. "
        + (
            "In 原子 partners share every result, so seats 0/2 and 1/3 have equal rates; the "
            "test of 'all seats equal' compares the two teams (expected 50 % each), and the "
            "'first player' is the team of the first half's first leader (the seat dealt the 刀 "
            "indicator)."
            if game == "yuanzi"
            else "The chi-square test of 'all seats equal' and the first-player advantage use "
            "the rounds that had a winner (expected 1/n each); no-winner rounds are counted in "
            "'How rounds end'."
        ),
    )
    for it in items:
        if it.run.is_comparison:
            sec.notes.append(
                f"{prefix(items, it)}comparison run: seat and position rates are pooled over "
                f"the {len(it.run.assignments)} seat assignments (every strategy sits in every "
                "seat equally often), so they describe the seats, not a strategy; every played "
                "game counts once."
            )
    rows = []
    for it in items:
        pre = prefix(items, it)
        n_players = it.run.players
        label = {"run": it.label}
        if game == "yuanzi":
            team = it.get(f"{KEY}.team")
            chi = stats.chi2_gof(team["wins"].to_numpy())
            fl = it.get(f"{KEY}.first_leader_team").row(0, named=True)
            fr = it.get(f"{KEY}.first_receiver_team").row(0, named=True)
            dl, dr = _diff_table(fl["wins"], fl["n"], 0.5), _diff_table(fr["wins"], fr["n"], 0.5)
            rows += [
                {
                    **label,
                    "what": "team of first leader (half 1)",
                    "wins": fl["wins"],
                    "n": fl["n"],
                    "rate": fl["rate"],
                    "rate_lo": fl["rate_lo"],
                    "rate_hi": fl["rate_hi"],
                    "expected": 0.5,
                    **dl,
                },
                {
                    **label,
                    "what": "team of first receiver (half 1)",
                    "wins": fr["wins"],
                    "n": fr["n"],
                    "rate": fr["rate"],
                    "rate_lo": fr["rate_lo"],
                    "rate_hi": fr["rate_hi"],
                    "expected": 0.5,
                    **dr,
                },
            ]
            worst = (
                team.with_columns(dev=(pl.col("rate") - 0.5).abs()).sort("dev").row(-1, named=True)
            )
            sec.findings.append(
                Finding(
                    f"{pre}Team {worst['team']} ({'南北' if worst['team'] == 0 else '东西'}) wins "
                    f"{pm(worst['rate'], worst['rate_lo'], worst['rate_hi'])} of matches against "
                    f"50 % expected (χ² = {chi.statistic:.1f}, p = {chi.pvalue:.3g}).",
                    f"{pre}No seat or team advantage detectable at this sample size: team "
                    f"{worst['team']} wins {pm(worst['rate'], worst['rate_lo'], worst['rate_hi'])} "
                    f"(χ² p = {chi.pvalue:.2f}).",
                    chi.pvalue,
                )
            )
            sec.findings.append(
                Finding(
                    f"{pre}The first leader's team wins {pm(fl['rate'], fl['rate_lo'], fl['rate_hi'])}"
                    f" of matches against 50 % expected ({100 * dl['diff']:+.1f} points).",
                    f"{pre}No first-leader advantage detectable: the first leader's team wins "
                    f"{pm(fl['rate'], fl['rate_lo'], fl['rate_hi'])}.",
                    dl["p"],
                )
            )
        else:
            pos = it.get(f"{KEY}.position")
            chi = stats.chi2_gof(it.get(f"{KEY}.seat")["wins"].to_numpy())
            f0 = pos.filter(pl.col("position") == 0).row(0, named=True)
            p0 = 1.0 / n_players
            d0 = _diff_table(f0["wins"], f0["n"], p0)
            rows.append(
                {
                    **label,
                    "what": "first player (decided rounds)",
                    "wins": f0["wins"],
                    "n": f0["n"],
                    "rate": f0["rate"],
                    "rate_lo": f0["rate_lo"],
                    "rate_hi": f0["rate_hi"],
                    "expected": p0,
                    **d0,
                }
            )
            w = (
                it.get(f"{KEY}.seat")
                .with_columns(dev=(pl.col("rate") - p0).abs())
                .sort("dev")
                .row(-1, named=True)
            )
            sec.findings.append(
                Finding(
                    f"{pre}Seat {w['seat']} wins {pm(w['rate'], w['rate_lo'], w['rate_hi'])} of decided "
                    f"rounds against {100 * p0:.1f} % expected (χ² = {chi.statistic:.1f}, "
                    f"p = {chi.pvalue:.3g}).",
                    f"{pre}No seat advantage detectable at this sample size (χ² p = "
                    f"{chi.pvalue:.2f}; the largest deviation, seat {w['seat']}, wins "
                    f"{pm(w['rate'], w['rate_lo'], w['rate_hi'])} of decided rounds).",
                    chi.pvalue,
                )
            )
            sec.findings.append(
                Finding(
                    f"{pre}The first player wins {pm(f0['rate'], f0['rate_lo'], f0['rate_hi'])} of "
                    f"decided rounds against {100 * p0:.1f} % expected "
                    f"({100 * d0['diff']:+.1f} points).",
                    f"{pre}No first-player advantage detectable: the first player wins "
                    f"{pm(f0['rate'], f0['rate_lo'], f0['rate_hi'])} of decided rounds "
                    f"({100 * p0:.1f} % expected).",
                    d0["p"],
                )
            )
        sec.notes.append(
            f"{pre}all seats equal: χ² = {chi.statistic:.2f}, dof = {chi.dof}, "
            f"p = {chi.pvalue:.3g}, n = {chi.n:,}"
        )
    first = pl.DataFrame(rows)
    if len(items) == 1:
        first = first.drop("run")
    seat = stack(items, f"{KEY}.seat")
    position_df = stack(items, f"{KEY}.position")
    pct = ("rate", "expected", "diff")
    sec.tables += [
        Table("seat", "Win rate per seat", seat, pct),
        Table(
            "position",
            "Win rate per position after the first player",
            position_df,
            pct,
            "position 0 = the first player"
            + (
                " (first leader of half 1)"
                if game == "yuanzi"
                else "; rates over the rounds that had a winner"
            ),
        ),
        Table("first_player", "First-player advantage (difference from expected)", first, pct),
    ]
    if game == "yuanzi":
        sec.tables.insert(1, Table("team", "Win rate per team", stack(items, f"{KEY}.team"), pct))
    group = "run" if len(items) > 1 else None
    expected = 0.5 if game == "yuanzi" else None
    sec.figures.append(
        Figure(
            "seat",
            "Win rate per seat",
            plots.bar_rates(
                seat,
                "seat",
                group=group,
                expected=expected or (1.0 / items[0].run.players if len(items) == 1 else None),
                title="Win rate per seat (95 % CI)",
                xlabel="seat",
            ),
        )
    )
    sec.figures.append(
        Figure(
            "position",
            "Win rate per position",
            plots.bar_rates(
                position_df,
                "position",
                group=group,
                expected=expected or (1.0 / items[0].run.players if len(items) == 1 else None),
                title="Win rate by position after the first player (95 % CI)",
                xlabel="position after the first player",
            ),
        )
    )
    return sec
