"""`cardsim report` benchmark (not a test): peak memory and wall time against the run size.

    .venv/bin/python benchmarks/bench_report.py [--matches 1000000,3000000] [--dir /tmp/bench]
        [--source RUN] [--chunk 25000] [--repeats 1]

Builds (or reuses) a plain 原子 run of each size, then times `cardsim report RUN --out RUN.html`
in a fresh process and prints the median wall time and the median peak RSS (the child's
``ru_maxrss``) per size, and the ratios to the smallest.

The big runs are **synthesised, not played**: the games and seats of a small real run (``--source``,
by default a 25,000-match greedy run played once with seed 9) are tiled into parts of ``--chunk``
matches with the game index shifted, written with the real schema, part metadata and manifest
(rows, sha256) of a run of that size. The numbers repeat, the shape and the bytes per match are
those of a real run, which is what the report's memory and time depend on.
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def seed_run(where: Path) -> Path:
    """A real 25,000-match 原子 greedy run (played once, then reused)."""
    from cardsim.sim import runner
    from cardsim.sim.config import build_config
    from cardsim.sim.games import get_engine

    out = where / "yz-seed"
    if not (out / "manifest.json").exists():
        cfg = build_config(get_engine("yuanzi"), games=25_000, seed=9)
        runner.run(cfg, out, chunk_size=25_000, progress=False)
    return out


def make_run(matches: int, where: Path, source: Path, chunk: int) -> Path:
    """A run of ``matches`` 原子 matches tiled from ``source``'s rows (see the module doc)."""
    import polars as pl
    from cardsim.sim import rundir

    out = where / f"yz-{matches}"
    if (out / "manifest.json").exists():
        return out
    src = rundir.read_manifest(source)
    tables = {t: pl.read_parquet(rundir.finished_parts(source, src, t)) for t in rundir.TABLES}
    n_src = tables["games"].height
    reps = -(-chunk // n_src)
    tiled = {}
    for t, df in tables.items():
        base = df.with_columns(pl.col("game") - pl.col("game").min())
        tiled[t] = pl.concat(
            [base.with_columns(pl.col("game") + r * n_src) for r in range(reps)]
        ).filter(pl.col("game") < chunk)
    man = copy.deepcopy(src)
    man.update(games=matches, chunk_size=chunk, status="complete", stopped_by="games")
    chunks = []
    for i, first in enumerate(range(0, matches, chunk)):
        count = min(chunk, matches - first)
        c = {"index": i, "first": first, "count": count, "status": "done", "rows": {}, "sha256": {}}
        for t, df in tiled.items():
            part = df.filter(pl.col("game") < count).with_columns(pl.col("game") + first)
            data = rundir.parquet_bytes(part, rundir.part_metadata(man, t, c, count))
            c["sha256"][t] = rundir.write_part(rundir.part_path(out, t, i), data)
            c["rows"][t] = part.height
        c["seconds"] = 0.0
        chunks.append(c)
    man["chunks"] = chunks
    man["games_done"] = matches
    (out / "manifest.json").write_text(json.dumps(man, indent=2, ensure_ascii=False))
    return out


def report_once(run: Path) -> tuple[float, float, float]:
    """(wall seconds, peak RSS in MB, CPU seconds) of one `cardsim report` in a new process."""
    code = (
        "import resource, subprocess, sys, time;"
        "t = time.perf_counter();"
        f"subprocess.run([sys.executable, '-m', 'cardsim', 'report', {str(run)!r}, "
        f"'--out', {str(run) + '.html'!r}], check=True, capture_output=True);"
        "w = time.perf_counter() - t;"
        "u = resource.getrusage(resource.RUSAGE_CHILDREN);"
        "print(w, u.ru_maxrss / 1024, u.ru_utime + u.ru_stime)"
    )
    res = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    wall, rss, cpu = map(float, res.stdout.split())
    return wall, rss, cpu


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--matches", default="1000000,3000000")
    ap.add_argument("--dir", default="/tmp/cardsim-bench-report")
    ap.add_argument("--source", type=Path, default=None, help="a small real 原子 run to tile")
    ap.add_argument("--chunk", type=int, default=25_000, help="matches per part")
    ap.add_argument("--repeats", type=int, default=1)
    args = ap.parse_args()
    where = Path(args.dir)
    where.mkdir(parents=True, exist_ok=True)
    source = args.source or seed_run(where)
    sizes = [int(x) for x in args.matches.split(",")]
    rows = []
    for n in sizes:
        run = make_run(n, where, source, args.chunk)
        res = [report_once(run) for _ in range(args.repeats)]
        rows.append((n, *(statistics.median(x[i] for x in res) for i in range(3))))
        print(f"{n:,} matches: {rows[-1][1]:.1f} s, {rows[-1][2]:.0f} MB peak", flush=True)
    base = rows[0]
    print(f"{'matches':>10} {'wall s':>8} {'cpu s':>8} {'peak MB':>8} {'wall ×':>7} {'peak ×':>7}")
    for n, w, r, c in rows:
        print(f"{n:>10,} {w:>8.1f} {c:>8.1f} {r:>8.0f} {w / base[1]:>7.2f} {r / base[2]:>7.2f}")


if __name__ == "__main__":
    main()
