"""``cardsim strategy check GAME FILE:FUNC``: compile, play, find illegal answers, time, compare.

What it does, in order (docs/strategies.md, "Checking a strategy"):

1. loads the file and compiles the function alone with the exact argument types the driver
   passes (a ``py:`` strategy is imported only, and plays on the reference engine) — a missing file or function, an exception on
   import or a function that does not compile is one line and exit code 2;
2. self-play: every seat plays the strategy for ``games`` games (the compiled driver; a ``py:``
   strategy the reference engine) and is timed (games/s, decisions/s);
3. illegal answers (an index outside ``0..n-1``, a code not in ``legal``, an exception): each
   is reported with its position — game, decision index in the game (trace order), seat, what
   the seat could see, what the function returned and what was legal. The kernel finds the
   games that have one; the first of them are replayed on the Python engine
   (``sim/python_strategies.py``), which calls the compiled function from Python on the same
   inputs with the same random stream (its tables are the kernel's, tests/test_sdk.py).
   Exit code 1 when there is any;
4. a duplicate comparison against ``against`` (default ``greedy``) on ``games`` deals: the
   paired difference of win rates with its 95 % interval and the verdict of the compare
   machinery (clear difference at Holm-adjusted p < 5 %; equivalent within ±0.01 by TOST;
   otherwise not enough games, with the deals equivalence would need).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from cardsim.sim import python_strategies as ps
from cardsim.sim import user_strategies as us
from cardsim.sim.config import build_config, check_strategy
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import RunConfig
from cardsim.sim.games import get_engine
from cardsim.sim.python_strategies import BadAnswer

#: Games of a check when ``--games`` is not given: compiled / ``py:`` (the reference is slower).
DEFAULT_GAMES = 300
DEFAULT_GAMES_PY = 100
#: Games replayed decision by decision to locate illegal answers, and answers listed.
MAX_REPLAYED = 5
MAX_LISTED = 10

Echo = Callable[[str], None]


def _compile(engine, name: str) -> tuple[str, float]:
    """Load and compile the function alone; (how, seconds). One-line CardsimError if it fails."""
    t = time.perf_counter()
    if ps.is_python_strategy(name):
        ps.load(
            name, ("view", "legal") if engine.name == "yuanzi" else ("view", "dtype", "options")
        )
        return "imported (plain Python, runs on the reference engine)", time.perf_counter() - t
    strategy = us.parse(name)
    fn = us.load(strategy)
    argtypes = _driver_module(engine).USER_ARGTYPES
    us.check_compiles(strategy, fn, argtypes, strategy.label)
    return "compiled alone", time.perf_counter() - t


def _driver_module(engine):
    if engine.name == "yuanzi":
        from cardsim.kernels.yuanzi import driver
    else:
        from cardsim.kernels.atlas import driver
    return driver


# --- self-play: speed and illegal answers --------------------------------------------------------
def _selfplay_yuanzi(config: RunConfig, name: str) -> tuple[float, int, list[BadAnswer], int]:
    """(seconds, decisions, illegal answers located, illegal answers counted)."""
    from cardsim.kernels.yuanzi import driver as drv

    engine = get_engine("yuanzi")
    count = config.games
    if ps.is_python_strategy(name):
        found: list[BadAnswer] = []
        t = time.perf_counter()
        g, _s = ps.play_yuanzi(config, 0, count, on_bad=found.append)
        seconds = time.perf_counter() - t
        return seconds, _decisions_yuanzi(g), found, len(found)
    sids, users = engine.strategy_ids(config.seats)
    rules = engine.rules_array(config.rules)
    driver = engine._driver(users, "simulate")
    drv.run_games(config.seed, 0, 1, sids, rules, driver)  # load / warm up
    t = time.perf_counter()
    g, _s = drv.run_games(config.seed, 0, count, sids, rules, driver)
    seconds = time.perf_counter() - t
    bad_games = np.flatnonzero(g[:, drv.G_BAD] > 0)
    found = []
    for game in bad_games[:MAX_REPLAYED]:  # the compiled function, called from Python
        ps.play_yuanzi(config, int(game), 1, on_bad=found.append)
    return seconds, _decisions_yuanzi(g), found, int(g[:, drv.G_BAD].sum())


def _decisions_yuanzi(g: np.ndarray) -> int:
    from cardsim.kernels.yuanzi import driver as drv

    total = 0
    for h in (0, 1):
        col = g[:, drv.G_HALF * h + drv.H_DECISIONS]
        total += int(col[col > 0].sum())
    return total


def _selfplay_atlas(config: RunConfig, name: str) -> tuple[float, int, list[BadAnswer], int]:
    """(seconds, turns, illegal answers located, games with an illegal answer)."""
    from cardsim.kernels.atlas import driver as drv
    from cardsim.kernels.atlas.rules import R_ROUNDS

    engine = get_engine("atlas")
    if ps.is_python_strategy(name):
        found: list[BadAnswer] = []
        t = time.perf_counter()
        games, _s = ps.play_atlas(config, 0, config.games, on_bad=found.append)
        seconds = time.perf_counter() - t
        return seconds, int(games["turns"].sum()), found, len({b.game for b in found})
    ids, mod = engine.seat_ids(config)
    arr = engine.rule_options.array(config.rules)
    n, count = config.players, config.games
    rounds = int(arr[R_ROUNDS])
    games = np.zeros(count * rounds, drv.GAMES_DTYPE)
    seats = np.zeros(count * rounds * n, drv.SEATS_DTYPE)
    mod.simulate(np.uint64(config.seed), 0, 1, n, ids, arr, games[:rounds], seats[: rounds * n])
    t = time.perf_counter()
    err = mod.simulate(np.uint64(config.seed), 0, count, n, ids, arr, games, seats)
    seconds = time.perf_counter() - t
    turns = int(games["turns"].sum())
    found: list[BadAnswer] = []
    bad_games = 0
    if err:  # which games: one kernel call per game; where: the Python engine (same choices)
        one_g = np.zeros(rounds, drv.GAMES_DTYPE)
        one_s = np.zeros(rounds * n, drv.SEATS_DTYPE)
        for game in range(count):
            if mod.simulate(np.uint64(config.seed), game, 1, n, ids, arr, one_g, one_s):
                bad_games += 1
                if bad_games <= MAX_REPLAYED:
                    ps.play_atlas(config, game, 1, on_bad=found.append)
    return seconds, turns, found, bad_games


# --- the comparison ---------------------------------------------------------------------------------
def _compare(engine, name: str, against: str, games: int, seed: int, players, rules) -> dict:
    """The paired comparison of ``name`` with ``against`` on ``games`` duplicate deals."""
    from cardsim.analysis import stats
    from cardsim.analysis.compare import pairwise
    from cardsim.analysis.verdicts import margin_for
    from cardsim.sim.compare import DuplicateEngine, build_compare_config

    config = build_compare_config(
        engine, [name, against], games=games, seed=seed, players=players, rules=rules
    )
    t = time.perf_counter()
    _g, seats = DuplicateEngine(engine).play_chunk(config, 0, games)
    seconds = time.perf_counter() - t
    row = pairwise(seats).table.row(0, named=True)
    mine = us.label(name)
    sign = 1.0 if row["a"] == mine else -1.0
    diff = sign * row["diff"]
    lo, hi = (row["lo"], row["hi"]) if sign > 0 else (-row["hi"], -row["lo"])
    win_me, win_other = (row["win_a"], row["win_b"]) if sign > 0 else (row["win_b"], row["win_a"])
    margin = margin_for("win rate")
    p = row["p"]
    needed = None
    if np.isfinite(p) and p < stats.ALPHA:
        verdict = f"{stats.CLEAR} (p {_p(p)}): {mine if diff > 0 else against} is better"
    else:
        p_tost = stats.tost_p(diff, row["se"], margin)
        if np.isfinite(p_tost) and p_tost < stats.ALPHA:
            verdict = f"{stats.EQUIVALENT} within ±{margin:g} (TOST p {_p(p_tost)})"
        else:
            needed = stats.units_needed(row["se"], row["deals"], margin)
            more = (
                f"; equivalence within ±{margin:g} needs ~{needed:,.0f} deals if the true "
                "difference is 0"
                if needed
                else ""
            )
            if needed and not stats.well_inside(diff, margin):  # issue 19, point 6
                detect = stats.units_to_detect(diff, row["se"], row["deals"])
                more += (
                    f"; ~{detect:,.0f} deals would detect the observed {100 * diff:+.1f} "
                    "points at 80 % power"
                )
            verdict = f"{stats.NOT_ENOUGH} (p {_p(p)}{more})"
    return {
        "deals": int(row["deals"]),
        "games": int(row["games"]),
        "assignments": len(config.assignments),
        "win": win_me,
        "win_other": win_other,
        "diff": diff,
        "lo": lo,
        "hi": hi,
        "verdict": verdict,
        "seconds": seconds,
    }


def _p(p: float) -> str:
    """``= 0.023`` or ``< 1e-300`` (never "p = 0")."""
    from cardsim.analysis.model import p_value

    text = p_value(p)
    return text if text.startswith("<") else f"= {text}"


# --- the command ------------------------------------------------------------------------------------
def check(
    game: str,
    spec: str,
    *,
    games: int | None = None,
    seed: int = 1,
    players: int | None = None,
    rules: Sequence[tuple[str, str]] = (),
    against: str = "greedy",
    threads: int | None = None,
    echo: Echo = print,
) -> int:
    """Run the check and print its report; returns the exit code (0 fine, 1 illegal answers)."""
    from cardsim.sim.runner import set_threads

    started = time.perf_counter()
    engine = get_engine(game)
    if not us.is_user_strategy(spec):
        raise CardsimError(f"strategy check needs a user strategy FILE.py:FUNC, got {spec!r}")
    name = check_strategy(engine, spec)
    if games is None:
        games = DEFAULT_GAMES_PY if ps.is_python_strategy(name) else DEFAULT_GAMES
    threads = set_threads(threads)
    label = us.label(name)
    base = build_config(
        engine, games=games, seed=seed, players=players, strategy="greedy", rules=rules
    )
    config = replace(base, seats=(name,) * base.players)
    check_strategy(engine, against)
    how, seconds = _compile(engine, name)
    echo(
        f"strategy check {game} {label} ({name}): seed {seed}, {games:,} games, "
        f"{base.players} players, {threads} thread(s)"
    )
    echo(f"{how} in {seconds:.1f} s")
    unit = "matches" if engine.facts.row_unit == "match" else engine.facts.row_unit + "s"
    if game == "yuanzi":
        sec, decisions, found, counted = _selfplay_yuanzi(config, name)
        what = f"{decisions:,} decisions"
        speed = f"{decisions / sec:,.0f} decisions/s" if sec > 0 else ""
        counted_text = f"{counted} illegal answer(s)"
    else:
        sec, turns, found, counted = _selfplay_atlas(config, name)
        what = f"{turns:,} turns"
        speed = f"{turns / sec:,.0f} turns/s" if sec > 0 else ""
        counted_text = f"illegal answers in {counted} game(s)"
    rate = f"{games / sec:,.0f} {unit}/s, {speed}" if sec > 0 else "too fast to time"
    echo(f"self-play (every seat {label}): {games:,} {unit}, {what} in {sec:.2f} s = {rate}")
    if found or counted:
        echo(f"ILLEGAL ANSWERS: {counted_text}; the first ones:")
        for bad in found[:MAX_LISTED]:
            echo(f"  {bad.text()}")
        echo("the comparison is skipped until every answer is legal")
        echo(f"done in {time.perf_counter() - started:.1f} s")
        return 1
    echo("illegal answers: none")
    c = _compare(engine, name, against, games, seed, players, rules)
    echo(
        f"vs {against} on {c['deals']:,} duplicate deals ({c['assignments']} seat assignments, "
        f"{c['games']:,} {unit}, {c['seconds']:.1f} s): win rate {c['win']:.3f} vs "
        f"{c['win_other']:.3f}, difference {c['diff']:+.3f} [{c['lo']:+.3f}, {c['hi']:+.3f}] "
        f"paired 95 % (unit: deal) — {c['verdict']}"
    )
    echo(f"done in {time.perf_counter() - started:.1f} s")
    return 0
