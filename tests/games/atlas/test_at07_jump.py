"""AT-07 under ``claim_turn=jump`` (docs/RULES-atlas.md AT-07, revised 2026-12-06; issue 45
item 8): the claimant takes the turn after the claim, so it is the next player of that moment
and may self-meld in its jump turn wherever it sits — a deliberate extension of the text. Under
``claim_turn=stay`` (AT-15) a claimant that is not the discarder's next player melds and does
nothing else. The reference rules and the kernel agree."""

import numpy as np
import pytest
from cardsim.kernels.atlas import state as ST
from cardsim.kernels.atlas.encoding import DT_DISCARD, DT_SELF, pack_meld

from tests.games.atlas.test_kernel_rules import (
    decisions,
    discard,
    make_state,
    options_of,
    rules,
    sp,
)
from tests.games.atlas.test_rules_play import DISCARD, QUIET, SELF_MELD, D, play

# seat 2 (not the discarder's next player in 3 seats) claims seat 0's Elephant with Giraffe and
# Lion, and then holds the triple Asia Land (Orangutan, Giant Panda, Tiger) and a Peacock
CLAIMANT = ["Giraffe", "Lion", "Orangutan", "Giant Panda", "Tiger", "Peacock"]
ASIA_LAND = int(pack_meld(1, 8, 0))


@pytest.mark.parametrize("claim_turn", ["jump", "stay"])
def test_at07_revised_jump_claimant_may_self_meld_reference(claim_turn):
    """AT-07 (revised 2026-12-06), AT-15: in the reference rules, the jump claimant is offered
    its self-meld at once (before its discard); the stay claimant is not (default
    ``self_melds=after_claim_only``)."""
    hands = [["Elephant", "Whale", "Peacock"], QUIET[1], CLAIMANT]
    rule = {"claim_turn": claim_turn, "turn_cap": 2}
    _r, s = play(hands, ["Europe Land 1", "Kauri Tree", "Stingray"], (0, DISCARD, D("Elephant")),
                 rules=rule)  # fmt: skip
    asked = [(seat, t) for seat, t, _ in s.asked]
    if claim_turn == "jump":
        i = asked.index((2, SELF_MELD))
        assert ASIA_LAND in s.asked[i][2]
        assert (2, DISCARD) in asked[i + 1 :]  # then it discards: its turn
        assert (1, DISCARD) not in asked[:i]  # before seat 1 plays
    else:
        assert (2, SELF_MELD) not in asked


@pytest.mark.parametrize("jump", [1, 0])
def test_at07_revised_jump_claimant_may_self_meld_kernel(jump):
    """AT-07 (revised 2026-12-06), AT-15: the kernel's turn engine offers the jump claimant the
    same self-meld (seat 2 of 4 claims seat 0's discard, then may lay Asia Land); under
    ``stay`` the claimant gets no decision and seat 1 plays next."""
    x = sp(0, 0, 0)
    asia_land = [sp(2, 0, 0), sp(2, 0, 1), sp(2, 0, 2)]
    S = make_state(
        4,
        {
            0: [x, x],
            1: [20, 21, 33],
            2: [sp(0, 0, 1), sp(0, 0, 2), *asia_land, 51, 52],
            3: [40, 41, 45],
        },
    )
    nxt, tr = discard(S, 0, rules(jump=jump))
    rows = [(seat, kind) for _r, seat, kind, _n, _c in decisions(tr)]
    if jump:
        i = rows.index((2, DT_SELF))
        assert ASIA_LAND in options_of(tr, i) and rows[-1] == (2, DT_DISCARD) and nxt == 3
    else:
        assert (2, DT_SELF) not in rows and nxt == 1
        assert np.count_nonzero(S[ST.HANDS + 2 * 64 : ST.HANDS + 3 * 64]) == 5
