"""ATLAS's learned policies: a feature vector φ(view, move) per legal option (docs/strategies.md,
"Learned features: ATLAS"; kernels/learned.py, kernels/levels.py).

A learned seat plays the option of highest ``w · φ`` (temperature 0: the first of the highest,
no draw), or at temperature T the highest ``w · φ + T · Gumbel`` (one ``draw_key`` per decision,
as ``soft``). Feature 0 (``SCORE``) is greedy's own score of the option (``option_score``: soft's
noise-free score in its units), so ``GREEDY_WEIGHTS`` plays greedy's games exactly. Every
feature reads the deciding seat's view only — the strategy arguments ``dtype``, ``hand``,
``pub``, ``options`` (AT-26) — and is a number of order 1 (counts scaled: cards / 10 ...).

One definition of φ, ``move_features`` (a tuple: no allocation, so the NRT-off turn loop can run
it), serves both ``choose_learned`` (play) and ``features_matrix`` (training).
"""

import numpy as np
from cardsim.kernels.atlas.encoding import (
    ATLAS,
    DISCARD,
    DT_CLAIM,
    DT_DISCARD,
    DT_GIVE,
    DT_SELF,
    DT_TAKE,
    DT_TARGET,
    GIVE,
    PAIR,
    REVERSE,
    SKIP,
    SPECIES_COPIES,
    TAKE,
    TARGET,
    TRADE,
)
from cardsim.kernels.atlas.engine import standing
from cardsim.kernels.atlas.scores import (
    NOT_CAREFUL,
    POPC,
    SM_CELL,
    SM_CLASS_CONTS,
    SM_CONT_CLASSES,
    SM_SMALLEST,
    SUMMARY_LEN,
    _unseen_cell,
    bin_count,
    hand_summary,
    option_score,
)
from cardsim.kernels.atlas.state import (
    CELL_OF,
    CLASS_OF,
    CONT_OF,
    P_DIR,
    P_DISCC,
    P_MELDED,
    P_N,
    P_SEAT,
    P_SIZES,
    P_TARGET,
    P_VALUES,
    wrap_seat,
)
from cardsim.kernels.jit import hot_kernel, inline_kernel, kernel
from cardsim.kernels.learned import weight_reader
from cardsim.kernels.levels import draw_key, gumbel

#: Bumped whenever a feature's meaning or order changes (weights files record it).
FEATURE_VERSION = 1
#: (name, meaning with its unit) of every feature, in the kernel's order. Per-type features are
#: 0 for the other decision types. "Signed": -1 x the quantity for the card leaving the hand
#: (discard, give), +1 x for the card joining it (take).
FEATURES: tuple[tuple[str, str], ...] = (
    ("score", "greedy's own score of the option: soft's noise-free score in its units (one "
     "step of greedy's preference: a keep point, a meld size, a card of the target's hand)"),
    # claim, self-meld
    ("meld_decline", "claim / self-meld: 1 for NONE (decline the claim, stop self-melding)"),
    ("meld_decline_hand", "claim / self-meld: NONE x own hand size / 10 (cards)"),
    ("meld_size", "claim / self-meld: cards in the meld / 5 (the last-card pair 2)"),
    ("meld_wilds", "claim / self-meld: ATLAS cards the meld uses / 3"),
    ("meld_goes_out", "claim / self-meld: 1 if the meld empties the hand (wins the round, AT-20)"),
    ("meld_leaves_one", "claim / self-meld: 1 if the meld leaves one card (AT-21, AT-22)"),
    # discard, give, take: the card (signed)
    ("card_mates", "card, signed: other cards of its (continent, class) cell held / 3"),
    ("card_quad", "card, signed: other classes of its continent held / 3"),
    ("card_five", "card, signed: other continents of its class held / 4"),
    ("card_pair", "card, signed: 1 if another copy of its species is held (AT-21)"),
    ("card_atlas", "card, signed: 1 for an ATLAS"),
    ("card_skip", "card, signed: 1 for a SKIP"),
    ("card_reverse", "card, signed: 1 for a REVERSE"),
    ("card_trade", "card, signed: 1 for a TRADE"),
    ("card_value", "card, signed: its hand value (AT-05, AT-D4) / 3 (points)"),
    ("card_seen", "card, signed: copies of its species melded or on the discard pile / 3"),
    ("card_cell_unseen", "card, signed: its cell's naturals not held, melded or on the pile / 9"),
    # discard only
    ("discard_feeds", "discard: unseen copies of its species / 3 (an ATLAS 1): a claim it feeds"),
    ("discard_feeds_last", "discard: discard_feeds x an opponent holds 1 card (AT-21 pair)"),
    ("discard_hits_leader", "discard: 1 for a SKIP / REVERSE that stops the opponent closest "
     "to winning (the next seat holds the fewest cards, AT-17, AT-18)"),
    ("discard_reverse_gain", "discard: REVERSE x (previous seat's hand - next seat's hand) / 10 "
     "(cards; 3+ players)"),
    # give only
    ("give_action_short", "give: 1 for an action card given to a target holding <= 2 cards "
     "(it can win with it as its last card, AT-21)"),
    # TRADE target
    ("target_none", "TRADE target: 1 for nobody"),
    ("target_size", "TRADE target: the target's hand size / 10 (cards)"),
    ("target_dist", "TRADE target: seats from the trader to the target in the direction / "
     "players"),
    ("target_standing", "TRADE target: (target's - own match points of earlier rounds) / 20 "
     "(points, AT-25)"),
    ("greedy_pick", "1 for greedy's pick (the first option of highest score)"),
)  # fmt: skip
N_FEATURES = len(FEATURES)
#: index of greedy's own score
SCORE = 0
#: the weights that play greedy's games (only ``SCORE``)
GREEDY_WEIGHTS = np.eye(N_FEATURES, dtype=np.float64)[SCORE]
#: Restricted play (``cardsim exploit --restricted``): (mechanic, the 0/1 feature that marks
#: it, the weight that forbids it): -1000 on a move's mark, or +1000 on declining (never claim).
RESTRICTIONS = (
    ("claims and self-melds (AT-07, AT-12)", "meld_decline", 1000.0),
    ("SKIP cards leaving the hand (discard, give; AT-17)", "card_skip", 1000.0),  # signed feature
    ("REVERSE cards leaving the hand (AT-18)", "card_reverse", 1000.0),
    ("TRADE cards leaving the hand (AT-19)", "card_trade", 1000.0),
)

read_weight = weight_reader("atlas")


@inline_kernel
def move_features(dtype, c, hand, pub, sm, nn, me, d, nxt, prv, pick):
    """φ of option code ``c`` (``FEATURES``' order) as a tuple of float64; ``sm``: the hand
    summary of this decision (``hand_summary(hand, pub, NOT_CAREFUL, sm)``), ``nxt`` / ``prv``
    the seats after and before ``me`` in direction ``d``; ``pick`` greedy's pick (``greedy_pick``).
    Reads the seat's view only (AT-26)."""
    m = _meld_part(dtype, c, pub, me)
    k = _card_part(dtype, c, hand, pub, sm)
    x = _discard_give_part(dtype, c, hand, pub, sm, nn, nxt, prv)
    t = _target_part(dtype, c, pub, nn, me, d)
    return (
        option_score(dtype, c, hand, pub, sm, nn, me, d, nxt, prv),
        m[0], m[1], m[2], m[3], m[4], m[5],
        k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7], k[8], k[9], k[10],
        x[0], x[1], x[2], x[3], x[4],
        t[0], t[1], t[2], t[3],
        1.0 if c == pick else 0.0,
    )  # fmt: skip


@inline_kernel
def _meld_part(dtype, c, pub, me):
    """Features 1 … 6 (claim, self-meld; zeros otherwise)."""
    decline = decline_hand = msize = mwild = mout = mone = 0.0
    if dtype in (DT_CLAIM, DT_SELF):
        mine = pub[P_SIZES + me]
        if c == 0:
            decline = 1.0
            decline_hand = mine / 10.0
        else:
            if c == PAIR:
                size = 2
                used = 1  # the held card (AT-21)
                nw = 0
            else:
                kind = c & 3
                size = kind + 2
                w = (c >> 7) & 31
                nw = w if kind == 1 else bin_count(w)
                used = size - 1 if dtype == DT_CLAIM else size  # a claim melds the discard
            msize = size / 5.0
            mwild = nw / 3.0
            left = mine - used
            mout = 1.0 if left <= 0 else 0.0
            mone = 1.0 if left == 1 else 0.0
    return decline, decline_hand, msize, mwild, mout, mone


@inline_kernel
def _card_of(dtype, c):
    """The card type of a discard, take or give option; -1 for the other decision types."""
    if dtype == DT_DISCARD:
        return c - DISCARD
    if dtype == DT_TAKE:
        return c - TAKE
    if dtype == DT_GIVE:
        return c - GIVE
    return -1


@inline_kernel
def _card_part(dtype, c, hand, pub, sm):
    """Features 7 … 17 (the card, signed: -1 x leaving the hand, +1 x joining it; zeros for
    melds and targets)."""
    mates = quad = five = pair = atl = skp = rev = trd = val = seen = unseen = 0.0
    t = _card_of(dtype, c)
    sg = 1.0 if dtype == DT_TAKE else -1.0
    if t == ATLAS:
        atl = sg
        val = sg * pub[P_VALUES] / 3.0
    elif t > ATLAS:
        skp = sg if t == SKIP else 0.0
        rev = sg if t == REVERSE else 0.0
        trd = sg if t == TRADE else 0.0
        val = sg * pub[P_VALUES + 1] / 3.0
    elif t >= 0:
        extra = 1 if dtype == DT_TAKE else 0
        cell = CELL_OF[t]
        cont = CONT_OF[t]
        cl = CLASS_OF[t]
        mates = sg * (sm[SM_CELL + cell] + extra - 1) / 3.0
        quad = sg * POPC[sm[SM_CONT_CLASSES + cont] & ~(1 << cl)] / 3.0
        five = sg * POPC[sm[SM_CLASS_CONTS + cl] & ~(1 << cont)] / 4.0
        pair = sg if hand[t] + extra >= 2 else 0.0
        val = sg * pub[P_VALUES + 2] / 3.0
        seen = sg * (pub[P_MELDED + t] + pub[P_DISCC + t]) / 3.0
        unseen = sg * _unseen_cell(hand, pub, cell) / 9.0
    return mates, quad, five, pair, atl, skp, rev, trd, val, seen, unseen


@inline_kernel
def _discard_give_part(dtype, c, hand, pub, sm, nn, nxt, prv):
    """Features 18 … 22 (discard: the claims it feeds, the action card's effect; give: an action
    card to a short hand; zeros otherwise)."""
    feeds = feeds_last = hits = rgain = give_short = 0.0
    t = _card_of(dtype, c)
    ms = sm[SM_SMALLEST]
    if dtype == DT_DISCARD:
        if t == ATLAS:
            feeds = 1.0
        elif t < ATLAS:
            feeds = (SPECIES_COPIES - hand[t] - pub[P_MELDED + t] - pub[P_DISCC + t]) / 3.0
        elif t == SKIP or (t == REVERSE and nn == 2):
            hits = 1.0 if pub[P_SIZES + nxt] == ms else 0.0
        elif t == REVERSE:
            hits = 1.0 if pub[P_SIZES + nxt] == ms and pub[P_SIZES + prv] > ms else 0.0
            rgain = (pub[P_SIZES + prv] - pub[P_SIZES + nxt]) / 10.0
        feeds_last = feeds if ms == 1 else 0.0
    elif dtype == DT_GIVE and t > ATLAS:
        tg = pub[P_TARGET]
        give_short = 1.0 if tg >= 0 and pub[P_SIZES + tg] <= 2 else 0.0
    return feeds, feeds_last, hits, rgain, give_short


@inline_kernel
def _target_part(dtype, c, pub, nn, me, d):
    """Features 23 … 26 (TRADE target; zeros otherwise)."""
    tnone = tsize = tdist = tstand = 0.0
    if dtype == DT_TARGET:
        if c < TARGET:
            tnone = 1.0
        else:
            s = c - TARGET
            tsize = pub[P_SIZES + s] / 10.0
            tdist = wrap_seat((s - me) * d, nn) / nn
            tstand = (standing(pub, s) - standing(pub, me)) / 20.0
    return tnone, tsize, tdist, tstand


@inline_kernel
def _context(pub):
    """(players, the viewer, direction, next seat, previous seat) of a decision."""
    nn = pub[P_N]
    me = pub[P_SEAT]
    d = pub[P_DIR]
    return nn, me, d, wrap_seat(me + d, nn), wrap_seat(me - d, nn)


@inline_kernel
def greedy_pick(dtype, hand, pub, options, n, sm, nn, me, d, nxt, prv):
    """The option code greedy plays: the first of highest ``option_score`` (feature 0)."""
    pick = options[0]
    top = -np.inf
    for i in range(n):
        sc = option_score(dtype, options[i], hand, pub, sm, nn, me, d, nxt, prv)
        if sc > top:
            top = sc
            pick = options[i]
    return pick


@hot_kernel
def choose_learned(dtype, hand, pub, options, n, sm, slot, temp, rng):
    """Index of the option of highest ``Σ_j w[slot, j] · φ_j`` (the first of the highest; no
    draw) or, at ``temp`` > 0, of highest score + ``temp`` · Gumbel (one ``draw_key`` from the
    strategy stream ``rng`` per decision, as ``soft``). ``sm``: ``SUMMARY_LEN`` scratch."""
    hand_summary(hand, pub, NOT_CAREFUL, sm)
    nn, me, d, nxt, prv = _context(pub)
    pick = greedy_pick(dtype, hand, pub, options, n, sm, nn, me, d, nxt, prv)
    key = draw_key(rng) if temp > 0.0 else np.uint64(0)
    best = 0
    bs = -np.inf
    for i in range(n):
        f = move_features(dtype, options[i], hand, pub, sm, nn, me, d, nxt, prv, pick)
        s = 0.0
        for j in range(N_FEATURES):
            s += read_weight(slot, j) * f[j]
        if temp > 0.0:
            s += temp * gumbel(key, i)
        if s > bs:
            bs = s
            best = i
    return best


@kernel
def features_matrix(dtype, hand, pub, options, n):
    """float64 [n, N_FEATURES]: row i is φ of option ``options[i]`` (training; the same
    ``move_features`` as play), from the seat's view only."""
    sm = np.zeros(SUMMARY_LEN, np.int32)
    hand_summary(hand, pub, NOT_CAREFUL, sm)
    nn, me, d, nxt, prv = _context(pub)
    pick = greedy_pick(dtype, hand, pub, options, n, sm, nn, me, d, nxt, prv)
    out = np.empty((n, N_FEATURES), np.float64)
    for i in range(n):
        f = move_features(dtype, options[i], hand, pub, sm, nn, me, d, nxt, prv, pick)
        for j in range(N_FEATURES):
            out[i, j] = f[j]
    return out
