"""`cardsim report` benchmark (not a test): peak memory and wall time against the run size.

    .venv/bin/python benchmarks/bench_report.py [--matches 25000,400000] [--dir /tmp/bench]

Makes (or reuses) a plain 原子 run of each size (seed 9, greedy, chunks of 25,000), then times
`cardsim report RUN --out RUN.html` in a fresh process, three times, and prints the median wall
time and the median peak RSS (the child's ru_maxrss) per size, and the ratios to the smallest.
The report streams (docs/report.md, "Units"): the peak should stay nearly flat in the size.
"""

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def make_run(matches: int, where: Path) -> Path:
    from sim import runner
    from sim.config import build_config
    from sim.games import get_engine

    out = where / f"yz-{matches}"
    if not (out / "manifest.json").exists():
        cfg = build_config(get_engine("yuanzi"), games=matches, seed=9)
        runner.run(cfg, out, chunk_size=min(25_000, matches), progress=False)
    return out


def report_once(run: Path) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of one `cardsim report` in a new process."""
    code = (
        "import resource, subprocess, sys, time;"
        "t = time.perf_counter();"
        f"subprocess.run([sys.executable, '-m', 'sim', 'report', {str(run)!r}, "
        f"'--out', {str(run) + '.html'!r}], check=True, capture_output=True);"
        "w = time.perf_counter() - t;"
        "print(w, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    wall, rss = map(float, res.stdout.split())
    return wall, rss


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--matches", default="25000,400000")
    ap.add_argument("--dir", default="/tmp/cardsim-bench-report")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    where = Path(args.dir)
    where.mkdir(parents=True, exist_ok=True)
    sizes = [int(x) for x in args.matches.split(",")]
    rows = []
    for n in sizes:
        run = make_run(n, where)
        res = [report_once(run) for _ in range(args.repeats)]
        rows.append((n, statistics.median(w for w, _ in res), statistics.median(r for _, r in res)))
    base = rows[0]
    print(f"{'matches':>10} {'wall s':>8} {'peak MB':>8} {'wall ×':>7} {'peak ×':>7}")
    for n, w, r in rows:
        print(f"{n:>10,} {w:>8.1f} {r:>8.0f} {w / base[1]:>7.2f} {r / base[2]:>7.2f}")


if __name__ == "__main__":
    main()
