"""ATLAS search strategy ``ismcts``: single-observer information-set MCTS (SO-ISMCTS).

It searches the decisions pimc searches (a discard, AT-08; its own TRADE's target and give,
AT-19; a self-meld, AT-07; a claim when it may be passed, AT-12); every other decision is
greedy's. At such a decision it runs ``iters`` iterations, each

1. a fresh determinization from exactly what AT-26 lets the seat know: pimc's
   ``determinize``, and an events stream for the rollout's own random events seeded from the
   strategy stream (never the game's events stream: its future is hidden);
2. a descent of the tree (kernels/ismcts_common.py) at the seat's own searched decisions: the
   choices are pimc's candidates there (greedy's pick, then greedy's next choices — at most
   ``cap``); untried candidates first (greedy's pick first), else UCB with availability
   counts among the available children. The other seats' moves, and the seat's own unsearched
   ones, are the rollout policy's;
3. one new node, then pimc's ``rollout`` (the turn engine's round, every seat by the policy);
4. the reward — pimc's ``objective`` (the round result in force, AT-24, points as
   tie-break) over ``1000 v (n - 1)``, a win's result — added along the path.

It plays the root child visited most (ties: the earlier tried, greedy's pick first) if its
mean reward beats greedy's pick's by ``z`` standard errors, else greedy's pick. Moves are
generated and applied only by the turn engine (kernels/atlas/turn.py: ``legal_moves`` /
``apply_move``). Scratch: pimc's layout, then the tree; the driver allocates the options buffer
``BUF_SIZE`` long (a shorter one: greedy's pick). The id carries the parameters (``encode`` /
``decode``).
"""

import numpy as np
from cardsim.kernels.atlas import pimc
from cardsim.kernels.atlas.encoding import (
    DT_CLAIM,
    DT_DISCARD,
    DT_GIVE,
    DT_SELF,
    DT_TARGET,
    MAX_OPTIONS,
    NONE,
)
from cardsim.kernels.atlas.pimc import determinize, objective, ranked, rollout
from cardsim.kernels.atlas.state import P_N, P_VALUES, S_LEN, hot_kernel
from cardsim.kernels.atlas.strategies import GREEDY, RANDOM, choose_in_state
from cardsim.kernels.atlas.turn import apply_move, legal_moves
from cardsim.kernels.ismcts_common import (
    MAX_ITERS,  # noqa: F401 (re-exported: sim/strategy_params.py reads the kernel module)
    MAX_NODES,
    TREE_WORDS,
    backup,
    best_root_code,
    check_params,
    mark_available,
    tree_add,
    tree_find,
    tree_init,
    ucb,
)
from cardsim.kernels.pimc_common import ROLLOUT_GREEDY, ROLLOUTS
from cardsim.kernels.rng import next_u64

__all__ = ["ROLLOUTS"]

#: ids at and above this (and below LEVEL_BASE) are ``ismcts``; pimc's lie below
ISMCTS_BASE = 1 << 58
MAX_CAP = pimc.MAX_CAP
_SC_TREE = pimc.SCRATCH + (pimc.SCRATCH & 1)
SCRATCH = _SC_TREE + TREE_WORDS
#: length the driver gives the options buffer so that ``ismcts`` (and ``pimc``) can run
BUF_SIZE = MAX_OPTIONS + SCRATCH


def encode(iters: int, cap: int, rollout: int, c: float, z: float) -> int:
    """The id of ``ismcts`` with these parameters."""
    c10, z10 = check_params(iters, cap, rollout, c, z, MAX_CAP, len(ROLLOUTS))
    return ISMCTS_BASE + iters + (cap << 12) + (rollout << 18) + (c10 << 19) + (z10 << 25)


@hot_kernel
def decode(sid):
    """(iters, cap, rollout, 10 c, 10 z) of an ismcts id."""
    p = sid - ISMCTS_BASE
    return p & 4095, (p >> 12) & 63, (p >> 18) & 1, (p >> 19) & 63, (p >> 25) & 63


@hot_kernel
def _searched(dtype, opts):
    """pimc's searched decisions: a claim only when it may be passed (NONE offered, AT-12)."""
    return dtype in (DT_DISCARD, DT_TARGET, DT_GIVE, DT_SELF) or (
        dtype == DT_CLAIM and opts[0] == NONE
    )


@hot_kernel
def choose_ismcts(S, p, sid, dtype, opts, n, rng):
    """ismcts at seat ``p``'s decision (module docstring); reads of ``S`` only what AT-26 lets
    ``p`` know (``determinize``). Returns an index into ``opts[:n]``."""
    g = choose_in_state(S, p, GREEDY, dtype, opts, n, rng)
    if opts.shape[0] < BUF_SIZE or not _searched(dtype, opts):
        return g
    sc = opts[MAX_OPTIONS:]
    cand = sc[pimc._SC_CAND : pimc._SC_CAND + 64]
    ev = sc[pimc._SC_EV : pimc._SC_EV + 8].view(np.uint64)
    pool = sc[pimc._SC_POOL : pimc._SC_POOL + 256]
    W = sc[pimc._SC_W : pimc._SC_W + S_LEN]
    ropts = sc[pimc._SC_OPTS : pimc._SC_OPTS + MAX_OPTIONS]
    idx = sc[pimc._SC_IDX : pimc._SC_IDX + 64]
    rest = sc[pimc._SC_D : pimc._SC_D + MAX_OPTIONS]  # candidate ranking scratch
    tree = sc[_SC_TREE : _SC_TREE + TREE_WORDS]
    nodes = tree[: 6 * MAX_NODES].reshape((6, MAX_NODES))
    value = tree[6 * MAX_NODES : 8 * MAX_NODES].view(np.float64)
    sq = tree[8 * MAX_NODES :].view(np.float64)
    log = sc[0:0]
    iters, cap, policy, c10, z10 = decode(sid)
    rsid = GREEDY if policy == ROLLOUT_GREEDY else RANDOM
    k = ranked(S, p, dtype, opts, n, g, cap, cand, ropts, idx, rng)
    if k == 1:
        return g
    c = c10 / 10.0
    scale = 1000.0 * max(S[P_VALUES], S[P_VALUES + 1], S[P_VALUES + 2], 1) * (S[P_N] - 1)
    count = tree_init(nodes)
    for _ in range(iters):
        if not determinize(S, p, pool, W, rng):
            return g  # the public counts do not add up (never seen): no search
        for i in range(4):
            ev[i] = next_u64(rng)
        ev[0] |= np.uint64(1)  # never the all-zero xoshiro state
        node = 0
        while True:  # the tree: the seat's own searched decisions
            q, kind, m = legal_moves(W, ropts, ev)
            if m == 0:
                break
            if q != p or m == 1 or not _searched(kind, ropts):
                j = 0 if m == 1 else choose_in_state(W, q, rsid, kind, ropts, m, rng)
                apply_move(ropts[j], W)
                continue
            gq = choose_in_state(W, q, GREEDY, kind, ropts, m, rng)
            kk = ranked(W, q, kind, ropts, m, gq, cap, cand, rest, idx, rng)
            new = -1
            best = -1
            bu = -1e300
            for j in range(kk):
                ch = tree_find(nodes, node, ropts[cand[j]])
                if ch < 0:
                    if new < 0:
                        new = j
                    continue
                mark_available(nodes, ch)
                if nodes[4, ch] > 0:
                    u = ucb(nodes, value, ch, c)
                    if u > bu:
                        bu = u
                        best = ch
            if new >= 0 and count < MAX_NODES:  # expand: one new node, then the rollout
                code = ropts[cand[new]]
                node = tree_add(nodes, value, sq, count, node, code)
                mark_available(nodes, node)
                count += 1
                apply_move(code, W)
                break
            if best < 0:  # no room for a node: leave the tree with greedy's pick
                apply_move(ropts[cand[0]], W)
                break
            node = best
            apply_move(nodes[0, best], W)
        rollout(W, rsid, rng, ev, ropts, log)
        backup(nodes, value, sq, node, objective(W, p) / scale)
    code = best_root_code(nodes, value, sq, opts[g], z10)
    for i in range(n):
        if opts[i] == code:
            return i
    return g
