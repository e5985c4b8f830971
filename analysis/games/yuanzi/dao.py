"""原子 刀: rank frequencies against the exact probabilities, fallbacks, first receiver and
first leader, win rate against 刀 cards / jokers dealt, and the 41-card hands.

Exact probabilities (YZ-05 … YZ-08, protocol §1) are computed by enumerating the 162 cards the
indicator can be: 12 of each natural rank, 6 jokers. First half: 3 is 刀 for a 3 or a joker,
(12 + 6) / 162; second half also for 5, 10 and K, (12 + 6 + 36) / 162. With
``joker_indicator=redraw`` jokers are never the indicator (156 equally likely cards).
"""

from __future__ import annotations

from fractions import Fraction
from functools import partial

import numpy as np
import polars as pl
from cardsim.analysis import plots, stats
from cardsim.analysis.exprs import (
    Partwise,
    clustered_rate_finish,
    clustered_rate_sums,
    clustered_rate_table,
    deal_cluster,
    game_keys,
    one_per_deal,
    slope_moments,
    with_rate,
)
from cardsim.analysis.model import (
    CHECK,
    FACT,
    Figure,
    Finding,
    RunData,
    Section,
    Table,
    pm,
    prefix,
    side_by_side,
    stack,
)
from scipy.stats import norm

#: unit of each table: what one counted row is
UNITS = {
    "dao": "deal (half 2: a match that played it)",
    "fallback": "deal (half 2: a match that played it)",
    "first_receiver": "deal",
    "first_leader": "deal",
    "receiver_half2": "match with a second half",
    "dao_cards": "match",
    "jokers": "match",
    "hand41": "half",
}
KEY = "yuanzi_dao"

#: YZ-07 values of rank idx 0..12 (3 4 5 6 7 8 9 10 J Q K A 2).
RANK_VALUE = (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 1, 2)
POINT_RANK_VALUES = (5, 10, 13)
VALUE_NAME = {1: "A", 11: "J", 12: "Q", 13: "K"}
FALLBACK_NAME = {0: "none (the indicator's rank)", 1: "joker", 2: "point rank"}
#: schema v2 labels (Enums) → the values the exact probabilities are keyed by


def rank_name(value: int) -> str:
    return VALUE_NAME.get(value, str(value))


def _value(col: str, new: str) -> pl.Expr:
    """A v2 column as the int the exact tables use: the 刀 rank Enum (A, 2 … K, in that order)
    → 1..13, the fallback Enum (indicator, joker, point_rank) → 0/1/2 — the Enums' physical
    codes, so no strings are built per row (docs/yuanzi-columns.md)."""
    c = pl.col(col).to_physical().cast(pl.Int64)
    if new == "dao":
        return c + 1
    return c


def _indicator_cards(joker_indicator: str) -> list[tuple[int | None, Fraction]]:
    """(natural rank value or None for a joker, probability) for each of the 162 cards."""
    cards: list[int | None] = [v for v in RANK_VALUE for _ in range(12)] + [None] * 6
    weights = [0 if (c is None and joker_indicator == "redraw") else 1 for c in cards]
    total = sum(weights)
    return [(c, Fraction(w, total)) for c, w in zip(cards, weights, strict=True) if w]


def exact(half: int, joker_indicator: str = "three") -> dict[str, dict[int, Fraction]]:
    """Exact distributions of one half: ``dao`` (value), ``fallback`` and, for the first half,
    ``first_receiver`` and ``first_leader`` (seat)."""
    dao: dict[int, Fraction] = {v: Fraction(0) for v in range(1, 14)}
    fallback: dict[int, Fraction] = {0: Fraction(0), 1: Fraction(0), 2: Fraction(0)}
    receiver: dict[int, Fraction] = {s: Fraction(0) for s in range(4)}
    for value, p in _indicator_cards(joker_indicator):
        if value is None:
            d, fb = 3, 1
        elif half == 1 and value in POINT_RANK_VALUES:
            d, fb = 3, 2
        else:
            d, fb = value, 0
        dao[d] += p
        fallback[fb] += p
        receiver[3 if value is None else value % 4] += p
    out = {"dao": dao, "fallback": fallback}
    if half == 0:
        # the indicator's position p is uniform over 0..161 and independent of its card
        # (protocol §1; also under redraw); the first leader is seat (receiver + p) % 4.
        offset = {j: Fraction(sum(1 for i in range(162) if i % 4 == j), 162) for j in range(4)}
        leader = {s: Fraction(0) for s in range(4)}
        for r, pr in receiver.items():
            for j, pj in offset.items():
                leader[(r + j) % 4] += pr * pj
        out["first_receiver"] = receiver
        out["first_leader"] = leader
    return out


def exact_frame(kind: str, joker_indicator: str) -> pl.DataFrame:
    """``half, <key>, expected`` for ``kind`` in dao / fallback / first_receiver / first_leader."""
    key = {"dao": "dao", "fallback": "fallback", "first_receiver": "seat", "first_leader": "seat"}[
        kind
    ]
    rows = [
        {"half": h + 1, key: k, "expected": float(p)}
        for h in (0, 1)
        if kind in exact(h, joker_indicator)
        for k, p in exact(h, joker_indicator)[kind].items()
    ]
    return pl.DataFrame(rows, schema={"half": pl.Int64, key: pl.Int64, "expected": pl.Float64})


# --- observed --------------------------------------------------------------------------------


def _halves(games: pl.LazyFrame, cols: dict[str, str]) -> pl.LazyFrame:
    """Stack both halves: ``half`` (1, 2) and ``cols`` renamed (``{new: old_prefix}``), played
    halves only."""
    return pl.concat(
        [
            games.filter(pl.col(f"h{h + 1}_dao").is_not_null()).select(
                pl.lit(h + 1, pl.Int64).alias("half"),
                *[_value(f"h{h + 1}_{old}", new).alias(new) for new, old in cols.items()],
            )
            for h in (0, 1)
        ]
    )


def frequency(games: pl.LazyFrame, key: str, source: str, expected: pl.DataFrame) -> pl.LazyFrame:
    """Observed count and rate (Wilson CI) of each value of ``source`` per half, beside
    ``expected``; values that never occur are kept (count 0)."""
    halves = _halves(games, {key: source})
    n = halves.group_by("half").agg(n=pl.len().cast(pl.Int64))
    k = halves.group_by("half", key).agg(k=pl.len().cast(pl.Int64))
    grid = expected.lazy().join(n, on="half")
    joined = grid.join(k, on=["half", key], how="left").with_columns(pl.col("k").fill_null(0))
    return (
        with_rate(joined.select("half", key, "k", "n", "expected"))
        .with_columns(
            within_ci=pl.when(pl.col("expected") == 0)
            .then(pl.col("k") == 0)
            .otherwise(
                (pl.col("expected") >= pl.col("rate_lo"))
                & (pl.col("expected") <= pl.col("rate_hi"))
            )
        )
        .sort("half", key)
    )


def _team0(seats: pl.LazyFrame, col: str) -> pl.LazyFrame:
    """Per played match: how many of ``col`` team 0 was dealt, and whether it won."""
    return (
        seats.filter(pl.col("team").to_physical() == 0)  # 南北
        .group_by(game_keys(seats))
        .agg(pl.col(col).cast(pl.Int64).sum().alias("dealt"), pl.col("won").first())
    )


def dealt_win(seats: pl.LazyFrame, col: str) -> pl.LazyFrame:
    """Team 0's win rate by how many of ``col`` (``h1_dao_cards`` / ``h1_jokers``) it was dealt
    in the first half (team 1 holds the rest). Unit: one match; in a comparison run the matches
    of a deal share the cards, so the intervals are clustered by deal."""
    return dealt_win_partwise(col).direct(seats, seats)


def dealt_win_partwise(col: str) -> Partwise:
    """:func:`dealt_win` batch by batch: the per-match group-by holds one batch's matches."""
    return Partwise(
        lambda _, seats: clustered_rate_sums(
            _team0(seats, col), ["dealt"], pl.col("won"), deal_cluster(seats)
        ),
        ("dealt",),
        lambda agg: clustered_rate_finish(agg, ["dealt"]).rename({"k": "wins"}),
    )


def dealt_trend(seats: pl.LazyFrame, col: str) -> pl.LazyFrame:
    """Moments for the trend test: slope of team 0's win on the count dealt, clustered by deal."""
    return slope_moments(_team0(seats, col), pl.col("dealt"), pl.col("won"), deal_cluster(seats))


def hand41_upstream(seats: pl.LazyFrame) -> pl.LazyFrame:
    """Per half: how often the 上游 (first out) was dealt a 41-card hand (expected 50 %).
    Unit: one half; clustered by deal (a comparison run plays each deal several times)."""
    parts = [
        seats.filter(pl.col(f"h{h + 1}_finish") == 1).select(
            "game",
            pl.lit(h + 1, pl.Int64).alias("half"),
            pl.col(f"h{h + 1}_long_hand").alias("hit"),
        )
        for h in (0, 1)
    ]
    return clustered_rate_table(pl.concat(parts), ["half"], pl.col("hit"), deal_cluster(seats))


def first_leader_frame(games: pl.LazyFrame, seats: pl.LazyFrame) -> pl.LazyFrame:
    """Per played match: ``x`` = 刀 cards of the first leader's team minus the other team's
    (first half; the first leader holds the indicator card, YZ-08), ``y`` = the first leader's
    team won, ``fl_dao`` / ``other_dao``. One group-by of the seats and one join (memory)."""
    keys = game_keys(games)
    sign = 1 - 2 * pl.col("team").to_physical().cast(pl.Int64)  # 南北 +1, 东西 −1
    dao = pl.col("h1_dao_cards").cast(pl.Int64)
    per_game = seats.group_by(keys).agg(
        lead0=(sign * dao).sum().cast(pl.Int32), total=dao.sum().cast(pl.Int32)
    )
    fl = pl.col("h1_first_leader").cast(pl.Int64) % 2
    side = games.select(
        *keys,
        (1 - 2 * fl).cast(pl.Int8).alias("s"),  # +1: the first leader is 南北
        (pl.col("winner_team").to_physical().cast(pl.Int64) == fl).alias("y"),
    )
    x = pl.col("s") * pl.col("lead0")
    return side.join(per_game, on=keys).select(
        *keys,
        x.alias("x"),
        pl.col("y"),
        ((pl.col("total") + x) / 2).alias("fl_dao"),
        ((pl.col("total") - x) / 2).alias("other_dao"),
    )


def _first_leader_sums(games: pl.LazyFrame, seats: pl.LazyFrame) -> pl.LazyFrame:
    fr = first_leader_frame(games, seats)
    means = {"fl_dao": pl.col("fl_dao"), "other_dao": pl.col("other_dao"), "raw": pl.col("y")}
    return slope_moments(fr, pl.col("x"), pl.col("y"), deal_cluster(games)).join(
        fr.select(
            *[e.cast(pl.Float64).sum().alias(f"_s_{k}") for k, e in means.items()],
            *[e.count().alias(f"_n_{k}") for k, e in means.items()],
        ),
        how="cross",
    )


def _first_leader_finish(sums: pl.LazyFrame) -> pl.LazyFrame:
    names = ("fl_dao", "other_dao", "raw")
    return sums.with_columns(
        pl.when(pl.col(f"_n_{k}") > 0).then(pl.col(f"_s_{k}") / pl.col(f"_n_{k}")).alias(k)
        for k in names
    ).drop(*[f"_{w}_{k}" for w in "sn" for k in names])


#: Moments of the first leader's team's win on its 刀-card lead (clustered by deal) and the
#: mean 刀 cards of both teams: the advantage with and without the indicator card's effect;
#: batch by batch (the group-by and join hold one batch).
FIRST_LEADER = Partwise(_first_leader_sums, (), _first_leader_finish)


def queries(run) -> dict[str, pl.LazyFrame]:
    ji = str(run.rules.get("joker_indicator", "three"))
    # the 刀 rank, fallback, first receiver and leader depend only on the deal: one row per
    # deal (a comparison run plays each deal once per seat assignment)
    g, s = one_per_deal(run.games), run.seats
    return {
        "dao": frequency(g, "dao", "dao", exact_frame("dao", ji)),
        "fallback": frequency(g, "fallback", "dao_fallback", exact_frame("fallback", ji)),
        "first_receiver": frequency(g, "seat", "first_receiver", exact_frame("first_receiver", ji)),
        "first_leader": frequency(g, "seat", "first_leader", exact_frame("first_leader", ji)),
        "receiver_half2": _halves(g, {"seat": "first_receiver"})
        .filter(pl.col("half") == 2)
        .group_by("seat")
        .agg(k=pl.len().cast(pl.Int64))
        .sort("seat"),
        # per-match group-bys: aggregated batch by batch of parts (cardsim.analysis.exprs.Partwise)
        "dao_cards": dealt_win_partwise("h1_dao_cards"),
        "jokers": dealt_win_partwise("h1_jokers"),
        "dao_cards_trend": Partwise(lambda _, s: dealt_trend(s, "h1_dao_cards")),
        "jokers_trend": Partwise(lambda _, s: dealt_trend(s, "h1_jokers")),
        "hand41": hand41_upstream(s),
        "first_leader_adjusted": FIRST_LEADER,
    }


# --- section ---------------------------------------------------------------------------------


def gof(df: pl.DataFrame, half: int) -> stats.Chi2:
    d = df.filter(pl.col("half") == half)
    return stats.chi2_gof(d["k"].to_numpy(), d["expected"].to_numpy())


def trend(moments: pl.DataFrame) -> stats.Slope:
    """Slope of team 0's match win on the count dealt (a linear probability model), with a
    deal-clustered standard error (:func:`cardsim.analysis.stats.clustered_slope`)."""
    return stats.clustered_slope(moments.row(0, named=True))


def section(items: list[RunData]) -> Section:
    sec = Section(
        KEY,
        "刀: frequencies, first receiver and leader, 刀 cards and jokers, 41-card hands",
        "Observed frequencies beside the exact probabilities the rules imply (YZ-05/06/07, "
        "protocol §1), with chi-square goodness-of-fit tests. The second half is counted over "
        "matches that played it.",
    )
    tables = _tables(items)
    sec.tables += _dao_tables(items, tables)
    wide = _wide(tables)
    for t in sec.tables:
        if t.key in wide:
            t.display = wide[t.key]
    for it in items:
        pre = prefix(items, it)
        sec.findings += _half_findings(it, pre)
        sec.findings += _deal_findings(it, pre)
        sec.findings += _leader_findings(it, pre)
    sec.figures += _figures(items, tables)
    for t in sec.tables:  # what one counted row is (docs/report.md, "Units")
        t.unit = t.unit or UNITS.get(t.key, "")
    return sec


def _tables(items: list[RunData]) -> dict[str, pl.DataFrame]:
    """The four frequency tables, stacked over the runs, with readable names."""
    tables = {}
    for name in ("dao", "fallback", "first_receiver", "first_leader"):
        df = stack(items, f"{KEY}.{name}")
        if "dao" in df.columns:
            df = df.with_columns(rank=pl.col("dao").map_elements(rank_name, return_dtype=pl.String))
            df = df.select(
                *(["run"] if "run" in df.columns else []),
                "half",
                "rank",
                pl.exclude("run", "half", "rank"),
            )
        if "fallback" in df.columns:
            df = df.with_columns(
                kind=pl.col("fallback").replace_strict(FALLBACK_NAME, return_dtype=pl.String)
            )
        tables[name] = df
    return tables


def _wide(tables: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame]:
    """Several runs: a column per run, one row per (half, value)."""
    wide = {}
    for name, key in (
        ("dao", "rank"),
        ("fallback", "kind"),
        ("first_receiver", "seat"),
        ("first_leader", "seat"),
    ):
        df = tables[name]
        if "run" in df.columns:
            keys = ["half", key] if key != "kind" else ["half", "fallback", "kind"]
            if name == "dao":
                keys = ["half", "dao", "rank"]
            df = df.drop("n")
            values = ["k", "rate"]
            if df.group_by(keys).agg(pl.col("expected").n_unique())["expected"].max() > 1:
                values.append("expected")  # the runs' rules imply different probabilities
            wide[name] = side_by_side(
                df.drop([c for c in ("within_ci",) if c in df.columns]), keys, values
            ).drop([c for c in ("dao", "fallback") if c in df.columns])
    return wide


def _dao_tables(items: list[RunData], tables: dict[str, pl.DataFrame]) -> list[Table]:
    pct = ("rate", "expected")
    return [
        Table("dao", "刀 rank per half: observed vs exact", tables["dao"], pct),
        Table(
            "fallback",
            "Why 3 is 刀: fallback kind per half (joker / point-rank indicator)",
            tables["fallback"],
            pct,
        ),
        Table(
            "first_receiver",
            "First receiver by seat (first half; YZ-07)",
            tables["first_receiver"],
            pct,
        ),
        Table(
            "first_leader", "First leader by seat (first half; YZ-08)", tables["first_leader"], pct
        ),
        Table(
            "receiver_half2",
            "First receiver by seat, second half (= first-half 上游)",
            stack(items, f"{KEY}.receiver_half2"),
        ),
        Table(
            "dao_cards",
            "Team 0's match win rate by 刀 cards it was dealt (first half)",
            stack(items, f"{KEY}.dao_cards").drop("var"),
            ("rate",),
        ),
        Table(
            "jokers",
            "Team 0's match win rate by jokers it was dealt (first half)",
            stack(items, f"{KEY}.jokers").drop("var"),
            ("rate",),
        ),
        Table(
            "hand41",
            "41-card hands: share of halves whose 上游 held 41 cards (expected 50 %)",
            stack(items, f"{KEY}.hand41").drop("var"),
            ("rate",),
            "Each half deals one 41-card hand to each team (seats fr and fr+1 are adjacent), "
            "so a team-level 41-card win rate is 50 % by construction; see also the first "
            "receiver's team in 'Seat and position advantage'.",
        ),
    ]


def _half_findings(it: RunData, pre: str) -> list[Finding]:
    """Per half: do the 刀 frequencies match the exact probabilities (YZ-05/06)?"""
    findings = []
    dao = it.get(f"{KEY}.dao")
    for h in (1, 2):
        if dao.filter(pl.col("half") == h).height == 0:
            # no second half at all: every match ended in 双夹 (e.g. shuangjia_threshold=300,
            # design parameter YZ-D1), so there is nothing to check
            findings.append(
                Finding(
                    f"{pre}Half {h}: no match reached it (every match ended in 双夹).",
                    kind=FACT,
                    unit="deal",
                )
            )
            continue
        chi = gof(dao, h)
        three = dao.filter((pl.col("half") == h) & (pl.col("dao") == 3)).row(0, named=True)
        inside = int(dao.filter(pl.col("half") == h)["within_ci"].sum())
        ranks = dao.filter(pl.col("half") == h).height
        findings.append(
            Finding(
                f"{pre}Half {h}: the 刀 frequencies do not match the exact probabilities "
                f"(χ² = {chi.statistic:.1f}, dof {chi.dof}, p = {chi.pvalue:.3g}, "
                f"{chi.n:,} deals); check the deal.",
                f"{pre}Half {h}: 刀 frequencies agree with the exact probabilities "
                f"(χ² = {chi.statistic:.1f}, p = {chi.pvalue:.2f}, {chi.n:,} deals; {inside} "
                f"of {ranks} ranks inside their 95 % intervals); 3 is 刀 in "
                f"{pm(three['rate'], three['rate_lo'], three['rate_hi'])} of halves "
                f"(exact {100 * three['expected']:.2f} %).",
                chi.pvalue,
                kind=CHECK,
                unit="deal",
            )
        )
    return findings


def _deal_findings(it: RunData, pre: str) -> list[Finding]:
    """First leader and receiver by seat (YZ-07/08); 刀 cards and jokers dealt and winning."""
    findings = []
    for name, what in (("first_leader", "first leader"), ("first_receiver", "first receiver")):
        chi = gof(it.get(f"{KEY}.{name}"), 1)
        findings.append(
            Finding(
                f"{pre}The {what} by seat does not match the exact probabilities (χ² = "
                f"{chi.statistic:.1f}, p = {chi.pvalue:.3g}, {chi.n:,} deals); check the deal.",
                f"{pre}The {what} by seat agrees with the exact probabilities (χ² = "
                f"{chi.statistic:.1f}, p = {chi.pvalue:.2f}, {chi.n:,} deals).",
                chi.pvalue,
                kind=CHECK,
                unit="deal",
            )
        )
    for name, what in (("dao_cards", "刀 cards"), ("jokers", "jokers")):
        d = it.get(f"{KEY}.{name}")
        tr = trend(it.get(f"{KEY}.{name}_trend"))
        slope = f"{100 * tr.slope:+.1f} ± {196 * tr.se:.1f} points per card"
        findings.append(
            Finding(
                f"{pre}Holding {what} wins: team 0's match win rate changes by {slope} dealt "
                f"({_ends(d)}; n = {tr.n:,} matches, {tr.clusters:,} deals).",
                f"{pre}{what} dealt and winning: {slope} ({_ends(d)}; n = {tr.n:,} matches, "
                f"{tr.clusters:,} deals).",
                tr.pvalue,
                unit="deal",
                estimate=tr.slope,
                se=tr.se,
                n=tr.clusters,
                measure="win rate",
                answer=True,
            )
        )
    return findings


def _leader_findings(it: RunData, pre: str) -> list[Finding]:
    """The first leader's edge at equal 刀 cards; the 41-card hand of the first 上游."""
    findings = []
    m = it.get(f"{KEY}.first_leader_adjusted").row(0, named=True)
    adj = stats.clustered_slope(m)
    if np.isfinite(adj.intercept):
        half = 1.96 * adj.se_intercept
        findings.append(
            Finding(
                f"{pre}The first leader's team wins {100 * m['raw']:.1f} % of matches, but "
                f"it holds the 刀 indicator card ({m['fl_dao']:.2f} vs {m['other_dao']:.2f} "
                f"刀 cards on average): at equal 刀 cards it wins "
                f"{100 * adj.intercept:.1f} % ± {100 * half:.1f} %, "
                f"{100 * (adj.intercept - 0.5):+.1f} points over the fair share "
                f"(n = {adj.n:,} matches, {adj.clusters:,} deals).",
                unit="deal",
                estimate=adj.intercept - 0.5,
                se=adj.se_intercept,
                n=adj.clusters,
                measure="win rate",
                pvalue=float(2 * norm.sf(abs(adj.intercept - 0.5) / adj.se_intercept))
                if adj.se_intercept > 0
                else None,
                answer=True,
            )
        )
    h41 = it.get(f"{KEY}.hand41").filter(pl.col("half") == 1).row(0, named=True)
    d41, _, _, p41 = stats.clustered_diff_from(h41["k"], h41["n"], 0.5, h41["var"], h41["deff"])
    text = (
        f"{pre}The 上游 of the first half held a 41-card hand in "
        f"{pm(h41['rate'], h41['rate_lo'], h41['rate_hi'])} of halves (50 % if the extra "
        f"card did not matter; n = {h41['n']:,} halves, {h41['clusters']:,} deals)."
    )
    findings.append(
        Finding(
            text,
            text,
            float(p41[0]),
            unit="deal",
            estimate=float(d41[0]),
            se=float(np.sqrt(h41["var"])),
            n=int(h41["clusters"]),
            measure="rate",
        )
    )
    return findings


def _figures(items: list[RunData], tables: dict[str, pl.DataFrame]) -> list[Figure]:
    figures = []
    group = "run" if len(items) > 1 else None
    for h in (1, 2):
        d = tables["dao"].filter(pl.col("half") == h)
        figures.append(
            Figure(
                f"dao_{h}",
                f"刀 half {h}",
                partial(
                    plots.bar_rates,
                    d,
                    "rank",
                    group=group,
                    expected="expected",
                    ylabel="frequency",
                    title=f"刀 rank, half {h}: observed (95 % CI) vs exact",
                    xlabel="刀 rank",
                ),
            )
        )
    for name, what in (("dao_cards", "刀 cards"), ("jokers", "jokers")):
        d = stack(items, f"{KEY}.{name}").filter(pl.col("n") >= 30)
        figures.append(
            Figure(
                name,
                what,
                partial(
                    plots.line_rates,
                    d,
                    "dealt",
                    group=group,
                    expected=0.5,
                    xlabel=f"{what} dealt to team 0 (first half)",
                    title=f"Team 0 win rate by {what} dealt (95 % band; n ≥ 30)",
                ),
            )
        )
    return figures


def _ends(d: pl.DataFrame) -> str:
    d = d.filter(pl.col("n") >= 30).sort("dealt")
    if d.height < 2:
        return "–"
    a, b = d.row(0, named=True), d.row(-1, named=True)
    return f"{100 * a['rate']:.1f} % with {a['dealt']} to {100 * b['rate']:.1f} % with {b['dealt']}"
