"""Kernel ↔ reference agreement (protocol §8): the kernel's traces replayed through
``cardsim.sim.games.yuanzi.reference.rules`` from the same deal.

At every decision the kernel's (half, seat, legal-set size, move_set_hash) must equal the
reference's and the chosen code must be legal there; at the end the protocol §7 outcome must
equal the kernel's games row.
"""

import numpy as np
import pytest
from cardsim.kernels.yuanzi import driver as drv
from cardsim.sim.game import RunConfig
from cardsim.sim.games.yuanzi import ENGINE
from cardsim.sim.games.yuanzi.reference import rules as ref

STRATEGIES = ("random", "greedy", "points", "bomber", "planner")
VARIANTS = [
    {},
    {"joker_indicator": "redraw"},
    {"dao_bomb_beats_dao_basic": False},
    {"dao_bomb": "same_count_only"},
    {"pass_only_if_unable": True},
    {"pass_is_final": True},
    {"lead_after_out": "partner"},
    {"one_two_settlement": "hand_only"},
    {"shuangjia": "upstream_team"},
]


def kernel_outcome(row):
    """The protocol §7 outcome of one kernel games-matrix row."""
    out = {}
    for h in (0, 1):
        b = drv.G_HALF * h
        for key, col in (
            ("dao", drv.H_DAO),
            ("indicator", drv.H_INDICATOR),
            ("dao_fallback", drv.H_FALLBACK),
            ("first_receiver", drv.H_FIRST_RECV),
            ("first_leader", drv.H_FIRST_LEADER),
            ("tricks", drv.H_TRICKS),
            ("plays", drv.H_PLAYS),
            ("bombs", drv.H_BOMBS),
            ("dao_bombs", drv.H_DAO_BOMBS),
            ("atoms", drv.H_ATOMS),
            ("hydrogens", drv.H_HYDROGENS),
        ):
            out[f"{key}_{h}"] = int(row[b + col])
        out[f"finish_{h}"] = [int(x) for x in row[b + drv.H_FINISH : b + drv.H_FINISH + 4]]
        out[f"points_{h}"] = [int(x) for x in row[b + drv.H_POINTS : b + drv.H_POINTS + 4]]
        out[f"team_points_{h}"] = [int(x) for x in row[b + drv.H_TEAM_PTS : b + drv.H_TEAM_PTS + 2]]
    out["second_half"] = bool(row[drv.G_SECOND])
    out["shuangjia"] = bool(row[drv.G_SHUANGJIA])
    out["winner_team"] = int(row[drv.G_WINNER])
    out["delta"] = [int(x) for x in row[drv.G_DELTA : drv.G_DELTA + 4]]
    return out


def agree(cfg: RunConfig, first: int, count: int) -> int:
    """Replay ``count`` kernel matches through the reference; returns the decisions checked."""
    games, _seats, tr, hashes, legal = ENGINE.trace(cfg, first, count, keep_legal=True)
    starts = np.searchsorted(tr[:, drv.T_GAME], np.arange(first, first + count + 1))
    checked = 0
    for i in range(count):
        g = first + i
        rows = slice(starts[i], starts[i + 1])
        ktr, khash = tr[rows], hashes[rows]
        where = f"seed {cfg.seed}, game {g}, seats {cfg.seats}, rules {cfg.rules}"
        deal = ref.deal_from_seed(cfg.seed, g, cfg.rules)
        try:
            result = ref.replay_trace(deal, [int(c) for c in ktr[:, drv.T_CHOSEN]], cfg.rules)
        except ValueError as exc:
            pytest.fail(f"{where}: the reference rejects the kernel's trace: {exc}")
        assert len(result.decisions) == len(ktr), where
        for k, d in enumerate(result.decisions):
            kh, ks, kn = ktr[k, drv.T_HALF], ktr[k, drv.T_SEAT], ktr[k, drv.T_NLEGAL]
            if (d.half, d.seat, len(d.legal), d.legal_hash) != (kh, ks, kn, int(khash[k])):
                at = ktr[k, drv.T_LEGAL_AT]
                mine = set(int(c) for c in legal[at : at + kn])
                pytest.fail(
                    f"{where}, decision {k} (half {d.half}, seat {d.seat}): "
                    f"only kernel {sorted(mine - set(d.legal))}, "
                    f"only reference {sorted(set(d.legal) - mine)}"
                )
            assert d.chosen == ktr[k, drv.T_CHOSEN]
            checked += 1
        mine = kernel_outcome(games[i])
        if result.outcome != mine:
            diff = {
                k: (mine[k], result.outcome.get(k))
                for k in mine
                if mine[k] != result.outcome.get(k)
            }
            pytest.fail(f"{where}: outcome differs (kernel, reference): {diff}")
    return checked


def _agree_rotations(variant: int, skip: int, count: int) -> int:
    """Matches ``skip`` … ``skip + count - 1`` of each of the 5 seat rotations (the seats
    rotate through every strategy); returns the decisions checked."""
    total = 0
    for k in range(5):
        seats = tuple(STRATEGIES[(k + s) % 5] for s in range(4))
        cfg = RunConfig("yuanzi", 4, seats, VARIANTS[variant], 900 + variant, 10**6)
        total += agree(cfg, 45 * k + skip, count)
    return total


@pytest.mark.parametrize("variant", range(len(VARIANTS)))
def test_kernel_agrees_with_reference(variant):
    # the fast tier: 9 rule sets × 45 matches (docs/testing.md)
    assert _agree_rotations(variant, 0, 9) > 45 * 50


@pytest.mark.heavy
@pytest.mark.parametrize("variant", range(len(VARIANTS)))
def test_kernel_agrees_with_reference_on_more_matches(variant):
    # the heavy tier: 9 rule sets × 180 more matches (2,025 with the fast tier's)
    assert _agree_rotations(variant, 9, 36) > 180 * 50


@pytest.mark.slow
@pytest.mark.parametrize("variant", range(len(VARIANTS)))
def test_kernel_agrees_with_reference_100k(variant):
    # 9 × 11,115 ≈ 100,000 matches
    for k in range(5):
        seats = tuple(STRATEGIES[(k + s) % 5] for s in range(4))
        cfg = RunConfig("yuanzi", 4, seats, VARIANTS[variant], 7000 + variant, 10**6)
        for first in range(0, 2223, 247):
            agree(cfg, 100_000 * k + first, 247)
