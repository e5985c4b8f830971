"""The streaming report (docs/report.md, "How the report scales"): queries with per-game
group-bys and the joins of runs on shared deals go batch by batch of parts, and give the same
numbers as one query over the whole run."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from cardsim.analysis import io, render, report
from cardsim.analysis.exprs import Partwise


def _direct(runs, queries):
    """The direct computation: every query in one collect over the whole run."""
    return [
        (q.direct(r.games, r.seats) if isinstance(q, Partwise) else q).collect()
        for r, q in zip(runs, queries, strict=True)
    ]


def _whole(run, max_games=None):
    """One batch holding the whole run (the joins of runs go over all games at once)."""
    yield io.Batch(run.games, run.seats, 0, 1 << 62)


def _json(runs: list[Path], out: Path) -> dict:
    rep = report.build_report(runs)
    render.write_json(rep, out)
    doc = json.loads(out.read_text())
    doc.pop("generated", None)
    return doc


def _differences(a, b, path="") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return [f"{path}: keys {sorted(set(a) ^ set(b))}"]
        return [d for k in a for d in _differences(a[k], b[k], f"{path}/{k}")]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} vs {len(b)} items"]
        return [
            d
            for i, (x, y) in enumerate(zip(a, b, strict=True))
            for d in _differences(x, y, f"{path}[{i}]")
        ]
    if isinstance(a, float) and isinstance(b, float):
        if a == b or (np.isnan(a) and np.isnan(b)) or abs(a - b) <= 1e-12 * max(1.0, abs(a)):
            return []
        return [f"{path}: {a!r} vs {b!r}"]
    return [] if a == b else [f"{path}: {a!r} vs {b!r}"]


@pytest.fixture(scope="session")
def yz_run_b(tmp_path_factory) -> Path:
    """The deals of ``yz_run`` (seed 1) with another strategy, in chunks of another size."""
    from cardsim.sim import runner
    from cardsim.sim.config import build_config
    from cardsim.sim.games import get_engine

    out = tmp_path_factory.mktemp("yz-b") / "run"
    cfg = build_config(get_engine("yuanzi"), games=3000, seed=1, strategy="random")
    runner.run(cfg, out, chunk_size=1500, progress=False, threads=1)
    return out


def _count_batches(monkeypatch) -> list[int]:
    seen: list[int] = []
    real = io.batches

    def counting(run, max_games=None):
        for b in real(run, max_games):
            seen.append(b.hi - b.lo)
            yield b

    monkeypatch.setattr(report, "batches", counting)
    return seen


@pytest.mark.parametrize("fixture", ["yz_run", "at_run"])
def test_streaming_report_equals_direct(fixture, request, tmp_path, monkeypatch):
    """A 3-part run in batches of one part: the full report JSON equals the direct one."""
    run = request.getfixturevalue(fixture)
    monkeypatch.setattr(io, "BATCH_GAMES", 1000)
    seen = _count_batches(monkeypatch)
    streamed = _json([run], tmp_path / "streamed.json")
    assert seen and set(seen) == {1000} and len(seen) % 3 == 0  # 3 batches per run read
    monkeypatch.setattr(report, "collect_queries", _direct)
    direct = _json([run], tmp_path / "direct.json")
    assert _differences(streamed, direct) == []


def test_paired_comparison_equals_direct(yz_run, yz_run_b, tmp_path, monkeypatch):
    """Two runs on the same deals, chunks of 1,500 against 1,000 (not aligned): the paired
    differences joined batch by batch equal those of one join of the whole runs."""
    monkeypatch.setattr(io, "BATCH_GAMES", 1000)
    seen = _count_batches(monkeypatch)
    streamed = _json([yz_run, yz_run_b], tmp_path / "streamed.json")
    assert 1500 in seen  # the second run's parts, joined against two parts of the first each
    diffs = json.dumps(streamed["sections"]["comparison"]["tables"], ensure_ascii=False)
    assert "paired on" in diffs and "Student t" in diffs  # both paired kinds were computed
    monkeypatch.setattr(report, "collect_queries", _direct)
    monkeypatch.setattr(report, "batches", _whole)
    direct = _json([yz_run, yz_run_b], tmp_path / "direct.json")
    assert _differences(streamed, direct) == []


def test_paired_moments_match_the_direct_formula():
    """The clustered paired rate from per-frame moments equals :func:`report.paired_rate` on
    the whole frame (deals with several units, split across frames at deal boundaries)."""
    rng = np.random.default_rng(5)
    deal = np.sort(rng.integers(0, 400, 3000))
    df = pl.DataFrame({"g": deal, "a": rng.random(3000) < 0.55, "b": rng.random(3000) < 0.5})
    args = (pl.col("a"), pl.col("b"), pl.col("g"))
    whole = report.paired_rate(*args, df.lazy())
    frames = [df.filter(pl.col("g").is_between(lo, lo + 99)).lazy() for lo in range(0, 400, 100)]
    split = report.paired_rate_from(report.paired_moments(*args, frames))
    assert whole is not None and split is not None
    for k, v in whole.items():
        if isinstance(v, float):
            assert split[k] == pytest.approx(v, rel=1e-12, abs=1e-15), k
        else:
            assert split[k] == v, k


def test_no_whole_run_query_groups_or_joins_by_game(yz_run):
    """Memory: no query collected over the whole run groups or joins by the game (one row
    per match); those go batch by batch (Partwise). The old code had several."""
    run = io.open_run(yz_run)
    per_game = re.compile(r'(BY|ON:) \[[^\]]*col\("game"\)')
    found = []
    for mod in report.modules_for(run.game):
        for name, q in mod.queries(run).items():
            if isinstance(q, pl.LazyFrame) and per_game.search(q.explain(optimized=False)):
                found.append(f"{mod.KEY}.{name}")
    assert found == []
    partwise = [
        f"{m.KEY}.{n}"
        for m in report.modules_for(run.game)
        for n, q in m.queries(run).items()
        if isinstance(q, Partwise)
    ]
    assert "yuanzi_dao.first_leader_adjusted" in partwise and "seats.position" in partwise


def test_batches_cover_the_run_in_bounded_groups(yz_run):
    run = io.open_run(yz_run)
    got = list(io.batches(run, 2000))
    assert [(b.lo, b.hi) for b in got] == [(0, 2000), (2000, 3000)]
    assert sum(b.games.select(pl.len()).collect().item() for b in got) == 3000
    assert got[1].seats.select(pl.col("game").min()).collect().item() == 2000
