"""What the ``ismcts`` search strategies of both games share (kernels/atlas/ismcts.py,
kernels/yuanzi/ismcts.py): parameter ranges and checks, and the fixed-size search tree.

Single-observer information-set MCTS (SO-ISMCTS, Cowling, Powley & Whitehouse 2012) with
paired root children: one tree keyed by the deciding seat's own decision sequence. The root's
children are the seat's candidates (pimc's), all of them played on every determinization
(pimc's, from exactly what the seat may know: common random numbers); below each, the seat's
later decisions descend the tree by UCB over the children *available* in that determinization
(the subset-armed bandit: a child's availability count grows each time it could have been
chosen), with progressive widening in greedy's order (``tree_pick``), the other seats' moves
by the rollout policy; one node is added, the game rolled out and the result backed up the
path. The root children race (``race``): every ``RACE_EVERY`` iterations a challenger whose
mean paired gain over greedy's pick plus ``drop`` standard errors is not above 0 is played no
more, and the search stops once none is left, so the iterations go to the close calls. The
move played is pimc's paired choice over the root children (``select`` of
kernels/pimc_common.py: greedy's pick unless another beats it by ``z`` standard errors; a
dropped challenger's mean gain is not above 0, so it is never chosen).

The tree lives in the tail of the driver's legal-move buffer (no allocation in the turn loop):
``MAX_NODES`` nodes, each a move code, its parent, first child and next sibling (children are a
linked list: a node's children are the codes tried from it), its visits and availability
counts (int32), its summed reward and summed squared reward (float64). A root child's
iteration adds at most one node; when the nodes run out, the descent leaves the tree with
greedy's pick.
"""

import math

from cardsim.kernels.jit import JIT
from numba import njit

MAX_ITERS = 4095
MAX_NODES = MAX_ITERS + 1
MAX_C10 = 50  # c at most 5.0, in steps of 0.1
MAX_Z10 = 60  # z at most 6.0, in steps of 0.1
#: racing at the root: every ``RACE_EVERY`` iterations a challenger (a root child other than
#: greedy's pick) whose mean paired gain plus ``drop`` standard errors is not above 0 is dropped
#: (played no more); the search ends once none is left (``race``)
RACE_EVERY = 8
#: the ``drop`` settings, by their index in an id: index 0 turns racing off
DROPS = ("off", "0", "0.5", "1", "1.5", "2", "2.5", "3")
#: int32 words of the tree: six int32 arrays and two float64 arrays of MAX_NODES
TREE_WORDS = 10 * MAX_NODES
_N_CODE, _N_PARENT, _N_CHILD, _N_SIB, _N_VIS, _N_AVAIL = range(6)

_hot = njit(**{**JIT, "_nrt": False})


def check_params(iters, cap, rollout, c, z, max_cap, n_rollouts, drop=0):
    """``(round(10 c), round(10 z))`` of valid ismcts parameters; ValueError when one is out of
    range."""
    c10, z10 = round(c * 10), round(z * 10)
    ok = 1 <= iters <= MAX_ITERS and 2 <= cap <= max_cap and 0 <= rollout < n_rollouts
    ok = ok and 0 <= drop < len(DROPS)
    if not (ok and 0 <= c10 <= MAX_C10 and 0 <= z10 <= MAX_Z10):
        raise ValueError(
            f"ismcts parameters out of range: {iters}, {cap}, {rollout}, {c}, {z}, {drop}"
        )
    return c10, z10


@_hot
def tree_init(nodes):
    """An empty tree: the root (node 0) alone; returns the node count."""
    for f in range(6):
        nodes[f, 0] = 0
    nodes[_N_PARENT, 0] = -1
    nodes[_N_CHILD, 0] = -1
    nodes[_N_SIB, 0] = -1
    return 1


@_hot
def tree_add(nodes, value, sq, count, parent, code):
    """A new child of ``parent`` for ``code`` (first in its list); returns it."""
    c = count
    nodes[_N_CODE, c] = code
    nodes[_N_PARENT, c] = parent
    nodes[_N_CHILD, c] = -1
    nodes[_N_SIB, c] = nodes[_N_CHILD, parent]
    nodes[_N_VIS, c] = 0
    nodes[_N_AVAIL, c] = 0
    value[c] = 0.0
    sq[c] = 0.0
    nodes[_N_CHILD, parent] = c
    return c


@_hot
def tree_find(nodes, parent, code):
    """The child of ``parent`` for ``code``, -1 when there is none."""
    ch = nodes[_N_CHILD, parent]
    while ch >= 0:
        if nodes[_N_CODE, ch] == code:
            return ch
        ch = nodes[_N_SIB, ch]
    return -1


@_hot
def mark_available(nodes, ch):
    nodes[_N_AVAIL, ch] += 1


@_hot
def ucb(nodes, value, ch, c):
    """UCB1 of child ``ch`` with its availability count in place of the parent's visits."""
    v = nodes[_N_VIS, ch]
    a = max(nodes[_N_AVAIL, ch], 1)
    return value[ch] / v + c * math.sqrt(math.log(a) / v)


#: progressive widening below the root: a node with ``v`` visits offers its first
#: ``1 + v // WIDEN`` candidates (greedy's order), so rarely visited nodes play greedy's pick
WIDEN = 8


@_hot
def tree_pick(nodes, value, node, buf, cand, kk, c):
    """At tree node ``node`` with candidate codes ``buf[cand[:kk]]`` (greedy's pick first):
    ``(child, -1)`` to descend (UCB with availability counts among the tried candidates the
    widening offers) or ``(-1, j)`` to expand candidate ``j`` (the first untried one offered)."""
    allowed = min(kk, 1 + nodes[_N_VIS, node] // WIDEN)
    best = -1
    bu = -1e300
    for j in range(allowed):
        ch = tree_find(nodes, node, buf[cand[j]])
        if ch < 0:
            return -1, j
        nodes[_N_AVAIL, ch] += 1
        if nodes[_N_VIS, ch] > 0:
            u = ucb(nodes, value, ch, c)
            if u > bu:
                bu = u
                best = ch
    return best, -1


@_hot
def race(gain, sq, alive, k, n, drop):
    """After ``n`` iterations: drop every alive challenger ``c`` (``alive[c]`` 1; greedy's pick,
    0, is the reference and stays) whose mean paired gain plus ``drop`` standard errors is not
    above 0 (``gain``/``sq``: sums of its per-iteration differences and their squares), setting
    ``alive[c]`` to 0; returns how many challengers are left. ``drop`` is an index of
    ``DROPS`` (1 and up; the z of index ``b`` is ``(b - 1) / 2``)."""
    zd2 = ((drop - 1) / 2.0) ** 2
    left = 0
    for c in range(1, k):
        if alive[c] == 0:
            continue
        m = gain[c] / n
        var = (sq[c] - gain[c] * m) / (n - 1)
        if m <= 0.0 and m * m * n >= zd2 * var:
            alive[c] = 0
        else:
            left += 1
    return left


@_hot
def race_over(gain, sq, alive, k, done, drop):
    """After iteration ``done``: with racing on (``drop`` > 0), every ``RACE_EVERY`` iterations
    ``race`` the challengers; True when none is left (the search ends with greedy's pick)."""
    return drop > 0 and done % RACE_EVERY == 0 and race(gain, sq, alive, k, done, drop) == 0


@_hot
def backup(nodes, value, sq, node, r):
    """Add the reward ``r`` to ``node`` and its ancestors (the root included)."""
    while node >= 0:
        nodes[_N_VIS, node] += 1
        value[node] += r
        sq[node] += r * r
        node = nodes[_N_PARENT, node]
