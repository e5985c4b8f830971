"""Small Polars expression helpers shared by the analyses (each returns a ``pl.Expr``)."""

from __future__ import annotations

import numpy as np
import polars as pl

from analysis import stats


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
    counted = lf.group_by(by).agg(n=pl.len().cast(pl.Int64), k=success.cast(pl.Int64).sum())
    return with_rate(counted.select(*by, "k", "n")).sort(by)


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


def length_summary(col: pl.Expr) -> list[pl.Expr]:
    """Aggregations describing a length / score distribution (all named)."""
    return [
        col.count().cast(pl.Int64).alias("n"),
        col.mean().alias("mean"),
        col.std().alias("sd"),
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
