"""ATLAS output tables (schema v2), declared once: docs/atlas-columns.md documents these rows.

The kernel writes structured records (kernels/atlas/driver.py ``GAMES_DTYPE``,
``SEATS_DTYPE``); these declarations publish them: ``_sN`` seat suffixes, Enums for categories,
null ``winner`` / ``winner_points`` for a round without a winner.
"""

from __future__ import annotations

import polars as pl
from cardsim.kernels.atlas.encoding import END_NAMES
from cardsim.sim.schema import Column, TableSchema


def _no_winner(env: dict) -> pl.Expr:
    return pl.col("winner") < 0


def _count(name: str, doc: str) -> Column:
    return Column(name, pl.Int32, doc)


def _strategy(ctx, env) -> pl.Expr:
    return pl.lit(ctx.seat_labels[env["s"]])


def _seat_strategy(ctx, env) -> pl.Expr:
    return pl.col("seat").replace_strict(dict(enumerate(ctx.seat_labels)), return_dtype=pl.String)


GAMES = TableSchema(
    "games",
    (
        Column("game", pl.Int64, "game index in the run (joins the two tables; same deal for "
               "the same seed and index)"),
        Column("round", pl.Int16, "round of the match, 0-based (AT-25)"),
        Column("players", pl.Int8, "number of players, 2–10 (AT-03)"),
        Column("first_player", pl.Int8, "seat that moved first: 0 in round 0, then the previous "
               "winner, or after a round without winner the seat after the previous first "
               "player (AT-04, AT-25)"),
        _count("direction_changes", "times REVERSE flipped the direction (never with 2 players, "
               "AT-18)"),
        Column("winner", pl.Int8, "winning seat; null when the round had no winner",
               null_if=_no_winner),
        Column("end", None, "how the round ended: `claim` (a claim emptied the hand, AT-20), "
               "`self_meld` (AT-20), `last_card_draw` (AT-21), `last_card_claim` (AT-21), "
               "`action_card` (AT-21), `no_winner` (AT-23), `turn_cap` (AT-23), "
               "`last_discard` (`last_discard_wins=true`, AT-22)", labels=tuple(END_NAMES)),
        _count("turns", "turns played, including `claim_turn=jump` turns"),
        _count("reshuffles", "times the discard pile became the draw pile (AT-23)"),
        Column("winner_points", pl.Int32, "the winner's score: the AT-05 value of every other "
               "hand (ATLAS 3, action 2, matching 1 unless AT-D4 sets them); null when nobody won "
               "(AT-24)",
               null_if=_no_winner),
        _count("triples", "三配 melds laid, claims and self-melds (AT-10)"),
        _count("quads", "四配 melds laid"),
        _count("fives", "五配 melds laid"),
        _count("youxian_claims", "successful 優先配 claims (AT-14): the same-species triple; with "
               "`claim_priority=nearest_win`, claims whose claimant held ≥ 2 natural cards of "
               "the discard's species"),
        _count("last_card_pairs", "rounds won by a last-card pair, by draw or by claim (0 or 1, "
               "AT-21)"),
        _count("claims", "successful claims of discards, PAIR claims included (AT-12)"),
        _count("self_melds", "self-melds laid (AT-07)"),
        _count("skips", "SKIP cards discarded (AT-17)"),
        _count("reverses", "REVERSE cards discarded (AT-18)"),
        _count("trades", "TRADE cards discarded (AT-19; the trade itself may be declined)"),
        _count("atlas_used", "ATLAS cards in melds, a claimed ATLAS discard included (AT-11)"),
        Column("strategy_s{s}", lambda c: c.strategy_dtype, "strategy label of seat N "
               "(`strategy_s0` … `strategy_s{n-1}`): a built-in name or `stem:function` of a "
               "user file", expr=_strategy),
    ),
)  # fmt: skip

SEATS = TableSchema(
    "seats",
    (
        Column("game", pl.Int64, "game index"),
        Column("round", pl.Int16, "round of the match"),
        Column("seat", pl.Int8, "seat, clockwise 0..n−1 (AT-04)"),
        Column("position", pl.Int8, "steps after the round's first player, clockwise: "
               "`(seat − first_player) mod n`"),
        Column("strategy", lambda c: c.strategy_dtype, "the seat's strategy label (same Enum as "
               "`strategy_sN`)", expr=_seat_strategy),
        Column("atlas_dealt", pl.Int8, "ATLAS cards in the dealt hand (of `hand_size` cards, "
               "13 unless AT-D1 sets it)"),
        Column("skip_dealt", pl.Int8, "SKIP cards dealt"),
        Column("reverse_dealt", pl.Int8, "REVERSE cards dealt"),
        Column("trade_dealt", pl.Int8, "TRADE cards dealt"),
        Column("cards_left", pl.Int16, "cards in hand when the round ended (0 for the winner)"),
        Column("hand_value", pl.Int16, "AT-05 value of those cards (values: AT-D4)"),
        Column("points", pl.Int32, "points scored this round: `winner_points` for the winner, "
               "else 0 (AT-24)"),
        Column("won", pl.Boolean, "this seat won the round"),
        Column("melds_by_seat", pl.Int16, "melds this seat laid (claims and self-melds; PAIR "
               "wins are not melds)"),
        Column("claims_by_seat", pl.Int16, "successful claims by this seat, PAIR included"),
    ),
)  # fmt: skip
