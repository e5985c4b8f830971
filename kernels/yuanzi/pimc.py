"""原子 search strategy ``pimc``: perfect-information Monte Carlo over determinizations.

At a decision with a choice the strategy

1. keeps a few *candidate* moves: greedy's own pick first, then PASS (when legal), then the
   cheapest others by greedy's ``move_cost`` — at most ``cap`` in all;
2. draws ``samples`` *determinizations*: the unseen cards (162 minus its own hand minus every
   card played this half) shuffled and dealt to the other three seats with their public card
   counts — exactly what the player may know (YZ-28), nothing else;
3. plays every candidate on every determinization (the same ones for every candidate: common
   random numbers) and the rest of the half by the rollout policy (``greedy`` for all four
   seats, or ``random``);
4. keeps greedy's pick unless another candidate beats it on the same samples by a paired mean
   gain of more than ``z`` standard errors (few samples are noisy: without this test a search
   of 8 samples chose worse than greedy); among those, the largest mean gain.

Objective of the deciding team: ``1000 * result + team points`` of the half, ``result`` in the
match scores in force read from the rule array (YZ-D2 ``match_points_win`` = W, YZ-D3
``match_points_shuangjia`` = S; by default 1 and 2), the same values the state carries at
``ST_RULES``:

* second half — the match result in force (YZ-26): +W / −W as the team's total over both halves
  beats / trails the other team's, a 300 : 300 tie to the team of the first-half 上游. The first
  half's score and 上游 are public (YZ-28: the ``ST_H0_*`` match block of the state), so a team
  that leads on the first half plays to keep the match, not to win the half (a team 240 : 60 up
  wins 340 : 260 with 100 of the second half's 300 points);
* first half — +S / −S for a 双夹 won / lost (YZ-25, as the match engine judges it: the
  threshold in force, YZ-D1 ``shuangjia_threshold``, by default 60; the half's points break
  ties); otherwise what the half carries into the match (``first_half_value``, issue 45 item 7):
  YZ-26 decides the match on the total of both halves, a tie to the team of the first-half
  上游, and the second half's deal is unknown (YZ-05) and starts level, so the value is the
  expected match result with the second half's margin taken as even over its range — linear in
  the point margin (151 : 149 is worth far less than 250 : 50), the 上游 worth half a margin
  step (a 150 : 150 half is not worth 0 to the team that will win a 300 : 300 match).

In the second half, points break ties between equal results: results are whole multiples of
1000 and a half's points lie in 0..300, so the result always dominates; within one result, more
of the half's points is more of the match margin too (the first half's points are fixed in the
second half). The mean over the samples is then the expected match score.

Its randomness is the strategy stream it is given (stream 2 of (root seed, game index)), so a
run stays reproducible and independent of threads and chunks.

Scratch memory: the driver's per-decision loop runs without NRT and may not allocate, so the
search works in the tail of the legal-move buffer, which the driver allocates ``BUF_SIZE``
long (``MAX_MOVES`` for the legal set plus ``SCRATCH`` int32 words). Given a shorter buffer,
``choose_pimc`` falls back to greedy's pick.

The strategy id carries the parameters: ``PIMC_BASE + samples + 1024 * cap + 262144 * rollout
+ 524288 * round(10 z)`` (``encode`` / ``decode``).
"""

import numpy as np
from cardsim.kernels.pimc_common import (
    MAX_SAMPLES,  # noqa: F401 (re-exported: sim/strategy_params.py reads the kernel module)
    ROLLOUT_GREEDY,
    ROLLOUTS,  # noqa: F401 (re-exported: sim/strategy_params.py reads the kernel module)
    add_paired,
    check_params,
    clear_scores,
    select,
)
from cardsim.kernels.rng import shuffle
from cardsim.kernels.yuanzi.encoding import COPIES, MAX_MOVES, N_TYPES, PASS
from cardsim.kernels.yuanzi.engine import (
    CONTINUE,
    apply,
    first_half_judgement,
    second_half_winner,
)
from cardsim.kernels.yuanzi.engine import legal as legal_call
from cardsim.kernels.yuanzi.state import (
    N_ST,
    R_MATCH_POINTS_SHUANGJIA,
    R_MATCH_POINTS_WIN,
    ST_ACTOR,
    ST_COUNT,
    ST_DAO,
    ST_HALF,
    ST_OUT,
    ST_TEAM_PTS,
    hot_kernel,
    inline_kernel,
)
from cardsim.kernels.yuanzi.strategies import (
    NO_SHORTCUT,
    choose_greedy,
    choose_random,
    goes_out,
    greedy_fast_code,
    move_cost,
)

#: Strategy ids at and above this are ``pimc`` with parameters (far above every other id).
PIMC_BASE = 1 << 30
MAX_CAP = 64

# scratch layout in int32 words after MAX_MOVES (multiples of 16: int64 views stay aligned)
_SC_CAND = 0  # int32[MAX_CAP] candidate indices into legal
_SC_SCORE = _SC_CAND + MAX_CAP  # int64[MAX_CAP] summed objective (2 words each)
_SC_SQ = _SC_SCORE + 2 * MAX_CAP  # int64[MAX_CAP] summed squares
_SC_COST = _SC_SQ + 2 * MAX_CAP  # int64[MAX_MOVES] move costs (2 words each)
_SC_UNSEEN = _SC_COST + 2 * MAX_MOVES  # uint8[N_TYPES * COPIES] unseen cards
_SC_DET = _SC_UNSEEN + 48  # uint8[4, N_TYPES] a determinization
_SC_WH = _SC_DET + 64  # uint8[4, N_TYPES] rollout hands
_SC_WP = _SC_WH + 64  # uint8[4, N_TYPES] rollout played cards
_SC_WST = _SC_WP + 64  # int64[N_ST] rollout state
_SC_RBUF = _SC_WST + 2 * N_ST + 16  # int32[MAX_MOVES] rollout legal moves
SCRATCH = _SC_RBUF + MAX_MOVES
#: int32 words viewed as the unseen cards (uint8, up to N_CARDS) and as four hands
#: uint8[4, N_TYPES] (their slots above hold 48 and 64 words)
UNSEEN_WORDS = 48
HANDS_WORDS = 4 * N_TYPES // 4
#: length the driver gives the legal-move buffer so that ``pimc`` can run
BUF_SIZE = MAX_MOVES + SCRATCH


def encode(samples: int, cap: int, rollout: int, z: float) -> int:
    """The strategy id of ``pimc`` with these parameters."""
    z10 = check_params(samples, cap, rollout, z, MAX_CAP)
    return PIMC_BASE + samples + 1024 * cap + 262144 * rollout + 524288 * z10


@inline_kernel
def decode(sid):
    """(samples, cap, rollout, 10 z) of a pimc strategy id."""
    p = sid - PIMC_BASE
    return p % 1024, (p // 1024) % 256, (p // 262144) % 2, p // 524288


# Compile time (docs/performance.md): Numba's IR inlining grows faster than the function it
# inlines into, so the big pieces of the match engine and of greedy are compiled once, as called
# functions (``apply_call``, ``greedy_call``, ``random_call`` here; ``engine.legal``), for every
# search function (choose_pimc, choose_ismcts, ismcts._play_on) — inlined into each, they made
# the search's first compile 4–6 minutes. Only ``rollout``, the loop where a search spends its
# time, inlines the pieces on its common path: greedy's shortcut and the engine's ``apply``
# (with the whole policy inlined it compiled in 49 s against about 25 s now, and played 2 %
# (greedy) / 5 % (random rollouts) faster). ismcts's single policy moves inside its tree are ``rollout`` with
# ``moves=1``, not a second compiled copy of the policy.
#: ``rollout``'s move limits: the half to its end (a half has far fewer moves), one move
#: (passed as np.int64: two literal arguments would compile two ``rollout``s)
TO_THE_END = 1 << 30
ONE_MOVE = 1


@hot_kernel
def apply_call(code, hands, played, st, rules):
    """The engine's ``apply`` (a move, then the phase: ``engine.CONTINUE`` …), compiled once
    and called."""
    return apply(code, hands, played, st, rules)


@hot_kernel
def greedy_call(own, played, pub, legal, n, rng):
    """greedy's choice (``choose_greedy``), compiled once and called."""
    return choose_greedy(own, played, pub, legal, n, rng)


@hot_kernel
def random_call(own, played, pub, legal, n, rng):
    """random's choice (``choose_random``), compiled once and called."""
    return choose_random(own, played, pub, legal, n, rng)


@hot_kernel
def rollout(wh, wp, wst, rules, rbuf, rng, policy, moves):
    """Play on from ``wst`` (in place), every seat by ``policy``, for ``moves`` moves or to the
    half's end (``TO_THE_END``); 1 if the half ended."""
    for _ in range(moves):
        code = NO_SHORTCUT
        if policy == ROLLOUT_GREEDY:
            code = greedy_fast_code(wh, wst, rules)  # greedy's pick without the legal set
        if code == NO_SHORTCUT:
            n = legal_call(wh, wst, rules, rbuf)
            idx = 0
            if n > 1:
                q = wst[ST_ACTOR]
                if policy == ROLLOUT_GREEDY:
                    idx = greedy_call(wh[q], wp, wst, rbuf, n, rng)
                else:
                    idx = random_call(wh[q], wp, wst, rbuf, n, rng)
            code = rbuf[idx]
        if apply(code, wh, wp, wst, rules) != CONTINUE:
            return 1
    return 0


@hot_kernel
def play_out(code, wh, wp, wst, rules, rbuf, rng, policy):
    """The candidate ``code``, then the half to its end by ``policy`` (in place)."""
    if apply_call(code, wh, wp, wst, rules) == CONTINUE:
        rollout(wh, wp, wst, rules, rbuf, rng, policy, np.int64(TO_THE_END))


@hot_kernel
def restart(wh, wp, wst, det, played, pub):
    """The working state back at the determinization ``det`` (every candidate is played on the
    same one: paired)."""
    for s in range(4):
        for t in range(N_TYPES):
            wh[s, t] = det[s, t]
            wp[s, t] = played[s, t]
    for j in range(N_ST):
        wst[j] = pub[j]


@inline_kernel
def first_half_value(margin, upstream, win):
    """What a first half without 双夹 carries into the match for a team ``margin`` points up
    (YZ-26): the match goes to the higher total of both halves, a tie to the team of the
    first-half 上游 (``upstream``). The second half starts level and its deal is unknown
    (YZ-05); with its margin taken as even over −300 … +300, the expected match result is
    ``W * m / 300`` for a carried margin ``m``, and as margins are multiples of 5 points (YZ-03)
    the tie-break is worth half a step: ``m`` ± 2.5. Returned as ``1000 W (2 m ± 5) / 610``,
    whole, within ±1000 W (a 双夹's ±1000 S dominates whenever S > W, the default 2 > 1);
    more points are always more value, and 150 : 150 is worth ``+1000 W · 5 / 610`` to the
    上游's team, not 0."""
    return (1000 * win * (2 * margin + (5 if upstream else -5))) // 610


@inline_kernel
def objective(st, team, rules):
    """``1000 * result + team points`` of a finished half for ``team`` (module docstring); the
    match's rules are the engine's (``engine.second_half_winner``, ``first_half_judgement``)."""
    pts = st[ST_TEAM_PTS + team]
    win = rules[R_MATCH_POINTS_WIN]  # YZ-D2
    if st[ST_HALF] == 1:  # YZ-26: the match result in force, on both halves (YZ-28)
        winner = second_half_winner(st)
        won = 0 if winner < 0 else (win if winner == team else -win)
        return 1000 * won + pts
    sj, winner = first_half_judgement(st, rules)  # YZ-25
    if not sj:
        return first_half_value(pts - st[ST_TEAM_PTS + 1 - team], st[ST_OUT] % 2 == team, win)
    stake = 1000 * rules[R_MATCH_POINTS_SHUANGJIA]  # YZ-D3
    return stake + pts if winner == team else -stake + pts


@hot_kernel
def _candidates(own, played, pub, legal, n, rng, cap, cand, cost):
    """Fill ``cand`` with up to ``cap`` indices: greedy's pick, PASS, then cheapest first."""
    g = greedy_call(own, played, pub, legal, n, rng)
    dao = pub[ST_DAO]
    k = 0
    cand[k] = g
    k += 1
    for i in range(n):
        if legal[i] == PASS and i != g and k < cap:
            cand[k] = i
            k += 1
        cost[i] = move_cost(own, legal[i], dao) if legal[i] != PASS else -1
    cost[g] = -1
    for i in range(n):
        if legal[i] == PASS:
            cost[i] = -1
    while k < cap:  # selection of the next cheapest (n is small, cap smaller)
        best = -1
        bc = np.int64(1) << 50
        for i in range(n):
            if cost[i] >= 0 and cost[i] < bc:
                bc = cost[i]
                best = i
        if best < 0:
            break
        cand[k] = best
        k += 1
        cost[best] = -1
    return k


@hot_kernel
def _deal_unseen(own, played, pub, unseen, det, rng):
    """One determinization into ``det``: the unseen cards shuffled over the other seats."""
    seat = pub[ST_ACTOR]
    m = 0
    for t in range(N_TYPES):
        u = COPIES - np.int64(own[t]) - played[0, t] - played[1, t] - played[2, t] - played[3, t]
        for _ in range(u):
            unseen[m] = t
            m += 1
    shuffle(rng, unseen, m)  # Fisher-Yates on the strategy stream
    at = 0
    for s in range(4):
        for t in range(N_TYPES):
            det[s, t] = own[t] if s == seat else 0
        if s == seat:
            continue
        if at + pub[ST_COUNT + s] > m:
            return False
        for _ in range(pub[ST_COUNT + s]):
            det[s, unseen[at]] += 1
            at += 1
    return at == m  # the counts account for every unseen card


@hot_kernel
def choose_pimc(sid, own, played, pub, rules, legal, n, rng):
    """pimc: the candidate with the best mean objective over sampled determinizations.

    Sees what a built-in strategy sees (own hand, played cards, public state) plus the rule
    array; never another seat's hand (YZ-28). Returns an index into ``legal[:n]``.
    """
    samples, cap, policy, z10 = decode(sid)
    seat = pub[ST_ACTOR]
    total = pub[ST_COUNT + seat]
    for i in range(n):
        if goes_out(total, legal[i]):
            return i  # going out ends the search: 上游 (or the team's finish) at once
    if legal.shape[0] < BUF_SIZE:
        return greedy_call(own, played, pub, legal, n, rng)
    sc = legal[MAX_MOVES:]
    cand = sc[_SC_CAND : _SC_CAND + MAX_CAP]
    score = sc[_SC_SCORE : _SC_SCORE + 2 * MAX_CAP].view(np.int64)
    sq = sc[_SC_SQ : _SC_SQ + 2 * MAX_CAP].view(np.int64)
    cost = sc[_SC_COST : _SC_COST + 2 * MAX_MOVES].view(np.int64)
    unseen = sc[_SC_UNSEEN : _SC_UNSEEN + UNSEEN_WORDS].view(np.uint8)
    det = sc[_SC_DET : _SC_DET + HANDS_WORDS].view(np.uint8).reshape((4, N_TYPES))
    wh = sc[_SC_WH : _SC_WH + HANDS_WORDS].view(np.uint8).reshape((4, N_TYPES))
    wp = sc[_SC_WP : _SC_WP + HANDS_WORDS].view(np.uint8).reshape((4, N_TYPES))
    wst = sc[_SC_WST : _SC_WST + 2 * N_ST].view(np.int64)
    rbuf = sc[_SC_RBUF : _SC_RBUF + MAX_MOVES]
    k = _candidates(own, played, pub, legal, n, rng, min(cap, MAX_CAP), cand, cost)
    if k == 1:
        return cand[0]
    team = seat % 2
    clear_scores(score, sq, k)
    for _ in range(samples):
        if not _deal_unseen(own, played, pub, unseen, det, rng):
            return cand[0]  # the public counts do not add up (never seen): no search
        v0 = 0
        for c in range(k):
            restart(wh, wp, wst, det, played, pub)
            play_out(legal[cand[c]], wh, wp, wst, rules, rbuf, rng, policy)
            v = objective(wst, team, rules)
            if c == 0:
                v0 = v
            else:  # paired with greedy's pick on the same sample
                add_paired(score, sq, c, v, v0)
    return cand[select(score, sq, k, samples, z10)]
