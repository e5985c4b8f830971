"""Refactors keep results: the pinned sample replays to the outcome values recorded before.

tests/fixtures/pinned_v1 holds the schema-v1 tables of 51 configurations (both games, every
strategy, every rule variant, 2-10 players, user strategies), recorded by
tests/fixtures/record_pinned.py before the restructuring. Each configuration is played with the
current code and its v2 tables are mapped back to v1 with the documented old -> new mapping
(docs/schema-v2.md); every value must be equal.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from cardsim.sim.game import RunConfig
from cardsim.sim.games import get_engine
from cardsim.sim.schema import strategy_label
from polars.testing import assert_frame_equal

from tests.schema_v1 import to_v1

FIXTURES = Path(__file__).parent / "fixtures" / "pinned_v1"
CONFIGS = json.loads((FIXTURES / "configs.json").read_text())
#: Rule options that restore the pre-2026-12-01 readings of AT-14 and AT-26 (the v1 sample was
#: recorded under them; forced_claims is explicit in every ATLAS configuration already).
LEGACY = {"atlas": {"claim_priority": "nearest_win", "self_melds_shown": True}, "yuanzi": {}}


def _label(name: str) -> str:
    return strategy_label(name)


@pytest.mark.parametrize("cfg", CONFIGS, ids=[c["id"] for c in CONFIGS])
def test_pinned_sample_replays_v1_values(cfg):
    eng = get_engine(cfg["game"])
    config = RunConfig(game=cfg["game"], players=cfg["players"], seats=tuple(cfg["seats"]),
                       rules={**LEGACY[cfg["game"]], **cfg["rules"]}, seed=cfg["seed"],
                       games=cfg["games"])  # fmt: skip
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
