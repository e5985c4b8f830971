"""原子 match engine: the one place where the match's rules live (issue 46).

A match is two halves (YZ-04) played on flat arrays (kernels/yuanzi/state.py):

* ``decks`` uint8[2, N_CARDS] and ``pos`` int64[2]: both halves' shuffled decks and indicator
  positions, dealt by :func:`new_match` before any play (stream 0 of (root seed, game index),
  protocol §1) — hidden, like ``hands`` and ``info``;
* ``hands`` uint8[4, N_TYPES], ``played`` uint8[4, N_TYPES], ``st`` int64[N_ST] (the public
  state, the half's block and the match block of YZ-28), ``info`` int64[4, N_INFO];
* ``rules`` int64[N_RULES], the rule options in force.

The match is stepped move by move:

* :func:`legal` — the legal set of the seat to act (``rules.legal_call``);
* :func:`apply` — play a move; returns ``CONTINUE``, ``HALF_OVER`` (the first half ended
  without 双夹: call :func:`start_half` for the second) or ``MATCH_OVER``. At the first half's
  end it publishes the half's result into the state (YZ-28: ``ST_H0_*``) and judges 双夹
  (YZ-25, threshold YZ-D1, the ``shuangjia`` option). Between ``HALF_OVER`` and
  :func:`start_half` the state still holds the finished first half, so a caller can record
  its statistics (the driver's ``_record_half``);
* :func:`start_half` — deal half 1 (YZ-26: the first half's 上游 receives first and leads);
  :func:`step` is :func:`apply` followed by it, for callers that keep no per-half record;
* :func:`is_over`, :func:`result` (双夹, winning team: YZ-25, or YZ-26 on both halves'
  totals, a tie to the team of the first-half 上游), :func:`match_score` / :func:`returns`
  (YZ-D2 / YZ-D3 match scores);
* :func:`view` — what one seat may know (YZ-28): its own hand row, every seat's played cards
  this half, the public state (the rule options and the first half's result included); never
  another hand. :func:`observe` writes it as one flat vector (``OBS_*`` layout,
  docs/yuanzi-protocol.md §9).

The driver (``driver.play_game``), the search strategies' rollouts (``pimc``, ``ismcts``), the
``py:`` adapter's mirror and the Python :class:`~cardsim.sim.games.yuanzi.match.YuanziMatch`
all go through these functions; nothing else decides a half's end, 双夹, the winner or the
match scores.
"""

import numpy as np
from cardsim.kernels.jit import kernel
from cardsim.kernels.rng import STREAM_DEAL, seed_stream
from cardsim.kernels.yuanzi.encoding import N_TYPES
from cardsim.kernels.yuanzi.rules import apply_move, begin_half, draw_half_deck, legal_call
from cardsim.kernels.yuanzi.state import (
    N_RULES,
    N_ST,
    R_JOKER_INDICATOR,
    R_MATCH_POINTS_SHUANGJIA,
    R_MATCH_POINTS_WIN,
    R_SHUANGJIA,
    R_SHUANGJIA_THRESHOLD,
    ST_DONE,
    ST_FINISH,
    ST_H0_NOUT,
    ST_H0_OUT,
    ST_H0_TEAM_PTS,
    ST_H0_UPSTREAM,
    ST_HALF,
    ST_NOUT,
    ST_ONE_TWO,
    ST_OUT,
    ST_RULES,
    ST_TEAM_PTS,
    inline_kernel,
)

#: what :func:`apply` returns
CONTINUE = 0
HALF_OVER = 1  # the first half ended without 双夹: :func:`start_half` deals the second
MATCH_OVER = 2
#: halves per match (YZ-04) and seats
N_HALVES = 2
N_SEATS = 4

#: :func:`observe`'s layout (float32): own hand counts, played cards per seat (this half), the
#: public state row ``st`` (``ST_*`` offsets, rule options at ``ST_RULES``), the observing seat
OBS_OWN = 0
OBS_PLAYED = OBS_OWN + N_TYPES
OBS_PUB = OBS_PLAYED + N_SEATS * N_TYPES
OBS_SEAT = OBS_PUB + N_ST  # [4] one-hot
OBS_SIZE = OBS_SEAT + N_SEATS

# int64 literals: a literal argument compiles a callee once per value
_HALF0 = np.int64(0)
_HALF1 = np.int64(1)


# --- the deal and the halves (protocol §1, YZ-05 … YZ-08, YZ-26) ---------------------------


@kernel
def start_half(half, decks, pos, hands, played, st, info, rules):
    """Deal half ``half`` from its deck (YZ-05 … YZ-08; half 1: YZ-26, the first half's 上游,
    ``ST_H0_UPSTREAM``, receives first and leads) and put the rule options in force into the
    public state (YZ-28)."""
    up0 = st[ST_H0_UPSTREAM] if half == 1 else np.int64(0)
    begin_half(half, decks[half], pos[half], up0, hands, played, st, info)
    for i in range(N_RULES):
        st[ST_RULES + i] = rules[i]


@kernel
def new_match(root, g, rules, decks, pos, hands, played, st, info, rng_deal):
    """Match ``g`` of root seed ``root``: both halves dealt from stream 0 before any play
    (protocol §1; ``rng_deal`` uint64[4] is scratch), the first half begun."""
    seed_stream(rng_deal, root, g, np.int64(STREAM_DEAL))
    for h in range(N_HALVES):
        pos[h] = draw_half_deck(rng_deal, decks[h], rules[R_JOKER_INDICATOR])
    start_half(_HALF0, decks, pos, hands, played, st, info, rules)


# --- the match's rules: YZ-25, YZ-26, YZ-28, YZ-D1 … YZ-D3 ------------------------------


@inline_kernel
def first_half_judgement(st, rules):
    """YZ-25 on a finished first half (the half's block of ``st``): (双夹?, team X).

    X is the team with both players out (``shuangjia`` = both_out_team) or the 上游's team
    (upstream_team); 双夹 when the other team still has both players in (a 1-2 finish) or
    scored under ``shuangjia_threshold`` (YZ-D1; the text's 60). X wins the match if so.
    """
    up_team = st[ST_OUT] % 2
    one_two = st[ST_ONE_TWO] == 1
    threshold = rules[R_SHUANGJIA_THRESHOLD]
    x = up_team
    if rules[R_SHUANGJIA] == 0:  # both_out_team: X = the team with both players out
        for i in range(3):
            s = st[ST_OUT + i]
            if st[ST_FINISH + (s + 2) % N_SEATS] < 4:
                x = s % 2
    return one_two or st[ST_TEAM_PTS + 1 - x] < threshold, x


@inline_kernel
def second_half_winner(st):
    """YZ-26 once the second half has ended: the team with the higher total over both halves
    (the first half's from the match block, YZ-28), a tie to the team of the first-half 上游.
    -1 on a tie in a state without a first-half result (a test's or a search's made-up
    position, never a match)."""
    h0 = st[ST_H0_TEAM_PTS]
    h1 = st[ST_H0_TEAM_PTS + 1]
    up0 = st[ST_H0_UPSTREAM]
    if h0 < 0:  # no first-half result: the half alone
        h0 = 0
        h1 = 0
        up0 = -1
    t0 = h0 + st[ST_TEAM_PTS]
    t1 = h1 + st[ST_TEAM_PTS + 1]
    if t0 != t1:
        return 0 if t0 > t1 else 1
    return up0 % 2 if up0 >= 0 else -1


@inline_kernel
def result(st, rules):
    """(双夹?, winning team) of a finished match (or of the half the state holds, finished)."""
    if st[ST_HALF] == 0:
        return first_half_judgement(st, rules)
    return False, second_half_winner(st)


@inline_kernel
def match_score(st, rules, seat):
    """``seat``'s match score once over (YZ-25 / YZ-26): ± ``match_points_shuangjia`` (YZ-D3,
    the text's 2) after a 双夹, else ± ``match_points_win`` (YZ-D2, the text's 1); 0 for no
    winner (never in a match)."""
    sj, winner = result(st, rules)
    unit = rules[R_MATCH_POINTS_SHUANGJIA] if sj else rules[R_MATCH_POINTS_WIN]
    if winner < 0:
        return np.int64(0)
    return unit if seat % 2 == winner else -unit


@kernel
def returns(st, rules, out):
    """Every seat's match score into ``out`` [4] (0 while the match goes on)."""
    over = is_over(st, rules)
    for s in range(N_SEATS):
        out[s] = match_score(st, rules, s) if over else 0


@kernel
def is_over(st, rules):
    """Whether the match has ended: the second half over, or the first with 双夹."""
    if st[ST_DONE] != 1:
        return False
    return st[ST_HALF] == 1 or first_half_judgement(st, rules)[0]


@inline_kernel
def publish_first_half(st):
    """YZ-28: the first half's result into the match block (kept through the second half)."""
    st[ST_H0_TEAM_PTS] = st[ST_TEAM_PTS]
    st[ST_H0_TEAM_PTS + 1] = st[ST_TEAM_PTS + 1]
    st[ST_H0_UPSTREAM] = st[ST_OUT]
    st[ST_H0_NOUT] = st[ST_NOUT]
    for i in range(N_SEATS):
        st[ST_H0_OUT + i] = st[ST_OUT + i] if i < st[ST_NOUT] else -1


@kernel
def end_half(st, rules):
    """After a half has ended: ``MATCH_OVER`` (the second half, or 双夹) or ``HALF_OVER``. The
    first half's result is published first (YZ-28). Called once per half (not inlined)."""
    if st[ST_HALF] == 1:
        return MATCH_OVER
    publish_first_half(st)
    if first_half_judgement(st, rules)[0]:
        return MATCH_OVER
    return HALF_OVER


# --- moves -------------------------------------------------------------------------------

#: the legal set of the seat to act into ``buf``: (hands, st, rules, buf) -> count
legal = legal_call


@inline_kernel
def apply(code, hands, played, st, rules):
    """The actor's move (protocol §4, §5), then the phase: ``CONTINUE``, ``HALF_OVER`` or
    ``MATCH_OVER`` (see the module docstring). ``code`` must be legal (``legal``)."""
    if apply_move(code, hands, played, st, rules) == 0:
        return CONTINUE
    return end_half(st, rules)


@kernel
def step(code, decks, pos, hands, played, st, info, rules):
    """:func:`apply`, and at ``HALF_OVER`` the second half dealt at once: ``CONTINUE`` or
    ``MATCH_OVER``."""
    status = apply(code, hands, played, st, rules)
    if status == HALF_OVER:
        start_half(_HALF1, decks, pos, hands, played, st, info, rules)
        return CONTINUE
    return status


# --- what a seat may know (YZ-28) ----------------------------------------------------------


@inline_kernel
def view(seat, hands, played, st):
    """What ``seat`` may know (YZ-28): (its hand row, every seat's played cards this half, the
    public state). Views, no copies: what the strategies receive."""
    return hands[seat], played, st


@kernel
def observe(seat, hands, played, st, out):
    """:func:`view` as one float32 vector ``out`` [OBS_SIZE] (``OBS_*`` offsets)."""
    own, pl, pub = view(seat, hands, played, st)
    for t in range(N_TYPES):
        out[OBS_OWN + t] = own[t]
    for s in range(N_SEATS):
        for t in range(N_TYPES):
            out[OBS_PLAYED + s * N_TYPES + t] = pl[s, t]
        out[OBS_SEAT + s] = 1.0 if s == seat else 0.0
    for j in range(N_ST):
        out[OBS_PUB + j] = pub[j]
