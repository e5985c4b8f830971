"""Small Polars expression helpers shared by the analyses (each returns a ``pl.Expr``)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import polars as pl
from cardsim.analysis import stats


def rate(k: str = "k", n: str = "n") -> pl.Expr:
    """``k / n`` as a float (null where ``n`` is 0)."""
    return pl.when(pl.col(n) > 0).then(pl.col(k) / pl.col(n)).otherwise(None)


def _wilson_batch(which: int):
    def f(s: pl.Series) -> pl.Series:
        lo_hi = stats.wilson(s.struct.field("k").to_numpy(), s.struct.field("n").to_numpy())
        return pl.Series(lo_hi[which], dtype=pl.Float64)

    return f


def wilson_lo(k: str = "k", n: str = "n") -> pl.Expr:
    """Lower end of the 95 % Wilson interval of ``k / n`` (statsmodels)."""
    return pl.struct(k=pl.col(k), n=pl.col(n)).map_batches(
        _wilson_batch(0), return_dtype=pl.Float64
    )


def wilson_hi(k: str = "k", n: str = "n") -> pl.Expr:
    """Upper end of the 95 % Wilson interval of ``k / n`` (statsmodels)."""
    return pl.struct(k=pl.col(k), n=pl.col(n)).map_batches(
        _wilson_batch(1), return_dtype=pl.Float64
    )


def with_rate(lf: pl.LazyFrame, k: str = "k", n: str = "n", name: str = "rate") -> pl.LazyFrame:
    """Add ``name``, ``name_lo`` and ``name_hi`` (95 % Wilson interval) for ``k`` of ``n``."""
    return lf.with_columns(
        rate(k, n).alias(name),
        wilson_lo(k, n).alias(f"{name}_lo"),
        wilson_hi(k, n).alias(f"{name}_hi"),
    )


def rate_table(lf: pl.LazyFrame, by: list[str], success: pl.Expr) -> pl.LazyFrame:
    """Per group of ``by``: ``n`` rows, ``k`` rows where ``success``, and its rate + interval."""
    return rate_finish(rate_sums(lf, by, success), by)


def rate_sums(lf: pl.LazyFrame, by: list[str], success: pl.Expr) -> pl.LazyFrame:
    """The additive part of :func:`rate_table`: ``n`` and ``k`` per group of ``by``."""
    return lf.group_by(by).agg(n=pl.len().cast(pl.Int64), k=success.cast(pl.Int64).sum())


def rate_finish(counted: pl.LazyFrame, by: list[str]) -> pl.LazyFrame:
    """:func:`rate_table` from the (summed) counts of :func:`rate_sums`."""
    return with_rate(counted.select(*by, "k", "n")).sort(by)


# --- streaming: queries aggregated batch by batch of parts ---------------------------------------


@dataclass(frozen=True)
class Partwise:
    """A report query aggregated per batch of parts (``cardsim.analysis.io.batches``) and combined.

    ``part(games, seats)`` gives additive columns (counts, sums, sums of squares and products,
    histogram counts) per group of ``keys`` for the rows of one batch; the batches' frames are
    summed per group (:func:`combine`) and ``finish`` derives the table the section reads.
    Sums per game, deal or round are exact batch by batch: all rows of a game lie in one chunk.
    """

    part: Callable[[pl.LazyFrame, pl.LazyFrame], pl.LazyFrame]
    keys: tuple[str, ...] = ()
    finish: Callable[[pl.LazyFrame], pl.LazyFrame] = lambda lf: lf

    def direct(self, games: pl.LazyFrame, seats: pl.LazyFrame) -> pl.LazyFrame:
        """The same table in one query over ``games`` / ``seats`` (e.g. the whole run)."""
        return self.finish(combine(self.part(games, seats), self.keys))


def combine(lf: pl.LazyFrame, keys: tuple[str, ...] | list[str]) -> pl.LazyFrame:
    """Sum every column per group of ``keys`` (one row when there are none)."""
    return lf.group_by(list(keys)).agg(pl.all().sum()) if keys else lf.select(pl.all().sum())


def game_keys(lf: pl.LazyFrame | pl.DataFrame) -> list[str]:
    """The columns naming one played game: ``game``, plus ``assignment`` in a comparison run
    (there every deal is played once per seat assignment, so ``game`` alone names a deal)."""
    names = lf.collect_schema().names() if isinstance(lf, pl.LazyFrame) else lf.columns
    return ["game", "assignment"] if "assignment" in names else ["game"]


def team(seat: str = "seat") -> pl.Expr:
    """原子 team of a seat: 0 = 南北 {0, 2}, 1 = 东西 {1, 3} (YZ-02)."""
    return (pl.col(seat) % 2).cast(pl.Int64)


def position(seat: pl.Expr, first: pl.Expr, players: int | pl.Expr) -> pl.Expr:
    """Seats after the first player in play order: 0 = the first player itself."""
    return ((seat - first) % players).cast(pl.Int64)


def exact_mean_sd(col: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """Mean and SD (ddof 1; null for fewer than 2 values) of an integer-valued column from its
    integer sums ``n``, ``Σy``, ``Σy²``: exact whatever the order the streaming engine adds the
    rows in, so two reports of the same data agree to the last bit (issue 45 item 11; Polars'
    ``std`` merges partial float states in the order the batches arrive)."""
    y = col.cast(pl.Int64)
    n = y.count().cast(pl.Float64)
    s = y.sum().cast(pl.Float64)
    ss = (y * y).sum().cast(pl.Float64)
    mean = pl.when(n > 0).then(s / n)
    var = ((ss - s * s / n) / (n - 1)).clip(lower_bound=0.0)
    return mean, pl.when(n > 1).then(var.sqrt())


def mean_sd(lf: pl.LazyFrame, value: pl.Expr) -> tuple[int, float | None, float | None]:
    """``(n, mean, sd)`` of ``value`` over ``lf`` (nulls left out), the same to the last bit
    however the rows are split into parts or batches (issue 45 item 11): an integer-valued
    column from its integer sums (:func:`exact_mean_sd`), any other from its value counts summed
    in value order."""
    y = lf.select(value.alias("y")).drop_nulls("y")
    dtype = y.collect_schema()["y"]
    if dtype.is_integer() or dtype == pl.Boolean:
        m, sd = exact_mean_sd(pl.col("y"))
        r = y.select(n=pl.len(), mean=m, sd=sd).collect(engine="streaming").row(0)
        return int(r[0]), r[1], r[2]
    h = y.group_by("y").agg(c=pl.len()).collect(engine="streaming").sort("y")
    v, c = h["y"].cast(pl.Float64).to_numpy(), h["c"].cast(pl.Float64).to_numpy()
    n = int(c.sum())
    if n == 0:
        return 0, None, None
    mean = math.fsum(v * c) / n  # fsum: correctly rounded, whatever the order
    sd = math.sqrt(math.fsum((v - mean) ** 2 * c) / (n - 1)) if n > 1 else None
    return n, mean, sd


def length_summary(col: pl.Expr) -> list[pl.Expr]:
    """Aggregations describing a length / score distribution of an integer-valued column (all
    named; mean and SD order-exact, :func:`exact_mean_sd`)."""
    mean, sd = exact_mean_sd(col)
    return [
        col.count().cast(pl.Int64).alias("n"),
        mean.alias("mean"),
        sd.alias("sd"),
        col.min().cast(pl.Float64).alias("min"),
        col.quantile(0.05, "nearest").cast(pl.Float64).alias("q05"),
        col.quantile(0.25, "nearest").cast(pl.Float64).alias("q25"),
        col.median().cast(pl.Float64).alias("median"),
        col.quantile(0.75, "nearest").cast(pl.Float64).alias("q75"),
        col.quantile(0.95, "nearest").cast(pl.Float64).alias("q95"),
        col.max().cast(pl.Float64).alias("max"),
    ]


def mean_ci(df: pl.DataFrame) -> pl.DataFrame:
    """Add ``mean_lo`` / ``mean_hi`` (Student-t 95 %) to a frame with ``mean``, ``sd``, ``n``."""
    lo, hi = (
        zip(
            *(
                stats.mean_interval(m, s, n)
                if m is not None and s is not None
                else (np.nan, np.nan)
                for m, s, n in zip(df["mean"], df["sd"], df["n"], strict=True)
            ),
            strict=True,
        )
        if df.height
        else ((), ())
    )
    return df.with_columns(
        mean_lo=pl.Series(list(lo), dtype=pl.Float64), mean_hi=pl.Series(list(hi), dtype=pl.Float64)
    )


# --- clustered statistics: rows that share a deal (comparison runs) or a round ------------------


def deal_cluster(lf: pl.LazyFrame, rows_per_game: bool = False) -> list[str] | None:
    """The cluster of rows that are not independent: the deal (``game``) in a comparison run
    (its assignments share the cards) or where a game has several rows (rounds, seats); else
    None (every row its own cluster)."""
    names = lf.collect_schema().names()
    return ["game"] if rows_per_game or "assignment" in names or "round" in names else None


def one_per_deal(lf: pl.LazyFrame) -> pl.LazyFrame:
    """Rows of the first seat assignment only: in a comparison run every deal is played once
    per assignment, and a measure that depends only on the deal (刀 rank, indicator, first
    receiver/leader, cards dealt) must count each deal once. A plain run is returned as is."""
    names = lf.collect_schema().names()
    return lf.filter(pl.col("assignment") == 0) if "assignment" in names else lf


def clustered_rate_table(
    lf: pl.LazyFrame, by: list[str], success: pl.Expr, cluster: list[str] | None
) -> pl.LazyFrame:
    """:func:`rate_table` with a cluster-robust interval: rows sharing ``cluster`` (a deal, a
    round) are not independent. Adds ``deff`` (design effect), ``var`` (variance of the rate),
    ``clusters``; the interval is Wilson on the effective sample ``n / deff``. ``cluster=None``:
    every row is its own cluster (the sums come straight from the rows, no grouping by game:
    memory stays flat)."""
    return clustered_rate_finish(clustered_rate_sums(lf, by, success, cluster), by)


def clustered_rate_sums(
    lf: pl.LazyFrame, by: list[str], success: pl.Expr, cluster: list[str] | None
) -> pl.LazyFrame:
    """The additive part of :func:`clustered_rate_table`: per group of ``by``, ``n``, ``k``,
    the sums over clusters of ``k_c²``, ``n_c k_c``, ``n_c²`` and the number of clusters."""
    if cluster is None:
        per = lf.select(*by, nc=pl.lit(1.0), kc=success.cast(pl.Float64))
    else:
        per = lf.group_by(*by, *cluster).agg(
            nc=pl.len().cast(pl.Float64), kc=success.cast(pl.Float64).sum()
        )
    return per.group_by(by).agg(
        n=pl.col("nc").sum().cast(pl.Int64),
        k=pl.col("kc").sum().cast(pl.Int64),
        skk=(pl.col("kc") ** 2).sum(),
        snk=(pl.col("nc") * pl.col("kc")).sum(),
        snn=(pl.col("nc") ** 2).sum(),
        clusters=pl.len().cast(pl.Int64),
    )


def clustered_rate_finish(agg: pl.LazyFrame, by: list[str]) -> pl.LazyFrame:
    """:func:`clustered_rate_table` from the (summed) sums of :func:`clustered_rate_sums`."""

    def batch(which: int):
        def f(s: pl.Series) -> pl.Series:
            fld = {c: s.struct.field(c).to_numpy() for c in ("k", "n", "skk", "snk", "snn", "g")}
            var, deff = stats.clustered_rate(
                fld["k"], fld["n"], fld["skk"], fld["snk"], fld["snn"], fld["g"]
            )
            if which == 0:
                return pl.Series(var, dtype=pl.Float64)
            if which == 1:
                return pl.Series(deff, dtype=pl.Float64)
            lo, hi = stats.wilson_design(fld["k"], fld["n"], deff)
            return pl.Series(lo if which == 2 else hi, dtype=pl.Float64)

        return f

    st = pl.struct(
        k=pl.col("k"),
        n=pl.col("n"),
        skk="skk",
        snk="snk",
        snn="snn",
        g=pl.col("clusters"),
    )
    return (
        agg.with_columns(
            rate=rate(),
            var=st.map_batches(batch(0), return_dtype=pl.Float64),
            deff=st.map_batches(batch(1), return_dtype=pl.Float64),
            rate_lo=st.map_batches(batch(2), return_dtype=pl.Float64),
            rate_hi=st.map_batches(batch(3), return_dtype=pl.Float64),
        )
        .select(*by, "k", "n", "rate", "rate_lo", "rate_hi", "deff", "var", "clusters")
        .sort(by)
    )


def slope_moments(
    lf: pl.LazyFrame, x: pl.Expr, y: pl.Expr, cluster: list[str] | None
) -> pl.LazyFrame:
    """One row of sums for :func:`cardsim.analysis.stats.clustered_slope`: the totals ``S_*`` of
    ``n, x, y, xx, xy`` and the sums over clusters of their pairwise products ``P_*_*``, and
    ``G`` (clusters; ``cluster=None``: every row is one). Streams: memory does not grow with
    the run."""
    xf, yf = x.cast(pl.Float64), y.cast(pl.Float64)
    sums = {"n": pl.lit(1.0), "x": xf, "y": yf, "xx": xf * xf, "xy": xf * yf}
    if cluster is None:
        per = lf.select(**sums)
    else:
        per = lf.group_by(cluster).agg(
            n=pl.len().cast(pl.Float64),
            x=xf.sum(),
            y=yf.sum(),
            xx=(xf * xf).sum(),
            xy=(xf * yf).sum(),
        )
    names = stats.SLOPE_SUMS
    aggs = [pl.col(s).sum().alias(f"S_{s}") for s in names]
    aggs += [
        (pl.col(a) * pl.col(b)).sum().alias(f"P_{a}_{b}")
        for i, a in enumerate(names)
        for b in names[i:]
    ]
    return per.select(*aggs, pl.len().alias("G"))


def summary_from_counts(hist: pl.LazyFrame, by: list[str], count: str = "count") -> pl.LazyFrame:
    """:func:`length_summary` computed from value counts (``by…, value, count``) instead of the
    rows: memory does not grow with the run (a histogram of small integers). Quantiles are
    Polars' ``"nearest"`` (index ``round(q (n − 1))`` of the sorted values), the median the
    mean of the two middle values."""
    h = hist.sort(*by, "value").with_columns(
        cum=pl.col(count).cum_sum().over(by) if by else pl.col(count).cum_sum()
    )
    n = pl.col(count).sum()
    v = pl.col("value").cast(pl.Float64)

    def at(idx: pl.Expr) -> pl.Expr:
        return pl.col("value").filter(pl.col("cum") > idx).first().cast(pl.Float64)

    def q(p: float) -> pl.Expr:
        return at((p * (n - 1) + 0.5).floor())  # half up, as Polars' "nearest"

    mean = (v * pl.col(count)).sum() / n
    aggs = [
        n.cast(pl.Int64).alias("n"),
        mean.alias("mean"),
        (((v * v * pl.col(count)).sum() - n * mean * mean) / (n - 1)).sqrt().alias("sd"),
        v.min().alias("min"),
        q(0.05).alias("q05"),
        q(0.25).alias("q25"),
        ((at(((n - 1) / 2).floor()) + at(((n - 1) / 2).ceil())) / 2).alias("median"),
        q(0.75).alias("q75"),
        q(0.95).alias("q95"),
        v.max().alias("max"),
    ]
    grouped = h.group_by(by, maintain_order=True) if by else h.group_by(pl.lit(0).alias("_"))
    out = grouped.agg(aggs)
    return out if by else out.drop("_")
