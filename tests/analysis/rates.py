"""Win rates per side or position from ``seats.side_outcomes`` (what the report's seat
section computes part by part), for the tests of the outcome tables."""

from __future__ import annotations

import polars as pl
from cardsim.analysis.exprs import clustered_rate_table


def win_rates(outcomes: pl.LazyFrame, by: str, cluster: list[str] | None = None) -> pl.LazyFrame:
    """Win rate per value of ``by`` (``side``, ``position``) over the decided games; rows that
    share ``cluster`` (a deal of a comparison run, the rounds of a game) are clustered."""
    decided = outcomes.filter(pl.col("decided"))
    return clustered_rate_table(decided, [by], pl.col("won"), cluster).rename({"k": "wins"})
