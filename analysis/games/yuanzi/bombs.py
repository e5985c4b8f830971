"""原子 bombs, 刀 bombs, atoms and hydrogen bombs: how often each is played per half.

"Win rate of the side that played more of them" needs bomb counts per seat or team; the
games table has totals only (see docs/report.md, "Columns the kernels do not provide yet").
:func:`side_more_partwise` computes it from per-seat columns ``bombs_h`` / ``atoms_h`` /
``hydrogens_h`` and is used as soon as the seats table carries them.
"""

from __future__ import annotations

from functools import partial

import polars as pl
from cardsim.analysis import plots
from cardsim.analysis.exprs import (
    Partwise,
    game_keys,
    mean_ci,
    rate_finish,
    rate_sums,
    summary_from_counts,
)
from cardsim.analysis.model import (
    Figure,
    Finding,
    RunData,
    Section,
    Table,
    fmt_num,
    prefix,
    stack,
    words,
)

#: unit of each table: what one counted row is
UNITS = {"summary": "half"}
KEY = "yuanzi_bombs"
KINDS = ("bombs", "dao_bombs", "atoms", "hydrogens")
#: the kinds in words (tables; the JSON keeps the names)
KIND_WORDS = {"dao_bombs": "刀 bombs", "hydrogens": "hydrogen bombs"}


def per_half(games: pl.LazyFrame) -> pl.LazyFrame:
    """Long ``half, kind, value`` over played halves."""
    return pl.concat(
        [
            games.filter(pl.col(f"h{h + 1}_tricks").is_not_null()).select(
                pl.lit(h + 1, pl.Int64).alias("half"),
                pl.lit(kind).alias("kind"),
                pl.col(f"h{h + 1}_{kind}").cast(pl.Int64).alias("value"),
            )
            for h in (0, 1)
            for kind in KINDS
        ]
    )


def summary(games: pl.LazyFrame) -> pl.LazyFrame:
    """Per half and kind: mean count per half (with sd) and the share of halves with one."""
    return SUMMARY.direct(games, games)


def _summary_counts(games: pl.LazyFrame, _=None) -> pl.LazyFrame:
    return per_half(games).group_by("half", "kind", "value").agg(count=pl.len())


def _summary_finish(counts: pl.LazyFrame) -> pl.LazyFrame:
    """The summary from the value counts: means and sd from the histogram, the share of
    halves with one from the counts of values > 0 (as ``rate_table`` of the rows)."""
    means = summary_from_counts(counts, ["half", "kind"])
    shares = rate_finish(
        counts.group_by("half", "kind").agg(
            n=pl.col("count").sum().cast(pl.Int64),
            k=pl.col("count").filter(pl.col("value") > 0).sum().cast(pl.Int64),
        ),
        ["half", "kind"],
    ).rename(
        {
            "k": "halves_with",
            "n": "halves",
            "rate": "share",
            "rate_lo": "share_lo",
            "rate_hi": "share_hi",
        }
    )
    return (
        means.select("half", "kind", "n", "mean", "sd", "max")
        .join(shares, on=["half", "kind"])
        .drop("halves")
        .sort("half", "kind")
    )


#: :func:`summary` batch by batch of parts: value counts per half and kind, summed.
SUMMARY = Partwise(_summary_counts, ("half", "kind", "value"), _summary_finish)


def _side_more_counts(seats: pl.LazyFrame, kind: str, half: int) -> pl.LazyFrame:
    col = f"{kind}_{half}"
    keys = game_keys(seats)
    teams = seats.group_by(*keys, "team").agg(pl.col(col).sum().alias("c"), pl.col("won").first())
    per_game = teams.group_by(keys).agg(
        (pl.col("c").max() - pl.col("c").min()).alias("margin"),
        pl.col("won").sort_by("c").last().alias("won"),
    )
    return rate_sums(
        per_game.filter(pl.col("margin") > 0).with_columns(kind=pl.lit(kind)),
        ["kind"],
        pl.col("won"),
    )


def side_more_partwise(kind: str, half: int = 0) -> Partwise:
    """Match win rate of the team that played more ``kind`` in ``half`` (ties left out), batch
    by batch: the per-match group-bys hold one batch."""
    return Partwise(
        lambda _, seats: _side_more_counts(seats, kind, half),
        ("kind",),
        lambda c: rate_finish(c, ["kind"]).rename({"k": "wins"}),
    )


def queries(run) -> dict[str, pl.LazyFrame]:
    out = {"summary": SUMMARY}
    names = set(run.seats.collect_schema().names())
    for kind in ("bombs", "atoms", "hydrogens"):
        if f"h1_{kind}" in names:
            out[f"more_{kind}"] = side_more_partwise(kind)
    return out


def section(items: list[RunData]) -> Section:
    sec = Section(
        KEY,
        "Bombs, atoms and hydrogen bombs",
        "Plays per half of each bomb class (bombs include 刀 bombs), and the share of halves in "
        "which at least one was played.",
    )
    rows = []
    for it in items:
        it.data[f"{KEY}.summary"] = mean_ci(it.get(f"{KEY}.summary")).select(
            "half", "kind", "n", "mean", "mean_lo", "mean_hi", "sd", "max", "halves_with",
            "share", "share_lo", "share_hi",
        )  # fmt: skip
        more = [k for k in it.data if k.startswith(f"{KEY}.more_")]
        rows += [
            it.get(k).select(*([pl.lit(it.label).alias("run")] if len(items) > 1 else []), pl.all())
            for k in more
        ]
    summ = stack(items, f"{KEY}.summary")
    sec.tables.append(
        Table("summary", "Bomb-class plays per half", summ, ("share",),
              display=words(summ, "kind", KIND_WORDS))
    )  # fmt: skip
    if rows:
        sec.tables.append(
            Table(
                "side_more",
                "Match win rate of the team that played more of them in the first half",
                pl.concat(rows),
                ("rate",),
                display=words(pl.concat(rows), "kind", KIND_WORDS),
            )
        )
    else:
        sec.notes.append(
            "The win rate of the side that played more bombs / atoms / hydrogen bombs needs "
            "per-seat counts (seats columns bombs_h, atoms_h, hydrogens_h), which this run's "
            "tables do not have."
        )
    group = "run" if len(items) > 1 else None
    sec.figures.append(
        Figure(
            "share",
            "bomb shares",
            partial(
                plots.bar_rates,
                summ.with_columns(label=pl.format("{} (half {})", "kind", "half")),
                "label",
                "share",
                group=group,
                title="Share of halves with at least one (95 % CI)",
                xlabel="",
                ylabel="share of halves",
            ),
        )
    )
    for it in items:
        s = it.get(f"{KEY}.summary")
        b = s.filter((pl.col("half") == 1) & (pl.col("kind") == "bombs")).row(0, named=True)
        a = s.filter((pl.col("half") == 1) & (pl.col("kind") == "atoms")).row(0, named=True)
        hy = s.filter((pl.col("half") == 1) & (pl.col("kind") == "hydrogens")).row(0, named=True)
        sec.findings.append(
            Finding(
                f"{prefix(items, it)}A first half sees {fmt_num(b['mean'], 1)} bombs, "
                f"{fmt_num(a['mean'], 2)} atoms and {fmt_num(hy['mean'], 3)} hydrogen bombs on average; "
                f"{100 * hy['share']:.1f} % of first halves have a hydrogen bomb.",
                answer=True,
            )
        )
    for t in sec.tables:  # what one counted row is (docs/report.md, "Units")
        t.unit = t.unit or UNITS.get(t.key, "")
    return sec
