"""Plain-Python strategies for prototyping: ``py:path/to/file.py:function`` (docs/strategies.md).

A seat named ``py:bots/mine.py:choose`` runs a plain Python function written against the
readable reference's :class:`cardsim.sim.games.yuanzi.reference.rules.View` — no Numba, no offsets::

    def choose(view, legal, rng):        # rng is optional: def choose(view, legal) works too
        return legal[0]                  # one of the codes in ``legal``

It goes through the same commands as every strategy (``cardsim run``, ``compare``,
``strategy check``, ``replay``). A configuration with a ``py:`` seat plays every game on the
reference engine (``cardsim.sim.games.yuanzi.reference.rules.play_match``), at the reference's speed, with the same
deals (stream 0 of (root seed, game index)) and the same strategy stream (stream 2: ``rng``
is that uint64[4] state; ``cardsim.kernels.rng.bounded(rng, n)`` draws from it as in a kernel
strategy). ``legal`` is in the kernel's order, the order a Numba strategy gets, so a strategy
ported line by line between the two forms makes the same choices and yields identical tables
(tests/test_sdk.py).

How the other seats decide: every move is mirrored, as it is played, in the kernel's own state
arrays by the match engine (kernels/yuanzi/engine.py: ``new_match``, ``legal``, ``apply``,
``start_half``; it judges the halves' ends, 双夹, the winner and the match scores); the
built-in strategies (``pimc`` included) and Numba user strategies are called on that mirror
exactly as the driver calls them, and the tables are filled by the driver's own
``_record_half``. The mirror's legal set is checked against the reference's at every decision
and its result against the reference's at the end of every match (a disagreement is an
internal error, never a silent difference).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from cardsim.kernels import rng as krng
from cardsim.sim import user_strategies as us
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import RunConfig
from cardsim.sim.python_strategies import BadAnswer, OnBad, PythonStrategy, Seat, load
from cardsim.sim.python_strategies import is_python_strategy as is_python_strategy

_Seat = Seat


def _yuanzi_seats(seats: Sequence[str]) -> list[_Seat]:
    from cardsim.kernels.yuanzi.ismcts import ISMCTS_BASE
    from cardsim.kernels.yuanzi.pimc import PIMC_BASE
    from cardsim.kernels.yuanzi.strategies import LEVEL_BASE  # greedy:eps / soft, above pimc's ids
    from cardsim.sim.games.yuanzi.seats import strategy_ids

    out: list[_Seat] = []
    loaded: dict[str, PythonStrategy] = {}
    for name in seats:
        label = us.label(name)
        if is_python_strategy(name):
            if name not in loaded:
                loaded[name] = load(name)
            out.append(_Seat("python", label, fn=loaded[name]))
        elif us.is_user_strategy(name):
            from cardsim.kernels.yuanzi import driver as drv

            out.append(_Seat("numba", label, fn=us.compiled(name, drv.USER_ARGTYPES)))
        else:
            sid = int(strategy_ids([name] * 4)[0][0])
            kind = (
                "level"
                if sid >= LEVEL_BASE
                else "ismcts"
                if sid >= ISMCTS_BASE
                else "pimc"
                if sid >= PIMC_BASE
                else "builtin"
            )
            out.append(_Seat(kind, label, sid=sid))
    return out


class _YuanziMirror:
    """The kernel's state arrays of one match, dealt and moved on by the match engine
    (kernels/yuanzi/engine.py)."""

    def __init__(self, rules: np.ndarray, seed: int, game: int) -> None:
        from cardsim.kernels.yuanzi import engine
        from cardsim.kernels.yuanzi.encoding import N_CARDS, N_TYPES
        from cardsim.kernels.yuanzi.ismcts import BUF_SIZE  # pimc's scratch, then ismcts's tree
        from cardsim.kernels.yuanzi.state import N_INFO, N_ST

        self.rules = rules
        self.decks = np.zeros((engine.N_HALVES, N_CARDS), np.uint8)
        self.pos = np.zeros(engine.N_HALVES, np.int64)
        self.hands = np.zeros((4, N_TYPES), np.uint8)
        self.played = np.zeros((4, N_TYPES), np.uint8)
        self.st = np.zeros(N_ST, np.int64)
        self.info = np.zeros((4, N_INFO), np.int64)
        self.buf = np.zeros(BUF_SIZE, np.int32)
        engine.new_match(
            np.uint64(seed), np.int64(game), rules, self.decks, self.pos, self.hands,
            self.played, self.st, self.info, np.zeros(4, np.uint64),
        )  # fmt: skip

    def deals_as(self, deal) -> bool:
        """Whether the engine dealt the reference's ``deal`` (both halves)."""
        return [list(map(int, self.decks[0])), int(self.pos[0])] == [deal.deck0, deal.p0] and [
            list(map(int, self.decks[1])),
            int(self.pos[1]),
        ] == [deal.deck1, deal.p1]


def _yuanzi_position(view, ref) -> str:
    """A one-line summary of a 原子 View (what the strategy saw)."""
    if view.top == 0:
        trick = "leading"
    else:
        trick = f"top {ref.describe_code(view.top)} by seat {view.top_seat}"
    return (
        f"half {view.half}, 刀 {view.dao_name}, hand {view.hand_text or '-'}, {trick}, "
        f"trick points {view.trick_points}, cards held {list(view.hand_sizes)}"
    )


def _play_yuanzi_match(
    seed: int,
    game: int,
    rules: dict,
    rules_arr: np.ndarray,
    seats: list[_Seat],
    grow: np.ndarray,
    srows: np.ndarray,
    on_bad: OnBad | None,
):
    """One match on the reference engine with the kernel mirror; fills ``grow`` / ``srows``."""
    from cardsim.sim.games.yuanzi.reference import rules as ref

    deal = ref.deal_from_seed(seed, game, rules)
    match = _MirroredMatch(seed, game, deal, rules_arr, seats, grow, srows, on_bad)
    result = ref.play_match(deal, match.choose, rules)
    match.record(result)
    return result, match.now["decision"]


class _MirroredMatch:
    """A match as the reference plays it, every move mirrored in the kernel's state arrays:
    the kernel seats decide on the mirror (as the driver calls them), user seats on the
    reference's view; the table rows are filled as the driver fills them."""

    def __init__(self, seed, game, deal, rules_arr, seats, grow, srows, on_bad) -> None:
        from cardsim.kernels.yuanzi import driver as drv

        self.deal, self.rules_arr, self.seats, self.on_bad = deal, rules_arr, seats, on_bad
        self.grow, self.srows = grow, srows
        self.game = game
        self.rng = krng.new_stream(np.uint64(seed), np.uint64(game), krng.STREAM_STRATEGY)
        self.m = _YuanziMirror(rules_arr, seed, game)
        self.st = self.m.st
        grow[:] = -1
        srows[:, :] = -1
        for s in range(4):
            srows[s, drv.S_TEAM] = s % 2
        self.now = {"decision": 0, "bad": 0}
        self.where = f"seed {seed}, game {game}"
        if not self.m.deals_as(deal):
            raise CardsimError(f"internal error: kernel and reference deal differ ({self.where})")

    def half_over(self, h: int, status: int) -> None:
        """Record half ``h`` (driver._record_half); after the first, the engine deals the
        second unless the match is over."""
        from cardsim.kernels.yuanzi import driver as drv
        from cardsim.kernels.yuanzi import engine

        m = self.m
        drv._record_half(h, self.st, m.info, self.grow, self.srows)
        if status == engine.HALF_OVER:
            engine.start_half(1, m.decks, m.pos, m.hands, m.played, self.st, m.info, m.rules)

    def bad(self, seat: _Seat, view, codes, returned: str) -> None:
        """An illegal answer: to ``on_bad``, or (without it) the run stops with one line."""
        from cardsim.sim.games.yuanzi.reference import rules as ref

        self.now["bad"] += 1
        record = BadAnswer(
            seat.label,
            self.game,
            self.now["decision"],
            view.seat,
            _yuanzi_position(view, ref),
            returned,
            [ref.describe_code(int(c)) for c in codes],
        )
        if self.on_bad is None:
            raise CardsimError(f"user strategy {record.text()} ({self.where})")
        self.on_bad(record)

    def choose(self, view, legal: list[int]) -> int:
        """The reference's chooser: the seat's move, played on the mirror too."""
        from cardsim.kernels.yuanzi import engine
        from cardsim.kernels.yuanzi import state as KS
        from cardsim.kernels.yuanzi.encoding import PASS

        m, st, now = self.m, self.st, self.now
        n = int(engine.legal(m.hands, st, self.rules_arr, m.buf))
        codes = m.buf[:n].copy()
        if (
            int(st[KS.ST_ACTOR]) != view.seat
            or int(st[KS.ST_HALF]) != view.half
            or sorted(map(int, codes)) != sorted(legal)
        ):
            raise CardsimError(
                f"internal error: kernel mirror and reference disagree at decision "
                f"{now['decision']} ({self.where}): seat {int(st[KS.ST_ACTOR])} vs {view.seat}, "
                f"legal {sorted(map(int, codes))} vs {sorted(legal)}"
            )
        seat = self.seats[view.seat]
        idx = 0
        if n > 1:  # the driver asks a strategy only when it has a choice
            idx = self.answer(seat, view, codes, n)
            if idx is None:
                idx = n - 1 if codes[n - 1] == PASS else 0  # as driver.decide
        code = int(codes[idx])
        status = engine.apply(np.int32(code), m.hands, m.played, st, self.rules_arr)
        if status != engine.CONTINUE:
            self.half_over(view.half, status)
        now["decision"] += 1
        return code

    def answer(self, seat: _Seat, view, codes, n: int) -> int | None:
        """The index ``seat`` picks, or None after an illegal answer (reported)."""
        from cardsim.kernels.yuanzi.ismcts import choose_ismcts
        from cardsim.kernels.yuanzi.pimc import choose_pimc
        from cardsim.kernels.yuanzi.strategies import choose_builtin, choose_level

        m, st, rng, s, rules_arr = self.m, self.st, self.rng, view.seat, self.rules_arr
        if seat.kind == "builtin":
            return int(choose_builtin(seat.sid, m.hands[s], m.played, st, m.buf, n, rng))
        if seat.kind == "level":
            return int(choose_level(seat.sid, m.hands[s], m.played, st, m.buf, n, rng))
        if seat.kind == "pimc":
            return int(choose_pimc(seat.sid, m.hands[s], m.played, st, rules_arr, m.buf, n, rng))
        if seat.kind == "ismcts":
            return int(choose_ismcts(seat.sid, m.hands[s], m.played, st, rules_arr, m.buf, n, rng))
        return self.user_answer(seat, view, codes, n)

    def user_answer(self, seat: _Seat, view, codes, n: int) -> int | None:
        """A user strategy's pick (a Numba one's index, a Python one's code), or None after an
        illegal answer or an exception (reported)."""
        from cardsim.sim.games.yuanzi.reference import rules as ref

        m, s = self.m, view.seat
        try:
            if seat.kind == "numba":
                args = (m.hands[s].copy(), m.played.copy(), self.st.copy(), codes.copy())
                got = seat.fn(*args, np.int64(n), self.rng)
                if isinstance(got, int | np.integer) and 0 <= got < n:
                    return int(got)
                self.bad(seat, view, codes, f"index {got!r} (legal 0..{n - 1})")
                return None
            got = seat.fn(view, [int(c) for c in codes], self.rng)
        except CardsimError:
            raise
        except Exception as exc:
            if self.on_bad is None:
                raise CardsimError(
                    f"user strategy {seat.label} raised {us.describe(exc)} "
                    f"(decision {self.now['decision']}, {self.where})"
                ) from None
            self.bad(seat, view, codes, f"an exception: {us.describe(exc)}")
            return None
        for i in range(n):
            if isinstance(got, int | np.integer) and int(codes[i]) == got:
                return i
        if ref.is_move_code(got):
            what = f"{int(got)} ({ref.describe_code(int(got))}), not a legal code"
        else:  # a number outside the move-code space, or no integer at all
            what = f"{got!r}, not a move code (return one of the codes in legal)"
        self.bad(seat, view, codes, what)
        return None

    def record(self, result) -> None:
        """The match's result (the engine's) in the game and seat rows, checked against the
        reference's."""
        from cardsim.kernels.yuanzi import driver as drv
        from cardsim.kernels.yuanzi import engine

        grow, srows, st, rules = self.grow, self.srows, self.st, self.rules_arr
        if not engine.is_over(st, rules):
            raise CardsimError(
                f"internal error: the kernel mirror's match is not over ({self.where})"
            )
        sj, winner = engine.result(st, rules)
        grow[drv.G_SECOND] = 0 if sj else 1
        grow[drv.G_SHUANGJIA] = 1 if sj else 0
        grow[drv.G_WINNER] = winner
        for s in range(4):
            d = engine.match_score(st, rules, s)
            grow[drv.G_DELTA + s] = d
            srows[s, drv.S_DELTA] = d
            srows[s, drv.S_WON] = 1 if d > 0 else 0
        grow[drv.G_BAD] = self.now["bad"]
        out = result.outcome
        if (
            out["winner_team"] != winner
            or bool(out["shuangjia"]) != bool(sj)
            or list(out["delta"]) != list(grow[drv.G_DELTA : drv.G_DELTA + 4])
        ):
            raise CardsimError(
                f"internal error: kernel mirror and reference disagree on the result ({self.where})"
            )


def play_yuanzi(
    config: RunConfig, first: int, count: int, on_bad: OnBad | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Games ``first .. first+count-1`` of a configuration with ``py:`` seats, on the reference
    engine: the kernel's (games, seats) matrices (``cardsim.kernels.yuanzi.driver`` G_* / S_* layout).

    ``on_bad`` receives every illegal answer (and the game goes on as in the kernel: PASS or
    the first legal code); without it the first one stops the run with one line.
    """
    from cardsim.kernels.yuanzi import driver as drv
    from cardsim.kernels.yuanzi.options import OPTIONS

    rules = OPTIONS.resolve(config.rules)
    rules_arr = OPTIONS.array(rules)
    seats = _yuanzi_seats(config.seats)
    games = np.empty((count, drv.NG), np.int32)
    seat_rows = np.empty((4 * count, drv.NS), np.int32)
    for i in range(count):
        _play_yuanzi_match(
            config.seed,
            first + i,
            rules,
            rules_arr,
            seats,
            games[i],
            seat_rows[4 * i : 4 * i + 4],
            on_bad,
        )
    return games, seat_rows


def replay_yuanzi(config: RunConfig, game_index: int) -> str:
    """The reference's readable log of one match of a configuration with ``py:`` seats."""
    from cardsim.kernels.yuanzi import driver as drv
    from cardsim.kernels.yuanzi.options import OPTIONS

    rules = OPTIONS.resolve(config.rules)
    grow = np.empty(drv.NG, np.int32)
    srows = np.empty((4, drv.NS), np.int32)
    seats = _yuanzi_seats(config.seats)
    result, _ = _play_yuanzi_match(
        config.seed, game_index, rules, OPTIONS.array(rules), seats, grow, srows, None
    )
    return "\n".join(result.log)
