"""ATLAS strategy SDK: everything a strategy may know, by name, and the built-ins' helpers.

A user strategy (docs/strategies.md, "Writing your own") imports this module instead of
reading raw offsets::

    from cardsim.kernels.atlas import sdk

    def choose(dtype, hand, pub, options, n, rng):
        if dtype == sdk.DT_DISCARD:
            ...
        return sdk.greedy(dtype, hand, pub, options, n, rng)

Every function here is Numba-compiled and callable from plain Python too. What they read is
exactly what AT-26 lets a player know: the own hand ``hand`` (int32[64] counts per card type)
and the public block ``pub`` (int32; ``P_*`` offsets of ``kernels/atlas/state.py``), which
also holds the rule options in force (``P_RULES``).

Groups:

* decision types ``DT_CLAIM`` … ``DT_GIVE`` and the option codes ``NONE``, ``PAIR``,
  ``DISCARD``, ``TARGET``, ``TAKE``, ``GIVE`` (``kernels/atlas/encoding.py``);
* the public block: :func:`my_seat`, :func:`n_players`, :func:`direction`, :func:`next_seat`,
  :func:`prev_seat`, :func:`turn_seat`, :func:`round_index`, :func:`turns`,
  :func:`draw_pile_size`, :func:`discard_pile_size`, :func:`discard_at`, :func:`top_discard`,
  :func:`hand_size`, :func:`smallest_opponent_hand`, :func:`melded`, :func:`discarded`,
  :func:`unseen`, :func:`claim_card`, :func:`claim_discarder`, :func:`trade_target`,
  :func:`trade_taken`, :func:`target_hand`, :func:`face_down_melds`, :func:`face_down_cards`,
  :func:`face_down_of_size`;
* the rule options in force: :func:`rule` with the ``R_*`` offsets and the choice constants;
* option codes (legal-move decoding): :func:`card_of`, :func:`target_of`, :func:`is_meld`,
  :func:`meld_kind_of`, :func:`meld_loc`, :func:`meld_wild`, :func:`meld_size`,
  :func:`meld_atlas`, :func:`meld_from_hand`; goes-out tests :func:`claim_goes_out`,
  :func:`self_meld_goes_out`;
* cards: ``CELL_OF``, ``CONT_OF``, ``CLASS_OF``, ``HAND_VALUE``, :func:`hand_total`,
  :func:`hand_points`, :func:`cell_count`;
* the built-ins' helpers: :func:`hand_summary` (``SM_*`` layout, ``SUMMARY_LEN``),
  :func:`pick_meld`, :func:`pick_target`, :func:`best_card`;
* the built-in strategies themselves (a fallback for your own): :func:`greedy`,
  :func:`careful`, :func:`random_choice`; and the strategy stream: :func:`bounded`,
  :func:`next_u64`.
"""

import numpy as np
from cardsim.kernels.atlas.encoding import (
    ATLAS,
    DISCARD,
    FIVE,
    GIVE,
    HAND_VALUE,
    N_SPECIES,
    N_TYPES,
    NONE,
    PAIR,
    QUAD,
    REVERSE,
    SKIP,
    TAKE,
    TARGET,
    TRADE,
    TRIPLE,
    cell_of,
    class_of,
    continent_of,
    meld_kind_of,
    meld_loc,
    meld_wild,
)
from cardsim.kernels.atlas.rules import (
    N_RULES,
    R_ACTION_VALUE,
    R_ALL_WILD,
    R_ATLAS_CARDS,
    R_ATLAS_VALUE,
    R_CLAIM_PRIORITY,
    R_CLAIM_TURN,
    R_EXHAUSTED,
    R_FORCED,
    R_HAND_SIZE,
    R_LAST_DISCARD,
    R_MATCHING_VALUE,
    R_REVERSE_2P,
    R_REVERSE_CARDS,
    R_ROUNDS,
    R_SELF_MELDS,
    R_SELF_MELDS_SHOWN,
    R_SKIP_CARDS,
    R_TRADE_CARDS,
    R_TRADE_PICK,
    R_TURN_CAP,
    meld_atlas,
    meld_size,
)
from cardsim.kernels.atlas.state import (
    CELL_OF,
    CLASS_OF,
    CONT_OF,
    P_CARD,
    P_DIR,
    P_DISCARDER,
    P_DISCC,
    P_DISCSEQ,
    P_DRAW,
    P_FD_CARDS,
    P_FD_MELDS,
    P_FD_SIZES,
    P_MELDED,
    P_N,
    P_NDISC,
    P_ROUND,
    P_RULES,
    P_SEAT,
    P_SIZES,
    P_TAKEN,
    P_TARGET,
    P_TARGET_HAND,
    P_TURN,
    P_TURNS,
    hot_kernel,
)
from cardsim.kernels.atlas.strategies import (
    CAREFUL,
    DT_CLAIM,
    DT_DISCARD,
    DT_GIVE,
    DT_SELF,
    DT_TAKE,
    DT_TARGET,
    GREEDY,
    SM_CELL,
    SM_CLASS_CONTS,
    SM_CONT_CLASSES,
    SM_SMALLEST,
    SM_UNSEEN,
    SUMMARY_LEN,
    _best_card,
    _pick_meld,
    _pick_target,
    choose,
    hand_summary,
)
from cardsim.kernels.jit import kernel
from cardsim.kernels.rng import bounded, next_u64

__all__ = [
    # constants
    "ATLAS", "SKIP", "REVERSE", "TRADE", "N_SPECIES", "N_TYPES", "HAND_VALUE", "CELL_OF",
    "CONT_OF", "CLASS_OF", "NONE", "PAIR", "DISCARD", "TARGET", "TAKE", "GIVE", "TRIPLE", "QUAD",
    "FIVE", "DT_CLAIM", "DT_SELF", "DT_DISCARD", "DT_TARGET", "DT_TAKE", "DT_GIVE",
    "SM_CELL", "SM_UNSEEN", "SM_CONT_CLASSES", "SM_CLASS_CONTS", "SM_SMALLEST", "SUMMARY_LEN",
    "N_RULES", "R_ALL_WILD", "R_CLAIM_PRIORITY", "R_CLAIM_TURN", "R_EXHAUSTED", "R_FORCED",
    "R_LAST_DISCARD", "R_REVERSE_2P", "R_ROUNDS", "R_SELF_MELDS", "R_SELF_MELDS_SHOWN",
    "R_TRADE_PICK", "R_TURN_CAP",
    "R_HAND_SIZE", "R_ATLAS_CARDS", "R_SKIP_CARDS", "R_REVERSE_CARDS", "R_TRADE_CARDS",  # AT-D1..D3
    "R_ATLAS_VALUE", "R_ACTION_VALUE", "R_MATCHING_VALUE",  # AT-D4
    "SELF_MELDS_ANY", "SELF_MELDS_AFTER_CLAIM_ONLY", "CLAIM_TURN_STAY", "CLAIM_TURN_JUMP",
    "REVERSE_2P_SKIP", "REVERSE_2P_NONE", "TRADE_PICK_BLIND", "TRADE_PICK_SEEN",
    "EXHAUSTED_RESHUFFLE", "EXHAUSTED_NO_WINNER", "CLAIM_PRIORITY_TEXT",
    "CLAIM_PRIORITY_NEAREST_WIN",
    # public block
    "my_seat", "n_players", "direction", "next_seat", "prev_seat", "turn_seat", "round_index",
    "turns", "draw_pile_size", "discard_pile_size", "discard_at", "top_discard", "hand_size",
    "smallest_opponent_hand", "melded", "discarded", "unseen", "claim_card", "claim_discarder",
    "trade_target", "trade_taken", "target_hand", "face_down_melds", "face_down_cards",
    "face_down_of_size", "rule",
    # option codes
    "card_of", "target_of", "is_meld", "meld_kind_of", "meld_loc", "meld_wild", "meld_size",
    "meld_atlas", "meld_from_hand", "claim_goes_out", "self_meld_goes_out",
    # cards
    "continent_of", "class_of", "cell_of", "hand_total", "hand_points", "cell_count",
    # helpers of the built-ins
    "hand_summary", "pick_meld", "pick_target", "best_card",
    # built-in strategies, randomness
    "greedy", "careful", "random_choice", "bounded", "next_u64",
]  # fmt: skip

# --- rule choices: the value ``rule(pub, R_X)`` has for each choice (docs/RULES-atlas.md) ------
SELF_MELDS_ANY, SELF_MELDS_AFTER_CLAIM_ONLY = 0, 1  # AT-07
CLAIM_TURN_STAY, CLAIM_TURN_JUMP = 0, 1  # AT-15
REVERSE_2P_SKIP, REVERSE_2P_NONE = 0, 1  # AT-18
TRADE_PICK_BLIND, TRADE_PICK_SEEN = 0, 1  # AT-19
EXHAUSTED_RESHUFFLE, EXHAUSTED_NO_WINNER = 0, 1  # AT-23
CLAIM_PRIORITY_TEXT, CLAIM_PRIORITY_NEAREST_WIN = 0, 1  # AT-14


# --- the public block (AT-26) ------------------------------------------------------------------
@hot_kernel
def my_seat(pub):
    """The seat deciding now (yours)."""
    return pub[P_SEAT]


@hot_kernel
def n_players(pub):
    """Players in the game (2..10)."""
    return pub[P_N]


@hot_kernel
def direction(pub):
    """+1 clockwise, -1 anticlockwise (AT-04, AT-16; REVERSE flips it)."""
    return pub[P_DIR]


@hot_kernel
def next_seat(pub, seat):
    """The seat after ``seat`` in the current direction (AT-16)."""
    n = pub[P_N]
    return (seat + pub[P_DIR] + n) % n


@hot_kernel
def prev_seat(pub, seat):
    """The seat before ``seat`` in the current direction."""
    n = pub[P_N]
    return (seat - pub[P_DIR] + n) % n


@hot_kernel
def turn_seat(pub):
    """The seat whose turn it is (the discarder during a claim window)."""
    return pub[P_TURN]


@hot_kernel
def round_index(pub):
    """Round of the match, from 0 (AT-25)."""
    return pub[P_ROUND]


@hot_kernel
def turns(pub):
    """Turns played so far in this round."""
    return pub[P_TURNS]


@hot_kernel
def draw_pile_size(pub):
    """Cards left in the draw pile."""
    return pub[P_DRAW]


@hot_kernel
def discard_pile_size(pub):
    """Cards in the face-up discard pile."""
    return pub[P_NDISC]


@hot_kernel
def discard_at(pub, i):
    """Card type of the ``i``-th card of the discard pile, oldest first; -1 out of range."""
    if i < 0 or i >= pub[P_NDISC]:
        return -1
    return pub[P_DISCSEQ + i]


@hot_kernel
def top_discard(pub):
    """Card type on top of the discard pile (the newest); -1 when it is empty."""
    k = pub[P_NDISC]
    return pub[P_DISCSEQ + k - 1] if k > 0 else -1


@hot_kernel
def hand_size(pub, seat):
    """Cards in ``seat``'s hand (public, AT-26)."""
    return pub[P_SIZES + seat]


@hot_kernel
def smallest_opponent_hand(pub):
    """The fewest cards any other seat holds."""
    me = pub[P_SEAT]
    m = 1 << 20
    for s in range(pub[P_N]):
        if s != me and pub[P_SIZES + s] < m:
            m = pub[P_SIZES + s]
    return m


@hot_kernel
def melded(pub, t):
    """Cards of type ``t`` shown in melds this round: claims (the claimed discard included), and
    self-melds only with ``self_melds_shown`` (AT-26)."""
    return pub[P_MELDED + t]


@hot_kernel
def discarded(pub, t):
    """Cards of type ``t`` on the face-up discard pile."""
    return pub[P_DISCC + t]


@hot_kernel
def unseen(hand, pub, t):
    """Copies of card type ``t`` you have not seen: not in your hand, not shown in a meld, not
    on the discard pile (3 per species, 6 per ATLAS / action card). They are in the other
    hands, the draw pile or face-down self-melds."""
    copies = 3 if t < N_SPECIES else 6
    return copies - hand[t] - pub[P_MELDED + t] - pub[P_DISCC + t]


@hot_kernel
def claim_card(pub):
    """The discard under claim (claim decisions), else -1."""
    return pub[P_CARD]


@hot_kernel
def claim_discarder(pub):
    """Who discarded the card under claim (claim decisions), else -1."""
    return pub[P_DISCARDER]


@hot_kernel
def trade_target(pub):
    """TRADE: the target seat while trading (take / give decisions), else -1."""
    return pub[P_TARGET]


@hot_kernel
def trade_taken(pub):
    """TRADE: the card you took (during your give decision), else -1."""
    return pub[P_TAKEN]


@hot_kernel
def target_hand(pub, t):
    """TRADE with ``trade_pick=seen``, take decision: the target's cards of type ``t``
    (0 at other times)."""
    return pub[P_TARGET_HAND + t]


@hot_kernel
def face_down_melds(pub, seat):
    """Self-melds ``seat`` laid face down this round (AT-26; 0 with ``self_melds_shown``)."""
    return pub[P_FD_MELDS + seat]


@hot_kernel
def face_down_cards(pub, seat):
    """Cards in ``seat``'s face-down self-melds this round."""
    return pub[P_FD_CARDS + seat]


@hot_kernel
def face_down_of_size(pub, seat, k):
    """``seat``'s face-down self-melds of ``k`` cards (k = 3, 4 or 5)."""
    if k < 3 or k > 5:
        return 0
    return pub[P_FD_SIZES + 3 * seat + k - 3]


@hot_kernel
def rule(pub, r):
    """The value of rule option ``r`` (an ``R_*`` offset) in force: 0/1 for a yes/no option, the
    number for ``turn_cap`` / ``rounds``, else the index of the choice (``cardsim rules atlas``
    lists them in order; constants such as ``TRADE_PICK_SEEN`` name them)."""
    return pub[P_RULES + r]


# --- option codes --------------------------------------------------------------------------------
@hot_kernel
def card_of(code):
    """Card type of a DISCARD / TAKE / GIVE option (its low 6 bits)."""
    return code & 63


@hot_kernel
def target_of(code):
    """Seat of a TARGET option (-1 for NONE: play TRADE on nobody)."""
    return code - TARGET if code >= TARGET else -1


@hot_kernel
def is_meld(code):
    """True for a meld code (claim or self-meld; not NONE, not PAIR)."""
    return 0 < code < PAIR


@hot_kernel
def meld_from_hand(code, claim):
    """Cards a meld takes from your hand: its size, less the claimed discard for a claim."""
    return (code & 3) + 2 - (1 if claim else 0)


@hot_kernel
def claim_goes_out(pub, code):
    """AT-14 / AT-20: does the claim option ``code`` win (PAIR, or a meld using every card)?"""
    if code == PAIR:
        return True
    if code == NONE:
        return False
    return (code & 3) + 1 == pub[P_SIZES + pub[P_SEAT]]


@hot_kernel
def self_meld_goes_out(pub, code):
    """AT-20: does the self-meld option ``code`` empty your hand (and win)?"""
    return code != NONE and (code & 3) + 2 == pub[P_SIZES + pub[P_SEAT]]


# --- cards ---------------------------------------------------------------------------------------
@hot_kernel
def hand_total(hand):
    """Cards in ``hand`` (any int32[64] counts)."""
    total = 0
    for t in range(N_TYPES):
        total += hand[t]
    return total


@hot_kernel
def hand_points(hand):
    """AT-05 value of ``hand``: 1 per matching card, ATLAS 3, action cards 2 (what a winner
    would score from it, AT-24)."""
    v = 0
    for t in range(N_TYPES):
        v += hand[t] * (1 if t < ATLAS else (3 if t == ATLAS else 2))
    return v


@hot_kernel
def cell_count(hand, cell):
    """Cards of ``hand`` in the (continent, class) cell ``cell`` = continent * 4 + class."""
    return hand[3 * cell] + hand[3 * cell + 1] + hand[3 * cell + 2]


# --- helpers of the built-ins --------------------------------------------------------------------
pick_meld = _pick_meld
pick_target = _pick_target
best_card = _best_card


# --- the built-in strategies (same signature as yours) -------------------------------------------
@kernel
def greedy(dtype, hand, pub, options, n, rng):
    """The built-in ``greedy``'s choice (an index into ``options[:n]``)."""
    sm = np.empty(SUMMARY_LEN, np.int32)
    return choose(GREEDY, dtype, hand, pub, options, n, rng, sm)


@kernel
def careful(dtype, hand, pub, options, n, rng):
    """The built-in ``careful``'s choice (an index into ``options[:n]``)."""
    sm = np.empty(SUMMARY_LEN, np.int32)
    return choose(CAREFUL, dtype, hand, pub, options, n, rng, sm)


@hot_kernel
def random_choice(dtype, hand, pub, options, n, rng):
    """The built-in ``random``: uniform over ``options[:n]`` from the strategy stream."""
    return bounded(rng, n)
