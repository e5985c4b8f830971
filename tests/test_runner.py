"""sim/runner.py: chunking, determinism, manifest, atomic parts, resume, refusal to overwrite."""

import json

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from sim import runner
from sim.config import build_config
from sim.errors import CardsimError
from tests.fake_engine import FakeEngine


def config(games=1000, seed=3, **kw):
    return build_config(FakeEngine(), games=games, seed=seed, **kw)


def tables(out):
    return [
        pl.read_parquet(out / t / "*.parquet").sort("game", *(["seat"] if t == "seats" else []))
        for t in runner.TABLES
    ]


def test_plan_chunks_covers_every_game_once():
    chunks = runner.plan_chunks(1001, 250)
    assert [c["count"] for c in chunks] == [250, 250, 250, 250, 1]
    assert [c["first"] for c in chunks] == [0, 250, 500, 750, 1000]


@pytest.mark.parametrize("chunk_size", [1, 77, 1000, 5000])
def test_tables_do_not_depend_on_chunk_size(tmp_path, chunk_size):
    cfg = config(games=300)
    runner.run(cfg, tmp_path / "a", chunk_size=300, progress=False, engine=FakeEngine())
    runner.run(cfg, tmp_path / "b", chunk_size=chunk_size, progress=False, engine=FakeEngine())
    for a, b in zip(tables(tmp_path / "a"), tables(tmp_path / "b"), strict=True):
        assert_frame_equal(a, b)


def test_manifest_records_configuration_and_chunks(tmp_path):
    cfg = config(games=250, rules=[("cap", "5")])
    out = tmp_path / "run"
    runner.run(cfg, out, chunk_size=100, progress=False, engine=FakeEngine())
    m = json.loads((out / "manifest.json").read_text())
    assert m["game"] == "fake" and m["games"] == 250 and m["seed"] == 3
    assert m["rules"] == {"cap": 5, "flavour": "plain"}  # defaults resolved
    assert m["seats"] == ["greedy"] * 4 and m["chunk_size"] == 100
    assert m["status"] == "complete" and m["games_done"] == 250
    assert [c["rows"]["games"] for c in m["chunks"]] == [100, 100, 50]
    assert [c["rows"]["seats"] for c in m["chunks"]] == [400, 400, 200]
    for c in m["chunks"]:
        for t in runner.TABLES:
            assert c["sha256"][t] == runner.sha256_of(runner.part_path(out, t, c["index"]))
    assert not list(out.rglob(".*tmp*"))


def test_refuses_to_overwrite_without_resume_or_force(tmp_path):
    out = tmp_path / "run"
    runner.run(config(games=10), out, chunk_size=5, progress=False, engine=FakeEngine())
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    with pytest.raises(CardsimError, match="not empty"):
        runner.run(config(games=20), out, chunk_size=5, progress=False, engine=FakeEngine())
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    runner.run(config(games=20), out, chunk_size=5, force=True, progress=False, engine=FakeEngine())
    assert json.loads((out / "manifest.json").read_text())["games"] == 20


def test_resume_redoes_missing_and_damaged_chunks_only(tmp_path):
    cfg = config(games=400)
    ref, out = tmp_path / "ref", tmp_path / "run"
    runner.run(cfg, ref, chunk_size=100, progress=False, engine=FakeEngine())
    runner.run(cfg, out, chunk_size=100, progress=False, engine=FakeEngine())
    runner.part_path(out, "games", 1).unlink()  # missing
    runner.part_path(out, "seats", 2).write_bytes(b"garbage")  # damaged
    engine = FakeEngine()
    runner.run(cfg, out, chunk_size=100, resume=True, progress=False, engine=engine)
    redone = sorted(c for c in engine.calls if c[1] > 1)  # (1-game warm-up call aside)
    assert redone == [(100, 100), (200, 100)]
    for a, b in zip(tables(ref), tables(out), strict=True):
        assert_frame_equal(a, b)


def test_resume_rejects_a_different_configuration(tmp_path):
    out = tmp_path / "run"
    runner.run(config(games=10), out, chunk_size=5, progress=False, engine=FakeEngine())
    with pytest.raises(CardsimError, match="seed"):
        runner.run(
            config(games=10, seed=4),
            out,
            chunk_size=5,
            resume=True,
            progress=False,
            engine=FakeEngine(),
        )
    with pytest.raises(CardsimError, match="chunk-size"):
        runner.run(
            config(games=10), out, chunk_size=6, resume=True, progress=False, engine=FakeEngine()
        )


def test_unwritable_out_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(CardsimError, match="not a directory"):
        runner.run(config(games=5), blocker, progress=False, engine=FakeEngine())
    with pytest.raises(CardsimError, match="cannot write"):
        runner.run(config(games=5), blocker / "sub", progress=False, engine=FakeEngine())


def test_stop_rule_stops_after_a_chunk_and_is_recorded(tmp_path):
    out = tmp_path / "run"

    def stop(manifest, out):
        done = sum(c["count"] for c in manifest["chunks"] if c["status"] == "done")
        return "enough" if done >= 200 else None

    res = runner.run(
        config(games=1000), out, chunk_size=100, progress=False, stop_rule=stop, engine=FakeEngine()
    )
    m = json.loads((out / "manifest.json").read_text())
    assert res.stopped_by == "enough" == m["stopped_by"] and m["games_done"] == 200


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"games": 0}, "--games"),
        ({"games": 5, "seed": -1}, "--seed"),
        ({"games": 5, "players": 5}, "4 players"),
        ({"games": 5, "strategy": "nope"}, "allowed: greedy, random"),
        ({"games": 5, "seat_strategies": [(4, "greedy")]}, "seats are 0..3"),
        ({"games": 5, "rules": [("colour", "x")]}, "allowed: flavour, cap"),
        ({"games": 5, "rules": [("flavour", "sweet")]}, "allowed: plain, spicy"),
        ({"games": 5, "rules": [("cap", "100")]}, "integer 1..99"),
    ],
)
def test_bad_configuration_is_a_clear_error(kwargs, message):
    kwargs.setdefault("seed", 1)
    with pytest.raises(CardsimError, match=message):
        build_config(FakeEngine(), **kwargs)


def test_resume_of_a_run_stopped_by_its_rule_plays_nothing_more(tmp_path):
    out = tmp_path / "run"
    stop = {"stop": {"until_ci": 0.05}}

    def rule(manifest, out):
        done = sum(c["count"] for c in manifest["chunks"] if c["status"] == "done")
        return "until_ci: enough" if done >= 300 else None

    cfg = config(games=2000)
    runner.run(
        cfg,
        out,
        chunk_size=100,
        progress=False,
        stop_rule=rule,
        extra_manifest=stop,
        engine=FakeEngine(),
    )
    before = (out / "manifest.json").read_text()
    engine = FakeEngine()
    res = runner.run(
        cfg, out, resume=True, progress=False, stop_rule=rule, extra_manifest=stop, engine=engine
    )
    assert res.games_done == 300 and res.played == 0 and engine.calls == []
    assert (out / "manifest.json").read_text() == before
    with pytest.raises(CardsimError, match="stop"):  # a different rule is a different run
        runner.run(
            cfg,
            out,
            resume=True,
            progress=False,
            extra_manifest={"stop": {"until_ci": 0.01}},
            engine=FakeEngine(),
        )


def test_resume_takes_the_chunk_size_from_the_manifest(tmp_path):
    out = tmp_path / "run"
    cfg = config(games=300)
    runner.run(cfg, out, chunk_size=70, progress=False, engine=FakeEngine())
    runner.part_path(out, "games", 2).unlink()
    res = runner.run(cfg, out, resume=True, progress=False, engine=FakeEngine())
    assert res.played == 70 and res.games_done == 300


def test_an_edited_user_strategy_file_is_a_different_run(tmp_path):
    from sim.game import RunConfig

    f = tmp_path / "mine.py"
    f.write_text("def choose(): pass\n")
    cfg = RunConfig("yuanzi", 4, (f"{f}:choose",) * 4)
    ident = cfg.identity()
    f.write_text("def choose(): return 1\n")
    assert cfg.identity() != ident and set(ident["strategy_files"]) == {str(f)}
