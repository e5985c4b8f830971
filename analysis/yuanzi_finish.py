"""原子 双夹 and finish orders: 双夹 rate (by which team), second-half rate, 1-2 / 1-3 / 1-4."""

from __future__ import annotations

import polars as pl

from analysis import plots
from analysis.exprs import rate_table, with_rate
from analysis.model import Figure, Finding, RunData, Section, Table, pm, prefix, stack

KEY = "yuanzi_finish"
PATTERNS = {2: "1-2", 3: "1-3", 4: "1-4"}


def match_rates(games: pl.LazyFrame) -> pl.LazyFrame:
    """双夹 rate, 双夹 won by team 0 / team 1, and the second-half rate (one row each)."""
    n = pl.len().cast(pl.Int64)
    sj = pl.col("shuangjia")
    counts = games.select(
        pl.lit("双夹 (any team)").alias("outcome"), n.alias("n"), sj.sum().cast(pl.Int64).alias("k")
    )
    parts = [counts]
    for t in (0, 1):
        parts.append(
            games.select(
                pl.lit(f"双夹 won by team {t} ({'南北' if t == 0 else '东西'})").alias("outcome"),
                n.alias("n"),
                (sj & (pl.col("winner_team") == t)).sum().cast(pl.Int64).alias("k"),
            )
        )
    parts.append(
        games.select(
            pl.lit("second half played").alias("outcome"),
            n.alias("n"),
            pl.col("second_half").sum().cast(pl.Int64).alias("k"),
        )
    )
    return with_rate(pl.concat(parts).select("outcome", "k", "n"))


def partner_of_upstream(h: int) -> pl.Expr:
    """Finish position of the 上游's partner in half ``h`` (2 = a 1-2 finish)."""
    f = [pl.col(f"finish_{h}_s{s}") for s in range(4)]
    return (
        pl.when(f[0] == 1)
        .then(f[2])
        .when(f[1] == 1)
        .then(f[3])
        .when(f[2] == 1)
        .then(f[0])
        .otherwise(f[1])
        .cast(pl.Int64)
    )


def patterns(games: pl.LazyFrame) -> pl.LazyFrame:
    """Per half: share of 1-2, 1-3 and 1-4 finishes (the 上游's partner's place)."""
    parts = [
        games.filter(pl.col(f"tricks_{h}") >= 0).select(
            pl.lit(h + 1, pl.Int64).alias("half"), partner_of_upstream(h).alias("partner")
        )
        for h in (0, 1)
    ]
    stacked = pl.concat(parts)
    n = stacked.group_by("half").agg(n=pl.len().cast(pl.Int64))
    grid = pl.LazyFrame(
        {"half": [h for h in (1, 2) for _ in PATTERNS], "partner": list(PATTERNS) * 2},
        schema={"half": pl.Int64, "partner": pl.Int64},
    )
    k = stacked.group_by("half", "partner").agg(k=pl.len().cast(pl.Int64))
    joined = (
        grid.join(n, on="half")
        .join(k, on=["half", "partner"], how="left")
        .with_columns(pl.col("k").fill_null(0))
        .with_columns(pattern=pl.col("partner").replace_strict(PATTERNS, return_dtype=pl.String))
    )
    return with_rate(joined.select("half", "pattern", "k", "n")).sort("half", "pattern")


def upstream_team_wins(games: pl.LazyFrame) -> pl.LazyFrame:
    """Match win rate of the first half's 上游 team."""
    f = [pl.col(f"finish_0_s{s}") for s in range(4)]
    up_team = pl.when((f[0] == 1) | (f[2] == 1)).then(0).otherwise(1)
    return rate_table(
        games.select(
            pl.lit("team of first-half 上游").alias("who"),
            (up_team == pl.col("winner_team")).alias("won"),
        ),
        ["who"],
        pl.col("won"),
    ).rename({"k": "wins"})


def queries(run) -> dict[str, pl.LazyFrame]:
    return {
        "match": match_rates(run.games),
        "patterns": patterns(run.games),
        "upstream": upstream_team_wins(run.games),
    }


def section(items: list[RunData]) -> Section:
    sec = Section(
        KEY,
        "双夹 and finish orders",
        "双夹 (YZ-25) ends the match after the first half; otherwise the second half is played. "
        "Finish patterns name the place of the 上游's partner: 1-2 (both partners out first, "
        "YZ-20), 1-3, 1-4.",
    )
    match = stack(items, f"{KEY}.match")
    pats = stack(items, f"{KEY}.patterns")
    sec.tables += [
        Table("match", "双夹 and second half", match, ("rate",)),
        Table("patterns", "Finish patterns per half", pats, ("rate",)),
        Table(
            "upstream",
            "Match win rate of the first-half 上游's team",
            stack(items, f"{KEY}.upstream"),
            ("rate",),
        ),
    ]
    group = "run" if len(items) > 1 else None
    sec.figures.append(
        Figure(
            "patterns",
            "finish patterns",
            plots.bar_rates(
                pats.with_columns(label=pl.format("{} (half {})", "pattern", "half")),
                "label",
                group=group,
                title="Finish patterns (95 % CI)",
                xlabel="pattern",
                ylabel="share",
            ),
        )
    )
    for it in items:
        m = {r["outcome"]: r for r in it.get(f"{KEY}.match").iter_rows(named=True)}
        a = m["双夹 (any team)"]
        t0 = m["双夹 won by team 0 (南北)"]
        t1 = m["双夹 won by team 1 (东西)"]
        sec.findings.append(
            Finding(
                f"{prefix(items, it)}双夹 ends {pm(a['rate'], a['rate_lo'], a['rate_hi'])} of matches "
                f"after the first half (team 0 {100 * t0['rate']:.1f} %, team 1 "
                f"{100 * t1['rate']:.1f} %)."
            )
        )
    return sec
