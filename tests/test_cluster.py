"""Cluster runs: chunks on a real Dask LocalCluster (worker processes) give the same tables."""

import polars as pl
import pytest
from cardsim.sim import runner
from cardsim.sim.compare import DuplicateEngine, build_compare_config
from cardsim.sim.config import build_config
from cardsim.sim.games import get_engine
from polars.testing import assert_frame_equal

pytest.importorskip("dask.distributed")


def tables(out):
    return [
        pl.read_parquet(out / t / "*.parquet").sort(
            [
                c
                for c in ("game", "assignment", "seat")
                if c in pl.read_parquet_schema(next((out / t).glob("*.parquet")))
            ]
        )
        for t in runner.TABLES
    ]


def test_dask_local_cluster_matches_a_local_run(tmp_path):
    engine = get_engine("yuanzi")
    cfg = build_config(engine, games=600, seed=21, strategy="random")
    runner.run(cfg, tmp_path / "local", chunk_size=200, progress=False)
    runner.run(cfg, tmp_path / "dask", chunk_size=150, progress=False, scheduler="local:2")
    for a, b in zip(tables(tmp_path / "local"), tables(tmp_path / "dask"), strict=True):
        assert_frame_equal(a, b)


@pytest.mark.heavy
def test_dask_runs_duplicate_deal_comparisons(tmp_path):
    engine = get_engine("atlas")
    cfg = build_compare_config(engine, ["greedy", "random"], games=100, seed=4, players=3)
    runner.run(
        cfg, tmp_path / "local", chunk_size=50, progress=False, engine=DuplicateEngine(engine)
    )
    runner.run(
        cfg,
        tmp_path / "dask",
        chunk_size=50,
        progress=False,
        engine=DuplicateEngine(engine),
        scheduler="local:2",
    )
    for a, b in zip(tables(tmp_path / "local"), tables(tmp_path / "dask"), strict=True):
        assert_frame_equal(a, b)


@pytest.mark.heavy
@pytest.mark.parametrize("game", ["yuanzi", "atlas"])
def test_user_strategies_on_a_dask_cluster_match_a_local_run(game, tmp_path):
    """User strategies are entered in each process's own table (kernels/call_tables.py): this
    process's entries differ from the workers' (another function entered first), and the
    tables are still those of a local run."""
    import importlib
    from pathlib import Path

    from cardsim.sim import user_strategies as us
    from cardsim.sim.game import RunConfig

    root = Path(__file__).resolve().parents[1]
    args = (
        "own, played, pub, legal, n_legal, rng" if game == "yuanzi" else "d, h, p, o, n_legal, rng"
    )
    first = tmp_path / "first.py"
    first.write_text(f"def choose({args}):\n    return n_legal - 1\n")
    engine = get_engine(game)
    drv = importlib.import_module(engine.warmup.entry_points["run"][0])
    us.entry(f"{first}:choose", drv)  # only in this process
    example = str(root / "examples" / f"{game}_strategy.py") + ":choose"
    seats = (example, "greedy", f"{first}:choose", "random")
    cfg = RunConfig(game=game, players=4, seats=seats, seed=5, games=400)
    runner.run(cfg, tmp_path / "local", chunk_size=400, progress=False)
    runner.run(cfg, tmp_path / "dask", chunk_size=100, progress=False, scheduler="local:2")
    for a, b in zip(tables(tmp_path / "local"), tables(tmp_path / "dask"), strict=True):
        assert_frame_equal(a, b)


@pytest.mark.heavy
def test_a_busy_port_8787_gives_no_warning(tmp_path, recwarn):
    """distributed's default HTTP port taken by something else (another cluster, a dashboard):
    a local cluster run says nothing about it (it printed a UserWarning into cardsim's stderr)."""
    import socket

    busy = socket.socket()
    try:
        busy.bind(("0.0.0.0", 8787))
        busy.listen()
    except OSError:
        pass  # already taken: the case itself
    try:
        cfg = build_config(get_engine("yuanzi"), games=200, seed=2, strategy="random")
        runner.run(cfg, tmp_path / "dask", chunk_size=100, progress=False, scheduler="local:1")
    finally:
        busy.close()
    assert not [w for w in recwarn if "already in use" in str(w.message)]


def test_bad_scheduler_is_a_clear_error(tmp_path):
    from cardsim.sim.errors import CardsimError

    cfg = build_config(get_engine("yuanzi"), games=10, seed=1)
    with pytest.raises(CardsimError, match="local:N"):
        runner.run(cfg, tmp_path / "x", progress=False, scheduler="local:zero")
    assert not (tmp_path / "x").exists()
