"""Anchored strength (issue 48 item 5; not a test): OpenSpiel's own ISMCTS against cardsim's
``ismcts`` on 原子 at equal iterations, on duplicate deals, through the OpenSpiel registration
``cardsim_yuanzi`` (cardsim/agents/openspiel_game.py over the 原子 Match).

    .venv/bin/python benchmarks/bench_anchor.py [--deals 20] [--iters 32] [--seed 1]
        [--like-for-like] [--cardsim STRATEGY ...]

At the defaults it takes about 7 minutes of one core (almost all of it OpenSpiel's bot: about
4 decisions per CPU-second, each simulation a random rollout of the match through Python);
``--like-for-like`` adds a second line and doubles that.

Each deal (game *i* of root seed ``--seed``, as ``cardsim run`` deals it) is played twice, the
two bots' teams swapped (seats 0/2 against 1/3). A seat with one legal move plays it without
asking its bot. Printed per cardsim line: per deal pair the match score of cardsim's team in
each seating and the pair's score difference (cardsim's team minus OpenSpiel's, per match,
mean of the two seatings); the mean difference with a paired 95 % t-interval over the deal
pairs (deal-clustered); and each bot's decisions (with a choice) per CPU-second of this process
(``time.process_time`` around each step, one thread).

The bots:

* OpenSpiel: ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` (OpenSpiel's Python ISMCTS,
  "adapted from the C++ implementation"; the C++ ``pyspiel.ISMCTSBot`` crashes with a game
  written in Python: it segfaulted on its first step here), with its documented parameters:
  ``max_simulations = --iters``, ``uct_c = 2``, ``RandomRolloutEvaluator(n_rollouts=1)``
  (uniformly random moves to the end of the match), final policy ``MAX_VISIT_COUNT``,
  unlimited world samples; the information state is the seat's observation
  (YZ-28). Its determinizations are ``YuanziMatch.resample_hidden`` (the kernel searches'
  deal) through ``resample_from_infostate``, seeded from the bot's own RandomState.
* cardsim: ``YuanziMatch.strategy_action`` (the driver's decision, the seat's view only) with
  the strategy of each ``--cardsim`` line; its stream is stream 2 of (``--seed``, deal).

What else differs at "equal iterations" (docs/strategies.md): an OpenSpiel simulation is one
determinization, one path down one tree of information sets (every seat's), one random rollout
of the whole match, and every legal move is a child; a cardsim iteration is one
determinization on which *every* root child (at most ``cap`` = 4 of pimc's candidates: greedy's
pick, PASS, the cheapest others) is played — up to 4 rollouts — with a tree at the deciding
seat's own later decisions only, rollouts by greedy to the end of the half and an objective
that values the half for the match (pimc's), racing (``drop``) that may stop early, and
greedy's pick kept unless beaten by ``z`` = 2 standard errors. The like-for-like line
(``--like-for-like``: ``rollout=random``) takes away the greedy rollouts only.
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np

ITERS = 32
DEALS = 20


class CardsimBot:
    """cardsim's strategy ``strategy`` as a bot: ``step(state)`` asks the 原子 match's
    ``strategy_action`` (the driver's decision from the seat's view, YZ-28). Benchmark-only:
    ``cardsim.agents`` serves every game through the match contract, which has no strategy
    call; the game's own part is ``YuanziMatch.strategy_action``."""

    def __init__(self, strategy: str, seed: int, deal: int) -> None:
        from cardsim.kernels.rng import STREAM_STRATEGY, seed_stream

        self.strategy = strategy
        self.rng = np.zeros(4, np.uint64)
        seed_stream(self.rng, np.uint64(seed), np.int64(deal), np.int64(STREAM_STRATEGY))

    def step(self, state) -> int:
        return state.held.match.strategy_action(self.strategy, self.rng)


def openspiel_bot(game, iters: int, seed: int, deal: int):
    """OpenSpiel's ISMCTSBot with its documented defaults and ``max_simulations = iters``;
    every random draw (its tree, rollouts and determinizations) from one seeded RandomState."""
    from open_spiel.python.algorithms import ismcts, mcts

    rs = np.random.RandomState([seed, deal])
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 2.0, iters, random_state=rs)
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, rs.random_sample))
    return bot


def play(game, deal: int, bots: dict, clock: dict) -> np.ndarray:
    """Match ``deal`` with ``bots[seat % 2]`` (name, bot) at each seat; adds each bot's
    decisions and CPU seconds to ``clock[name]``; the match scores per seat."""
    state = game.new_initial_state()
    state.apply_action(deal)
    while not state.is_terminal():
        legal = state.legal_actions()
        if len(legal) == 1:
            state.apply_action(legal[0])
            continue
        name, bot = bots[state.current_player() % 2]
        t = time.process_time()
        action = bot.step(state)
        clock[name][1] += time.process_time() - t
        clock[name][0] += 1
        if action not in legal:
            raise RuntimeError(f"{name} chose {action}, not a legal move")
        state.apply_action(action)
    return np.asarray(state.returns())


def t_interval(diffs: list[float]) -> tuple[float, float, float]:
    """Mean and paired 95 % t-interval of ``diffs`` (one value per deal pair)."""
    from scipy import stats

    n = len(diffs)
    mean = float(np.mean(diffs))
    if n < 2:
        return mean, math.nan, math.nan
    half = stats.t.ppf(0.975, n - 1) * float(np.std(diffs, ddof=1)) / math.sqrt(n)
    return mean, mean - half, mean + half


def run_line(game, strategy: str, deals: int, iters: int, seed: int) -> None:
    """One cardsim line against OpenSpiel's ISMCTS over ``deals`` deal pairs, printed."""
    clock = {"cardsim": [0, 0.0], "openspiel": [0, 0.0]}
    diffs = []
    print(f"\ncardsim {strategy}  vs  OpenSpiel ISMCTSBot(max_simulations={iters})")
    print(f"{'deal':>5} {'cardsim as 0/2':>15} {'cardsim as 1/3':>15} {'pair diff':>10}")
    for deal in range(deals):
        scores = []
        for cardsim_team in (0, 1):
            bots = {
                cardsim_team: ("cardsim", CardsimBot(strategy, seed, deal)),
                1 - cardsim_team: ("openspiel", openspiel_bot(game, iters, seed, deal)),
            }
            returns = play(game, deal, bots, clock)
            scores.append(float(returns[cardsim_team]))
        diff = float(np.mean([2 * s for s in scores]))  # cardsim's team minus OpenSpiel's
        diffs.append(diff)
        print(f"{deal:>5} {scores[0]:>+15.0f} {scores[1]:>+15.0f} {diff:>+10.1f}", flush=True)
    mean, lo, hi = t_interval(diffs)
    print(
        f"match-score difference, cardsim's team minus OpenSpiel's, per match: {mean:+.2f} "
        f"[{lo:+.2f}, {hi:+.2f}] (paired 95 % t-interval over {deals} deal pairs, "
        f"{2 * deals} matches)"
    )
    for name, (n, cpu) in clock.items():
        rate = n / cpu if cpu > 0 else math.nan
        print(f"{name:>9}: {n} decisions in {cpu:.1f} CPU-s = {rate:,.1f} decisions per CPU-second")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=DEALS, help="deal pairs (default %(default)s)")
    ap.add_argument("--iters", type=int, default=ITERS, help="iterations / simulations")
    ap.add_argument("--seed", type=int, default=1, help="root seed of the deals (0..2**31-1)")
    ap.add_argument(
        "--cardsim",
        action="append",
        help="a cardsim strategy line, repeatable (default: ismcts:iters=ITERS)",
    )
    ap.add_argument(
        "--like-for-like",
        action="store_true",
        help="add the line ismcts:iters=ITERS,rollout=random (random rollouts, as OpenSpiel's)",
    )
    args = ap.parse_args(argv)
    if not 1 <= args.deals <= 10_000 or not 1 <= args.iters <= 4095:
        print("error: --deals must be in 1..10000 and --iters in 1..4095", file=sys.stderr)
        return 2
    if not 0 <= args.seed <= 2**31 - 1:
        print("error: --seed must be in 0..2**31-1 (OpenSpiel's integers)", file=sys.stderr)
        return 2
    lines = args.cardsim or [
        f"ismcts:iters={args.iters}",
        f"ismcts:iters={args.iters},rollout=random",
    ]

    import pyspiel
    from cardsim.sim.errors import CardsimError
    from cardsim.sim.games.yuanzi.match import new_match

    import cardsim.agents.openspiel_game  # noqa: F401  (registers cardsim_yuanzi)

    game = pyspiel.load_game("cardsim_yuanzi", {"seed": args.seed, "deals": args.deals})
    try:
        for strategy in lines:
            new_match(4, None, 0, 0).strategy_action(strategy, np.ones(4, np.uint64))  # checked
            run_line(game, strategy, args.deals, args.iters, args.seed)
    except CardsimError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
