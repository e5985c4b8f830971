"""ATLAS rule options: the one table (docs/RULES-atlas.md). Row order = kernel rule-array offset.

The first rows are readings of the rule text (AT-nn); the last rows are the design parameters
(AT-Dn, docs/RULES-atlas.md "Design parameters"): numbers a designer turns, whose defaults are the
printed game. The deck must deal ``hand_size`` cards to every player and leave a card to draw:
:func:`check_deal`, the table's cross-option check.
"""

from collections.abc import Mapping

from cardsim.kernels.atlas.encoding import MAX_HAND_SIZE, MAX_SPECIAL, N_SPECIES
from cardsim.kernels.options import OptionTable, RuleOption, RuleOptionError, Value

#: The options that set how many of each special card the deck has (AT-D2, AT-D3), in card-id
#: order (ATLAS, SKIP, REVERSE, TRADE).
SPECIAL_COUNTS = ("atlas_cards", "skip_cards", "reverse_cards", "trade_cards")
#: The matching cards of every deck: 60 species × 3 copies (AT-02; not a design parameter).
MATCHING_CARDS = 3 * N_SPECIES
MAX_VALUE = 20


def deck_size(values: Mapping[str, Value]) -> int:
    """Cards in the deck of resolved rule ``values``: 180 matching + the specials (AT-D2, AT-D3)."""
    return MATCHING_CARDS + sum(int(values[k]) for k in SPECIAL_COUNTS)


def check_deal(values: Mapping[str, Value], players: int | None) -> None:
    """AT-D1: ``hand_size`` cards to each of ``players`` must leave at least one card in the draw
    pile (the first turn draws, AT-06). Without a player count, the fewest players (2) are checked.

    >>> check_deal({**OPTIONS.defaults(), "hand_size": 20, "atlas_cards": 0}, 10)
    Traceback (most recent call last):
    ...
    cardsim.kernels.options.RuleOptionError: rule option hand_size: 20 cards × 10 players = 200, but the deck has 198 cards and must keep one to draw (AT-D1); with 10 players hand_size is at most 19
    """
    n = 2 if players is None else int(players)
    hand, deck = int(values["hand_size"]), deck_size(values)
    if hand * n >= deck:
        raise RuleOptionError(
            f"rule option hand_size: {hand} cards × {n} players = {hand * n}, but the deck has "
            f"{deck} cards and must keep one to draw (AT-D1); with {n} players hand_size is at "
            f"most {(deck - 1) // n}"
        )


OPTIONS = OptionTable(
    "atlas",
    (
        RuleOption("self_melds", "AT-07", "after_claim_only", "who may self-meld after "
                   "drawing: only the next player in the turn after their claim (the text), or "
                   "any player on every turn", ("any", "after_claim_only"), role="reading"),
        RuleOption("all_wild_melds", "AT-11", False, "allow melds made of ATLAS cards only", role="reading"),
        RuleOption("forced_claims", "AT-12", True, "a player must claim whenever able (false: "
                   "claiming is a strategy decision)", role="reading"),
        RuleOption("claim_turn", "AT-15", "stay", "after a claim: turn order unchanged (stay) or "
                   "the claimant discards at once and play continues from them (jump)",
                   ("stay", "jump"), role="reading"),
        RuleOption("reverse_two_players", "AT-18", "skip", "REVERSE with 2 players acts as SKIP, "
                   "or has no effect", ("skip", "none"), role="reading"),
        RuleOption("trade_pick", "AT-19", "blind", "TRADE takes a random card (blind) or a card "
                   "chosen from the target's hand (seen)", ("blind", "seen"), role="reading"),
        RuleOption("last_discard_wins", "AT-22", False, "discarding the last card wins (rummy "
                   "style)", role="reading"),
        RuleOption("exhausted", "AT-23", "reshuffle", "empty draw pile: reshuffle the discards, "
                   "or end the round with no winner", ("reshuffle", "no_winner"), role="reading"),
        RuleOption("turn_cap", "AT-23", 2000, "turns after which a round ends with no winner",
                   min=1, max=1_000_000, role="setting"),
        RuleOption("rounds", "AT-25", 1, "rounds in a match", min=1, max=100, role="setting"),
        RuleOption("claim_priority", "AT-14", "text", "claim priority: the text's (last-card pair "
                   "absolute, then winning claims, 優先配 = same-species triple) or nearest_win "
                   "(all winning claims by distance)", ("text", "nearest_win"), role="reading"),
        RuleOption("self_melds_shown", "AT-26", False, "self-melds are shown like claims (false: "
                   "face down, others see only that one was laid and its size)", role="reading"),
        # design parameters (AT-Dn): the printed game by default
        RuleOption("hand_size", "AT-D1", 13, "cards dealt to each player (the deck must keep one "
                   "to draw)", min=7, max=MAX_HAND_SIZE, role="design"),
        RuleOption("atlas_cards", "AT-D2", 6, "ATLAS (wild) cards in the deck", min=0,
                   max=MAX_SPECIAL, role="design"),
        RuleOption("skip_cards", "AT-D3", 6, "SKIP cards in the deck", min=0, max=MAX_SPECIAL, role="design"),
        RuleOption("reverse_cards", "AT-D3", 6, "REVERSE cards in the deck", min=0,
                   max=MAX_SPECIAL, role="design"),
        RuleOption("trade_cards", "AT-D3", 6, "TRADE cards in the deck", min=0, max=MAX_SPECIAL, role="design"),
        RuleOption("atlas_value", "AT-D4", 3, "points an ATLAS left in a loser's hand is worth",
                   min=0, max=MAX_VALUE, role="design"),
        RuleOption("action_value", "AT-D4", 2, "points an action card left in a loser's hand is "
                   "worth", min=0, max=MAX_VALUE, role="design"),
        RuleOption("matching_value", "AT-D4", 1, "points a matching card left in a loser's hand "
                   "is worth", min=0, max=MAX_VALUE, role="design"),
    ),
    check=check_deal,
)  # fmt: skip
