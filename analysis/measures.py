"""Headline measures: every measure a game declares with a per-row value
(``cardsim.sim.game.Measure``: a rate or a mean of the games table), with its 95 % interval.

Shared by every game: a measure added to a game's declaration appears here (and in the factorial
study and the skill ladder) with no other change. Intervals are normal on a cluster-robust
standard error: the rows of one game (rounds; the assignments of a deal in a comparison run)
are one cluster, so the unit counted is the game.
"""

from __future__ import annotations

import polars as pl
from cardsim.analysis.exprs import Partwise
from cardsim.analysis.facts import facts
from cardsim.analysis.model import RunData, Section, Table
from cardsim.sim.game import GameFacts
from scipy import stats as ss

KEY = "measures"


def declared(f: GameFacts):
    """The game's headline measures that have a per-row value, in declaration order."""
    return [m for m in f.headline if m.value is not None]


def _part(f: GameFacts):
    def part(games: pl.LazyFrame, _seats: pl.LazyFrame) -> pl.LazyFrame:
        frames = []
        for m in declared(f):
            per_game = (
                games.select("game", m.value(f).cast(pl.Float64).alias("y"))
                .drop_nulls("y")
                .group_by("game")
                .agg(y=pl.col("y").sum(), n=pl.len().cast(pl.Float64))
            )
            frames.append(
                per_game.select(
                    pl.lit(m.name).alias("measure"),
                    pl.len().cast(pl.Int64).alias("clusters"),
                    pl.col("n").sum().alias("sn"),
                    pl.col("y").sum().alias("sy"),
                    (pl.col("y") ** 2).sum().alias("syy"),
                    (pl.col("n") ** 2).sum().alias("snn"),
                    (pl.col("n") * pl.col("y")).sum().alias("sny"),
                )
            )
        return pl.concat(frames) if frames else pl.LazyFrame()

    return part


def _finish(f: GameFacts):
    labels = {m.name: (m.label, m.unit, m.kind) for m in declared(f)}

    def finish(agg: pl.LazyFrame) -> pl.LazyFrame:
        df = agg.collect()
        rows = []
        z = float(ss.norm.ppf(0.975))
        for r in df.iter_rows(named=True):
            label, unit, kind = labels[r["measure"]]
            g, n = r["clusters"], r["sn"]
            mean = r["sy"] / n if n else float("nan")
            ss_res = r["syy"] - 2 * mean * r["sny"] + mean**2 * r["snn"]
            se = (g / (g - 1) * ss_res) ** 0.5 / n if g > 1 and n else float("nan")
            lo, hi = mean - z * se, mean + z * se
            if kind == "binary":
                lo, hi = max(lo, 0.0), min(hi, 1.0)
            rows.append({
                "measure": r["measure"], "label": label, "kind": "rate" if kind == "binary"
                else "mean", "unit": unit, "estimate": mean, "lo": lo, "hi": hi, "se": se,
                "n": int(n), "clusters": int(g),
            })  # fmt: skip
        order = list(labels)
        rows.sort(key=lambda row: order.index(row["measure"]))
        return pl.LazyFrame(rows, schema=_SCHEMA)

    return finish


_SCHEMA = {
    "measure": pl.String, "label": pl.String, "kind": pl.String, "unit": pl.String,
    "estimate": pl.Float64, "lo": pl.Float64, "hi": pl.Float64, "se": pl.Float64,
    "n": pl.Int64, "clusters": pl.Int64,
}  # fmt: skip


def table_partwise(f: GameFacts) -> Partwise:
    """The measures table, batch by batch of parts (a game's rows lie in one batch)."""
    return Partwise(_part(f), ("measure",), _finish(f))


def queries(run) -> dict:
    f = facts(run.game)
    return {"table": table_partwise(f)} if declared(f) else {}


def section(items: list[RunData]) -> Section:
    game = items[0].run.game
    f = facts(game)
    sec = Section(
        KEY,
        "Headline measures",
        "Every headline measure the game declares with a value per row: a rate or a mean, with "
        "a 95 % interval clustered by game (the rows of one game are not independent).",
    )
    if any(f"{KEY}.table" not in it.data for it in items):
        sec.notes.append("the game declares no headline measure with a per-row value")
        return sec
    df = pl.concat(
        [
            it.get(f"{KEY}.table").select(
                *([pl.lit(it.label).alias("run")] if len(items) > 1 else []), pl.all()
            )
            for it in items
        ]
    )
    # the label says it in words; the JSON keeps the measure's name (issue 45 item 10)
    sec.tables.append(
        Table("table", "Headline measures", df, unit=f.row_unit, display=df.drop("measure"))
    )
    return sec
