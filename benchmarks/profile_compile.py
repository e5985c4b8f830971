"""Where a first run's compile time goes (not a test): one cardsim command, cold or warm cache.

    NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/profile_compile.py run yuanzi --games 200

Runs the command in this process with a listener on Numba's ``numba:compile`` events and prints
the functions compiled, by exclusive seconds (the function's own compile, its callees' taken
out), with how many specializations each got: a function listed ×2 was compiled twice (e.g.
once per int literal it was called with). docs/performance.md quotes its output.
"""

from __future__ import annotations

import contextlib
import sys
import time

from numba.core import event


class _Timer(event.Listener):
    def __init__(self) -> None:
        self.stack: list[list] = []
        self.rows: list[tuple[str, float, float]] = []

    def on_start(self, ev) -> None:
        f = ev.data["dispatcher"].py_func
        self.stack.append([f"{f.__module__}.{f.__qualname__}", time.perf_counter(), 0.0])

    def on_end(self, ev) -> None:
        name, t0, child = self.stack.pop()
        dt = time.perf_counter() - t0
        if self.stack:
            self.stack[-1][2] += dt
        self.rows.append((name, dt - child, dt))


def main(argv: list[str]) -> int:
    timer = _Timer()
    event.register("numba:compile", timer)
    from cardsim.cli import main as cli

    t = time.perf_counter()
    with contextlib.suppress(SystemExit):
        cli(argv)
    total = time.perf_counter() - t
    agg: dict[str, list] = {}
    for name, own, whole in timer.rows:
        a = agg.setdefault(name, [0, 0.0, 0.0])
        a[0] += 1
        a[1] += own
        a[2] = max(a[2], whole)
    print(f"wall {total:.1f} s; compiled {len(timer.rows)} functions, "
          f"{sum(r[1] for r in timer.rows):.1f} s in all")  # fmt: skip
    for name, (count, own, whole) in sorted(agg.items(), key=lambda kv: -kv[1][1])[:25]:
        print(f"{own:7.1f} s own {whole:7.1f} s with callees  ×{count}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
