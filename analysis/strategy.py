"""Strategy effect within a run whose seats carry different strategies.

原子: the unit is a team line-up (strategies of its two seats, e.g. ``greedy + random``); its
win rate against 50 %. ATLAS: per strategy, the share of decided rounds won by a seat playing it,
against its share of the seats (``seats / n``). Either way one row per game, so the binomial
intervals hold (seats of one game are not independent trials).
"""

from __future__ import annotations

import polars as pl

from analysis import plots, stats
from analysis.exprs import with_rate
from analysis.model import Figure, Finding, RunData, Section, Table, pm, prefix, stack

KEY = "strategy"


def lineups(game: str, strategies: list[str]) -> pl.DataFrame:
    """The unit of comparison per seat: ``seat, unit, weight`` (seats per unit / players)."""
    n = len(strategies)
    short = [s.rsplit(":", 1)[-1] if ":" in s else s for s in strategies]
    if game == "yuanzi":
        units = [f"{short[s % 2]} + {short[s % 2 + 2]} (team {s % 2})" for s in range(4)]
    else:
        units = short
    counts = {u: units.count(u) for u in units}
    return pl.DataFrame(
        {
            "seat": list(range(n)),
            "unit": units,
            "expected": [counts[u] / n for u in units],
        },
        schema={"seat": pl.Int64, "unit": pl.String, "expected": pl.Float64},
    )


def yuanzi_rates(games: pl.LazyFrame, units: pl.DataFrame) -> pl.LazyFrame:
    """Win rate per team line-up: one row per (match, team)."""
    per_team = units.filter(pl.col("seat") < 2).select(
        pl.col("seat").alias("team"), "unit", "expected"
    )
    n = games.select(n=pl.len().cast(pl.Int64))
    wins = games.group_by(pl.col("winner_team").cast(pl.Int64).alias("team")).agg(
        wins=pl.len().cast(pl.Int64)
    )
    per = (
        per_team.lazy()
        .join(wins, on="team", how="left")
        .with_columns(pl.col("wins").fill_null(0))
        .group_by("unit", maintain_order=True)
        .agg(pl.col("wins").sum(), pl.col("expected").sum())
        .join(n, how="cross")
    )
    return with_rate(per.select(pl.col("unit").alias("strategy"), "wins", "n", "expected"), "wins")


def atlas_rates(games: pl.LazyFrame, units: pl.DataFrame) -> pl.LazyFrame:
    """Share of decided rounds won by a seat playing each strategy."""
    decided = games.filter(pl.col("winner") >= 0)
    n = decided.select(n=pl.len().cast(pl.Int64))
    wins = (
        decided.select(pl.col("winner").cast(pl.Int64).alias("seat"))
        .join(units.lazy(), on="seat")
        .group_by("unit")
        .agg(wins=pl.len().cast(pl.Int64))
    )
    per = (
        units.lazy()
        .group_by("unit", maintain_order=True)
        .agg(pl.col("expected").first())
        .join(wins, on="unit", how="left")
        .with_columns(pl.col("wins").fill_null(0))
        .join(n, how="cross")
    )
    return with_rate(per.select(pl.col("unit").alias("strategy"), "wins", "n", "expected"), "wins")


def label_rates(seats: pl.LazyFrame, game: str) -> pl.LazyFrame:
    """Comparison runs: win rate per strategy label from the seats table's ``strategy``.

    原子: one row per (played game, team) — a team's two seats carry one label — against 50 %.
    ATLAS: the share of decided rounds won by a seat with the label, against the label's share
    of the seats in those rounds.
    """
    keys = [c for c in ("game", "assignment", "round") if c in seats.collect_schema().names()]
    if game == "yuanzi":
        teams = seats.group_by(*keys, "team").agg(pl.col("strategy").first(), pl.col("won").first())
        per = teams.group_by("strategy").agg(
            wins=pl.col("won").cast(pl.Int64).sum(),
            n=pl.len().cast(pl.Int64),
            expected=pl.lit(0.5, pl.Float64),
        )
    else:
        decided = seats.group_by(keys).agg(pl.col("won").any().alias("d")).filter(pl.col("d"))
        n = decided.select(n=pl.len().cast(pl.Int64))
        rows = seats.join(decided.select(keys), on=keys)
        total = rows.select(total=pl.len().cast(pl.Float64))
        per = (
            rows.group_by("strategy")
            .agg(wins=pl.col("won").cast(pl.Int64).sum(), seats=pl.len().cast(pl.Float64))
            .join(n, how="cross")
            .join(total, how="cross")
            .with_columns(expected=pl.col("seats") / pl.col("total"))
        )
    return with_rate(
        per.select(pl.col("strategy").cast(pl.String), "wins", "n", "expected").sort("strategy"),
        "wins",
    )


def queries(run) -> dict[str, pl.LazyFrame]:
    if run.manifest.get("assignments"):
        return {"rates": label_rates(run.seats, run.game)}
    units = lineups(run.game, run.strategies)
    if units["unit"].str.replace(r" \(team \d\)$", "").n_unique() < 2:
        return {}
    rates = yuanzi_rates if run.game == "yuanzi" else atlas_rates
    return {"rates": rates(run.games, units)}


def with_tests(df: pl.DataFrame) -> pl.DataFrame:
    """Add the difference from the expected share with its interval and a binomial p-value."""
    if df.height == 0:
        return df
    d, lo, hi, p = stats.diff_from(
        df["wins"].to_numpy(), df["n"].to_numpy(), df["expected"].to_numpy()
    )
    return df.with_columns(
        diff=pl.Series(d), diff_lo=pl.Series(lo), diff_hi=pl.Series(hi), p=pl.Series(p)
    )


def section(items: list[RunData]) -> Section:
    sec = Section(
        KEY,
        "Strategy effect",
        "Win rate per strategy (原子: per team line-up) against its fair share, for runs whose "
        "seats play different strategies.",
    )
    for it in items:
        if it.run.manifest.get("assignments"):
            sec.notes.append(
                f"{prefix(items, it)}comparison run: rates per strategy label, pooled over "
                f"{len(it.run.manifest['assignments'])} seat assignments per deal (unpaired "
                "binomial intervals); the paired differences are in 'Strategy comparison on "
                "duplicate deals'."
            )
    have = [it for it in items if f"{KEY}.rates" in it.data]
    for it in items:
        if it not in have:
            sec.notes.append(
                f"{prefix(items, it)}every seat plays {it.run.strategies[0]!r}"
                + ("" if len(set(it.run.strategies)) == 1 else " (line-ups equal)")
                + ": no strategy comparison in this run."
            )
    if not have:
        return sec
    for it in have:
        it.data[f"{KEY}.rates"] = with_tests(it.get(f"{KEY}.rates"))
        for r in it.get(f"{KEY}.rates").iter_rows(named=True):
            sec.findings.append(
                Finding(
                    f"{prefix(items, it)}{r['strategy']} wins "
                    f"{pm(r['rate'], r['rate_lo'], r['rate_hi'])} against a fair share of "
                    f"{100 * r['expected']:.1f} %.",
                    f"{prefix(items, it)}No strategy effect detectable for {r['strategy']}: "
                    f"{pm(r['rate'], r['rate_lo'], r['rate_hi'])} against a fair share of "
                    f"{100 * r['expected']:.1f} %.",
                    r["p"],
                )
            )
    df = stack(have, f"{KEY}.rates")
    sec.tables.append(Table("rates", "Win rate per strategy", df, ("rate", "expected", "diff")))
    sec.figures.append(
        Figure(
            "rates",
            "strategy win rates",
            plots.bar_rates(
                df,
                "strategy",
                group="run" if len(have) > 1 else None,
                expected="expected" if len(have) == 1 else None,
                title="Win rate per strategy (95 % CI)",
                xlabel="strategy",
            ),
        )
    )
    return sec
