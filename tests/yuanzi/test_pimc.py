"""原子 ``pimc`` (kernels/yuanzi/pimc.py): names, YZ-28 information, legality, strength,
reproducibility.

Runs are small (a few samples per decision) so the file stays quick once compiled.
"""

import numpy as np
import pytest

from kernels.rng import STREAM_DEAL, STREAM_STRATEGY, seed_stream
from kernels.yuanzi import driver as drv
from kernels.yuanzi import pimc
from kernels.yuanzi.encoding import N_CARDS, N_TYPES
from kernels.yuanzi.rules import apply_move, begin_half, draw_half_deck
from kernels.yuanzi.state import N_INFO, N_ST, ST_ACTOR, rules_array
from sim.compare import DuplicateEngine, build_compare_config
from sim.config import build_config
from sim.errors import CardsimError
from sim.game import RunConfig
from sim.games.yuanzi import ENGINE, PIMC_DEFAULT, pimc_id
from sim.strategy_params import split_strategies
from tests.yuanzi.test_agreement import agree

SMALL = "pimc:samples=3,cap=4"


def test_pimc_names_and_parameters():
    assert pimc_id("pimc") == pimc.encode(*PIMC_DEFAULT)
    assert pimc_id("pimc:samples=32") == pimc.encode(32, PIMC_DEFAULT[1], 0, PIMC_DEFAULT[3])
    assert pimc_id("pimc:samples=16,rollout=greedy") == pimc.encode(
        16, PIMC_DEFAULT[1], 0, PIMC_DEFAULT[3]
    )
    assert pimc_id("pimc:cap=3,rollout=random") == pimc.encode(
        PIMC_DEFAULT[0], 3, 1, PIMC_DEFAULT[3]
    )
    assert pimc.decode(pimc_id("pimc:samples=7,cap=5,rollout=random,z=2.5")) == (7, 5, 1, 25)
    cfg = build_config(ENGINE, games=10, seed=1, seat_strategies={0: "pimc:samples=4"})
    assert cfg.seats == ("pimc:samples=4", "greedy", "greedy", "greedy")
    for bad, why in [
        ("pimc:samples=0", "outside"),
        ("pimc:samples=x", "not an integer"),
        ("pimc:cap=1", "outside"),
        ("pimc:rollout=smart", "not one of"),
        ("pimc:depth=3", "unknown parameter"),
        ("pimc:samples=4,samples=5", "twice"),
        ("pimc:", "no parameters"),
        ("pimc:samples", "key=value"),
    ]:
        with pytest.raises(CardsimError, match=why):
            build_config(ENGINE, games=10, seed=1, strategy=bad)
    assert split_strategies("pimc:samples=16,rollout=greedy,greedy") == [
        "pimc:samples=16,rollout=greedy",
        "greedy",
    ]
    assert split_strategies("greedy,random") == ["greedy", "random"]


def _playout(root, g, sids, rules, on_pimc):
    """Step one first half in Python; ``on_pimc`` sees every pimc decision with a choice."""
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
    buf = np.zeros(pimc.BUF_SIZE, np.int32)
    while True:
        seat = st[ST_ACTOR]
        before = rng.copy()
        n, idx, bad = drv.decide(hands, played, st, rules, sids, buf, rng)
        assert bad == 0
        code = int(buf[idx])
        if sids[seat] >= pimc.PIMC_BASE and n > 1:
            on_pimc(hands, played, st, before, n, code)
        if apply_move(code, hands, played, st, rules) == 1:
            return


def test_yz28_pimc_never_reads_hidden_cards():
    """YZ-28: permuting the other seats' true cards among themselves (same counts, same public
    history) leaves every pimc choice unchanged — and its random stream too."""
    rules = rules_array()
    sid = pimc_id(SMALL)
    sids = np.array([sid, 1, sid, 1], np.int64)
    shuffler = np.random.default_rng(7)
    checked = []

    def on_pimc(hands, played, st, before, n, code):
        seat = st[ST_ACTOR]
        others = [s for s in range(4) if s != seat]
        pool = np.repeat(np.arange(N_TYPES), hands[others].astype(int).sum(0))
        for _ in range(2):
            alt = hands.copy()
            shuffler.shuffle(pool)
            at = 0
            for s in others:
                k = int(hands[s].sum())
                alt[s] = np.bincount(pool[at : at + k], minlength=N_TYPES)
                at += k
            assert (alt[seat] == hands[seat]).all()
            if (alt == hands).all():
                continue  # late in the half a permutation may give the same hands
            buf = np.zeros(pimc.BUF_SIZE, np.int32)
            r = before.copy()
            n2, idx2, _ = drv.decide(alt, played, st.copy(), rules, sids, buf, r)
            assert (n2, int(buf[idx2])) == (n, code)
            checked.append(n)

    for g in range(2):
        _playout(11, g, sids, rules, on_pimc)
    assert len(checked) > 30


def test_pimc_moves_are_legal_kernel_reference_agreement():
    """Every pimc move in a traced match is in the reference's legal set (protocol §8), and the
    outcome agrees."""
    for seats, rules in [
        ((SMALL, "greedy", SMALL, "greedy"), {}),
        (("greedy", "pimc:samples=2,cap=3,rollout=random") * 2, {"pass_is_final": True}),
    ]:
        cfg = RunConfig("yuanzi", 4, seats, rules, 5, 3)
        assert agree(cfg, 0, 3) > 200


def test_pimc_reproducible_and_chunk_independent():
    cfg = RunConfig("yuanzi", 4, (SMALL, "greedy", SMALL, "greedy"), {}, 9, 6)
    whole, _ = ENGINE.play_chunk(cfg, 0, 6)
    parts = [ENGINE.play_chunk(cfg, a, 3)[0] for a in (0, 3)]
    import polars as pl

    assert whole.equals(pl.concat(parts))
    again, _ = ENGINE.play_chunk(cfg, 0, 6)
    assert whole.equals(again)


def test_pimc_beats_greedy_on_duplicate_deals():
    """Paired duplicate comparison (sim.compare): pimc's win-rate edge over greedy has a 95 %
    interval above 0."""
    from analysis.compare import pairwise

    engine = DuplicateEngine(ENGINE)
    name = "pimc:samples=8,cap=4"
    cfg = build_compare_config(ENGINE, [name, "greedy"], games=80, seed=3)
    _games, seats = engine.play_chunk(cfg, 0, 80)
    row = pairwise(seats).table.row(0, named=True)
    assert {row["a"], row["b"]} == {name, "greedy"}
    edge_lo = row["lo"] if row["a"].startswith("pimc") else -row["hi"]
    assert edge_lo > 0, row


def test_rollout_replays_the_driver():
    """From the true state of every decision of a greedy half, pimc's greedy rollout ends the half
    as the driver did (same finish order and points)."""
    from kernels.yuanzi.encoding import MAX_MOVES
    from kernels.yuanzi.state import ST_OUT, ST_POINTS

    rules = rules_array()
    sids = np.ones(4, np.int64)
    for g in range(2):
        states = []
        deck = np.empty(N_CARDS, np.uint8)
        rd = np.empty(4, np.uint64)
        rng = np.empty(4, np.uint64)
        seed_stream(rd, 2, g, STREAM_DEAL)
        seed_stream(rng, 2, g, STREAM_STRATEGY)
        p = draw_half_deck(rd, deck, rules[0])
        hands = np.zeros((4, N_TYPES), np.uint8)
        played = np.zeros((4, N_TYPES), np.uint8)
        st = np.zeros(N_ST, np.int64)
        info = np.zeros((4, N_INFO), np.int64)
        begin_half(0, deck, p, 0, hands, played, st, info)
        buf = np.zeros(MAX_MOVES, np.int32)
        while True:
            states.append((hands.copy(), played.copy(), st.copy()))
            _n, idx, _ = drv.decide(hands, played, st, rules, sids, buf, rng)
            if apply_move(int(buf[idx]), hands, played, st, rules) == 1:
                break
        final = (list(st[ST_OUT : ST_OUT + 4]), list(st[ST_POINTS : ST_POINTS + 4]))
        for h, pl_, s in states[:: max(1, len(states) // 25)]:
            rbuf = np.zeros(MAX_MOVES, np.int32)
            pimc.rollout(h, pl_, s, rules, rbuf, rng, pimc.ROLLOUT_GREEDY)
            assert (list(s[ST_OUT : ST_OUT + 4]), list(s[ST_POINTS : ST_POINTS + 4])) == final
