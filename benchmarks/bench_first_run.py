"""First-run benchmark (not a test): README command 1 after the install, from a cold kernel cache.

    python benchmarks/bench_first_run.py CHECKOUT [CHECKOUT ...]

Each CHECKOUT is a clone with its own ``.venv`` (made by README command 1's install). For each,
in the order given, this clears ``kernels/__pycache__/numba-*`` (the compiled kernels), runs
``.venv/bin/cardsim study --quiet --out <temporary directory>`` and prints one line: wall
seconds, CPU seconds of the study and its children (user + system), and the load average
before and after (on a shared machine other jobs inflate the wall time; give two checkouts,
e.g. before and after a change, to get a paired figure from one session).
"""

import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def first_run(checkout: Path) -> str:
    for cache in (checkout / "kernels" / "__pycache__").glob("numba-*"):
        shutil.rmtree(cache)
    out = Path(tempfile.mkdtemp(prefix="cardsim-first-run-"))
    load0 = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(
        [str(checkout / ".venv" / "bin" / "cardsim"), "study", "--quiet", "--out", str(out)],
        cwd=checkout,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    shutil.rmtree(out, ignore_errors=True)
    status = "ok" if proc.returncode == 0 else f"FAILED ({proc.stderr.strip()[-200:]})"
    return (
        f"first run {checkout.name}: {wall:.1f} s wall, {cpu:.1f} s CPU, "
        f"load average {load0:.1f} -> {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores: {status}"
    )


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        print(first_run(Path(path).resolve()), flush=True)


if __name__ == "__main__":
    main()
