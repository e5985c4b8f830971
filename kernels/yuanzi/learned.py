"""原子 learned policies: the feature vector φ(view, move) and the policy ``w · φ``
(docs/strategies.md, "Learned features: 原子"; the weights: ``kernels/learned.py``).

For each legal move the policy computes ``FEATURES`` from the deciding seat's view only — its
own hand, the cards played this half and the public state row, the arguments every strategy
gets (YZ-28) — and plays the move of highest ``w · φ`` (the first such, as greedy takes the
first of least cost), or at a temperature T > 0 the best of ``w · φ + T · Gumbel`` (one
strategy-stream draw per decision, as soft: kernels/levels.py). Feature 0 (``SCORE``) is
greedy's own score of the move (``preference.soft_score``, soft's noise-free score), so
``GREEDY_WEIGHTS`` plays greedy's moves exactly and training starts there.

``move_features`` is the one definition of φ: ``choose_learned`` (play, NRT off) and
``features_matrix`` (training) both call it.
"""

import numpy as np
from cardsim.kernels.jit import kernel
from cardsim.kernels.learned import weight_reader
from cardsim.kernels.levels import draw_key, gumbel
from cardsim.kernels.yuanzi.encoding import (
    ATOM,
    BIG_JOKER,
    BOMB,
    HYDROGEN,
    N_RANKS,
    PASS,
    SMALL_JOKER,
    TRIPLE,
    move_jokers,
    move_kind,
    move_rank,
    move_size,
)
from cardsim.kernels.yuanzi.preference import (
    DANGER_CARDS,
    SOFT_TIER,
    code_points,
    jokers_of,
    move_cost,
    nat_of,
    opponent_min_count,
    plan_size,
    soft_context,
    soft_score,
)
from cardsim.kernels.yuanzi.rules import atom_strength, is_dao, power
from cardsim.kernels.yuanzi.state import (
    ST_ACTOR,
    ST_COUNT,
    ST_H0_TEAM_PTS,
    ST_HALF,
    ST_TOP_SEAT,
    ST_TRICK_PTS,
    inline_kernel,
)

#: (name, meaning with its unit) of each feature, in the kernel's order (docs/strategies.md).
FEATURES = (
    ("score", "greedy's own score of the move (soft's noise-free score) / 1000"),
    ("pass", "1 if the move is a pass"),
    ("pass_partner_top", "pass x the partner is on top of the trick (0/1)"),
    ("pass_trick_points", "pass x points in the trick / 10"),
    ("pass_danger", "pass x an opponent has <= 5 cards (0/1)"),
    ("pass_partner_short", "pass x the partner is still in with <= 5 cards (0/1)"),
    ("goes_out", "1 if the move plays the whole hand"),
    ("size", "cards the move plays / 10"),
    ("jokers", "jokers the move spends (wild, or a joker atom) / 3"),
    ("power", "the move's power / 13 (刀 = 1; atoms: YZ-16 strength / 100; pass 0)"),
    ("dao", "1 if the move plays 刀 cards (its rank is the 刀, no jokers)"),
    ("bomb", "1 if the move is a bomb (4+ cards, YZ-10)"),
    ("atom", "1 if the move is an atom (YZ-16)"),
    ("hydrogen", "1 if the move is a hydrogen bomb (YZ-17)"),
    ("bomb_trick_points", "bomb-class x points in the trick / 10"),
    ("bomb_danger", "bomb-class x an opponent has <= 5 cards (0/1)"),
    ("bomb_leading", "bomb-class x the seat leads the trick (0/1)"),
    ("bomb_h0_behind", "bomb-class x the team's first-half deficit in points / 100 (YZ-28)"),
    ("bomb_jokers_unseen", "bomb-class x jokers neither held nor played / 6"),
    ("points", "points the move's cards carry / 10"),
    ("points_partner_top", "points x the partner is on top of the trick, / 10"),
    ("points_opponent_top", "points x an opponent is on top of the trick, / 10"),
    ("groups_left", "combinations left after the move (one per rank, one for jokers) / 10"),
    ("rank_left", "natural cards of the move's rank left in hand after it / 4"),
    ("breaks_bomb", "1 if the move takes part of a rank of 4+ natural cards"),
    ("near_out", "1 if 1..5 cards are left in hand after the move"),
    ("cost", "greedy's cost of giving the move up / 1000 (pass 0)"),
    ("size_danger", "cards the move plays / 10 x an opponent has <= 5 cards (0/1)"),
    ("greedy_pick", "1 if the move is greedy's pick (the first of highest score)"),
)
N_FEATURES = len(FEATURES)
FEATURE_VERSION = 1
#: Feature 0: greedy's score; ``GREEDY_WEIGHTS`` plays greedy's moves.
SCORE = 0
#: ``soft_score`` / SCORE_SCALE is feature 0: greedy's tiers one unit apart.
SCORE_SCALE = SOFT_TIER
GREEDY_WEIGHTS = np.eye(N_FEATURES, dtype=np.float64)[SCORE]
#: Restricted play (``cardsim exploit --restricted``): (mechanic, the 0/1 feature that marks
#: it, the weight that forbids it: -1000, so such a move is played only when nothing else is).
RESTRICTIONS = (
    ("bombs (4+ of a rank, YZ-10)", "bomb", -1000.0),
    ("atoms (YZ-16)", "atom", -1000.0),
    ("hydrogen bombs (YZ-17)", "hydrogen", -1000.0),
    ("刀 plays", "dao", -1000.0),
    ("passing while able to play", "pass", -1000.0),
)

read = weight_reader("yuanzi")


@inline_kernel
def decision_context(own, played, pub, legal, n):
    """What the features need of the decision, computed once from the seat's view: soft's
    context (``soft_context``) and the trick, the counts of the others, the match block."""
    dao, total, leading, to_partner, allow_bomb = soft_context(pub, legal, n)
    seat = pub[ST_ACTOR]
    partner = (seat + 2) % 4
    partner_top = 1.0 if not leading and pub[ST_TOP_SEAT] == partner else 0.0
    opponent_top = 1.0 if not leading and partner_top == 0.0 else 0.0
    danger = 1.0 if opponent_min_count(pub, seat) <= DANGER_CARDS else 0.0
    pc = pub[ST_COUNT + partner]
    partner_short = 1.0 if 0 < pc <= DANGER_CARDS else 0.0
    behind = 0.0
    if pub[ST_HALF] == 1:  # the first half's team points (YZ-28 match block)
        team = seat % 2
        d = pub[ST_H0_TEAM_PTS + 1 - team] - pub[ST_H0_TEAM_PTS + team]
        behind = d / 100.0 if d > 0 else 0.0
    held_jokers = jokers_of(own)
    seen = held_jokers
    for s in range(4):
        seen += np.int64(played[s, SMALL_JOKER]) + played[s, BIG_JOKER]
    unseen_jokers = (6 - seen) / 6.0
    pick = PASS  # greedy's pick: the first move of highest score (as feature 0 plays)
    top = -np.inf
    for i in range(n):
        sc = soft_score(own, legal[i], dao, total, leading, to_partner, allow_bomb)
        if sc > top:
            top = sc
            pick = legal[i]
    return (
        dao,
        total,
        leading,
        to_partner,
        allow_bomb,
        partner_top,
        opponent_top,
        danger,
        partner_short,
        behind,
        pub[ST_TRICK_PTS] / 10.0,
        plan_size(own),
        held_jokers,
        unseen_jokers,
        pick,
    )


@inline_kernel
def _cards_used(own, c, dao, groups, held_jokers):
    """What move ``c`` takes from the hand: (jokers used, its power / 13 or an atom's strength
    / 100, natural cards of its rank held, of them left after, combinations left after)."""
    kind = move_kind(c)
    rank = move_rank(c)
    size = move_size(c)
    jok = move_jokers(c)
    # the cards it takes: natural cards of its rank, jokers (wild, or a joker atom's three)
    if kind == ATOM:
        used_nat = 3 if rank < N_RANKS else 0
        used_jok = 0 if rank < N_RANKS else 3
        pw = atom_strength(c, dao) / 100.0
    else:
        used_nat = 8 if kind == HYDROGEN else size - jok
        used_jok = jok
        pw = 0.0 if c == PASS else power(c, dao) / 13.0
    nat = nat_of(own, rank) if used_nat > 0 else 0
    left = nat - used_nat
    after = groups
    if used_nat > 0 and left == 0:
        after -= 1
    if used_jok > 0 and used_jok == held_jokers:
        after -= 1
    return used_jok, pw, nat, left, after


@inline_kernel
def move_features(own, c, ctx):
    """φ of the move ``c`` (a ``UniTuple(float64, N_FEATURES)``: no allocation), given the
    decision's ``decision_context``; the order and meaning of ``FEATURES``."""
    (
        dao,
        total,
        leading,
        to_partner,
        allow_bomb,
        partner_top,
        opponent_top,
        danger,
        partner_short,
        behind,
        trick10,
        groups,
        held_jokers,
        unseen_jokers,
        pick,
    ) = ctx
    score = soft_score(own, c, dao, total, leading, to_partner, allow_bomb) / SCORE_SCALE
    kind = move_kind(c)
    size = move_size(c)
    is_pass = 1.0 if c == PASS else 0.0
    bombc = 1.0 if kind > TRIPLE else 0.0
    lead = 1.0 if leading else 0.0
    used_jok, pw, nat, left, after = _cards_used(own, c, dao, groups, held_jokers)
    pts = code_points(c) / 10.0
    cards_left = total - size
    return (
        score,
        is_pass,
        is_pass * partner_top,
        is_pass * trick10,
        is_pass * danger,
        is_pass * partner_short,
        1.0 if c != PASS and size == total else 0.0,
        size / 10.0,
        used_jok / 3.0,
        pw,
        1.0 if c != PASS and is_dao(c, dao) else 0.0,
        1.0 if kind == BOMB else 0.0,
        1.0 if kind == ATOM else 0.0,
        1.0 if kind == HYDROGEN else 0.0,
        bombc * trick10,
        bombc * danger,
        bombc * lead,
        bombc * behind,
        bombc * unseen_jokers,
        pts,
        pts * partner_top,
        pts * opponent_top,
        after / 10.0,
        left / 4.0,
        1.0 if nat >= 4 and left > 0 else 0.0,
        1.0 if 0 < cards_left <= DANGER_CARDS else 0.0,
        0.0 if c == PASS else move_cost(own, c, dao) / 1000.0,
        size / 10.0 * danger,
        1.0 if c == pick else 0.0,
    )


@inline_kernel
def choose_learned(own, played, pub, legal, n, slot, temp, rng):
    """learned: the first move of highest ``Σ_j w[slot, j] · φ_j`` (``temp`` 0: no draw), or of
    highest score + ``temp`` · Gumbel (one ``draw_key`` per decision, as soft)."""
    ctx = decision_context(own, played, pub, legal, n)
    key = draw_key(rng) if temp > 0.0 else np.uint64(0)
    best = 0
    bs = -np.inf
    for i in range(n):
        f = move_features(own, legal[i], ctx)
        s = 0.0
        for j in range(N_FEATURES):
            s += read(slot, j) * f[j]
        if temp > 0.0:
            s += temp * gumbel(key, i)
        if s > bs:
            bs = s
            best = i
    return best


@kernel
def features_matrix(own, played, pub, legal, n):
    """float64[n, N_FEATURES]: row i is φ of ``legal[i]`` (for training; the same
    ``move_features`` as play)."""
    out = np.empty((n, N_FEATURES), np.float64)
    ctx = decision_context(own, played, pub, legal, n)
    for i in range(n):
        f = move_features(own, legal[i], ctx)
        for j in range(N_FEATURES):
            out[i, j] = f[j]
    return out
