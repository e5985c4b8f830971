"""原子 ``ismcts`` (kernels/yuanzi/ismcts.py): names, YZ-28 information, legality,
reproducibility. Small searches (a few iterations per decision) keep the file quick once
compiled."""

import numpy as np
import polars as pl
import pytest
from cardsim.kernels.rng import STREAM_DEAL, STREAM_STRATEGY, seed_stream
from cardsim.kernels.yuanzi import driver as drv
from cardsim.kernels.yuanzi import ismcts
from cardsim.kernels.yuanzi.encoding import N_CARDS, N_TYPES
from cardsim.kernels.yuanzi.rules import apply_move, begin_half, draw_half_deck
from cardsim.kernels.yuanzi.state import N_INFO, N_ST, ST_ACTOR, rules_array
from cardsim.sim.config import build_config
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import RunConfig
from cardsim.sim.games.yuanzi import ENGINE, ISMCTS, ISMCTS_DEFAULT
from cardsim.sim.strategy_params import split_strategies

from tests.games.yuanzi.test_agreement import agree

#: the driver: it calls the search strategies through its search table (kernels/call_tables.py)
SEARCH = drv


@pytest.fixture(autouse=True, scope="module")
def _search_table():
    drv.load_search()  # pimc and ismcts compiled (or loaded) and entered in the table


#: z=0: the search, not the safeguard, picks (choices differ from greedy); drop=0: the root
#: children race (dropped at iteration 8 or 16)
SMALL = "ismcts:iters=16,cap=4,z=0,drop=0"


def test_ismcts_names_and_parameters():
    assert ISMCTS.id("ismcts") == ismcts.encode(*ISMCTS_DEFAULT)
    name = "ismcts:iters=7,c=1.5,rollout=random,cap=5,z=2,drop=1.5"
    assert ismcts.decode(ISMCTS.id(name)) == (7, 5, 1, 15, 20, 4)
    assert ismcts.decode(ISMCTS.id("ismcts:drop=off"))[5] == 0
    assert ismcts.decode(ismcts.encode(4095, 64, 1, 5.0, 6.0, 7)) == (4095, 64, 1, 50, 60, 7)
    top = ISMCTS.id("ismcts:iters=4095,c=5,cap=64,rollout=random,z=6,drop=3")
    assert ismcts.ISMCTS_BASE <= top < drv.LEVEL_BASE
    cfg = build_config(ENGINE, games=10, seed=1, seat_strategies={0: "ismcts:iters=4"})
    assert cfg.seats == ("ismcts:iters=4", "greedy", "greedy", "greedy")
    for bad, why in [
        ("ismcts:iters=0", "outside"),
        ("ismcts:iters=x", "not an integer"),
        ("ismcts:c=9", "outside"),
        ("ismcts:c=0.25", "decimal"),
        ("ismcts:cap=1", "outside"),
        ("ismcts:rollout=smart", "not one of"),
        ("ismcts:depth=3", "unknown parameter"),
        ("ismcts:z=7", "outside"),
        ("ismcts:drop=4", "not one of"),
        ("ismcts:drop=0.25", "not one of"),
        ("ismcts:iters=4,iters=5", "twice"),
        ("ismcts:", "no parameters"),
    ]:
        with pytest.raises(CardsimError, match=why) as err:
            build_config(ENGINE, games=10, seed=1, strategy=bad)
        assert "\n" not in str(err.value)
    assert split_strategies("ismcts:iters=16,c=0.5,pimc") == ["ismcts:iters=16,c=0.5", "pimc"]


def _playout(root, g, sids, rules, on_search):
    """Step one first half in Python; ``on_search`` sees every ismcts decision with a choice
    (the buffer is ismcts's full length: a shorter one would fall back to greedy)."""
    deck = np.empty(N_CARDS, np.uint8)
    rng_deal = np.empty(4, np.uint64)
    rng = np.empty(4, np.uint64)
    seed_stream(rng_deal, root, g, STREAM_DEAL)
    seed_stream(rng, root, g, STREAM_STRATEGY)
    p = draw_half_deck(rng_deal, deck, rules[0])
    hands = np.zeros((4, N_TYPES), np.uint8)
    played = np.zeros((4, N_TYPES), np.uint8)
    st = np.zeros(N_ST, np.int64)
    info = np.zeros((4, N_INFO), np.int64)
    begin_half(0, deck, p, 0, hands, played, st, info)
    buf = np.zeros(ismcts.BUF_SIZE, np.int32)
    differs = 0
    while True:
        seat = st[ST_ACTOR]
        before = rng.copy()
        n, idx, bad = SEARCH.decide_turn(hands, played, st, rules, sids, buf, rng)
        assert bad == 0
        code = int(buf[idx])
        if sids[seat] >= ismcts.ISMCTS_BASE and n > 1:
            on_search(hands, played, st, before, n, code)
            b2 = buf.copy()
            g2 = SEARCH.decide_turn(
                hands, played, st.copy(), rules, np.ones(4, np.int64), b2, before.copy()
            )
            differs += int(b2[g2[1]]) != code
        if apply_move(code, hands, played, st, rules) == 1:
            return differs


def test_yz28_ismcts_never_reads_hidden_cards():
    """YZ-28: permuting the other seats' true cards among themselves (same counts, same public
    history) leaves every ismcts choice unchanged."""
    rules = rules_array()
    sid = ISMCTS.id(SMALL)
    sids = np.array([sid, 1, sid, 1], np.int64)
    shuffler = np.random.default_rng(7)
    checked = []

    def on_search(hands, played, st, before, n, code):
        seat = st[ST_ACTOR]
        others = [s for s in range(4) if s != seat]
        pool = np.repeat(np.arange(N_TYPES), hands[others].astype(int).sum(0))
        alt = hands.copy()
        shuffler.shuffle(pool)
        at = 0
        for s in others:
            k = int(hands[s].sum())
            alt[s] = np.bincount(pool[at : at + k], minlength=N_TYPES)
            at += k
        if (alt == hands).all():
            return  # late in the half a permutation may give the same hands
        buf = np.zeros(ismcts.BUF_SIZE, np.int32)
        n2, idx2, _ = SEARCH.decide_turn(alt, played, st.copy(), rules, sids, buf, before.copy())
        assert (n2, int(buf[idx2])) == (n, code)
        checked.append(n)

    differs = _playout(11, 0, sids, rules, on_search)
    assert len(checked) > 15
    assert differs > 0  # the search ran: some choices are not greedy's


def test_ismcts_moves_are_legal_kernel_reference_agreement():
    """Every ismcts move in a traced match is in the reference's legal set (protocol §8), and
    the outcome agrees — default rules and a variant, random rollouts too."""
    for seats, rules in [
        ((SMALL, "greedy", SMALL, "greedy"), {}),
        (("greedy", "ismcts:iters=6,rollout=random,c=2") * 2, {"pass_is_final": True}),
    ]:
        cfg = RunConfig("yuanzi", 4, seats, rules, 5, 2)
        assert agree(cfg, 0, 2) > 100


def test_ismcts_reproducible_and_chunk_independent():
    cfg = RunConfig("yuanzi", 4, (SMALL, "greedy", SMALL, "greedy"), {}, 9, 4)
    whole, _ = ENGINE.play_chunk(cfg, 0, 4)
    parts = [ENGINE.play_chunk(cfg, a, 2)[0] for a in (0, 2)]
    assert whole.equals(pl.concat(parts))
    again, _ = ENGINE.play_chunk(cfg, 0, 4)
    assert whole.equals(again)
    other = RunConfig("yuanzi", 4, ("ismcts:iters=12,cap=4,c=3",) + cfg.seats[1:], {}, 9, 4)
    assert ENGINE.strategy_ids(other.seats)[0][0] != ENGINE.strategy_ids(cfg.seats)[0][0]
