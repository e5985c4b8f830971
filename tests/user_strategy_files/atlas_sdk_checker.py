"""An ATLAS strategy that checks the SDK's accessors against each other (tests/test_sdk.py).

It plays greedy's choice and answers -1 (an illegal answer, counted and located) the moment an
accessor disagrees with what AT-26 says the public block holds; ``illegal`` answers out of
range on every discard once the draw pile is below 130 cards.
"""

from cardsim.kernels.atlas import sdk
from numba import njit


@njit
def choose(dtype, hand, pub, options, n, rng):
    """Greedy's choice; -1 when an accessor looks wrong."""
    me = sdk.my_seat(pub)
    np_ = sdk.n_players(pub)
    if me < 0 or me >= np_ or sdk.hand_size(pub, me) != sdk.hand_total(hand):
        return -1
    if sdk.next_seat(pub, sdk.prev_seat(pub, me)) != me or abs(sdk.direction(pub)) != 1:
        return -1
    for t in range(sdk.N_TYPES):
        if sdk.unseen(hand, pub, t) < 0:
            return -1
    if (
        sdk.rule(pub, sdk.R_TRADE_PICK) != sdk.TRADE_PICK_SEEN
        or sdk.rule(pub, sdk.R_TURN_CAP) != 1500
    ):
        return -1
    k = sdk.discard_pile_size(pub)
    if sdk.top_discard(pub) != (sdk.discard_at(pub, k - 1) if k > 0 else -1):
        return -1
    for s in range(np_):
        c = 0
        for size in range(3, 6):
            c += size * sdk.face_down_of_size(pub, s, size)
        if c != sdk.face_down_cards(pub, s):
            return -1
    if dtype == sdk.DT_CLAIM:
        if sdk.claim_card(pub) < 0 or sdk.claim_discarder(pub) == me:
            return -1
        for i in range(n):
            c = options[i]
            if sdk.is_meld(c) and sdk.claim_goes_out(pub, c) != (
                sdk.meld_from_hand(c, True) == sdk.hand_size(pub, me)
            ):
                return -1
    elif sdk.claim_card(pub) != -1:
        return -1
    if dtype == sdk.DT_SELF:
        for i in range(n):
            c = options[i]
            if sdk.is_meld(c) and sdk.self_meld_goes_out(pub, c) != (
                sdk.meld_size(c) == sdk.hand_size(pub, me)
            ):
                return -1
    if dtype == sdk.DT_TAKE:
        t = sdk.trade_target(pub)
        total = 0
        for c in range(sdk.N_TYPES):
            total += sdk.target_hand(pub, c)
        if t < 0 or total != sdk.hand_size(pub, t):
            return -1
    if dtype == sdk.DT_GIVE:
        taken = sdk.trade_taken(pub)
        if taken < 0 or hand[taken] < 1 or sdk.trade_target(pub) < 0:
            return -1
    return sdk.greedy(dtype, hand, pub, options, n, rng)


@njit
def illegal(dtype, hand, pub, options, n, rng):
    """Greedy, but an out-of-range index on every discard once the draw pile is below 130."""
    if dtype == sdk.DT_DISCARD and sdk.draw_pile_size(pub) < 130:
        return n + 2
    return sdk.greedy(dtype, hand, pub, options, n, rng)
