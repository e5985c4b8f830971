"""sim/runner.py: chunking, determinism, manifest, atomic parts, resume, refusal to overwrite."""

import json

import polars as pl
import pytest
from cardsim.sim import runner
from cardsim.sim.config import build_config
from cardsim.sim.errors import CardsimError
from polars.testing import assert_frame_equal

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


@pytest.mark.parametrize(
    "chunk_size", [pytest.param(1, marks=pytest.mark.heavy), 77, 1000, 5000]
)  # 1: 300 parts
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
    from cardsim.sim.game import RunConfig

    f = tmp_path / "mine.py"
    f.write_text("def choose(): pass\n")
    cfg = RunConfig("yuanzi", 4, (f"{f}:choose",) * 4)
    ident = cfg.identity()
    f.write_text("def choose(): return 1\n")
    assert cfg.identity() != ident and set(ident["strategy_files"]) == {str(f)}


# --- sub-chunks, self-describing parts, validated manifests, the SPRT within a chunk ----------


def test_sub_chunks_do_not_change_a_part(tmp_path, monkeypatch):
    """A chunk played in sub-chunks of 7 games has the same part as one call (also for a
    comparison, whose rows are assignment-major)."""
    from cardsim.sim.compare import DuplicateEngine, build_compare_config

    cmp = build_compare_config(FakeEngine(), ["greedy", "random"], games=300, seed=2)
    for name, cfg, eng in (
        ("plain", config(games=300), FakeEngine()),
        ("cmp", cmp, DuplicateEngine(FakeEngine())),
    ):
        runner.run(cfg, tmp_path / f"{name}-a", chunk_size=300, progress=False, engine=eng)
        monkeypatch.setattr(runner, "FIRST_SUB_CHUNK", 7)
        monkeypatch.setattr(runner, "SUB_CHUNK_SECONDS", 1e-9)  # every sub-chunk minimal
        runner.run(cfg, tmp_path / f"{name}-b", chunk_size=300, progress=False, engine=eng)
        monkeypatch.undo()
        for t in runner.TABLES:
            a = pl.read_parquet(runner.part_path(tmp_path / f"{name}-a", t, 0))
            b = pl.read_parquet(runner.part_path(tmp_path / f"{name}-b", t, 0))
            assert_frame_equal(a, b)  # row order included


def test_every_part_says_what_it_is(tmp_path):
    from cardsim.sim import __version__, rundir

    out = tmp_path / "run"
    runner.run(
        config(games=250, rules=[("cap", "5")]), out, chunk_size=100, progress=False,
        engine=FakeEngine(),
    )  # fmt: skip
    meta = rundir.read_part_metadata(runner.part_path(out, "seats", 2))
    assert meta["version"] == __version__ and meta["game"] == "fake" and meta["seed"] == 3
    assert meta["rules"] == {"cap": 5, "flavour": "plain"} and meta["table"] == "seats"
    assert (meta["chunk_index"], meta["chunk_first"], meta["chunk_count"]) == (2, 200, 50)
    assert meta["schema_version"] == rundir.TABLE_SCHEMA_VERSION and meta["players"] == 4


def test_manifest_schema_rejects_damage_in_one_line(tmp_path):
    from cardsim.sim import rundir

    out = tmp_path / "run"
    runner.run(config(games=20), out, chunk_size=10, progress=False, engine=FakeEngine())
    good = json.loads((out / "manifest.json").read_text())
    assert good["format"] == rundir.FORMAT and rundir.validate_manifest(good, "m") is good
    bad = [
        [],
        {**good, "chunks": "x"},
        {**good, "seed": -1},
        {**good, "status": "finished"},
        {**good, "seats": ["greedy"]},
        {**good, "chunks": [good["chunks"][1], good["chunks"][0]]},
    ]
    for m in bad:
        with pytest.raises(CardsimError) as e:
            rundir.validate_manifest(m, "m.json")
        assert "\n" not in str(e.value) and str(e.value).startswith("m.json: not a cardsim")


def _sprt_run(tmp_path, name, strategies, chunk_size, games=20000, delta=0.05):
    from cardsim.analysis.stopping import sprt_rule
    from cardsim.sim.compare import DuplicateEngine, build_compare_config

    cfg = build_compare_config(FakeEngine(), strategies, games=games, seed=11)
    out = tmp_path / name
    a, b = cfg.assignments[0][0], cfg.assignments[0][1]
    kw = {"stop_rule": sprt_rule(a, b, delta), "extra_manifest": {"stop": {"test": f"{a}>{b}"}}}
    res = runner.run(
        cfg, out, chunk_size=chunk_size, progress=False, engine=DuplicateEngine(FakeEngine()), **kw
    )
    return cfg, out, res, kw


def test_sprt_stops_within_a_chunk_at_the_first_crossing(tmp_path):
    """Chunks of 5,000 and of 64 deals stop at the same deal, inside a chunk; the remaining
    games of that chunk are not written; the deal is the first crossing computed offline;
    --resume plays nothing more."""
    import math

    from cardsim.analysis.compare import per_game_win_rates
    from cardsim.sim.compare import DuplicateEngine

    cfg, big, res, kw = _sprt_run(tmp_path, "big", ["greedy", "random"], 5000)
    _, small, res_small, _ = _sprt_run(tmp_path, "small", ["greedy", "random"], 64)
    m = json.loads((big / "manifest.json").read_text())
    n = m["games_done"]
    assert res.stopped_by.startswith("sprt: accepted H1") and 1 < n < 5000
    assert m["chunks"][0]["played"] == n and m["sequential_test"]["deals"] == n
    assert json.loads((small / "manifest.json").read_text())["games_done"] == n
    for a, b in zip(tables(big), tables(small), strict=True):
        assert_frame_equal(a, b)
    assert tables(big)[0]["game"].max() == n - 1
    # offline: the first deal where the LLR leaves (log(beta/(1-alpha)), log((1-beta)/alpha))
    full = tmp_path / "full"
    runner.run(cfg, full, chunk_size=5000, progress=False, engine=DuplicateEngine(FakeEngine()))
    w = per_game_win_rates(pl.read_parquet(full / "seats" / "*.parquet"))
    d = (
        w.select("game", (pl.col("greedy") - pl.col("random")).alias("d"))
        .group_by("game").agg(pl.col("d").mean()).sort("game")["d"].to_list()
    )  # fmt: skip
    s = q = 0.0
    first = None
    for i, x in enumerate(d, 1):
        s, q = s + x, q + x * x
        if i > 1:
            var = max((q - s * s / i) / (i - 1), 1 / i)
            llr = i * 0.05 * (s / i - 0.025) / var
            if llr >= math.log(0.95 / 0.05) or llr <= math.log(0.05 / 0.95):
                first = i
                break
    assert first == n
    engine = DuplicateEngine(FakeEngine())
    again = runner.run(cfg, big, resume=True, progress=False, engine=engine, **kw)
    assert again.played == 0 and engine.engine.calls == []


def test_sprt_decides_when_the_difference_never_varies(tmp_path):
    """greedy vs greedy@2: identical seats replay identical games, D = 0 on every deal."""
    _, out, res, _ = _sprt_run(tmp_path, "same", ["greedy", "greedy"], 5000, delta=0.02)
    m = json.loads((out / "manifest.json").read_text())
    assert res.stopped_by.startswith("sprt: accepted H0")
    # the variance floor 1/n: LLR = -n² δ²/2 crosses log(β/(1-α)) at n = 122 for δ = 0.02
    assert m["games_done"] == 122 and m["sequential_test"]["mean_diff"] == 0.0


def test_sprt_resume_after_an_interruption_stops_at_the_same_deal(tmp_path):
    import shutil

    from cardsim.sim.compare import DuplicateEngine

    cfg, ref, res, kw = _sprt_run(tmp_path, "ref", ["greedy", "random"], 5)
    n = json.loads((ref / "manifest.json").read_text())["games_done"]
    assert n > 10
    out = tmp_path / "cut"  # the same run as if killed after its first two chunks
    shutil.copytree(ref, out)
    m = json.loads((out / "manifest.json").read_text())
    m["chunks"] = m["chunks"][:2] + [
        {"index": i, "first": i * 5, "count": 5, "status": "pending"}
        for i in range(2, len(m["chunks"]))
    ]
    m["status"], m["stopped_by"] = "running", None
    for t in runner.TABLES:
        for p in (out / t).glob("part-*.parquet"):
            if int(p.stem[5:]) >= 2:
                p.unlink()
    (out / "manifest.json").write_text(json.dumps(m))
    res = runner.run(
        cfg, out, resume=True, progress=False, engine=DuplicateEngine(FakeEngine()), **kw
    )
    assert res.stopped_by.startswith("sprt") and res.games_done == n and res.played == n - 10
    for a, b in zip(tables(ref), tables(out), strict=True):
        assert_frame_equal(a, b)
