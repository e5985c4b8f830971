"""Built-in ATLAS strategies, dispatched by integer id inside the cached kernel (STYLE).

Every strategy has one signature::

    choose(dtype, hand, pub, options, n, rng) -> index in [0, n)

``dtype`` is the decision type (``DT_*``: 0 claim, 1 self-meld, 2 discard, 3 trade target,
4 trade take, 5 trade give), ``hand`` the deciding seat's ``int32[64]`` card counts, ``pub`` the
public block of the state (``cardsim.kernels.atlas.state``: ``P_*`` offsets; ``pub[P_SEAT]`` is the
viewer), ``options[:n]`` the legal decision codes (``cardsim.kernels.atlas.encoding``) and ``rng`` the
game's strategy stream (``uint64[4]``, use ``cardsim.kernels.rng.next_u64`` / ``bounded``). This is all
AT-26 lets a player know; the driver never passes anything else. User strategies
(``path/file.py:function``) have exactly this signature and must be Numba-compilable.
"""

import numpy as np
from cardsim.kernels.atlas.encoding import (  # noqa: F401 (DT_*: re-exported, the strategies' names)
    ATLAS,
    DISCARD,
    DT_CLAIM,
    DT_DISCARD,
    DT_GIVE,
    DT_SELF,
    DT_TAKE,
    DT_TARGET,
    GIVE,
    MAX_CARDS,
    N_CELLS,
    N_CLASSES,
    N_CONTINENTS,
    N_TYPES,
    PAIR,
    REVERSE,
    SKIP,
    SPECIES_COPIES,
    SPECIES_PER_CELL,
    TAKE,
    TARGET,
)
from cardsim.kernels.atlas.learned import choose_learned
from cardsim.kernels.atlas.scores import (  # noqa: F401 (SM_*, U_*, ...: re-exported)
    NOT_CAREFUL,
    POPC,
    SM_CELL,
    SM_CLASS_CONTS,
    SM_CONT_CLASSES,
    SM_SMALLEST,
    SM_UNSEEN,
    SUMMARY_LEN,
    U_CARD,
    U_MELD,
    U_TARGET,
    _keep_value,
    bin_count,
    hand_summary,
    meld_score,
    option_score,
    target_key,
)
from cardsim.kernels.atlas.state import (
    HANDS,
    P_DIR,
    P_N,
    P_SEAT,
    PUB_LEN,
    SUMMARY,
    hot_kernel,
    inline_kernel,
    wrap_seat,
)
from cardsim.kernels.call_tables import TABLE_SIZE
from cardsim.kernels.levels import KIND_EPS, KIND_LEARNED, decode, draw_key, gumbel
from cardsim.kernels.rng import bounded

RANDOM, GREEDY, CAREFUL = 0, 1, 2
#: (name, id, one-line description) of the built-in strategies.
BUILTINS = (
    ("random", RANDOM, "uniform over the legal options of every decision (strategy stream)"),
    (
        "greedy",
        GREEDY,
        "claims and melds whenever it can (largest meld first), discards the card least likely "
        "to complete a meld, keeps ATLAS, aims SKIP/REVERSE/TRADE at the player closest to winning",
    ),
    (
        "careful",
        CAREFUL,
        "greedy, plus it counts the cards seen (discards, claimed melds; self-melds only when "
        "self_melds_shown): it avoids discarding "
        "cards an opponent is likely to claim and values only melds that can still be completed",
    ),
)
#: Strategy ids from this value up are user strategies (table entry = id - USER_BASE; from
#: ``USER_BASE + MAX_USER`` raise mode, ``cardsim.kernels.call_tables``).
USER_BASE = 100
MAX_USER = TABLE_SIZE
#: Ids of the levels ``greedy:eps=E`` / ``soft:temp=T`` (kernels/levels.py): above pimc's.
LEVEL_BASE = 1 << 60


@hot_kernel
def _best_card(hand, pub, options, n, base, careful, mode, sm):
    """Greedy's (or careful's) card option: ``_best_card_t`` without noise."""
    return _best_card_t(hand, pub, options, n, base, careful, mode, sm, 0.0, np.uint64(0))


@hot_kernel
def _best_card_t(hand, pub, options, n, base, careful, mode, sm, temp, key):
    """Index of the card option to play: mode 0 discard / 1 give: the lowest ``_keep_value``;
    mode 2 take (``trade_pick=seen``, AT-19): the highest. ``temp`` > 0 (``soft``): the value
    plus ``temp`` · ``U_CARD`` · Gumbel noise (``key``) for the card taken, minus it for the card
    discarded or given. Its helpers are inlined (``inline_kernel``): the hottest loop of the
    ATLAS turn stays one flat loop."""
    hand_summary(hand, pub, careful, sm)
    nn = pub[P_N]
    me = pub[P_SEAT]
    d = pub[P_DIR]
    nxt = wrap_seat(me + d, nn)
    prv = wrap_seat(me - d, nn)
    best = 0
    bv = 1e18 if mode < 2 else -1e18
    for i in range(n):
        t = options[i] - base
        v = _keep_value(hand, pub, sm, t, mode, careful, nn, nxt, prv)
        if temp > 0.0:
            g = temp * U_CARD * gumbel(key, i)
            v = v + g if mode == 2 else v - g
        if (mode < 2 and v < bv) or (mode == 2 and v > bv):
            bv = v
            best = i
    return best


@hot_kernel
def _pick_meld(options, n):
    """PAIR first, then the largest meld, then the fewest ATLAS; never NONE if a meld is offered."""
    return _pick_meld_t(options, n, 0.0, np.uint64(0))


@hot_kernel
def _pick_meld_t(options, n, temp, key):
    """``_pick_meld``; ``temp`` > 0: its score plus ``temp`` · ``U_MELD`` · Gumbel noise."""
    best = 0
    bscore = -1.0
    for i in range(n):
        s = meld_score(options[i])
        if temp > 0.0:
            s += temp * U_MELD * gumbel(key, i)
        if s > bscore:
            bscore = s
            best = i
    return best


@hot_kernel
def _pick_target(pub, options, n):
    """TRADE at the opponent with the fewest cards; ties: the one next in the direction."""
    return _pick_target_t(pub, options, n, 0.0, np.uint64(0))


@hot_kernel
def _pick_target_t(pub, options, n, temp, key):
    """``_pick_target``; ``temp`` > 0: its key minus ``temp`` · ``U_TARGET`` · Gumbel noise."""
    nn = pub[P_N]
    me = pub[P_SEAT]
    d = pub[P_DIR]
    best = 0
    bkey = 1e18
    for i in range(n):
        c = options[i]
        if c >= TARGET:
            k = target_key(pub, c - TARGET, nn, me, d)
            if temp > 0.0:
                k -= temp * U_TARGET * gumbel(key, i)
            if k < bkey:
                bkey = k
                best = i
    return best


@inline_kernel
def choose(sid, dtype, hand, pub, options, n, rng, sm):
    """Dispatch built-in strategy ``sid``; returns an index into ``options[:n]`` (``sm``: the
    ``SUMMARY_LEN`` scratch for the hand summary)."""
    if sid == RANDOM:
        return bounded(rng, n)
    return _greedy_t(sid == CAREFUL, dtype, hand, pub, options, n, sm, 0.0, np.uint64(0))


@inline_kernel
def _greedy_t(careful, dtype, hand, pub, options, n, sm, temp, key):
    """greedy's (careful's) pick; ``temp`` > 0: soft's pick over the same scores (key: noise)."""
    if dtype in (DT_CLAIM, DT_SELF):
        return _pick_meld_t(options, n, temp, key)
    if dtype == DT_DISCARD:
        return _best_card_t(hand, pub, options, n, DISCARD, careful, 0, sm, temp, key)
    if dtype == DT_TARGET:
        return _pick_target_t(pub, options, n, temp, key)
    if dtype == DT_TAKE:
        return _best_card_t(hand, pub, options, n, TAKE, careful, 2, sm, temp, key)
    return _best_card_t(hand, pub, options, n, GIVE, careful, 1, sm, temp, key)


@hot_kernel
def choose_level(S, p, sid, dtype, options, n, rng):
    """``greedy:eps=E`` / ``soft:temp=T`` / ``learned`` (id ``LEVEL_BASE + ...``,
    kernels/levels.py) on seat
    ``p``'s view of ``S`` (AT-26); draws from the strategy stream ``rng`` only."""
    kind, v = decode(LEVEL_BASE, sid)
    h0 = HANDS + p * N_TYPES
    sm = S[SUMMARY : SUMMARY + SUMMARY_LEN]
    hand = S[h0 : h0 + N_TYPES]
    pub = S[:PUB_LEN]
    if kind == KIND_EPS:
        if bounded(rng, 100) < v:
            return bounded(rng, n)
        return _greedy_t(NOT_CAREFUL, dtype, hand, pub, options, n, sm, 0.0, np.uint64(0))
    if kind == KIND_LEARNED:  # kernels/atlas/learned.py: argmax w·φ, or softmax at v & 0xFFFF
        return choose_learned(dtype, hand, pub, options, n, sm, v >> 16, (v & 0xFFFF) / 100.0, rng)
    return _greedy_t(NOT_CAREFUL, dtype, hand, pub, options, n, sm, v / 100.0, draw_key(rng))


@hot_kernel
def choose_in_state(S, p, sid, dtype, options, n, rng):
    """What the driver calls: ``choose`` on seat ``p``'s view of state ``S`` (AT-26), nothing else."""
    h0 = HANDS + p * N_TYPES
    sm = S[SUMMARY : SUMMARY + SUMMARY_LEN]
    return choose(sid, dtype, S[h0 : h0 + N_TYPES], S[:PUB_LEN], options[:n], n, rng, sm)


@hot_kernel
def user_placeholder(dtype, hand, pub, options, n, rng):
    """Stand-in for an unused user-strategy slot (never called by the built-in driver)."""
    return 0
