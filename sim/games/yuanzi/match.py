"""The 原子 :class:`~cardsim.sim.engine.Match`: one match stepped move by move over the kernel's
match engine (``kernels/yuanzi/engine.py``), the code the driver, the search strategies and the
replays run. This module holds no rule: it keeps the engine's arrays and calls its functions.

Actions are dense ids into :data:`ACTION_CODES`, every move code a hand can hold (the kernel's
own generator over a hand of all 162 cards, both with and without jokers at each rank, and
PASS); observations are the engine's ``view`` of a seat (``engine.observe``: the layout is in
docs/yuanzi-protocol.md §9).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

import numpy as np
from cardsim.kernels.rng import STREAM_STRATEGY, seed_stream
from cardsim.kernels.yuanzi import engine
from cardsim.kernels.yuanzi.encoding import COPIES, MAX_MOVES, N_CARDS, N_TYPES, PASS, SMALL_JOKER
from cardsim.kernels.yuanzi.options import OPTIONS
from cardsim.kernels.yuanzi.rules import draw_half_deck, gen_all
from cardsim.kernels.yuanzi.state import (
    INFO_DAO_CARDS,
    INFO_DEALT,
    INFO_JOKERS,
    N_INFO,
    N_ST,
    R_JOKER_INDICATOR,
    ST_ACTOR,
    ST_DAO,
    ST_FIRST_LEADER,
    ST_FIRST_RECV,
    ST_HALF,
    ST_INDICATOR,
)
from cardsim.sim.engine import IllegalMove
from cardsim.sim.errors import CardsimError

__all__ = ["ACTION_CODES", "YuanziMatch", "action_id", "new_match"]

PLAYERS = 4


def _action_codes() -> np.ndarray:
    """Every move code (sorted, PASS = 0 first): the leads of a hand holding all 162 cards,
    once with the 刀 at rank 0 and once at rank 1, so that every rank is played both with
    jokers and without (YZ-11: a 刀 play takes no joker). A follow is always one of these."""
    full = np.full(N_TYPES, COPIES, np.uint8)
    buf = np.zeros(MAX_MOVES, np.int32)
    codes = {PASS}
    for dao in (0, 1):
        n = int(gen_all(full, np.int64(dao), buf))
        codes.update(int(c) for c in buf[:n])
    return np.array(sorted(codes), np.int32)


#: action id -> move code (sorted: PASS is id 0)
ACTION_CODES = _action_codes()


def action_id(code: int) -> int:
    """The dense action id of a move code (ValueError if it is none)."""
    i = int(np.searchsorted(ACTION_CODES, code))
    if i >= len(ACTION_CODES) or ACTION_CODES[i] != code:
        raise ValueError(f"{code!r} is not a 原子 move code")
    return i


def _ids_of(codes: np.ndarray) -> np.ndarray:
    ids = np.searchsorted(ACTION_CODES, codes).astype(np.int64)
    if len(codes) and (
        ids.max() >= len(ACTION_CODES) or (ACTION_CODES[ids] != codes).any()
    ):  # never: the table holds every code the generator makes (tests/games/yuanzi/test_match.py)
        raise CardsimError("internal error: a legal 原子 move has no action id")
    return np.sort(ids)


class YuanziMatch:
    """One 原子 match (:class:`cardsim.sim.engine.Match`); made by :func:`new_match`.

    The state is the engine's arrays: ``decks``/``pos`` (both halves' deals), ``hands``,
    ``played``, ``st`` (public), ``info`` and the rule array ``rules``. Halves are phases:
    ``apply`` deals the second half itself (``engine.step``).
    """

    players = PLAYERS
    num_actions = len(ACTION_CODES)
    observation_size = engine.OBS_SIZE

    def __init__(
        self,
        rules: np.ndarray,
        decks: np.ndarray,
        pos: np.ndarray,
        hands: np.ndarray,
        played: np.ndarray,
        st: np.ndarray,
        info: np.ndarray,
    ) -> None:
        self.rules = rules
        self.decks, self.pos = decks, pos
        self.hands, self.played, self.st, self.info = hands, played, st, info
        self._buf = np.zeros(MAX_MOVES, np.int32)

    # -- the contract -------------------------------------------------------------------
    def current_player(self) -> int:
        """The seat to act, or -1 once the match is over."""
        return -1 if self.is_over() else int(self.st[ST_ACTOR])

    def legal_codes(self) -> np.ndarray:
        """The legal move codes of the seat to act, in the kernel's order (empty once over)."""
        if self.is_over():
            return np.zeros(0, np.int32)
        n = int(engine.legal(self.hands, self.st, self.rules, self._buf))
        return self._buf[:n].copy()

    def legal_actions(self) -> np.ndarray:
        """Sorted int64 action ids legal for the seat to act (empty once over)."""
        return _ids_of(self.legal_codes())

    def apply(self, action: int) -> None:
        """Play ``action`` for the seat to act; :class:`IllegalMove` (state unchanged) if it is
        not legal now."""
        if isinstance(action, bool) or not isinstance(action, int | np.integer):
            raise IllegalMove(f"action {action!r} is not an action id (0..{self.num_actions - 1})")
        a = int(action)
        if self.is_over():
            raise IllegalMove(f"action {a}: the match is over")
        if not 0 <= a < self.num_actions:
            raise IllegalMove(f"action {a} is not an action id (0..{self.num_actions - 1})")
        code = ACTION_CODES[a]
        if code not in self.legal_codes():
            raise IllegalMove(
                f"action {a} ({self.action_text(a)}) is not legal for seat {self.current_player()}"
            )
        engine.step(
            np.int32(code), self.decks, self.pos, self.hands, self.played, self.st, self.info,
            self.rules,
        )  # fmt: skip

    def is_over(self) -> bool:
        """Whether the match has ended (the second half, or the first with 双夹: YZ-25)."""
        return bool(engine.is_over(self.st, self.rules))

    def returns(self) -> np.ndarray:
        """float64 [4]: each seat's match score (YZ-25 / YZ-26, YZ-D2 / YZ-D3); 0 until over."""
        out = np.zeros(PLAYERS, np.float64)
        engine.returns(self.st, self.rules, out)
        return out

    def observation(self, seat: int) -> np.ndarray:
        """float32 [observation_size]: what ``seat`` may know now (YZ-28; ``engine.observe``)."""
        if isinstance(seat, bool) or not isinstance(seat, int | np.integer):
            raise CardsimError(f"seat must be an integer in 0..3, got {seat!r}")
        if not 0 <= int(seat) < PLAYERS:
            raise CardsimError(f"seat must be in 0..3, got {seat}")
        out = np.zeros(engine.OBS_SIZE, np.float32)
        engine.observe(np.int64(seat), self.hands, self.played, self.st, out)
        return out

    def action_text(self, action: int) -> str:
        """The move of ``action`` as the reference's logs name a code (``"pair of 7 (2
        cards)"``, ``"pass"``)."""
        from cardsim.sim.games.yuanzi.reference.moves import describe_code

        if not 0 <= int(action) < self.num_actions:
            raise CardsimError(f"action {action!r} is not an action id (0..{self.num_actions - 1})")
        return describe_code(int(ACTION_CODES[int(action)]))

    def clone(self) -> YuanziMatch:
        """An independent copy (every array copied; the deal is all the chance there is)."""
        return YuanziMatch(
            self.rules.copy(), self.decks.copy(), self.pos.copy(), self.hands.copy(),
            self.played.copy(), self.st.copy(), self.info.copy(),
        )  # fmt: skip

    # -- beyond the contract: a built-in strategy's move, and determinization (issue 48 item 5) -
    def strategy_action(self, strategy: str, rng: np.ndarray) -> int:
        """The action id the built-in strategy ``strategy`` (a name as ``cardsim run
        --strategy`` takes it: ``greedy``, ``pimc:samples=8``, ``ismcts:iters=32`` …) picks for
        the seat to act, through the driver's own decision (``driver.decide_turn``: the same
        legal set, the same search entry ``_choose_search`` a run calls). The strategy is given
        the seat's view only (YZ-28): the other hands are not even passed (zero rows).
        ``rng`` is its stream (uint64[4], e.g. ``seed_stream(rng, seed, game,
        STREAM_STRATEGY)``), advanced in place. User strategies (files) are refused.

        It lives here, not in ``cardsim.agents`` (which serves every game through the match
        contract alone), because it maps this game's match onto this game's kernel strategies.
        """
        if self.is_over():
            raise CardsimError("the match is over: no seat is to act")
        sids, driver = _strategy_seats(strategy)
        seat = int(self.st[ST_ACTOR])
        hands = np.zeros_like(self.hands)
        hands[seat] = self.hands[seat]
        buf = np.zeros(_search_buf_size(), np.int32)
        n, idx, bad = driver.decide_turn(
            hands, self.played.copy(), self.st.copy(), self.rules, sids, buf, rng
        )
        if bad or not 0 <= idx < n:  # never for a built-in strategy
            raise CardsimError(f"internal error: {strategy} answered {idx} of {n} moves")
        return action_id(int(buf[idx]))

    def decision_features(self) -> np.ndarray:
        """float64 [len(legal_actions()), N_FEATURES]: row k is φ (``kernels/yuanzi/learned.py``,
        docs/strategies.md "Learned features: 原子") of the k-th action of
        :meth:`legal_actions`, computed from the seat-to-act's view only (YZ-28: its hand, the
        cards played this half, the public state — the arguments the driver gives a strategy).
        CardsimError when the match is over."""
        from cardsim.kernels.yuanzi.learned import features_matrix

        if self.is_over():
            raise CardsimError("the match is over: no seat is to act")
        codes = self.legal_codes()
        seat = int(self.st[ST_ACTOR])
        rows = features_matrix(
            self.hands[seat].copy(), self.played.copy(), self.st.copy(), codes,
            np.int64(len(codes)),
        )  # fmt: skip
        return rows[np.argsort(np.searchsorted(ACTION_CODES, codes), kind="stable")]

    # -- determinization for search (issue 48 item 5) -----------------------------------------
    def resample_hidden(self, seat: int, seed: int) -> YuanziMatch:
        """A copy in which the cards ``seat`` cannot see are dealt anew (YZ-28): the other three
        hands and, in the first half, the second half's whole deck (and its indicator position,
        YZ-05) — consistent with everything ``seat`` may know, so its observation and, when it
        is to act, its legal moves are unchanged. ``seed`` (0 .. 2**64 - 1) picks the deal.

        The hands are the kernel's own determinization, the one ``pimc`` and ``ismcts`` search
        over (``kernels/yuanzi/pimc.py`` ``_deal_unseen``: the cards neither in ``seat``'s hand
        nor played this half, shuffled over the other seats at their public card counts), with
        one public fact more: in the first half the first leader was dealt the indicator card
        (YZ-08, ``ST_INDICATOR``), so a deal that gives it no card of that type, played or in
        hand, is drawn again (rejection: the deal stays uniform among the consistent ones). A
        pass under ``pass_only_if_unable`` (YZ-18) is not read as "could not beat", as in the
        kernel's searches. The hidden bookkeeping follows the new hands: ``info`` (what each
        seat was dealt) and the deck of the half in play (the dealt cards laid out in dealing
        order from the first receiver, the indicator at its position; a second-half indicator
        position moves to a seat dealt a card of its type when the new deal asks it). The first
        half's deck, in the second half, is never read again and is kept. Over: a plain copy.
        """
        if isinstance(seat, bool) or not isinstance(seat, int | np.integer) or not 0 <= seat < 4:
            raise CardsimError(f"seat must be an integer in 0..3, got {seat!r}")
        if (
            isinstance(seed, bool)
            or not isinstance(seed, int | np.integer)
            or not 0 <= seed < 2**64
        ):
            raise CardsimError(f"seed must be an integer in 0..2**64 - 1, got {seed!r}")
        from cardsim.kernels.yuanzi.pimc import _deal_unseen  # the searches' own deal

        out = self.clone()
        if self.is_over():
            return out
        rng = np.zeros(4, np.uint64)
        seed_stream(rng, np.uint64(seed), np.int64(seat), np.int64(STREAM_STRATEGY))
        pub = self.st.copy()
        pub[ST_ACTOR] = seat  # _deal_unseen deals around the seat to act
        own = self.hands[seat].copy()
        unseen = np.zeros(N_CARDS, np.uint8)
        det = np.zeros((PLAYERS, N_TYPES), np.uint8)
        half = int(self.st[ST_HALF])
        card = int(self.st[ST_INDICATOR])
        leader = int(self.st[ST_FIRST_LEADER])
        for _ in range(100_000):
            if not _deal_unseen(own, self.played, pub, unseen, det, rng):
                raise CardsimError("internal error: the public card counts do not add up")
            if half == 1 or det[leader, card] + self.played[leader, card] > 0:
                break
        else:  # never: the true deal is consistent, so a draw is accepted with probability > 0
            raise CardsimError("internal error: no deal consistent with the indicator (YZ-08)")
        out.hands[:] = det
        dealt = det.astype(np.int64) + self.played
        gen = np.random.default_rng([int(seed), seat])
        out.pos[half] = _lay_out(out.decks[half], dealt, int(self.st[ST_FIRST_RECV]),
                                 int(self.pos[half]), card, gen)  # fmt: skip
        dao = int(self.st[ST_DAO])
        for s in range(PLAYERS):
            out.info[s, INFO_DEALT] = dealt[s].sum()
            out.info[s, INFO_JOKERS] = dealt[s, SMALL_JOKER:].sum()
            out.info[s, INFO_DAO_CARDS] = dealt[s, 4 * dao : 4 * dao + 4].sum()
        if half == 0:  # the second half's deck: unseen as a whole (YZ-05), drawn afresh
            out.pos[1] = draw_half_deck(rng, out.decks[1], self.rules[R_JOKER_INDICATOR])
        return out


@functools.cache
def _strategy_seats(strategy: str):
    """(kernel ids for four seats of ``strategy``, the driver that runs them) — checked once."""
    from cardsim.kernels.yuanzi import driver as drv
    from cardsim.sim import user_strategies
    from cardsim.sim.games.yuanzi.seats import strategy_ids

    if not isinstance(strategy, str) or user_strategies.is_user_strategy(strategy):
        raise CardsimError(f"strategy must name a built-in strategy, got {strategy!r}")
    sids, _ = strategy_ids((strategy,) * PLAYERS)
    return sids, drv.for_seats(sids)


def _search_buf_size() -> int:
    from cardsim.kernels.yuanzi.ismcts import BUF_SIZE

    return BUF_SIZE


def _lay_out(
    deck: np.ndarray, dealt: np.ndarray, first: int, p: int, card: int, gen: np.random.Generator
) -> int:
    """Write into ``deck`` a deck that deals ``dealt`` [4, N_TYPES] one card at a time from seat
    ``first`` (YZ-07) with the indicator type ``card`` at the returned position (``p`` if the
    seat it deals to was dealt one, else a random position of a seat that was)."""
    seats = (first + np.arange(N_CARDS)) % PLAYERS
    if dealt[seats[p], card] == 0:
        p = int(gen.choice(np.flatnonzero(dealt[seats, card] > 0)))
    for s in range(PLAYERS):
        cards = np.repeat(np.arange(N_TYPES), dealt[s])
        gen.shuffle(cards)
        at = np.flatnonzero(seats == s)
        if s == seats[p]:  # the indicator at p, the seat's other cards around it
            k = int(np.flatnonzero(cards == card)[0])
            cards[[0, k]] = cards[[k, 0]]
            at = np.concatenate(([p], at[at != p]))
        deck[at] = cards
    return p


def new_match(
    players: int, rules: Mapping[str, object] | None, seed: int, game_index: int = 0
) -> YuanziMatch:
    """Match ``game_index`` of a run with root seed ``seed`` (dealt as ``cardsim run`` deals
    it: stream 0 of (seed, game index), both halves before any play); ``rules`` as
    ``RunConfig.rules`` (checked: a bad value raises :class:`CardsimError`)."""
    from cardsim.sim.config import MAX_SEED

    if players != PLAYERS:
        raise CardsimError(f"yuanzi needs 4 players, got {players!r}")
    for name, value, top in (("seed", seed, MAX_SEED), ("game_index", game_index, None)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
            raise CardsimError(f"{name} must be a non-negative integer, got {value!r}")
        if top is not None and value > top:
            raise CardsimError(f"{name} must be at most {top}, got {value}")
    arr = OPTIONS.array(rules, players)  # the one validator RunConfig's rules go through
    decks = np.zeros((engine.N_HALVES, N_CARDS), np.uint8)
    pos = np.zeros(engine.N_HALVES, np.int64)
    hands = np.zeros((PLAYERS, N_TYPES), np.uint8)
    played = np.zeros((PLAYERS, N_TYPES), np.uint8)
    st = np.zeros(N_ST, np.int64)
    info = np.zeros((PLAYERS, N_INFO), np.int64)
    engine.new_match(
        np.uint64(seed), np.int64(game_index), arr, decks, pos, hands, played, st, info,
        np.zeros(4, np.uint64),
    )  # fmt: skip
    return YuanziMatch(arr, decks, pos, hands, played, st, info)
