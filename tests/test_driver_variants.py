"""Compile only what a run plays (issue 21 item 2): the drivers dispatch scripted strategies
directly and call the search strategies (pimc, ismcts) through each game's search table
(``cardsim.kernels.call_tables``), filled on a search seat's first use: a scripted run never
compiles a search, and a first search compiles only the search functions, never a driver."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import polars as pl
import pytest
from cardsim.kernels import call_tables
from cardsim.kernels.atlas import driver as atlas_driver
from cardsim.kernels.yuanzi import driver as yuanzi_driver
from cardsim.sim import warmup
from cardsim.sim.config import build_config
from cardsim.sim.games import get_engine
from numba import njit, types

DRIVERS = {"yuanzi": yuanzi_driver, "atlas": atlas_driver}


def _ids(game: str, strategy: str):
    engine = get_engine(game)
    if game == "atlas":
        return engine.seat_ids(build_config(engine, games=1, seed=0, strategy=strategy))[0]
    return engine.strategy_ids((strategy, "greedy", "greedy", "greedy"))[0]


@pytest.mark.parametrize("game", ["yuanzi", "atlas"])
def test_every_seat_plays_on_the_one_driver_and_a_search_seat_fills_the_table(game):
    drv = DRIVERS[game]
    assert drv.for_seats(_ids(game, "greedy")) is drv
    assert drv.for_seats(_ids(game, "pimc")) is drv  # no driver copy for a search
    assert drv.SEARCH_TABLE.filled(0) and drv.SEARCH_TABLE.filled(1)  # pimc, ismcts
    user = object()  # a user variant stays the module that runs the seats
    assert drv.for_seats(_ids(game, "ismcts"), user) is user


def test_a_greedy_run_never_compiles_a_search():
    code = (
        "from cardsim.sim.config import build_config\n"
        "from cardsim.sim.games import get_engine\n"
        "from cardsim.kernels.atlas import pimc as ap, ismcts as ai, driver as ad\n"
        "from cardsim.kernels.yuanzi import pimc as yp, ismcts as yi, driver as yd\n"
        "for game in ('yuanzi', 'atlas'):\n"
        "    e = get_engine(game)\n"
        "    e.play_chunk(build_config(e, games=3, seed=1, strategy='greedy'), 0, 3)\n"
        "fns = (ap.choose_pimc, ai.choose_ismcts, yp.choose_pimc, yi.choose_ismcts)\n"
        "print([len(f.overloads) for f in fns])\n"
        "print([d.SEARCH_TABLE.filled(k) for d in (ad, yd) for k in (0, 1)])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=900, check=True
    ).stdout.splitlines()
    assert out == ["[0, 0, 0, 0]", "[False, False, False, False]"]


@pytest.mark.parametrize("game", ["yuanzi", "atlas"])
def test_search_runs_are_the_same_across_chunks(game):
    engine = get_engine(game)
    config = build_config(engine, games=6, seed=5, strategy="pimc:samples=2")
    whole = engine.play_chunk(config, 0, 6)[0]
    parts = [engine.play_chunk(config, 0, 2)[0], engine.play_chunk(config, 2, 4)[0]]
    assert whole.equals(pl.concat(parts))
    assert warmup.is_cached(game, "search")  # the search functions are in the cache now


def test_a_search_run_needs_the_run_kernels_and_the_search_strategies():
    engine = get_engine("yuanzi")
    pimc = build_config(engine, games=1, seed=0, strategy="pimc")
    greedy = build_config(engine, games=1, seed=0, strategy="greedy")
    assert warmup.purposes_of(pimc) == ("run", "search")
    assert warmup.purposes_of(greedy) == ("run",)
    assert warmup.purposes_of(pimc, "replay") == ("replay",)
    assert "search strategies (pimc, ismcts)" in warmup.notice([("yuanzi", "search")])
    assert warmup.notice([("yuanzi", "run")]).startswith("compiling the kernels of 原子")


def test_a_search_run_compiles_its_search_strategies_in_a_second_process(monkeypatch):
    """With nothing cached, a first pimc run compiles the driver here and the search
    strategies in a process of their own (2 cores: the two at once)."""
    engine = get_engine("yuanzi")
    config = build_config(engine, games=1, seed=0, strategy="pimc")
    started: list[list[str]] = []

    def command(game, purpose):
        started.append([game, purpose])
        return [sys.executable, "-c", "pass"]

    monkeypatch.setattr(warmup, "is_cached", lambda game, purpose="run": False)
    with warmup.start([config], command=command) as compiling:
        assert compiling.here == [("yuanzi", "run")]
        assert started == [["yuanzi", "search"]]


def test_an_empty_table_entry_answers_minus_one_never_a_jump():
    """A table call to an entry nobody filled is a bad answer (-1), counted by the driver."""
    table = call_tables.Table("test_empty", 2)
    call = table.caller((types.int64,))

    @njit
    def ask(k, x):
        return call(k, x)

    assert ask(0, 5) == -1 and ask(1, 5) == -1
    twice = njit(lambda x: np.int64(2 * x))
    twice.compile((types.int64,))
    table.put(1, twice, (types.int64,))
    assert ask(1, 5) == 10 and ask(0, 5) == -1
    narrow = njit(lambda x: np.int32(x))
    narrow.compile((types.int64,))
    with pytest.raises(TypeError, match="not int64"):  # the callers' type: refused, not called
        table.put(0, narrow, (types.int64,))
