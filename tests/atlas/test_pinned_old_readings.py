"""The revised rulings keep the old results selectable (AT-12, AT-14, AT-26, revised 2026-12-01):
with ``forced_claims=false``, ``claim_priority=nearest_win`` and ``self_melds_shown=true`` every
built-in ATLAS configuration of the pinned v1 sample (tests/fixtures/pinned_v1, recorded before
the revision) gives exactly the recorded outcome tables."""

import json
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from sim.game import RunConfig
from sim.games.atlas import ENGINE

PINNED = Path(__file__).parents[1] / "fixtures" / "pinned_v1"
OLD_READINGS = {"claim_priority": "nearest_win", "self_melds_shown": True}
CONFIGS = [
    c
    for c in json.loads((PINNED / "configs.json").read_text(encoding="utf-8"))
    if c["game"] == "atlas" and not any(s.endswith(".py:choose") for s in c["seats"])
]


def test_every_built_in_atlas_configuration_is_covered():
    assert len(CONFIGS) == 35 and all("forced_claims" in c["rules"] for c in CONFIGS)


@pytest.mark.parametrize("c", CONFIGS, ids=[c["id"] for c in CONFIGS])
def test_old_readings_reproduce_the_pinned_v1_outcomes(c):
    rules = {**OLD_READINGS, **c["rules"]}
    cfg = RunConfig("atlas", c["players"], tuple(c["seats"]), rules, c["seed"], c["games"])
    games, seats = ENGINE.play_chunk(cfg, 0, c["games"])
    assert_frame_equal(games, pl.read_parquet(PINNED / f"{c['id']}_games.parquet"))
    assert_frame_equal(seats, pl.read_parquet(PINNED / f"{c['id']}_seats.parquet"))
