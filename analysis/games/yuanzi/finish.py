"""原子 双夹 and finish orders: 双夹 rate (by which team), second-half rate, 1-2 / 1-3 / 1-4."""

from __future__ import annotations

from functools import partial

import polars as pl
from cardsim.analysis import plots
from cardsim.analysis.exprs import rate_table, with_rate
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
)

#: unit of each table: what one counted row is
UNITS = {"match": "match", "patterns": "half", "upstream": "match"}
KEY = "yuanzi_finish"
#: rates the comparison of runs sets side by side: (measure, query, row filter); unit: match
HEADLINE = (
    ("双夹 (share of matches)", "yuanzi_finish.match", {"outcome": "双夹 (any team)"}),
    ("1-2 finish in half 1", "yuanzi_finish.patterns", {"half": 1, "pattern": "1-2"}),
)
PATTERNS = {2: "1-2", 3: "1-3", 4: "1-4"}
#: per-row definitions of the HEADLINE rates (games table: indicator, rows counted), so runs on
#: the same deals are compared paired (analysis/report.py)
HEADLINE_ROWS = {
    "双夹 (share of matches)": lambda: (pl.col("shuangjia"), pl.lit(True)),
    "1-2 finish in half 1": lambda: (
        partner_of_upstream(0) == 2,
        pl.col("h1_tricks").is_not_null(),
    ),
}


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
                (sj & (pl.col("winner_team").to_physical() == t)).sum().cast(pl.Int64).alias("k"),
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
    f = [pl.col(f"h{h + 1}_finish_s{s}") for s in range(4)]
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
        games.filter(pl.col(f"h{h + 1}_tricks").is_not_null()).select(
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
    f = [pl.col(f"h1_finish_s{s}") for s in range(4)]
    up_team = pl.when((f[0] == 1) | (f[2] == 1)).then(0).otherwise(1)
    return rate_table(
        games.select(
            pl.lit("team of first-half 上游").alias("who"),
            (up_team == pl.col("winner_team").to_physical()).alias("won"),
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
            partial(
                plots.bar_rates,
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
                f"{100 * t1['rate']:.1f} %).",
                answer=True,
            )
        )
    for t in sec.tables:  # what one counted row is (docs/report.md, "Units")
        t.unit = t.unit or UNITS.get(t.key, "")
    return sec


# --- game length measures (read by analysis/length.py) ---------------------------------------


def length_values(games: pl.LazyFrame) -> pl.LazyFrame:
    """Long table ``measure, value``: tricks / plays per played half and tricks per match."""
    parts = []
    for h in (0, 1):
        played = games.filter(pl.col(f"h{h + 1}_tricks").is_not_null())
        for m in ("tricks", "plays"):
            parts.append(
                played.select(
                    pl.lit(f"{m} in half {h + 1}").alias("measure"),
                    pl.col(f"h{h + 1}_{m}").cast(pl.Int64).alias("value"),
                )
            )
    parts.append(
        games.select(
            pl.lit("tricks per match").alias("measure"),
            (pl.col("h1_tricks") + pl.col("h2_tricks").fill_null(0)).cast(pl.Int64).alias("value"),
        )
    )
    return pl.concat(parts)


LENGTH_MAIN = "tricks per match"
LENGTH_INTRO = "Tricks and plays (non-pass moves) per half, and tricks per match."


def length_figures(hist: pl.DataFrame, items: list) -> list[Figure]:
    """The length section's extra figure: tricks per half."""
    h1 = hist.filter(pl.col("measure").str.starts_with("tricks in half"))
    return [
        Figure(
            "tricks_half",
            "tricks per half",
            partial(
                plots.histogram,
                h1,
                "value",
                group="measure" if len(items) == 1 else None,
                title="Tricks per half" + (" (all runs)" if len(items) > 1 else ""),
                xlabel="tricks",
            ),
        )
    ]


# --- score measures (read by analysis/scores.py) ---------------------------------------------


def score_values(games: pl.LazyFrame, seats: pl.LazyFrame) -> pl.LazyFrame:
    """Long table ``measure, value``: team half-scores per played half, seat points per half."""
    parts = []
    for h in (0, 1):
        played = games.filter(pl.col(f"h{h + 1}_tricks").is_not_null())
        for t in (0, 1):
            parts.append(
                played.select(
                    pl.lit(f"team {t} points, half {h + 1}").alias("measure"),
                    pl.col(f"h{h + 1}_team_points_t{t}").cast(pl.Int64).alias("value"),
                )
            )
        parts.append(
            seats.filter(pl.col(f"h{h + 1}_points").is_not_null()).select(
                pl.lit(f"seat points, half {h + 1}").alias("measure"),
                pl.col(f"h{h + 1}_points").cast(pl.Int64).alias("value"),
            )
        )
    return pl.concat(parts)


def delta_table(games: pl.LazyFrame) -> pl.LazyFrame:
    """Distribution of team 0's match delta (by default +2 双夹 win, +1, −1, −2; the rule options
    ``match_points_shuangjia`` / ``match_points_win`` set the scores, YZ-D3 / YZ-D2), with
    Wilson intervals."""
    counts = games.group_by(pl.col("delta_s0").cast(pl.Int64).alias("delta")).agg(
        matches=pl.len().cast(pl.Int64)
    )
    total = games.select(n=pl.len().cast(pl.Int64))
    return with_rate(counts.join(total, how="cross"), "matches", "n", "share").sort("delta")


SCORE_INTRO = (
    "Team half-scores (300 points per half, YZ-24), points per seat and the match delta "
    "(+2/−2 for 双夹, +1/−1 otherwise, YZ-25/26, unless the match-score rule options YZ-D2/D3 "
    "say otherwise), from team 0 (南北)'s side."
)


#: means the rules fix (YZ-24: 300 points per half shared by the 4 seats): no interval
SCORE_FIXED_MEANS = {"seat points, half 1": 75, "seat points, half 2": 75}


def _shuangjia_stake(item: RunData) -> int:
    """The run's 双夹 match score (YZ-D3), from its manifest's rules (default when absent)."""
    from cardsim.kernels.yuanzi.options import OPTIONS

    rules = getattr(getattr(item, "run", None), "manifest", {}).get("rules", {})
    known = {k: v for k, v in rules.items() if k == "match_points_shuangjia"}
    return int(OPTIONS.resolve(known)["match_points_shuangjia"])


def score_queries(run) -> dict[str, pl.LazyFrame]:
    sj = run.games.select(
        matches=pl.len().cast(pl.Int64), shuangjia=pl.col("shuangjia").sum().cast(pl.Int64)
    )
    return {"delta": delta_table(run.games), "shuangjia": sj}


def score_section(sec: Section, items: list[RunData], hist: pl.DataFrame) -> None:
    """The 原子 part of the scores section: team half-scores and the match delta."""
    KEY = "scores"  # noqa: N806  (the shared section's results)
    group = "run" if len(items) > 1 else None
    delta = stack(items, f"{KEY}.delta")
    sec.tables.append(
        Table("delta", "Match delta of team 0 (南北)", delta, ("share",), unit="match")
    )
    h = hist.filter(pl.col("measure") == "team 0 points, half 1")
    sec.figures.append(
        Figure(
            "team_points",
            "team half-scores",
            partial(
                plots.histogram,
                h,
                "value",
                group=group,
                title="Team 0 (南北) score in half 1",
                xlabel="points",
            ),
        )
    )
    sec.figures.append(
        Figure(
            "delta",
            "match delta",
            partial(
                plots.bar_rates,
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
        s = (
            it.get(f"{KEY}.summary")
            .filter(pl.col("measure") == "team 0 points, half 1")
            .row(0, named=True)
        )
        # the 双夹 share from the shuangjia column: the match scores are rule options (YZ-D2,
        # YZ-D3), so |delta| == 2 need not mean 双夹
        sj = it.get(f"{KEY}.shuangjia").row(0, named=True)
        share = sj["shuangjia"] / sj["matches"] if sj["matches"] else 0.0
        stake = _shuangjia_stake(it)
        sec.findings.append(
            Finding(
                f"{prefix(items, it)}Team 0 scores {fmt_num(s['mean'], 1)} of 300 points in the "
                f"first half on average (median {fmt_num(s['median'], 0)}); "
                f"{100 * share:.1f} % of matches end in 双夹 (±{stake})."
            )
        )
