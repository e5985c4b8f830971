"""Refactors keep results: the pinned sample replays to the outcome values recorded before.

tests/fixtures/pinned_v1 holds the schema-v1 tables of 51 configurations (both games, every
strategy, every rule variant, 2-10 players, user strategies), recorded by
tests/fixtures/record_pinned.py before the restructuring. Each configuration is played with the
current code and its v2 tables are mapped back to v1 with the documented old -> new mapping
(docs/schema-v2.md); every value must be equal.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from sim.game import RunConfig
from sim.games import get_engine
from sim.schema import strategy_label

FIXTURES = Path(__file__).parent / "fixtures" / "pinned_v1"
CONFIGS = json.loads((FIXTURES / "configs.json").read_text())


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


def _label(name: str) -> str:
    return strategy_label(name)


@pytest.mark.parametrize("cfg", CONFIGS, ids=[c["id"] for c in CONFIGS])
def test_pinned_sample_replays_v1_values(cfg):
    eng = get_engine(cfg["game"])
    config = RunConfig(game=cfg["game"], players=cfg["players"], seats=tuple(cfg["seats"]),
                       rules=cfg["rules"], seed=cfg["seed"], games=cfg["games"])  # fmt: skip
    games, seats = eng.play_chunk(config, 0, cfg["games"])
    for table, new in (("games", games), ("seats", seats)):
        old = pl.read_parquet(FIXTURES / f"{cfg['id']}_{table}.parquet")
        got = to_v1(cfg["game"], table, new)
        # v1 stored the seat's path as the label; v2 labels user files as stem:function
        want = old.with_columns(
            pl.col(c).cast(pl.String).map_elements(_label, return_dtype=pl.String)
            for c in old.columns if c.startswith("strategy")
        )  # fmt: skip
        assert sorted(got.columns) == sorted(want.columns), table
        got = got.select(want.columns)
        casts = {c: want.schema[c] for c in want.columns if not c.startswith("strategy")}
        assert_frame_equal(got.cast(casts), want, check_dtypes=False)
