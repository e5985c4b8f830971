"""ATLAS rule options: the one table (docs/RULES-atlas.md). Row order = kernel rule-array offset."""

from kernels.options import OptionTable, RuleOption

OPTIONS = OptionTable(
    "atlas",
    (
        RuleOption("self_melds", "AT-07", "any", "who may self-meld after drawing: any player, "
                   "or only the next player in the turn after their claim",
                   ("any", "after_claim_only")),
        RuleOption("all_wild_melds", "AT-11", False, "allow melds made of ATLAS cards only"),
        RuleOption("forced_claims", "AT-12", False, "a player must claim whenever able"),
        RuleOption("claim_turn", "AT-15", "stay", "after a claim: turn order unchanged (stay) or "
                   "the claimant discards at once and play continues from them (jump)",
                   ("stay", "jump")),
        RuleOption("reverse_two_players", "AT-18", "skip", "REVERSE with 2 players acts as SKIP, "
                   "or has no effect", ("skip", "none")),
        RuleOption("trade_pick", "AT-19", "blind", "TRADE takes a random card (blind) or a card "
                   "chosen from the target's hand (seen)", ("blind", "seen")),
        RuleOption("last_discard_wins", "AT-22", False, "discarding the last card wins (rummy "
                   "style)"),
        RuleOption("exhausted", "AT-23", "reshuffle", "empty draw pile: reshuffle the discards, "
                   "or end the round with no winner", ("reshuffle", "no_winner")),
        RuleOption("turn_cap", "AT-23", 2000, "turns after which a round ends with no winner",
                   min=1, max=1_000_000),
        RuleOption("rounds", "AT-25", 1, "rounds in a match", min=1, max=100),
    ),
)  # fmt: skip
