"""原子 output tables (schema v2), declared once: docs/yuanzi-columns.md documents these rows.

The kernel fills int32 matrices (offsets in kernels/yuanzi/driver.py); :func:`raw_games` and
:func:`raw_seats` view them as structured records with compact types, and the declarations
below publish them: ``h1_``/``h2_`` halves, ``_sN`` seats, ``_tN`` teams, every ``h2_`` field
null when the match ended in 双夹 after the first half, Enums for categories.
"""

from __future__ import annotations

import numpy as np
import polars as pl
from cardsim.kernels.yuanzi import driver as drv
from cardsim.kernels.yuanzi.encoding import N_TYPES, card_name
from cardsim.sim.schema import Column, TableSchema

TEAMS = ("南北", "东西")  # team 0 = seats 0, 2; team 1 = seats 1, 3 (YZ-02)
DAO_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")  # by card value
CARDS = tuple(card_name(c) for c in range(N_TYPES))
FALLBACKS = ("indicator", "joker", "point_rank")  # why the 刀 rank is what it is (YZ-06)


def _unplayed(env: dict) -> pl.Expr:
    """A second-half field does not exist when the second half was not played (双夹)."""
    return pl.lit(env["h"] == 2) & (pl.col("second_half") == 0)


def _strategy(ctx, env) -> pl.Expr:
    return pl.lit(ctx.seat_labels[env["s"]])


def _seat_strategy(ctx, env) -> pl.Expr:
    return pl.col("seat").replace_strict(dict(enumerate(ctx.seat_labels)), return_dtype=pl.String)


def _half(pattern, dtype, doc, raw, **kw) -> Column:
    return Column(pattern, dtype, doc, raw=raw, null_if=_unplayed, null_doc=_NULL_H2, **kw)


_NULL_H2 = "`h2_`: null when the match had no second half (双夹)"


GAMES = TableSchema(
    "games",
    (
        Column("game", pl.Int64, "game index in the run; with the run seed it fixes the deal "
               "(common random numbers)"),
        Column("strategy_s{s}", lambda c: c.strategy_dtype, "strategy label of seat N (built-in "
               "name, or `stem:function` of a user file)", expr=_strategy),
        _half("h{h}_dao", None, "the 刀 rank of the half (YZ-06, YZ-07)", "dao_{h0}",
              labels=DAO_RANKS, expr=lambda c, e: pl.col(f"dao_{e['h0']}") - 1),
        _half("h{h}_indicator", None, "the card turned up as 刀 indicator (YZ-05): rank then "
              "suit (D ♦ C ♣ H ♥ S ♠), `SJ` / `BJ` jokers", "indicator_{h0}", labels=CARDS),
        _half("h{h}_dao_fallback", None, "why the 刀 is what it is: `indicator` its rank, `joker` "
              "a joker indicator made 3 the 刀, `point_rank` a point rank (5, 10, K) in the "
              "second half made 3 the 刀 (YZ-06)", "dao_fallback_{h0}", labels=FALLBACKS),
        _half("h{h}_first_receiver", pl.Int8, "seat dealt the first card (YZ-07); it and the next "
              "seat hold 41 cards", "first_receiver_{h0}"),
        _half("h{h}_first_leader", pl.Int8, "seat that led the first trick (YZ-08)",
              "first_leader_{h0}"),
        _half("h{h}_finish_s{s}", pl.Int8, "finish position of seat N: 1 上游, 2, 3 in order out, "
              "4 下游 (both unfinished seats are 4 after a 1-2 finish, YZ-20)",
              "finish_{h0}_s{s}"),
        _half("h{h}_points_s{s}", pl.Int16, "seat N's points after the settlement transfers "
              "(YZ-21 … YZ-23)", "points_{h0}_s{s}"),
        _half("h{h}_team_points_t{t}", pl.Int16, "team N's score in the half (0 南北, 1 东西); "
              "the two add up to 300 (YZ-24)", "team_points_{h0}_t{t}"),
        _half("h{h}_tricks", pl.Int16, "tricks (leads), counting the one open when the half "
              "ended", "tricks_{h0}"),
        _half("h{h}_plays", pl.Int16, "non-pass moves", "plays_{h0}"),
        _half("h{h}_bombs", pl.Int16, "bombs played (4+ cards of a rank, 刀 bombs included)",
              "bombs_{h0}"),
        _half("h{h}_dao_bombs", pl.Int16, "刀 bombs played (natural 刀 cards only)",
              "dao_bombs_{h0}"),
        _half("h{h}_atoms", pl.Int16, "atoms played (原子, joker atoms included)", "atoms_{h0}"),
        _half("h{h}_hydrogens", pl.Int16, "hydrogen bombs played (氢弹)", "hydrogens_{h0}"),
        _half("h{h}_decisions", pl.Int16, "decisions: plays + passes (forced passes included)",
              "decisions_{h0}"),
        Column("second_half", pl.Boolean, "the second half was played (no 双夹)"),
        Column("shuangjia", pl.Boolean, "the match ended in 双夹 after the first half (YZ-25; "
               "threshold `shuangjia_threshold`, YZ-D1)"),
        Column("winner_team", None, "winning team: `南北` (seats 0, 2) or `东西` (seats 1, 3)",
               labels=TEAMS),
        Column("delta_s{s}", pl.Int8, "match score of seat N: ± `match_points_shuangjia` after "
               "双夹, else ± `match_points_win` — by default +2 / −2 and +1 / −1 (YZ-25, YZ-26, "
               "YZ-D2, YZ-D3); the four sum to 0", raw="delta_{s}"),
    ),
)  # fmt: skip

SEATS = TableSchema(
    "seats",
    (
        Column("game", pl.Int64, "game index (joins the games table)"),
        Column("seat", pl.Int8, "0 北, 1 东, 2 南, 3 西 (YZ-02)"),
        Column("team", None, "`南北` (seats 0, 2) or `东西` (seats 1, 3)", labels=TEAMS),
        Column("strategy", lambda c: c.strategy_dtype, "the seat's strategy label (same Enum "
               "as the games table's `strategy_sN`)", expr=_seat_strategy),
        _half("h{h}_cards", pl.Int8, "cards dealt in the half: 41 or 40 (YZ-07)", "cards_{h0}"),
        _half("h{h}_long_hand", pl.Boolean, "the seat was dealt 41 cards (the first receiver and "
              "the next seat)", "long_hand_{h0}"),
        _half("h{h}_dao_cards", pl.Int8, "刀 cards dealt to the seat (the 12 cards of the 刀 "
              "rank; jokers never count)", "dao_cards_{h0}"),
        _half("h{h}_jokers", pl.Int8, "jokers dealt to the seat (0..6)", "jokers_{h0}"),
        _half("h{h}_finish", pl.Int8, "finish position in the half (as `hN_finish_sN`)",
              "finish_{h0}"),
        _half("h{h}_points", pl.Int16, "points in the half after settlement", "points_{h0}"),
        Column("delta", pl.Int8, "the seat's match score (as `delta_sN`)"),
        Column("won", pl.Boolean, "the seat's team won the match"),
    ),
)  # fmt: skip

# --- raw records: the kernel's matrices as structured arrays ---------------------------------
_RAW_GAME: list[tuple[str, str]] = [("game", "i8")]
for _h in (0, 1):
    _RAW_GAME += [
        (f"{k}_{_h}", "i2")
        for k in ("dao", "indicator", "dao_fallback", "first_receiver", "first_leader")
    ]
    _RAW_GAME += [(f"finish_{_h}_s{s}", "i1") for s in range(4)]
    _RAW_GAME += [(f"points_{_h}_s{s}", "i2") for s in range(4)]
    _RAW_GAME += [(f"team_points_{_h}_t{t}", "i2") for t in range(2)]
    _RAW_GAME += [
        (f"{k}_{_h}", "i2")
        for k in ("tricks", "plays", "bombs", "dao_bombs", "atoms", "hydrogens", "decisions")
    ]
_RAW_GAME += [("second_half", "i1"), ("shuangjia", "i1"), ("winner_team", "i1")]
_RAW_GAME += [(f"delta_{s}", "i1") for s in range(4)]  # fmt: skip
#: matrix column of each raw field after ``game``, in _RAW_GAME order
_GAME_COLS = [drv.G_HALF * h + c for h in (0, 1) for c in range(drv.G_HALF)]
_GAME_COLS += [drv.G_SECOND, drv.G_SHUANGJIA, drv.G_WINNER] + [drv.G_DELTA + s for s in range(4)]

_RAW_SEAT_HALF = {"cards": drv.SH_CARDS, "dao_cards": drv.SH_DAO_CARDS,
                  "jokers": drv.SH_JOKERS, "finish": drv.SH_FINISH, "points": drv.SH_POINTS}  # fmt: skip


def raw_games(mat: np.ndarray, first: int) -> np.ndarray:
    """Structured raw records of the kernel's games matrix."""
    out = np.empty(len(mat), dtype=_RAW_GAME)
    out["game"] = first + np.arange(len(mat), dtype=np.int64)
    for (name, _typ), col in zip(_RAW_GAME[1:], _GAME_COLS, strict=True):
        out[name] = mat[:, col]
    return out


def raw_seats(mat: np.ndarray, first: int) -> np.ndarray:
    """Structured raw records of the kernel's seats matrix (4 rows per match)."""
    n = len(mat)
    fields = [("game", "i8"), ("seat", "i1"), ("team", "i1")]
    fields += [(f"{k}_{h}", "i2") for h in (0, 1) for k in (*_RAW_SEAT_HALF, "long_hand")]
    fields += [("second_half", "i1"), ("delta", "i1"), ("won", "i1")]
    out = np.empty(n, dtype=fields)
    out["game"] = first + np.arange(n, dtype=np.int64) // 4
    out["seat"] = np.arange(n) % 4
    out["team"] = mat[:, drv.S_TEAM]
    for h in (0, 1):
        b = drv.S_HALF0 + drv.S_HALF * h
        for k, off in _RAW_SEAT_HALF.items():
            out[f"{k}_{h}"] = mat[:, b + off]
        out[f"long_hand_{h}"] = mat[:, b + drv.SH_CARDS] == 41
    out["second_half"] = mat[:, drv.S_HALF0 + drv.S_HALF + drv.SH_CARDS] > 0
    out["delta"] = mat[:, drv.S_DELTA]
    out["won"] = mat[:, drv.S_WON]
    return out
