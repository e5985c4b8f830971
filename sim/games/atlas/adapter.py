"""ATLAS ``py:`` strategies (:func:`play_atlas`): a ``py:`` strategy is ``choose(view, dtype,
options[, rng]) -> code`` with :class:`cardsim.sim.games.atlas.reference.rules.View`, the options in the kernel's
order; the scripted built-ins get the kernel's public block, rebuilt from what the View shows (AT-26)
plus the round's turn counter, and the kernel's own strategy functions. Every move is also
played, as it is made, on a **kernel mirror** of the match (:class:`_Mirror`: the kernel's
state array moved on by the match engine's own ``new_match`` / ``legal`` / ``apply``,
``kernels/atlas/engine.py``, with the kernel's deal and event streams): the search strategies (``pimc``, ``ismcts``) and the
``greedy:eps`` / ``soft`` levels read that state exactly as the driver hands it to them. The
mirror's decision (seat, kind, options) is checked against the reference's at every decision
and its winner at the end of every round (a disagreement is an internal error). Shared loading
and records: ``cardsim.sim.python_strategies``.
"""

from __future__ import annotations

import numpy as np
from cardsim.kernels import rng as krng
from cardsim.sim import user_strategies as us
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import RunConfig
from cardsim.sim.python_strategies import BadAnswer, OnBad, PythonStrategy, Seat, load
from cardsim.sim.python_strategies import is_python_strategy as is_python_strategy

_Seat = Seat


def _atlas_seats(config: RunConfig) -> list[_Seat]:
    from dataclasses import replace

    from cardsim.kernels.atlas import driver as drv
    from cardsim.kernels.atlas.ismcts import ISMCTS_BASE
    from cardsim.kernels.atlas.pimc import PIMC_BASE
    from cardsim.kernels.atlas.strategies import LEVEL_BASE, USER_BASE
    from cardsim.sim.games.atlas.seats import STRATEGIES, seat_ids

    builtin = {x.name: x.id for x in STRATEGIES}
    out: list[_Seat] = []
    loaded: dict[str, PythonStrategy] = {}
    for name in config.seats:
        label = us.label(name)
        if is_python_strategy(name):
            if name not in loaded:
                loaded[name] = load(name, ("view", "dtype", "options"))
            out.append(_Seat("python", label, sid=USER_BASE, fn=loaded[name]))
        elif us.is_user_strategy(name):
            fn = us.compiled(name, drv.USER_ARGTYPES)
            out.append(_Seat("numba", label, sid=USER_BASE, fn=fn))
        else:  # a built-in, a level or a search: its kernel id, checked as the driver's
            sid = builtin.get(name, -1)
            if sid < 0:  # parameters, or learned (its id is its weights' row in this process)
                alone = replace(config, seats=(name,) * config.players)
                sid = int(seat_ids(alone)[0][0])
            kind = (
                "level" if sid >= LEVEL_BASE
                else "ismcts" if sid >= ISMCTS_BASE
                else "pimc" if sid >= PIMC_BASE
                else "builtin"
            )  # fmt: skip
            out.append(_Seat(kind, label, sid=sid))
    return out


class _Mirror:
    """The kernel's state of one match, moved on by the match engine's own functions
    (``kernels/atlas/engine.py``: ``new_match``, ``legal``, ``apply``; the kernel's deal and event
    streams of (root seed, game index)), in step with the reference."""

    def __init__(self, config: RunConfig, game: int, rules_arr: np.ndarray, where: str) -> None:
        from cardsim.kernels.atlas import engine
        from cardsim.kernels.atlas.ismcts import BUF_SIZE  # options, then the search's scratch
        from cardsim.kernels.atlas.state import S_LEN

        self.S = np.zeros(S_LEN, np.int32)
        self.opts = np.zeros(BUF_SIZE, np.int32)
        self.rngs = np.empty((2, 4), np.uint64)  # the engine's deal and events streams
        self.n, self.rules, self.where = config.players, rules_arr, where
        engine.new_match(
            self.S, np.int64(self.n), rules_arr, np.uint64(config.seed), np.int64(game), self.rngs
        )
        self.decisions = 0
        self.winners: list[int] = []  # per round played
        self.pending: tuple[int, int, int] | None = None  # the engine's (seat, kind, k)

    def _disagree(self, what: str) -> CardsimError:
        return CardsimError(
            f"internal error: kernel mirror and reference disagree at decision {self.decisions} "
            f"({self.where}): {what}"
        )

    def _next(self) -> tuple[int, int, int]:
        """The engine's next decision; a round that ends on the way has its winner noted (the
        engine deals the next round, AT-25)."""
        from cardsim.kernels.atlas import engine
        from cardsim.kernels.atlas.state import ST_WINNER

        got = self.pending
        self.pending = None
        if got is None:
            got = engine.legal(self.S, self.rules, self.opts, self.rngs)
        while int(got[2]) == 0:
            self.winners.append(int(self.S[ST_WINNER]))
            if engine.is_over(self.S):
                return -1, -1, 0
            got = engine.legal(self.S, self.rules, self.opts, self.rngs)
        return int(got[0]), int(got[1]), int(got[2])

    def check(self, result) -> None:
        """At the match's end: every round finished, the winners the reference's."""
        p, _kind, _n = self._next()
        if p >= 0:
            raise self._disagree(f"the kernel asks seat {p} after the match's end")
        ref = [-1 if out["winner"] is None else int(out["winner"]) for out in result.rounds]
        if self.winners != ref:
            raise self._disagree(f"round winners {self.winners} vs {ref}")

    def decision(self, view, dtype: int, options: list[int]) -> tuple[int, np.ndarray]:
        """Move the mirror to the reference's decision (the engine deals a new round when one
        starts): the deciding seat and the options in the kernel's order (the order a Numba
        strategy gets), checked against the reference's set and round."""
        from cardsim.kernels.atlas.state import P_ROUND

        p, kind, n = self._next()
        mine = sorted(int(c) for c in self.opts[:n])
        r = int(self.S[P_ROUND])
        if (r, p, kind, mine) != (view.round, view.seat, dtype, sorted(options)):
            raise self._disagree(
                f"round {r} seat {p} decision {kind} options {mine} vs round {view.round} seat "
                f"{view.seat} decision {dtype} options {sorted(options)}"
            )
        return p, self.opts[:n].copy()

    def answer(self, seat: _Seat, p: int, dtype: int, n: int, rng: np.ndarray) -> int:
        """The code a level or search seat picks on the mirror, as ``driver.decide`` asks it."""
        from cardsim.kernels.atlas.ismcts import choose_ismcts
        from cardsim.kernels.atlas.pimc import choose_pimc
        from cardsim.kernels.atlas.state import P_SEAT, ST_DEC
        from cardsim.kernels.atlas.strategies import choose_level

        self.S[P_SEAT], self.S[ST_DEC] = p, self.decisions
        pick = {"level": choose_level, "pimc": choose_pimc, "ismcts": choose_ismcts}[seat.kind]
        idx = int(pick(self.S, np.int64(p), seat.sid, np.int64(dtype), self.opts, np.int64(n), rng))
        return int(self.opts[idx])

    def play(self, code: int) -> None:
        from cardsim.kernels.atlas import engine

        self.pending = engine.apply(np.int64(code), self.S, self.opts, self.rngs)
        self.decisions += 1


def _atlas_pub(view, dtype: int, rules_arr: np.ndarray, turns: int, taken: int) -> np.ndarray:
    """The kernel's public block (``cardsim.kernels.atlas.state.P_*``) of what ``view`` shows (AT-26)."""
    from cardsim.kernels.atlas import rules as KR
    from cardsim.kernels.atlas import state as ST
    from cardsim.sim.games.atlas.reference.rules import CLAIM

    pub = np.zeros(ST.PUB_LEN, np.int32)
    claim = dtype == CLAIM
    pub[ST.P_N] = view.n_players
    pub[ST.P_DIR] = view.direction
    pub[ST.P_DRAW] = view.draw_pile_size
    pub[ST.P_NDISC] = len(view.discard_pile)
    pub[ST.P_SEAT] = view.seat
    pub[ST.P_TURN] = view.discarder if claim else view.seat
    pub[ST.P_DISCARDER] = view.discarder if claim else -1
    pub[ST.P_CARD] = view.discard if claim else -1
    pub[ST.P_TAKEN] = taken
    pub[ST.P_TARGET] = -1 if view.trade_target is None else view.trade_target
    pub[ST.P_ROUND] = view.round
    pub[ST.P_TURNS] = turns
    pub[ST.P_SIZES : ST.P_SIZES + view.n_players] = view.hand_sizes
    for _seat, cards in view.melds:
        for c in cards:
            pub[ST.P_MELDED + c] += 1
    for i, c in enumerate(view.discard_pile):
        pub[ST.P_DISCC + c] += 1
        pub[ST.P_DISCSEQ + i] = c
    if view.target_hand is not None:
        for c in view.target_hand:
            pub[ST.P_TARGET_HAND + c] += 1
    pub[ST.P_RULES : ST.P_RULES + len(rules_arr)] = rules_arr
    KR.set_design(pub, rules_arr)  # the design block (AT-D1..D4), as the kernel writes it
    for q, size in view.face_down:
        pub[ST.P_FD_MELDS + q] += 1
        pub[ST.P_FD_CARDS + q] += size
        pub[ST.P_FD_SIZES + 3 * q + size - 3] += 1
    pub[ST.P_STANDING : ST.P_STANDING + len(view.standing)] = view.standing  # AT-25, AT-26
    return pub


def _atlas_rows(config, game, result, decks, seats, games, seat_rows) -> None:
    """The kernel's records (driver.GAMES_DTYPE / SEATS_DTYPE) of one reference match."""
    from cardsim.kernels.atlas.encoding import ATLAS
    from cardsim.sim.games.atlas.reference.rules import deal_hands

    n = config.players
    for r, out in enumerate(result.rounds):
        g = games[r]
        g["game"], g["round"], g["players"] = game, r, n
        for key in (
            "first_player", "direction_changes", "winner", "end", "turns", "reshuffles",
            "winner_points", "triples", "quads", "fives", "youxian_claims", "last_card_pairs",
            "claims", "self_melds", "skips", "reverses", "trades", "atlas_used",
        ):  # fmt: skip
            g[key] = out[key]
        hands, _pile = deal_hands(decks[r], n)
        first = out["first_player"]
        for s in range(n):
            row = seat_rows[r * n + s]
            row["game"], row["round"], row["seat"] = game, r, s
            row["position"] = (s - first + n) % n
            row["strategy_id"] = np.int64(seats[s].sid).astype(np.int16)  # wraps as the kernel's
            for k, name in enumerate(("atlas_dealt", "skip_dealt", "reverse_dealt", "trade_dealt")):
                row[name] = hands[s].count(ATLAS + k)
            for key in ("cards_left", "hand_value", "points", "melds_by_seat", "claims_by_seat"):
                row[key] = out[key][s]
            row["won"] = out["winner"] == s


def _atlas_returned(got: object, ref) -> str:
    """What an illegal ``py:`` ATLAS answer was: a code that is not legal here, or no code."""
    from cardsim.kernels.atlas.encoding import PAIR

    if isinstance(got, int | np.integer) and not isinstance(got, bool) and got >= 0:
        if got < PAIR:  # a meld code: its cards depend on a hand it may not fit
            return f"{int(got)} (a meld or no-claim code), not a legal code"
        try:
            return f"{int(got)} ({ref.describe(int(got))}), not a legal code"
        except ValueError:
            pass
    return f"{got!r}, not a move code (return one of the codes in options)"


def _hand_and_taken(view, dtype: int, now: dict) -> tuple[np.ndarray, int]:
    """The viewer's hand counts and, at a TRADE give, the card the TRADE brought (``P_TAKEN``;
    -1 otherwise): the hand before the TRADE is kept in ``now`` at the target decision."""
    from cardsim.sim.games.atlas.reference import rules as ref

    hand = np.zeros(64, np.int32)
    for c in view.hand:
        hand[c] += 1
    if dtype == ref.TARGET:
        now["before_trade"] = hand.copy()
    taken = -1
    if dtype == ref.GIVE and now["before_trade"] is not None:
        diff = np.flatnonzero(hand > now["before_trade"])
        taken = int(diff[0]) if len(diff) else -1
    return hand, taken


def _bad_record(seat: _Seat, view, dtype: int, codes, game: int, decision: int, returned: str):
    """The :class:`BadAnswer` of an illegal answer: the position and every legal option named."""
    from cardsim.sim.games.atlas.reference import rules as ref

    held = ref.names(list(view.hand))
    position = f"round {view.round}, {ref.DECISION_NAMES[dtype]} decision, hand {held}"
    legal = []
    for c in codes:
        try:
            legal.append(ref.describe(int(c)))
        except ValueError:
            legal.append(str(int(c)))
    return BadAnswer(seat.label, game, decision, view.seat, position, returned, legal)


def _play_atlas_match(config, game, rules, rules_arr, seats, games, seat_rows, on_bad):
    """One ATLAS match on the reference engine; fills the kernel's records."""
    import sys

    from cardsim.kernels.atlas.strategies import SUMMARY_LEN, choose
    from cardsim.sim.games.atlas.reference import rules as ref

    rng2 = krng.new_stream(np.uint64(config.seed), np.uint64(game), krng.STREAM_STRATEGY)
    sm = np.zeros(SUMMARY_LEN, np.int32)
    now = {"decision": 0, "bad": 0, "before_trade": None}
    where = f"seed {config.seed}, game {game}"
    mirror = _Mirror(config, game, rules_arr, where)

    def chooser(view, dtype, options):
        frame = sys._getframe(1)  # Round._ask: the round's turn counter is public (P_TURNS)
        rnd = frame.f_locals.get("self")
        turns = int(getattr(rnd, "turns", 0))
        hand, taken = _hand_and_taken(view, dtype, now)
        p, codes = mirror.decision(view, dtype, options)
        n = len(codes)
        code = int(codes[0])
        if n > 1:
            seat = seats[view.seat]
            if seat.kind in ("level", "pimc", "ismcts"):  # they read the kernel's state
                code = mirror.answer(seat, p, dtype, n, rng2)
            else:
                pub = _atlas_pub(view, dtype, rules_arr, turns, taken)
                code = int(codes[_atlas_answer(seat, view, dtype, codes, n, hand, pub)])
        mirror.play(code)
        now["decision"] += 1
        return code

    def _atlas_answer(seat, view, dtype, codes, n, hand, pub):
        if seat.kind == "builtin":
            return int(choose(seat.sid, dtype, hand, pub, codes, n, rng2, sm))
        try:
            if seat.kind == "numba":
                got = seat.fn(
                    np.int64(dtype), hand.copy(), pub.copy(), codes.copy(), np.int64(n), rng2
                )
                if isinstance(got, int | np.integer) and 0 <= got < n:
                    return int(got)
                returned = f"index {got!r} (legal 0..{n - 1})"
            else:
                got = seat.fn(view, dtype, [int(c) for c in codes], rng2)
                for i in range(n):
                    if isinstance(got, int | np.integer) and int(codes[i]) == got:
                        return i
                returned = _atlas_returned(got, ref)
        except CardsimError:
            raise
        except Exception as exc:
            if on_bad is None:
                raise CardsimError(
                    f"user strategy {seat.label} raised {us.describe(exc)} "
                    f"(decision {now['decision']}, {where})"
                ) from None
            returned = f"an exception: {us.describe(exc)}"
        now["bad"] += 1
        record = _bad_record(seat, view, dtype, codes, game, now["decision"], returned)
        if on_bad is None:
            raise CardsimError(f"user strategy {record.text()} ({where})")
        on_bad(record)
        return 0  # as driver.decide

    result = ref.play_match(config.seed, game, config.players, chooser, rules)
    mirror.check(result)
    decks = ref.deal_from_seed(config.seed, game, config.players, rules["rounds"])
    _atlas_rows(config, game, result, decks, seats, games, seat_rows)
    return result


def play_atlas(
    config: RunConfig, first: int, count: int, on_bad: OnBad | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """ATLAS games ``first .. first+count-1`` of a configuration with ``py:`` seats, on the
    reference engine: the kernel's records (``driver.GAMES_DTYPE`` / ``SEATS_DTYPE``)."""
    from cardsim.kernels.atlas import driver as drv
    from cardsim.kernels.atlas.options import OPTIONS

    rules = OPTIONS.resolve(config.rules)
    rules_arr = OPTIONS.array(rules)
    seats = _atlas_seats(config)
    rounds, n = int(rules["rounds"]), config.players
    games = np.zeros(count * rounds, drv.GAMES_DTYPE)
    seat_rows = np.zeros(count * rounds * n, drv.SEATS_DTYPE)
    for i in range(count):
        _play_atlas_match(
            config, first + i, rules, rules_arr, seats,
            games[i * rounds : (i + 1) * rounds],
            seat_rows[i * rounds * n : (i + 1) * rounds * n], on_bad,
        )  # fmt: skip
    return games, seat_rows


def replay_atlas(config: RunConfig, game_index: int) -> str:
    """The reference's readable log of one ATLAS match of a configuration with ``py:`` seats."""
    from cardsim.kernels.atlas import driver as drv
    from cardsim.kernels.atlas.options import OPTIONS

    rules = OPTIONS.resolve(config.rules)
    rounds, n = int(rules["rounds"]), config.players
    games = np.zeros(rounds, drv.GAMES_DTYPE)
    seat_rows = np.zeros(rounds * n, drv.SEATS_DTYPE)
    result = _play_atlas_match(
        config, game_index, rules, OPTIONS.array(rules), _atlas_seats(config), games, seat_rows,
        None,
    )  # fmt: skip
    return "\n".join(result.log)
