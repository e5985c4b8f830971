"""ATLAS search strategy ``ismcts``: single-observer information-set MCTS (SO-ISMCTS) with
paired root children.

It searches the decisions pimc searches (a discard, AT-08; its own TRADE's target and give,
AT-19; a self-meld, AT-07; a claim when it may be passed, AT-12); every other decision is
greedy's. At such a decision the root's children are pimc's candidates (greedy's pick, then
greedy's next choices — at most ``cap``), and each of at most ``iters`` iterations

1. draws a determinization from exactly what AT-26 lets the seat know (pimc's
   ``determinize``) and an events stream for the rollouts' own random events seeded from the
   strategy stream (never the game's events stream: its future is hidden);
2. plays *every* root child on it (the same determinization and events: common random
   numbers, as pimc), and after each descends that child's subtree at the seat's own later
   searched decisions (kernels/ismcts_common.py ``tree_pick``: pimc's candidates in that
   determinization, progressive widening in greedy's order, UCB with availability counts); the
   other seats' moves, and the seat's own unsearched ones, are the rollout policy's;
3. adds one node, then pimc's ``rollout`` (the turn engine's round, every seat by the policy);
4. backs pimc's ``objective`` (the round or, with ``rounds`` > 1, the match result in force,
   AT-24, AT-25, points as tie-break) over
   ``1000 v (n - 1)``, a win's result, up the path, and adds the objective's paired gain over
   greedy's pick to the root child's score;
5. every 8 iterations, with ``drop`` on, races the root children (``race``): a challenger
   whose mean paired gain plus ``drop`` standard errors is not above 0 is played no more, and
   the search stops when none is left.

It plays pimc's paired choice (``select``): greedy's pick unless another root child beats it
by a mean paired gain of more than ``z`` standard errors. Moves are generated and applied only
by the turn engine (kernels/atlas/turn.py: ``legal_moves`` / ``apply_move``). Scratch: pimc's
layout, a ranking buffer and the in-tree candidates, then the tree; the driver allocates the
options buffer ``BUF_SIZE`` long (a shorter one: greedy's pick). The id carries the parameters
(``encode`` / ``decode``).
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
from cardsim.kernels.atlas.pimc import draw_sample, objective, ranked, restart, rollout
from cardsim.kernels.atlas.state import P_N, P_VALUES, S_LEN, hot_kernel
from cardsim.kernels.atlas.strategies import GREEDY, RANDOM, choose_in_state
from cardsim.kernels.atlas.turn import apply_move, legal_moves
from cardsim.kernels.ismcts_common import (
    DROPS,  # noqa: F401 (re-exported: sim/strategy_params.py reads the kernel module)
    MAX_ITERS,  # noqa: F401 (re-exported: sim/strategy_params.py reads the kernel module)
    MAX_NODES,
    TREE_WORDS,
    backup,
    check_params,
    mark_available,
    race_over,
    tree_add,
    tree_init,
    tree_pick,
)
from cardsim.kernels.pimc_common import ROLLOUT_GREEDY, ROLLOUTS, add_paired, clear_scores, select

__all__ = ["ROLLOUTS"]

#: ids at and above this (and below LEVEL_BASE) are ``ismcts``; pimc's lie below
ISMCTS_BASE = 1 << 58
MAX_CAP = pimc.MAX_CAP
_SC_REST = pimc.SCRATCH + (pimc.SCRATCH & 1)
_SC_CAND2 = _SC_REST + MAX_OPTIONS
_SC_ALIVE = _SC_CAND2 + 64  # the root children still raced (``race``)
_SC_TREE = _SC_ALIVE + 64
SCRATCH = _SC_TREE + TREE_WORDS
#: length the driver gives the options buffer so that ``ismcts`` (and ``pimc``) can run
BUF_SIZE = MAX_OPTIONS + SCRATCH


def encode(iters: int, cap: int, rollout: int, c: float, z: float, drop: int = 0) -> int:
    """The id of ``ismcts`` with these parameters (``drop``: an index of ``DROPS``)."""
    c10, z10 = check_params(iters, cap, rollout, c, z, MAX_CAP, len(ROLLOUTS), drop)
    p = iters + (cap << 12) + (rollout << 18) + (c10 << 19) + (z10 << 25) + (drop << 31)
    return ISMCTS_BASE + p


@hot_kernel
def decode(sid):
    """(iters, cap, rollout, 10 c, 10 z, drop) of an ismcts id."""
    p = sid - ISMCTS_BASE
    return p & 4095, (p >> 12) & 63, (p >> 18) & 1, (p >> 19) & 63, (p >> 25) & 63, (p >> 31) & 7


@hot_kernel
def _searched(dtype, opts):
    """pimc's searched decisions: a claim only when it may be passed (NONE offered, AT-12)."""
    return dtype in (DT_DISCARD, DT_TARGET, DT_GIVE, DT_SELF) or (
        dtype == DT_CLAIM and opts[0] == NONE
    )


@hot_kernel
def _descend(W, p, node, nodes, value, sq, count, cap, c, rsid, cand, ropts, rest, idx, ev, rng):
    """From tree node ``node`` with ``W`` after its move: the seat's own searched decisions by
    the tree (``tree_pick``), one new node, the others' and unsearched moves by the rollout
    policy; returns (the last node of the path, the node count). ``W`` is left mid-round."""
    while True:
        q, kind, m = legal_moves(W, ropts, ev)
        if m == 0:
            return node, count
        if q != p or m == 1 or not _searched(kind, ropts):
            j = 0 if m == 1 else choose_in_state(W, q, rsid, kind, ropts, m, rng)
            apply_move(ropts[j], W)
            continue
        gq = choose_in_state(W, q, GREEDY, kind, ropts, m, rng)
        kk = ranked(W, q, kind, ropts, m, gq, cap, cand, rest, idx, rng)
        best, new = tree_pick(nodes, value, node, ropts, cand, kk, c)
        if new >= 0 and count < MAX_NODES:  # expand: one new node, then the rollout
            code = ropts[cand[new]]
            node = tree_add(nodes, value, sq, count, node, code)
            mark_available(nodes, node)
            apply_move(code, W)
            return node, count + 1
        if best < 0:  # no room for a node: leave the tree with greedy's pick
            apply_move(ropts[cand[0]], W)
            return node, count
        node = best
        apply_move(nodes[0, best], W)


@hot_kernel
def choose_ismcts(S, p, sid, dtype, opts, n, rng):
    """ismcts at seat ``p``'s decision (module docstring); reads of ``S`` only what AT-26 lets
    ``p`` know (``determinize``). Returns an index into ``opts[:n]``."""
    g = choose_in_state(S, p, GREEDY, dtype, opts, n, rng)
    if opts.shape[0] < BUF_SIZE or not _searched(dtype, opts):
        return g
    sc = opts[MAX_OPTIONS:]
    root = sc[pimc._SC_CAND : pimc._SC_CAND + 64]
    score = sc[pimc._SC_SCORE : pimc._SC_SCORE + 128].view(np.int64)
    ssq = sc[pimc._SC_SQ : pimc._SC_SQ + 128].view(np.int64)
    ev = sc[pimc._SC_EV : pimc._SC_EV + 8].view(np.uint64)
    ev0 = sc[pimc._SC_EV + 8 : pimc._SC_EV + 16].view(np.uint64)
    pool = sc[pimc._SC_POOL : pimc._SC_POOL + 256]
    D = sc[pimc._SC_D : pimc._SC_D + S_LEN]
    W = sc[pimc._SC_W : pimc._SC_W + S_LEN]
    ropts = sc[pimc._SC_OPTS : pimc._SC_OPTS + MAX_OPTIONS]
    idx = sc[pimc._SC_IDX : pimc._SC_IDX + 64]
    rest = sc[_SC_REST : _SC_REST + MAX_OPTIONS]  # candidate ranking scratch
    cand = sc[_SC_CAND2 : _SC_CAND2 + 64]  # the in-tree candidates
    alive = sc[_SC_ALIVE : _SC_ALIVE + 64]
    tree = sc[_SC_TREE : _SC_TREE + TREE_WORDS]
    nodes = tree[: 6 * MAX_NODES].reshape((6, MAX_NODES))
    value = tree[6 * MAX_NODES : 8 * MAX_NODES].view(np.float64)
    sq = tree[8 * MAX_NODES :].view(np.float64)
    log = sc[0:0]
    iters, cap, policy, c10, z10, drop = decode(sid)
    rsid = GREEDY if policy == ROLLOUT_GREEDY else RANDOM
    k = ranked(S, p, dtype, opts, n, g, cap, root, rest, idx, rng)
    if k == 1:
        return g
    c = c10 / 10.0
    scale = 1000.0 * max(S[P_VALUES], S[P_VALUES + 1], S[P_VALUES + 2], 1) * (S[P_N] - 1)
    count = tree_init(nodes)
    for j in range(k):  # the root children: every candidate, on every determinization
        tree_add(nodes, value, sq, count, 0, opts[root[j]])
        count += 1
        alive[j] = 1
    clear_scores(score, ssq, k)
    done = 0
    while done < iters:
        if not draw_sample(S, p, pool, D, ev0, rng):
            return g  # the public counts do not add up (never seen): no search
        v0 = 0
        for j in range(k):
            if alive[j] == 0:
                continue
            restart(W, D, ev, ev0)
            child = j + 1  # the root children: candidate j is node j + 1
            apply_move(opts[root[j]], W)
            node, count = _descend(
                W, p, child, nodes, value, sq, count, cap, c, rsid, cand, ropts, rest, idx, ev, rng
            )
            rollout(W, rsid, rng, ev, ropts, log)
            v = objective(W, p)
            backup(nodes, value, sq, node, v / scale)
            if j == 0:
                v0 = v
            else:  # paired with greedy's pick on the same determinization
                add_paired(score, ssq, j, v, v0)
        done += 1
        if race_over(score, ssq, alive, k, done, drop):
            break  # every challenger dropped: greedy's pick
    return root[select(score, ssq, k, done, z10)]
