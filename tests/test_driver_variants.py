"""Compile only what a run plays (issue 21 item 2): the built-in drivers are lean (scripted
strategies only); a search seat (pimc) plays on the driver's search variant
(``cardsim.kernels.variants``), compiled on its first use and cached like any kernel."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from cardsim.kernels.atlas import driver as atlas_driver
from cardsim.kernels.yuanzi import driver as yuanzi_driver
from cardsim.sim import warmup
from cardsim.sim.config import build_config
from cardsim.sim.games import get_engine

DRIVERS = {"yuanzi": yuanzi_driver, "atlas": atlas_driver}


@pytest.mark.parametrize("game", ["yuanzi", "atlas"])
def test_a_scripted_run_plays_on_the_lean_driver_and_a_search_seat_on_the_variant(game):
    drv = DRIVERS[game]
    engine = get_engine(game)
    assert drv._SEARCH is False  # the built-in driver has no search in its dispatch
    scripted = engine.strategy_ids(("greedy",) * 4)[0] if game == "yuanzi" else None
    if game == "atlas":
        scripted = engine.seat_ids(build_config(engine, games=1, seed=0, strategy="greedy"))[0]
        searching = engine.seat_ids(build_config(engine, games=1, seed=0, strategy="pimc"))[0]
    else:
        searching = engine.strategy_ids(("pimc", "greedy", "greedy", "greedy"))[0]
    assert drv.for_seats(scripted) is drv
    variant = drv.for_seats(searching)
    assert variant is not drv and variant._SEARCH is True
    assert drv.for_seats(searching, variant) is variant  # a variant is its own search variant
    assert variant.__file__ != drv.__file__ and "search" in variant.__file__


def test_a_greedy_run_never_loads_the_search_variant(tmp_path):
    code = (
        "import sys\n"
        "from cardsim.sim.config import build_config\n"
        "from cardsim.sim.games import get_engine\n"
        "for game in ('yuanzi', 'atlas'):\n"
        "    e = get_engine(game)\n"
        "    e.play_chunk(build_config(e, games=3, seed=1, strategy='greedy'), 0, 3)\n"
        "print(sorted(m for m in sys.modules if m.startswith('cardsim_search_')))\n"
        "print(sys.modules['cardsim.kernels.yuanzi.driver']._choose_search.py_func.__module__)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=900, check=True
    ).stdout.splitlines()
    assert out == ["[]", "cardsim.kernels.yuanzi.driver"]  # the stub, not pimc


@pytest.mark.parametrize("game", ["yuanzi", "atlas"])
def test_search_runs_are_the_same_through_the_variant_and_chunks(game):
    engine = get_engine(game)
    config = build_config(engine, games=6, seed=5, strategy="pimc:samples=2")
    whole = engine.play_chunk(config, 0, 6)[0]
    parts = [engine.play_chunk(config, 0, 2)[0], engine.play_chunk(config, 2, 4)[0]]
    import polars as pl

    assert whole.equals(pl.concat(parts))
    assert warmup.is_cached(game, "search")  # the variant's kernels are in the cache now


def test_the_notice_names_the_search_kernels():
    engine = get_engine("yuanzi")
    pimc = build_config(engine, games=1, seed=0, strategy="pimc")
    greedy = build_config(engine, games=1, seed=0, strategy="greedy")
    assert warmup.purpose_of(pimc) == "search" and warmup.purpose_of(greedy) == "run"
    assert warmup.purpose_of(pimc, "replay") == "replay"
    assert "search kernels (pimc, ismcts)" in warmup.notice([("yuanzi", "search")])
    assert warmup.notice([("yuanzi", "run")]).startswith("compiling the kernels of 原子")


def test_the_lean_stub_is_never_an_answer():
    # a search id given to the lean driver directly would be a bad answer, never a silent move:
    # the Python entry points route it (run_games), so the lean stub is not reached from them
    engine = get_engine("yuanzi")
    sids = engine.strategy_ids(("pimc:samples=2",) * 4)[0]
    g, _s = yuanzi_driver.run_games(3, 0, 2, sids, engine.rules_array({}))
    assert int(np.asarray(g[:, yuanzi_driver.G_BAD]).sum()) == 0
