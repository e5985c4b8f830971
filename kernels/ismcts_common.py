"""What the ``ismcts`` search strategies of both games share (kernels/atlas/ismcts.py,
kernels/yuanzi/ismcts.py): parameter ranges and checks, and the fixed-size search tree.

Single-observer information-set MCTS (SO-ISMCTS, Cowling, Powley & Whitehouse 2012): one tree
keyed by the deciding seat's own decision sequence. Every iteration draws a fresh
determinization (pimc's, from exactly what the seat may know), descends the tree at the seat's
own decisions by UCB over the children *available* in that determinization (the subset-armed
bandit: a child's availability count grows each time it could have been chosen), plays the
other seats' moves by the rollout policy, adds one node, rolls the game out and backs the
result up the path.

The tree lives in the tail of the driver's legal-move buffer (no allocation in the turn loop):
``MAX_NODES`` nodes, each a move code, its parent, first child and next sibling (children are a
linked list: a node's children are the codes tried from it), its visits and availability
counts (int32), its summed reward and summed squared reward (float64). An iteration adds at
most one node, so ``iters < MAX_NODES`` never runs out of nodes.

The move played (``best_root_code``) is the root child visited most, unless greedy's pick is
another child: then the most visited one must beat greedy's mean reward by ``z`` standard
errors (pimc's safeguard, docs/strategies.md: few noisy rollouts otherwise choose worse than
greedy).
"""

import math

from cardsim.kernels.jit import JIT
from numba import njit

MAX_ITERS = 4095
MAX_NODES = MAX_ITERS + 1
MAX_C10 = 50  # c at most 5.0, in steps of 0.1
MAX_Z10 = 60  # z at most 6.0, in steps of 0.1
#: int32 words of the tree: six int32 arrays and two float64 arrays of MAX_NODES
TREE_WORDS = 10 * MAX_NODES
_N_CODE, _N_PARENT, _N_CHILD, _N_SIB, _N_VIS, _N_AVAIL = range(6)

_hot = njit(**{**JIT, "_nrt": False})


def check_params(iters, cap, rollout, c, z, max_cap, n_rollouts):
    """``(round(10 c), round(10 z))`` of valid ismcts parameters; ValueError when one is out of
    range."""
    c10, z10 = round(c * 10), round(z * 10)
    ok = 1 <= iters <= MAX_ITERS and 2 <= cap <= max_cap and 0 <= rollout < n_rollouts
    if not (ok and 0 <= c10 <= MAX_C10 and 0 <= z10 <= MAX_Z10):
        raise ValueError(f"ismcts parameters out of range: {iters}, {cap}, {rollout}, {c}, {z}")
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


@_hot
def backup(nodes, value, sq, node, r):
    """Add the reward ``r`` to ``node`` and its ancestors (the root included)."""
    while node >= 0:
        nodes[_N_VIS, node] += 1
        value[node] += r
        sq[node] += r * r
        node = nodes[_N_PARENT, node]


@_hot
def _mean_var(nodes, value, sq, ch):
    v = nodes[_N_VIS, ch]
    m = value[ch] / v
    var = (sq[ch] - value[ch] * m) / (v - 1) if v > 1 else 0.0
    return m, max(var, 0.0) / v


@_hot
def best_root_code(nodes, value, sq, greedy, z10):
    """The code to play: the most visited child of the root (ties: the one tried first), unless
    greedy's pick ``greedy`` is another child whose mean it does not beat by ``z`` standard
    errors (of the difference of the two means); ``greedy`` when the root has no child."""
    best = -1
    bv = -1
    g = -1
    ch = nodes[_N_CHILD, 0]
    while ch >= 0:  # the list runs newest first: ``>=`` keeps the oldest of equal visits
        if nodes[_N_VIS, ch] >= bv:
            bv = nodes[_N_VIS, ch]
            best = ch
        if nodes[_N_CODE, ch] == greedy:
            g = ch
        ch = nodes[_N_SIB, ch]
    if best < 0 or best == g or bv <= 0:
        return greedy
    if g < 0 or nodes[_N_VIS, g] == 0:
        return nodes[_N_CODE, best]
    mb, vb = _mean_var(nodes, value, sq, best)
    mg, vg = _mean_var(nodes, value, sq, g)
    d = mb - mg
    z = z10 / 10.0
    if d > 0.0 and d * d > z * z * (vb + vg):
        return nodes[_N_CODE, best]
    return greedy
