"""Schema v2 tables in schema-v1 form (docs/schema-v2.md), for tests written against v1 codes.

The pinned-sample test compares with fingerprints recorded in v1; a few kernel tests check
integer codes (card ids, 刀 values 1..13, team 0/1) that v2 publishes as Enum labels.
"""

from __future__ import annotations

import re

import polars as pl


def v1_name(game: str, table: str, name: str) -> str:
    """The v1 name of a v2 column (docs/schema-v2.md)."""
    m = re.fullmatch(r"strategy_s(\d+)", name) or re.fullmatch(r"delta_s(\d)", name)
    if m:
        return name.replace("_s", "_", 1) if name.startswith("delta") else f"strategy_{m[1]}"
    m = re.fullmatch(r"h([12])_(.+?)(_[st]\d)?", name)
    if game == "yuanzi" and m:
        h = int(m[1]) - 1
        return f"{m[2]}_{h}{m[3] or ''}"
    return name


def to_v1(game: str, table: str, df: pl.DataFrame) -> pl.DataFrame:
    """A v2 table in v1 form: names, integer codes for Enums, -1 (false) for nulls."""
    out = []
    for name in df.columns:
        col = df[name]
        old = v1_name(game, table, name)
        if name.startswith("strategy"):
            out.append(col.cast(pl.String).alias(old))
            continue
        if isinstance(col.dtype, pl.Enum):
            cats = list(col.dtype.categories)
            codes = col.cast(pl.String).replace_strict(
                {c: i for i, c in enumerate(cats)}, default=None, return_dtype=pl.Int64
            )
            if name.endswith("_dao"):
                codes = codes + 1  # v1: card value A = 1 .. K = 13
            if name in ("end",):
                out.append(col.alias(old))  # v1 already an Enum
                continue
            col = codes
        if col.dtype == pl.Boolean:
            col = col.fill_null(False)
        elif name in ("winner_points",):
            col = col.fill_null(0)
        else:
            col = col.fill_null(-1)
        out.append(col.alias(old))
    return pl.DataFrame(out)
