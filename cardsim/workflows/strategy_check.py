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
   (the game's ``py:`` adapter, ``sim/games/<game>/adapter.py``), which calls the compiled function from Python on the same
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
from cardsim.sim.games import get_engine

#: Games of a check when ``--games`` is not given: compiled / ``py:`` (the reference is slower).
DEFAULT_GAMES = 300
DEFAULT_GAMES_PY = 100
#: Games replayed decision by decision to locate illegal answers, and answers listed.
MAX_REPLAYED = 5
MAX_LISTED = 10

Echo = Callable[[str], None]


def _hooks(engine):
    """The game's strategy-check hooks (``engine.strategy_check``); CardsimError without."""
    hooks = getattr(engine, "strategy_check", None)
    if hooks is None:
        raise CardsimError(f"game {engine.name!r} has no strategy check (its engine declares none)")
    return hooks


def _compile(engine, name: str) -> tuple[str, float]:
    """Load and compile the function alone; (how, seconds). One-line CardsimError if it fails."""
    t = time.perf_counter()
    if ps.is_python_strategy(name):
        ps.load(name, _hooks(engine).python_args)
        return "imported (plain Python, runs on the reference engine)", time.perf_counter() - t
    us.compiled(name, _hooks(engine).user_argtypes())
    return "compiled alone", time.perf_counter() - t


# --- the comparison ---------------------------------------------------------------------------------
def _compare(engine, name: str, against: str, games: int, seed: int, players, rules,
             call=lambda what, fn, *a: fn(*a)) -> dict:  # fmt: skip
    """The paired comparison of ``name`` with ``against`` on ``games`` duplicate deals."""
    from cardsim.analysis import stats
    from cardsim.analysis.compare import pairwise
    from cardsim.analysis.verdicts import margin_for
    from cardsim.sim.compare import DuplicateEngine, build_compare_config

    config = build_compare_config(
        engine, [name, against], games=games, seed=seed, players=players, rules=rules
    )
    t = time.perf_counter()
    _g, seats = call(f"compare {name}", DuplicateEngine(engine).play_chunk, config, 0, games)
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
    from cardsim.sim.runner import kernel_thread, set_threads

    started = time.perf_counter()
    engine = get_engine(game)
    _hooks(engine)  # a game without strategy-check hooks: one line, before anything runs
    if not us.is_user_strategy(spec):
        raise CardsimError(f"strategy check needs a user strategy FILE.py:FUNC, got {spec!r}")
    name = check_strategy(engine, spec)
    if games is None:
        games = DEFAULT_GAMES_PY if ps.is_python_strategy(name) else DEFAULT_GAMES
    threads = set_threads(threads)
    # the plays run in a kernel thread: Ctrl-C stops the check even while a compiled strategy
    # never returns, as it stops ``run`` (issue 45 item 12)
    with kernel_thread(threads) as kernel:
        return _check(engine, game, name, games, seed, players, rules, against, threads, echo,
                      started, kernel.call)  # fmt: skip


def _check(engine, game, name, games, seed, players, rules, against, threads, echo,
           started, call) -> int:  # fmt: skip
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
    played = call(f"self-play {name}", _hooks(engine).selfplay, config, name, MAX_REPLAYED)
    sec, found, counted, counted_text = (
        played.seconds,
        played.found,
        played.counted,
        played.counted_text,
    )
    if played.stopped:  # a py: strategy raised: it would raise at every such decision
        bad = found[0]
        echo(
            f"self-play (every seat {label}) STOPPED at the first exception, after "
            f"{sec:.2f} s: {played.stopped}; it raised {bad.returned.removeprefix(ps.EXCEPTION)}"
        )
        echo("fix it and check again (the comparison is skipped)")
        echo(f"done in {time.perf_counter() - started:.1f} s")
        return 1
    what = f"{played.work:,} {played.work_unit}"
    speed = f"{played.work / sec:,.0f} {played.work_unit}/s" if sec > 0 else ""
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
    c = _compare(engine, name, against, games, seed, players, rules, call)
    echo(
        f"vs {against} on {c['deals']:,} duplicate deals ({c['assignments']} seat assignments, "
        f"{c['games']:,} {unit}, {c['seconds']:.1f} s): win rate {c['win']:.3f} vs "
        f"{c['win_other']:.3f}, difference {c['diff']:+.3f} [{c['lo']:+.3f}, {c['hi']:+.3f}] "
        f"paired 95 % (unit: deal) — {c['verdict']}"
    )
    echo(f"done in {time.perf_counter() - started:.1f} s")
    return 0
