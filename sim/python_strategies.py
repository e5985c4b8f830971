"""Plain-Python strategies for prototyping: ``py:path/to/file.py:function`` (docs/strategies.md).

A seat named ``py:bots/mine.py:choose`` runs a plain Python function written against the
readable reference's :class:`cardsim.sim.rules.yuanzi.View` — no Numba, no offsets::

    def choose(view, legal, rng):        # rng is optional: def choose(view, legal) works too
        return legal[0]                  # one of the codes in ``legal``

It goes through the same commands as every strategy (``cardsim run``, ``compare``,
``strategy check``, ``replay``). A configuration with a ``py:`` seat plays every game on the
reference engine (``cardsim.sim.rules.yuanzi.play_match``), at the reference's speed, with the same
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

ATLAS works the same way (:func:`play_atlas`): a ``py:`` strategy is ``choose(view, dtype,
options[, rng]) -> code`` with :class:`cardsim.sim.rules.atlas.View`, the options in the kernel's order;
the other seats get the kernel's public block, rebuilt from what the View shows (AT-26) plus
the round's turn counter, and the kernel's own strategy functions. ``pimc`` cannot sit at an
ATLAS table with a ``py:`` seat (it reads the kernel's whole state as AT-26 allows).
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from cardsim.kernels import rng as krng
from cardsim.sim import user_strategies as us
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import RunConfig

__all__ = [
    "BadAnswer",
    "PythonStrategy",
    "is_python_strategy",
    "load",
    "play_atlas",
    "play_yuanzi",
    "replay_yuanzi",
    "uses_python",
]

is_python_strategy = us.is_python_strategy


def uses_python(seats: Sequence[str]) -> bool:
    """Whether any seat is a plain-Python strategy (``py:``)."""
    return any(is_python_strategy(s) for s in seats)


@dataclass(frozen=True)
class PythonStrategy:
    """A loaded ``py:`` strategy: ``choose(view, legal[, rng]) -> code``."""

    spec: str
    label: str
    function: Callable
    takes_rng: bool

    def __call__(self, *args) -> int:
        """``(view, legal, rng)`` (原子) or ``(view, dtype, options, rng)`` (ATLAS)."""
        return self.function(*args) if self.takes_rng else self.function(*args[:-1])


def load(spec: str, args: tuple[str, ...] = ("view", "legal")) -> PythonStrategy:
    """Import a ``py:path/file.py:function`` strategy (one-line errors: missing file or function,
    an exception on import, a Numba function, a wrong signature). ``args``: the arguments
    before the optional ``rng`` (原子 ``view, legal``; ATLAS ``view, dtype, options``)."""
    strategy = us.parse(us._split_suffix(spec)[0])
    module = us.import_file(strategy)
    fn = getattr(module, strategy.function, None)
    where = f"python strategy {strategy.label} ({strategy.path})"
    if fn is None:
        raise CardsimError(f"{where}: no function {strategy.function!r} in the file")
    if hasattr(fn, "py_func"):
        raise CardsimError(
            f"{where} is a Numba function: drop the 'py:' prefix to run it compiled, or remove "
            "@njit to run it on the reference engine"
        )
    if not callable(fn):
        raise CardsimError(f"{where}: {strategy.function!r} is not a function")
    try:
        params = [
            p
            for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
        ]
    except (TypeError, ValueError):
        params = []
    k = len(args)
    if len(params) not in (k, k + 1):
        sig = ", ".join(args)
        raise CardsimError(
            f"{where}: a Python strategy is choose({sig}) or choose({sig}, rng), "
            f"not one of {len(params)} arguments"
        )
    return PythonStrategy(spec, strategy.label, fn, len(params) == k + 1)


@dataclass
class BadAnswer:
    """An illegal answer of a strategy: where it happened and what was legal."""

    strategy: str  # label
    game: int
    decision: int  # index of the decision in the match (trace order, from 0)
    seat: int
    position: str  # a readable summary of what the seat could see
    returned: str  # what the strategy returned (or the exception it raised)
    legal: list[str] = field(default_factory=list)

    def text(self) -> str:
        return (
            f"{self.strategy}: game {self.game}, decision {self.decision} (seat {self.seat}): "
            f"{self.position}; returned {self.returned}; legal: {', '.join(self.legal)}"
        )


OnBad = Callable[[BadAnswer], None]


# --- 原子 -----------------------------------------------------------------------------------------
@dataclass
class _Seat:
    kind: str  # "builtin", "pimc", "ismcts", "level", "numba", "python"
    label: str
    sid: int = 0
    fn: object = None


def _yuanzi_seats(seats: Sequence[str]) -> list[_Seat]:
    from cardsim.kernels.yuanzi.ismcts import ISMCTS_BASE
    from cardsim.kernels.yuanzi.pimc import PIMC_BASE
    from cardsim.kernels.yuanzi.strategies import LEVEL_BASE  # greedy:eps / soft, above pimc's ids
    from cardsim.sim.games.yuanzi import ENGINE

    out: list[_Seat] = []
    compiled: dict[str, object] = {}
    loaded: dict[str, PythonStrategy] = {}
    for name in seats:
        label = us.label(name)
        if is_python_strategy(name):
            if name not in loaded:
                loaded[name] = load(name)
            out.append(_Seat("python", label, fn=loaded[name]))
        elif us.is_user_strategy(name):
            if name not in compiled:
                from cardsim.kernels.yuanzi import driver as drv

                strategy = us.parse(name)
                fn = us.load(strategy)
                us.check_compiles(strategy, fn, drv.USER_ARGTYPES, label)
                compiled[name] = fn
            out.append(_Seat("numba", label, fn=compiled[name]))
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
    from cardsim.kernels.yuanzi import driver as drv
    from cardsim.kernels.yuanzi import state as KS
    from cardsim.kernels.yuanzi.encoding import PASS
    from cardsim.kernels.yuanzi.ismcts import choose_ismcts
    from cardsim.kernels.yuanzi.pimc import choose_pimc
    from cardsim.kernels.yuanzi.rules import apply_move, legal_moves
    from cardsim.kernels.yuanzi.strategies import choose_builtin, choose_level
    from cardsim.sim.rules import yuanzi as ref

    deal = ref.deal_from_seed(seed, game, rules)
    rng2 = krng.new_stream(np.uint64(seed), np.uint64(game), krng.STREAM_STRATEGY)
    m = _YuanziMirror(rules_arr)
    st = m.st
    grow[:] = -1
    srows[:, :] = -1
    for s in range(4):
        srows[s, drv.S_TEAM] = s % 2
    now = {"half": -1, "decision": 0, "bad": 0, "sj": False, "winner": -1, "t": (0, 0)}
    where = f"seed {seed}, game {game}"

    def half_over(h: int) -> None:
        drv._record_half(h, st, m.info, grow, srows)
        if h == 0:  # YZ-28: the first half's result stays public (driver.play_game)
            up0 = int(st[KS.ST_OUT])
            st[KS.ST_H0_TEAM_PTS] = st[KS.ST_TEAM_PTS]
            st[KS.ST_H0_TEAM_PTS + 1] = st[KS.ST_TEAM_PTS + 1]
            st[KS.ST_H0_UPSTREAM] = up0
            st[KS.ST_H0_NOUT] = st[KS.ST_NOUT]
            for i in range(4):
                st[KS.ST_H0_OUT + i] = st[KS.ST_OUT + i] if i < st[KS.ST_NOUT] else -1
            sj, winner = drv._match_result(st, rules_arr)
            now.update(sj=bool(sj), winner=int(winner), up0=up0)
            now["t"] = (int(st[KS.ST_TEAM_PTS]), int(st[KS.ST_TEAM_PTS + 1]))
        else:
            t0 = now["t"][0] + int(st[KS.ST_TEAM_PTS])
            t1 = now["t"][1] + int(st[KS.ST_TEAM_PTS + 1])
            now["winner"] = now["up0"] % 2 if t0 == t1 else (0 if t0 > t1 else 1)

    def bad(seat: _Seat, view, codes, returned: str) -> None:
        now["bad"] += 1
        record = BadAnswer(
            seat.label,
            game,
            now["decision"],
            view.seat,
            _yuanzi_position(view, ref),
            returned,
            [ref.describe_code(int(c)) for c in codes],
        )
        if on_bad is None:
            raise CardsimError(f"user strategy {record.text()} ({where})")
        on_bad(record)

    def choose(view, legal: list[int]) -> int:
        if view.half != now["half"]:
            if view.half == 0:
                m.begin(0, deal.deck0, deal.p0, 0)
            else:
                m.begin(1, deal.deck1, deal.p1, now["up0"])
            now["half"] = view.half
        n = int(legal_moves(m.hands, st, rules_arr, m.buf))
        codes = m.buf[:n].copy()
        if int(st[KS.ST_ACTOR]) != view.seat or sorted(map(int, codes)) != sorted(legal):
            raise CardsimError(
                f"internal error: kernel mirror and reference disagree at decision "
                f"{now['decision']} ({where}): seat {int(st[KS.ST_ACTOR])} vs {view.seat}, "
                f"legal {sorted(map(int, codes))} vs {sorted(legal)}"
            )
        seat = seats[view.seat]
        idx = 0
        if n > 1:  # the driver asks a strategy only when it has a choice
            idx = _yuanzi_answer(seat, view, codes, n, m, rng2, bad, where)
            if idx is None:
                idx = n - 1 if codes[n - 1] == PASS else 0  # as driver.decide
        code = int(codes[idx])
        if apply_move(np.int32(code), m.hands, m.played, st, rules_arr) == 1:
            half_over(view.half)
        now["decision"] += 1
        return code

    def _yuanzi_answer(seat, view, codes, n, m, rng, bad, where):
        """The index ``seat`` picks, or None after an illegal answer (reported)."""
        s = view.seat
        if seat.kind == "builtin":
            return int(choose_builtin(seat.sid, m.hands[s], m.played, st, m.buf, n, rng))
        if seat.kind == "level":
            return int(choose_level(seat.sid, m.hands[s], m.played, st, m.buf, n, rng))
        if seat.kind == "pimc":
            return int(choose_pimc(seat.sid, m.hands[s], m.played, st, rules_arr, m.buf, n, rng))
        if seat.kind == "ismcts":
            return int(choose_ismcts(seat.sid, m.hands[s], m.played, st, rules_arr, m.buf, n, rng))
        try:
            if seat.kind == "numba":
                args = (m.hands[s].copy(), m.played.copy(), st.copy(), codes.copy())
                got = seat.fn(*args, np.int64(n), rng)
                if isinstance(got, int | np.integer) and 0 <= got < n:
                    return int(got)
                bad(seat, view, codes, f"index {got!r} (legal 0..{n - 1})")
                return None
            got = seat.fn(view, [int(c) for c in codes], rng)
        except CardsimError:
            raise
        except Exception as exc:
            if on_bad is None:
                raise CardsimError(
                    f"user strategy {seat.label} raised {us.describe(exc)} "
                    f"(decision {now['decision']}, {where})"
                ) from None
            bad(seat, view, codes, f"an exception: {us.describe(exc)}")
            return None
        for i in range(n):
            if isinstance(got, int | np.integer) and int(codes[i]) == got:
                return i
        if ref.is_move_code(got):
            what = f"{int(got)} ({ref.describe_code(int(got))}), not a legal code"
        else:  # a number outside the move-code space, or no integer at all
            what = f"{got!r}, not a move code (return one of the codes in legal)"
        bad(seat, view, codes, what)
        return None

    result = ref.play_match(deal, choose, rules)
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
            f"internal error: kernel mirror and reference disagree on the result ({where})"
        )
    return result, now["decision"]


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


def timed_yuanzi(config: RunConfig, count: int, on_bad: OnBad | None = None):
    """:func:`play_yuanzi` of games 0..count-1 and its wall time in seconds."""
    t = time.perf_counter()
    g, s = play_yuanzi(config, 0, count, on_bad)
    return g, s, time.perf_counter() - t


# --- ATLAS ----------------------------------------------------------------------------------------
def _atlas_seats(config: RunConfig) -> list[_Seat]:
    from cardsim.kernels.atlas import driver as drv
    from cardsim.kernels.atlas.pimc import PIMC_BASE
    from cardsim.kernels.atlas.strategies import USER_BASE
    from cardsim.sim.games.atlas import ENGINE

    builtin = {x.name: x.id for x in ENGINE.strategies}
    out: list[_Seat] = []
    compiled: dict[str, object] = {}
    loaded: dict[str, PythonStrategy] = {}
    for name in config.seats:
        label = us.label(name)
        if is_python_strategy(name):
            if name not in loaded:
                loaded[name] = load(name, ("view", "dtype", "options"))
            out.append(_Seat("python", label, sid=USER_BASE, fn=loaded[name]))
        elif us.is_user_strategy(name):
            if name not in compiled:
                strategy = us.parse(name)
                fn = us.load(strategy)
                us.check_compiles(strategy, fn, drv.USER_ARGTYPES, label)
                compiled[name] = fn
            out.append(_Seat("numba", label, sid=USER_BASE, fn=compiled[name]))
        elif name in builtin and builtin[name] < PIMC_BASE:
            out.append(_Seat("builtin", label, sid=builtin[name]))
        else:
            raise CardsimError(
                f"{name}: only the built-ins random, greedy and careful and user strategies can "
                "play ATLAS with a py: seat"
            )
    return out


def _atlas_pub(view, dtype: int, rules_arr: np.ndarray, turns: int, taken: int) -> np.ndarray:
    """The kernel's public block (``cardsim.kernels.atlas.state.P_*``) of what ``view`` shows (AT-26)."""
    from cardsim.kernels.atlas import rules as KR
    from cardsim.kernels.atlas import state as ST
    from cardsim.sim.rules.atlas import CLAIM

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
    return pub


def _atlas_order(view, dtype: int, options: list[int], rules: dict) -> np.ndarray:
    """``options`` in the kernel's order (cardsim.kernels.atlas.turn.legal_moves)."""
    from cardsim.kernels.atlas import state as ST
    from cardsim.kernels.atlas.encoding import N_SPECIES, NONE
    from cardsim.kernels.atlas.rules import claim_meld_options, self_meld_options
    from cardsim.sim.rules.atlas import CLAIM, SELF_MELD

    if dtype not in (CLAIM, SELF_MELD) or (dtype == CLAIM and len(view.hand) == 1):
        return np.asarray(options, np.int32)  # ascending in the kernel too
    S = np.zeros(ST.S_LEN, np.int32)
    q = view.seat
    for c in view.hand:
        S[ST.HANDS + q * 64 + c] += 1
        if c < N_SPECIES:
            S[ST.CELLS + q * ST.N_CELLS + c // 3] += 1
    opts = np.zeros(512, np.int32)
    wild = int(bool(rules["all_wild_melds"]))
    if dtype == SELF_MELD:
        k = int(self_meld_options(S, q, wild, opts, 1))
    else:
        k = int(claim_meld_options(S, q, view.discard, wild, opts, 1))
        if rules[
            "forced_claims"
        ]:  # AT-12: NONE is not offered (cardsim.kernels.atlas.turn.legal_moves)
            opts[0] = opts[k - 1]
            k -= 1
            return _checked(opts[:k].copy(), options, view)
    opts[0] = NONE
    return _checked(opts[:k].copy(), options, view)


def _checked(codes: np.ndarray, options: list[int], view) -> np.ndarray:
    if sorted(map(int, codes)) != sorted(options):
        raise CardsimError(
            f"internal error: kernel and reference options disagree (round {view.round}, seat "
            f"{view.seat}): {sorted(map(int, codes))} vs {sorted(options)}"
        )
    return codes


def _atlas_rows(config, game, result, decks, seats, games, seat_rows) -> None:
    """The kernel's records (driver.GAMES_DTYPE / SEATS_DTYPE) of one reference match."""
    from cardsim.kernels.atlas.encoding import ATLAS
    from cardsim.sim.rules.atlas import deal_hands

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
            row["strategy_id"] = seats[s].sid
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


def _play_atlas_match(config, game, rules, rules_arr, seats, games, seat_rows, on_bad):
    """One ATLAS match on the reference engine; fills the kernel's records."""
    import sys

    from cardsim.kernels.atlas.strategies import SUMMARY_LEN, choose
    from cardsim.sim.rules import atlas as ref

    rng2 = krng.new_stream(np.uint64(config.seed), np.uint64(game), krng.STREAM_STRATEGY)
    sm = np.zeros(SUMMARY_LEN, np.int32)
    now = {"decision": 0, "bad": 0, "before_trade": None}
    where = f"seed {config.seed}, game {game}"

    def chooser(view, dtype, options):
        frame = sys._getframe(1)  # Round._ask: the round's turn counter is public (P_TURNS)
        rnd = frame.f_locals.get("self")
        turns = int(getattr(rnd, "turns", 0))
        hand = np.zeros(64, np.int32)
        for c in view.hand:
            hand[c] += 1
        if dtype == ref.TARGET:
            now["before_trade"] = hand.copy()
        taken = -1
        if dtype == ref.GIVE and now["before_trade"] is not None:
            diff = np.flatnonzero(hand > now["before_trade"])
            taken = int(diff[0]) if len(diff) else -1
        codes = _atlas_order(view, dtype, options, rules)
        n = len(codes)
        idx = 0
        if n > 1:
            seat = seats[view.seat]
            pub = _atlas_pub(view, dtype, rules_arr, turns, taken)
            idx = _atlas_answer(seat, view, dtype, codes, n, hand, pub)
        now["decision"] += 1
        return int(codes[idx])

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
        held = ref.names(list(view.hand))
        position = f"round {view.round}, {ref.DECISION_NAMES[dtype]} decision, hand {held}"
        legal = []
        for c in codes:
            try:
                legal.append(ref.describe(int(c)))
            except ValueError:
                legal.append(str(int(c)))
        record = BadAnswer(seat.label, game, now["decision"], view.seat, position, returned, legal)
        if on_bad is None:
            raise CardsimError(f"user strategy {record.text()} ({where})")
        on_bad(record)
        return 0  # as driver.decide

    result = ref.play_match(config.seed, game, config.players, chooser, rules)
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
