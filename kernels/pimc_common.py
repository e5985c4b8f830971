"""What the ``pimc`` search strategies of both games share (kernels/atlas/pimc.py,
kernels/yuanzi/pimc.py): the parameter ranges and checks of their ids, the Fisher-Yates deal of
a determinization's unseen cards, the paired scores of the candidates and the choice among them.

A search keeps, per candidate ``c > 0``, the sum of its per-sample gains over candidate 0
(greedy's pick: the same determinization, common random numbers) and of their squares;
``select`` leaves greedy's pick only for a candidate whose mean gain passes ``z`` standard
errors (docs/strategies.md, "Search").

The functions are compiled without NRT: they run in the drivers' turn loops, which allocate
nothing.
"""

from cardsim.kernels.jit import hot_kernel

ROLLOUT_GREEDY, ROLLOUT_RANDOM = 0, 1
#: rollout policies, by their index in a pimc id
ROLLOUTS = ("greedy", "random")
MAX_SAMPLES = 1023
MAX_Z10 = 60  # z at most 6.0, in steps of 0.1

_hot = hot_kernel


def check_params(samples: int, cap: int, rollout: int, z: float, max_cap: int) -> int:
    """``round(10 z)`` of valid pimc parameters; ValueError when one is out of range."""
    z10 = round(z * 10)
    if not (
        1 <= samples <= MAX_SAMPLES
        and 2 <= cap <= max_cap
        and 0 <= rollout < len(ROLLOUTS)
        and 0 <= z10 <= MAX_Z10
    ):
        raise ValueError(f"pimc parameters out of range: {samples}, {cap}, {rollout}, {z}")
    return z10


@_hot
def clear_scores(gain, sq, k):
    for c in range(k):
        gain[c] = 0
        sq[c] = 0


@_hot
def add_paired(gain, sq, c, v, v0):
    """Candidate ``c``'s outcome ``v`` on a sample where greedy's pick got ``v0``."""
    d = v - v0
    gain[c] += d
    sq[c] += d * d


@_hot
def select(gain, sq, k, samples, z10):
    """Candidate to play: 0 (greedy's pick) unless another one's mean paired gain over it is
    positive and more than ``z`` standard errors (``gain``/``sq``: sums of the per-sample
    differences and their squares); among those, the largest mean gain."""
    best = 0
    bmean = 0.0
    z2 = (z10 / 10.0) ** 2
    for c in range(1, k):
        m = gain[c] / samples
        if m <= 0.0:
            continue
        if samples > 1:
            var = (sq[c] - gain[c] * m) / (samples - 1)
            if m * m * samples <= z2 * var:
                continue
        if m > bmean:
            bmean = m
            best = c
    return best
