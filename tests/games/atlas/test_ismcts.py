"""ATLAS ``ismcts`` (kernels/atlas/ismcts.py): names, AT-26 information, legality,
reproducibility. Small searches keep the file quick once compiled."""

import numpy as np
import polars as pl
import pytest
from cardsim.kernels.atlas import driver as D
from cardsim.kernels.atlas import ismcts
from cardsim.kernels.atlas.state import S_LEN
from cardsim.kernels.rng import seed_stream
from cardsim.sim.config import build_config
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import RunConfig
from cardsim.sim.games.atlas import ENGINE, ISMCTS, ISMCTS_DEFAULT, rules_array

from tests.games.atlas import test_agreement as ta
from tests.games.atlas.test_pimc import SEARCHED, _permute_hidden

SMALL = "ismcts:iters=16,cap=4,drop=0"  # drop=0: the root children race (at 8 and 16)


def test_ismcts_names_and_parameters():
    assert ISMCTS.id("ismcts") == ismcts.encode(*ISMCTS_DEFAULT)
    name = "ismcts:iters=9,c=1.1,rollout=random,cap=6,z=0,drop=3"
    assert ismcts.decode(ISMCTS.id(name)) == (9, 6, 1, 11, 0, 7)
    assert ismcts.decode(ISMCTS.id("ismcts:drop=off"))[5] == 0
    assert ismcts.decode(ismcts.encode(4095, 63, 1, 5.0, 6.0, 7)) == (4095, 63, 1, 50, 60, 7)
    top = ISMCTS.id("ismcts:iters=4095,c=5,cap=63,rollout=random,z=6,drop=3")
    assert ismcts.ISMCTS_BASE <= top < D.LEVEL_BASE
    cfg = RunConfig("atlas", 3, ("ismcts:cap=3", "greedy", "ismcts"), {}, 1, 5)
    ids, _mod = ENGINE.seat_ids(cfg)
    assert (ids[0], ids[1], ids[2]) == (ISMCTS.id("ismcts:cap=3"), 1, ISMCTS.id("ismcts"))
    for bad, why in [
        ("ismcts:iters=0", "outside"),
        ("ismcts:cap=64", "outside"),
        ("ismcts:c=-1", "outside"),
        ("ismcts:rollout=smart", "not one of"),
        ("ismcts:depth=3", "unknown parameter"),
        ("ismcts:z=7", "outside"),
        ("ismcts:drop=1.25", "not one of"),
    ]:
        with pytest.raises(CardsimError, match=why) as err:
            build_config(ENGINE, games=10, seed=1, strategy=bad)
        assert "\n" not in str(err.value)


@pytest.mark.parametrize(
    "players, rules", [(4, {}), (3, {"forced_claims": "false", "self_melds": "any"})]
)
def test_at26_ismcts_never_reads_hidden_cards(players, rules):
    """AT-26: permuting the true hidden cards (other hands, draw pile) among the unseen set
    leaves every searched ismcts choice unchanged; the search does leave greedy's pick."""
    sid = ISMCTS.id(SMALL)
    sids = np.array([sid] + [1] * (players - 1), np.int64)
    shuffler = np.random.default_rng(5)
    checked = differs = 0
    for g in range(2):
        tr = D.run_trace(4, g, players, sids, rules_array(rules), level=1, snap_at=-2)
        for row in tr.snapshot:
            if row[S_LEN] != 0 or row[S_LEN + 1] not in SEARCHED or row[S_LEN + 2] < 2:
                continue
            S, n, dt = row[:S_LEN], int(row[S_LEN + 2]), int(row[S_LEN + 1])
            picks = set()
            for variant in range(2):
                T = S.copy() if variant == 0 else _permute_hidden(S, 0, shuffler)
                opts = np.zeros(ismcts.BUF_SIZE, np.int32)
                opts[:n] = row[S_LEN + 4 : S_LEN + 4 + n]
                rng = np.empty(4, np.uint64)
                seed_stream(rng, 1, checked, 2)
                picks.add(int(ismcts.choose_ismcts(T, 0, sid, dt, opts, n, rng)))
            greedy = np.zeros(ismcts.BUF_SIZE, np.int32)
            greedy[:n] = row[S_LEN + 4 : S_LEN + 4 + n]
            rng = np.empty(4, np.uint64)
            seed_stream(rng, 1, checked, 2)
            g0 = int(ismcts.choose_ismcts(S, 0, sid, dt, greedy[:n], n, rng))  # short: greedy
            assert len(picks) == 1
            differs += picks.pop() != g0
            checked += 1
    assert checked > 15 and differs > 0


def test_ismcts_moves_are_legal_kernel_reference_agreement(monkeypatch):
    """Every ismcts decision in a traced game is an option of the reference (protocol §7),
    under variants and player counts."""
    for n, seats, rules in [
        (4, (SMALL, "greedy") * 2, {}),
        (3, ("ismcts:iters=6,rollout=random", "careful", SMALL), {"claim_turn": "jump"}),
        (2, (SMALL, "greedy"), {"trade_pick": "seen", "forced_claims": "false"}),
    ]:
        for s in seats:
            if s.startswith("ismcts"):
                monkeypatch.setitem(ta.IDS, s, ISMCTS.id(s))
        for g in range(2):
            assert ta.disagreement(8, g, n, seats, rules) is None


def test_ismcts_reproducible_and_chunk_independent():
    cfg = RunConfig("atlas", 4, (SMALL, "greedy") * 2, {}, 9, 6)
    whole, _ = ENGINE.play_chunk(cfg, 0, 6)
    parts = [ENGINE.play_chunk(cfg, a, 3)[0] for a in (0, 3)]
    assert whole.equals(pl.concat(parts))
    again, _ = ENGINE.play_chunk(cfg, 0, 6)
    assert whole.equals(again)
