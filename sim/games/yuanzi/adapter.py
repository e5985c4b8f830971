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
arrays with the kernel's own functions (``begin_half``, ``legal_moves``, ``apply_move``); the
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
    from cardsim.sim.games.yuanzi import ENGINE

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
            sid = int(ENGINE.strategy_ids([name] * 4)[0][0])
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
    """The kernel's state arrays of one match, moved on with the kernel's own functions."""

    def __init__(self, rules: np.ndarray) -> None:
        from cardsim.kernels.yuanzi.encoding import N_CARDS, N_TYPES
        from cardsim.kernels.yuanzi.ismcts import BUF_SIZE  # pimc's scratch, then ismcts's tree
        from cardsim.kernels.yuanzi.state import N_INFO, N_ST

        self.rules = rules
        self.hands = np.zeros((4, N_TYPES), np.uint8)
        self.played = np.zeros((4, N_TYPES), np.uint8)
        self.st = np.zeros(N_ST, np.int64)
        self.info = np.zeros((4, N_INFO), np.int64)
        self.buf = np.zeros(BUF_SIZE, np.int32)
        self.deck = np.zeros(N_CARDS, np.uint8)

    def begin(self, half: int, deck: Sequence[int], p: int, up0: int) -> None:
        from cardsim.kernels.yuanzi.rules import begin_half
        from cardsim.kernels.yuanzi.state import ST_RULES

        self.deck[:] = np.asarray(deck, np.uint8)
        begin_half(half, self.deck, p, up0, self.hands, self.played, self.st, self.info)
        self.st[ST_RULES : ST_RULES + len(self.rules)] = self.rules  # as play_half does


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
        self.m = _YuanziMirror(rules_arr)
        self.st = self.m.st
        grow[:] = -1
        srows[:, :] = -1
        for s in range(4):
            srows[s, drv.S_TEAM] = s % 2
        self.now = {"half": -1, "decision": 0, "bad": 0, "sj": False, "winner": -1, "t": (0, 0)}
        self.where = f"seed {seed}, game {game}"

    def half_over(self, h: int) -> None:
        """Record half ``h`` (driver._record_half); after the first, its public result."""
        from cardsim.kernels.yuanzi import driver as drv
        from cardsim.kernels.yuanzi import state as KS

        st, now = self.st, self.now
        drv._record_half(h, st, self.m.info, self.grow, self.srows)
        if h == 0:  # YZ-28: the first half's result stays public (driver.play_game)
            up0 = int(st[KS.ST_OUT])
            st[KS.ST_H0_TEAM_PTS] = st[KS.ST_TEAM_PTS]
            st[KS.ST_H0_TEAM_PTS + 1] = st[KS.ST_TEAM_PTS + 1]
            st[KS.ST_H0_UPSTREAM] = up0
            st[KS.ST_H0_NOUT] = st[KS.ST_NOUT]
            for i in range(4):
                st[KS.ST_H0_OUT + i] = st[KS.ST_OUT + i] if i < st[KS.ST_NOUT] else -1
            sj, winner = drv._match_result(st, self.rules_arr)
            now.update(sj=bool(sj), winner=int(winner), up0=up0)
            now["t"] = (int(st[KS.ST_TEAM_PTS]), int(st[KS.ST_TEAM_PTS + 1]))
        else:
            t0 = now["t"][0] + int(st[KS.ST_TEAM_PTS])
            t1 = now["t"][1] + int(st[KS.ST_TEAM_PTS + 1])
            now["winner"] = now["up0"] % 2 if t0 == t1 else (0 if t0 > t1 else 1)

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
        from cardsim.kernels.yuanzi import state as KS
        from cardsim.kernels.yuanzi.encoding import PASS
        from cardsim.kernels.yuanzi.rules import apply_move, legal_moves

        m, st, now = self.m, self.st, self.now
        if view.half != now["half"]:
            if view.half == 0:
                m.begin(0, self.deal.deck0, self.deal.p0, 0)
            else:
                m.begin(1, self.deal.deck1, self.deal.p1, now["up0"])
            now["half"] = view.half
        n = int(legal_moves(m.hands, st, self.rules_arr, m.buf))
        codes = m.buf[:n].copy()
        if int(st[KS.ST_ACTOR]) != view.seat or sorted(map(int, codes)) != sorted(legal):
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
        if apply_move(np.int32(code), m.hands, m.played, st, self.rules_arr) == 1:
            self.half_over(view.half)
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
        """The match's result in the game and seat rows, checked against the reference's."""
        from cardsim.kernels.yuanzi import driver as drv

        grow, srows, now = self.grow, self.srows, self.now
        grow[drv.G_SECOND] = 0 if now["sj"] else 1
        grow[drv.G_SHUANGJIA] = 1 if now["sj"] else 0
        grow[drv.G_WINNER] = now["winner"]
        unit = 2 if now["sj"] else 1
        for s in range(4):
            d = unit if s % 2 == now["winner"] else -unit
            grow[drv.G_DELTA + s] = d
            srows[s, drv.S_DELTA] = d
            srows[s, drv.S_WON] = 1 if d > 0 else 0
        grow[drv.G_BAD] = now["bad"]
        out = result.outcome
        if out["winner_team"] != now["winner"] or list(out["delta"]) != list(
            grow[drv.G_DELTA : drv.G_DELTA + 4]
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
