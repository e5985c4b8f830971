"""原子 search strategy ``ismcts``: single-observer information-set MCTS (SO-ISMCTS) with paired
root children.

At a decision with a choice (and no move that goes out, which is played at once) the root's
children are pimc's candidates (greedy's pick, PASS, the cheapest others — at most ``cap``),
and each of at most ``iters`` iterations

1. draws a determinization from exactly what the seat may know (YZ-28): pimc's
   ``_deal_unseen`` (the unseen cards shuffled over the other seats' public counts);
2. plays *every* root child on it (common random numbers, as pimc), and after each descends
   that child's subtree at the seat's own later decisions (kernels/ismcts_common.py
   ``tree_pick``: pimc's candidates in that determinization, progressive widening in greedy's
   order, UCB with availability counts; a move that goes out is played at once and adds no
   node); the other seats play by the rollout policy;
3. adds one node, then the rollout policy for every seat to the end of the half;
4. backs pimc's ``objective`` (the match result in force, points as tie-break) divided by
   ``1000 * max(W, S)`` up the path, and adds the objective's paired gain over greedy's pick
   to the root child's score;
5. every 8 iterations, with ``drop`` on, races the root children (``race``): a challenger
   whose mean paired gain plus ``drop`` standard errors is not above 0 is played no more, and
   the search stops when none is left.

It plays pimc's paired choice (``select``): greedy's pick unless another root child beats it
by a mean paired gain of more than ``z`` standard errors. Moves are generated and applied only
by the match engine (kernels/yuanzi/engine.py: ``legal`` / ``apply``). Its randomness is the
strategy stream it is given, so runs are reproducible across chunks and threads.

Scratch: pimc's scratch layout (its candidate, score, determinization and rollout arrays), the
in-tree candidates, then the tree; the driver allocates the legal-move buffer ``BUF_SIZE``
long. Given a shorter buffer, ``choose_ismcts`` falls back to greedy's pick.

The id carries the parameters: ``ISMCTS_BASE + iters + 4096 * cap + 524288 * rollout +
1048576 * round(10 c) + 67108864 * round(10 z) + 2**32 * drop`` (``drop`` an index of
``DROPS``; ``encode`` / ``decode``).
"""

import numpy as np
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
from cardsim.kernels.pimc_common import ROLLOUTS, add_paired, clear_scores, select
from cardsim.kernels.yuanzi import pimc
from cardsim.kernels.yuanzi.encoding import MAX_MOVES, N_TYPES
from cardsim.kernels.yuanzi.engine import CONTINUE
from cardsim.kernels.yuanzi.engine import legal as legal_call
from cardsim.kernels.yuanzi.pimc import (
    ONE_MOVE,
    TO_THE_END,
    _candidates,
    _deal_unseen,
    apply_call,
    greedy_call,
    objective,
    restart,
    rollout,
)
from cardsim.kernels.yuanzi.state import (
    N_ST,
    R_MATCH_POINTS_SHUANGJIA,
    R_MATCH_POINTS_WIN,
    ST_ACTOR,
    ST_COUNT,
    hot_kernel,
    inline_kernel,
)
from cardsim.kernels.yuanzi.strategies import goes_out

__all__ = ["ROLLOUTS"]

#: ids at and above this (and below LEVEL_BASE) are ``ismcts``; pimc's lie below
ISMCTS_BASE = 1 << 35
MAX_CAP = pimc.MAX_CAP
_SC_CAND2 = pimc.SCRATCH + (pimc.SCRATCH & 1)  # the in-tree candidates after pimc's scratch
_SC_ALIVE = _SC_CAND2 + MAX_CAP  # the root children still raced (``race``)
_SC_TREE = _SC_ALIVE + MAX_CAP  # then the tree (aligned)
SCRATCH = _SC_TREE + TREE_WORDS
#: length the driver gives the legal-move buffer so that ``ismcts`` (and ``pimc``) can run
BUF_SIZE = MAX_MOVES + SCRATCH


def encode(iters: int, cap: int, rollout: int, c: float, z: float, drop: int = 0) -> int:
    """The strategy id of ``ismcts`` with these parameters (``drop``: an index of ``DROPS``)."""
    c10, z10 = check_params(iters, cap, rollout, c, z, MAX_CAP, len(ROLLOUTS), drop)
    return (
        ISMCTS_BASE
        + iters
        + 4096 * cap
        + 524288 * rollout
        + 1048576 * c10
        + 67108864 * z10
        + (1 << 32) * drop
    )


@inline_kernel
def decode(sid):
    """(iters, cap, rollout, 10 c, 10 z, drop) of an ismcts strategy id."""
    p = sid - ISMCTS_BASE
    return (
        p % 4096,
        (p // 4096) % 128,
        (p // 524288) % 2,
        (p // 1048576) % 64,
        (p // 67108864) % 64,
        p >> 32,
    )


@hot_kernel
def _play_on(seat, node, nodes, value, sq, count, cap, c, wh, wp, wst, rules, rbuf, cand, cost,
             rng, policy):  # fmt: skip
    """From tree node ``node`` with the half after its move: the seat's own decisions by the
    tree (``tree_pick``; a move that goes out at once), one new node, then the rollout policy
    for every seat to the end of the half; returns (the last node of the path, the count)."""
    while True:  # inside the tree: the seat's decisions by the tree, the others' by the policy
        in_tree = True
        if wst[ST_ACTOR] == seat:
            m = legal_call(wh, wst, rules, rbuf)
            code = rbuf[0]
            out = False
            for i in range(m):
                if goes_out(wst[ST_COUNT + seat], rbuf[i]):
                    code = rbuf[i]
                    out = True
                    break
            if m > 1 and not out:
                kk = _candidates(wh[seat], wp, wst, rbuf, m, rng, cap, cand, cost)
                best, new = tree_pick(nodes, value, node, rbuf, cand, kk, c)
                if new >= 0 and count < MAX_NODES:  # expand: one new node per iteration
                    code = rbuf[cand[new]]
                    node = tree_add(nodes, value, sq, count, node, code)
                    mark_available(nodes, node)
                    count += 1
                    in_tree = False
                elif best >= 0:
                    code = nodes[0, best]
                    node = best
                else:  # no room for a node: leave the tree with greedy's pick
                    code = rbuf[cand[0]]
                    in_tree = False
        else:  # another seat: one move by the rollout policy
            if rollout(wh, wp, wst, rules, rbuf, rng, policy, np.int64(ONE_MOVE)) == 1:
                return node, count
            continue
        if apply_call(code, wh, wp, wst, rules) != CONTINUE:  # the half (or match) ended
            return node, count
        if not in_tree:  # below the new node: the rollout policy for every seat
            rollout(wh, wp, wst, rules, rbuf, rng, policy, np.int64(TO_THE_END))
            return node, count


@hot_kernel
def choose_ismcts(sid, own, played, pub, rules, legal, n, rng):
    """ismcts: an SO-ISMCTS search with paired root children (module docstring).

    Sees what a built-in strategy sees (own hand, played cards, public state) plus the rule
    array; never another seat's hand (YZ-28). Returns an index into ``legal[:n]``.
    """
    iters, cap, policy, c10, z10, drop = decode(sid)
    seat = pub[ST_ACTOR]
    for i in range(n):
        if goes_out(pub[ST_COUNT + seat], legal[i]):
            return i  # going out ends the search, as pimc's
    if legal.shape[0] < BUF_SIZE:
        return greedy_call(own, played, pub, legal, n, rng)
    sc = legal[MAX_MOVES:]
    root = sc[pimc._SC_CAND : pimc._SC_CAND + MAX_CAP]
    score = sc[pimc._SC_SCORE : pimc._SC_SCORE + 2 * MAX_CAP].view(np.int64)
    ssq = sc[pimc._SC_SQ : pimc._SC_SQ + 2 * MAX_CAP].view(np.int64)
    cost = sc[pimc._SC_COST : pimc._SC_COST + 2 * MAX_MOVES].view(np.int64)
    unseen = sc[pimc._SC_UNSEEN : pimc._SC_UNSEEN + pimc.UNSEEN_WORDS].view(np.uint8)
    det = sc[pimc._SC_DET : pimc._SC_DET + pimc.HANDS_WORDS].view(np.uint8).reshape((4, N_TYPES))
    wh = sc[pimc._SC_WH : pimc._SC_WH + pimc.HANDS_WORDS].view(np.uint8).reshape((4, N_TYPES))
    wp = sc[pimc._SC_WP : pimc._SC_WP + pimc.HANDS_WORDS].view(np.uint8).reshape((4, N_TYPES))
    wst = sc[pimc._SC_WST : pimc._SC_WST + 2 * N_ST].view(np.int64)
    rbuf = sc[pimc._SC_RBUF : pimc._SC_RBUF + MAX_MOVES]
    cand = sc[_SC_CAND2 : _SC_CAND2 + MAX_CAP]  # the in-tree candidates
    alive = sc[_SC_ALIVE : _SC_ALIVE + MAX_CAP]
    tree = sc[_SC_TREE : _SC_TREE + TREE_WORDS]
    nodes = tree[: 6 * MAX_NODES].reshape((6, MAX_NODES))
    value = tree[6 * MAX_NODES : 8 * MAX_NODES].view(np.float64)
    sq = tree[8 * MAX_NODES :].view(np.float64)
    cap = min(cap, MAX_CAP)
    k = _candidates(own, played, pub, legal, n, rng, cap, root, cost)
    if k == 1:
        return root[0]
    team = seat % 2
    c = c10 / 10.0
    scale = 1000.0 * max(rules[R_MATCH_POINTS_WIN], rules[R_MATCH_POINTS_SHUANGJIA], 1)
    count = np.int64(tree_init(nodes))  # int64 throughout: one specialization of _play_on
    for j in range(k):  # the root children: every candidate, on every determinization
        tree_add(nodes, value, sq, count, 0, legal[root[j]])
        count += 1
        alive[j] = 1
    clear_scores(score, ssq, k)
    done = 0
    while done < iters:
        if not _deal_unseen(own, played, pub, unseen, det, rng):
            return root[0]  # the public counts do not add up (never seen): no search
        v0 = 0
        for j in range(k):
            if alive[j] == 0:
                continue
            restart(wh, wp, wst, det, played, pub)
            node = np.int64(j + 1)  # the root children: candidate j is node j + 1
            if apply_call(legal[root[j]], wh, wp, wst, rules) == CONTINUE:
                node, count = _play_on(seat, node, nodes, value, sq, count, cap, c, wh, wp, wst,
                                       rules, rbuf, cand, cost, rng, policy)  # fmt: skip
            v = objective(wst, team, rules)
            backup(nodes, value, sq, node, v / scale)
            if j == 0:
                v0 = v
            else:  # paired with greedy's pick on the same determinization
                add_paired(score, ssq, j, v, v0)
        done += 1
        if race_over(score, ssq, alive, k, done, drop):
            break  # every challenger dropped: greedy's pick
    return root[select(score, ssq, k, done, z10)]
