"""Sampling profile of the compiled kernels, per function and per instruction (not a test).

    .venv/bin/python benchmarks/profile_jit.py --game atlas --strategy greedy [--players 4]
        [--seconds 30] [--top 15] [--annotate 2] [--out /tmp/profile_jit]

Linux ``perf`` samples the process on the CPU clock (``perf record -e cpu-clock``: no hardware
counters needed, so it works in a VM). Numba's machine code has no symbols that perf can see, so
the script compiles the kernels afresh in-process (an empty cache folder), asks LLVM for the
address of every function it compiled and writes them to ``/tmp/perf-PID.map``, the file perf
reads for JIT code. It then plays the game for ``--seconds`` on one thread and prints each
compiled function's share of the samples that fell in compiled code (the compile itself is in
other code and drops out). ``--annotate K`` also writes the machine code of the K hottest
functions with the samples per instruction (objdump) under ``--out``: the sample lands on or
just after the instruction that waited, so read a hot spot with its neighbours.

A function that LLVM inlined counts in its caller; ``@inline_kernel`` functions are always in
their callers. docs/performance.md says what the profiles found.
"""

from __future__ import annotations

import argparse
import collections
import ctypes
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _play_atlas(strategy: str, players: int, seconds: float) -> float:
    import numba
    import numpy as np
    from cardsim.kernels.atlas import driver as D
    from cardsim.kernels.atlas import rules as RL
    from cardsim.kernels.atlas.strategies import GREEDY, RANDOM

    numba.set_num_threads(1)
    sid = {"greedy": GREEDY, "random": RANDOM}[strategy]
    R, sids, games = RL.DEFAULT_RULES.copy(), np.full(players, sid, np.int64), 10_000
    g, s = np.zeros(games, D.GAMES_DTYPE), np.zeros(games * players, D.SEATS_DTYPE)
    D.simulate(np.uint64(1), 0, 100, players, sids, R, g, s)  # compile
    write_perf_map()
    t, k = time.perf_counter(), 0
    while time.perf_counter() - t < seconds:
        D.simulate(np.uint64(1), k * games, games, players, sids, R, g, s)
        k += 1
    return k * games / (time.perf_counter() - t)


def _play_yuanzi(strategy: str, players: int, seconds: float) -> float:
    import numba
    import numpy as np
    from cardsim.kernels.yuanzi import driver as drv
    from cardsim.kernels.yuanzi.state import rules_array
    from cardsim.kernels.yuanzi.strategies import GREEDY, RANDOM

    numba.set_num_threads(1)
    sids = np.full(4, {"greedy": GREEDY, "random": RANDOM}[strategy], np.int64)
    rules, matches = rules_array(), 2_000
    drv.run_games(1, 0, 16, sids, rules)  # compile
    write_perf_map()
    t, k = time.perf_counter(), 0
    while time.perf_counter() - t < seconds:
        drv.run_games(1, k * matches, matches, sids, rules)
        k += 1
    return k * matches / (time.perf_counter() - t)


def write_perf_map() -> None:
    """Write ``/tmp/perf-PID.map`` (start, size, name of every compiled function) and, for the
    annotation, each function's machine code under ``$PROFILE_JIT_CODE``."""
    import gc

    libs: dict[int, object] = {}

    def walk(lib):
        if id(lib) not in libs:
            libs[id(lib)] = lib
            for sub in getattr(lib, "_linking_libraries", ()):
                walk(sub)

    for o in gc.get_objects():
        if "CodeLibrary" in type(o).__name__:
            walk(o)
    entries: dict[int, str] = {}
    for lib in libs.values():
        module = getattr(lib, "_final_module", None)
        if module is None:
            continue
        engine = lib._codegen._engine
        for f in module.functions:
            if f.is_declaration:
                continue
            try:
                addr = engine.get_function_address(f.name)
            except Exception:  # noqa: BLE001 (a symbol LLVM did not emit)
                continue
            if addr:
                entries[addr] = f.name
    addrs = sorted(entries)
    code_dir = Path(os.environ["PROFILE_JIT_CODE"])
    (code_dir / "pid").write_text(str(os.getpid()))  # the parent reads this process's map
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as fh:
        for i, a in enumerate(addrs):
            size = addrs[i + 1] - a if i + 1 < len(addrs) else 4096
            size = size if size < 1 << 20 else 4096  # the last function of a memory block
            fh.write(f"{a:x} {size:x} {entries[a]}\n")
            (code_dir / f"{a:x}.bin").write_bytes(ctypes.string_at(a, size))


def short_name(sym: str) -> str:
    """``cardsim.kernels.atlas.turn.held_options#85`` from a Numba-mangled symbol (``#k``: the
    k-th specialization Numba compiled in the process)."""
    i = sym.find("_ZN")
    if i < 0:
        return sym[:60]
    i += 3
    parts = []
    while i < len(sym) and sym[i].isdigit():  # <length><name> ... (Itanium nested name)
        j = i
        while sym[j].isdigit():
            j += 1
        k = int(sym[i:j])
        parts.append(sym[j : j + k])
        i = j + k
    m = re.match(r"B\d+v(\d+)", sym[i:])
    name = ".".join(p for p in parts if p != "cpython").replace("_3clocals_3e", "<locals>")
    return name + (f"#{m.group(1)}" if m else "")


def child(args) -> None:
    play = {"atlas": _play_atlas, "yuanzi": _play_yuanzi}[args.game]
    rate = play(args.strategy, args.players, args.seconds)
    unit = "rounds" if args.game == "atlas" else "matches"
    print(f"{rate:,.0f} {unit}/s on one thread while sampled", file=sys.stderr)


def parent(args) -> None:
    if shutil.which("perf") is None:
        raise SystemExit("profile_jit: needs Linux perf (Debian: apt-get install linux-perf)")
    out = Path(args.out)
    code = out / "code"
    shutil.rmtree(out, ignore_errors=True)
    code.mkdir(parents=True)
    env = dict(os.environ, PROFILE_JIT_CODE=str(code), PROFILE_JIT_CHILD="1")
    env["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="profile_jit_cache_")  # compile in-process
    data = out / "perf.data"
    cmd = ["perf", "record", "-q", "-e", "cpu-clock", "-F", "2000", "-o", str(data), "--"]
    subprocess.run(cmd + [sys.executable, *sys.argv], env=env, check=True)
    shutil.rmtree(env["NUMBA_CACHE_DIR"], ignore_errors=True)
    script = subprocess.run(
        ["perf", "script", "-i", str(data), "-F", "ip,sym"], capture_output=True, text=True
    ).stdout
    per_fn: collections.Counter[str] = collections.Counter()
    per_ip: collections.Counter[int] = collections.Counter()
    for line in script.splitlines():
        p = line.split()
        if len(p) >= 2 and ("cardsim" in p[1] or "parfor" in p[1]):
            per_fn[p[1]] += 1
            per_ip[int(p[0], 16)] += 1
    total = sum(per_fn.values())
    if total == 0:
        raise SystemExit("profile_jit: no samples fell in compiled code")
    print(f"{total:,} samples in compiled code ({args.game}, {args.strategy}, one thread):")
    for sym, k in per_fn.most_common(args.top):
        print(f"  {100 * k / total:5.1f} %  {short_name(sym)}")
    perf_map = Path(f"/tmp/perf-{(code / 'pid').read_text()}.map")
    starts = {}
    for line in perf_map.read_text().splitlines():
        a, size, name = line.split(" ", 2)
        starts[name] = (int(a, 16), int(size, 16))
    for sym, _ in per_fn.most_common(args.annotate):
        a, size = starts[sym]
        dis = subprocess.run(
            [
                "objdump",
                "-D",
                "-b",
                "binary",
                "-m",
                "i386:x86-64",
                f"--adjust-vma={a:#x}",
                str(code / f"{a:x}.bin"),
            ],  # fmt: skip
            capture_output=True,
            text=True,
        ).stdout
        fn_total = sum(v for ip, v in per_ip.items() if a <= ip < a + size)
        lines = []
        for row in dis.splitlines():
            head = row.strip().split(":")[0]
            if re.fullmatch(r"[0-9a-f]+", head) and a <= int(head, 16) < a + size:
                k = per_ip.get(int(head, 16), 0)
                lines.append(f"{k:7d} {100 * k / fn_total:5.1f}%  {row.strip()}")
        path = out / f"{short_name(sym)}.asm.txt"
        path.write_text("\n".join(lines) + "\n")
        print(f"  annotated: {path}")
    perf_map.unlink()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", choices=("atlas", "yuanzi"), default="atlas")
    ap.add_argument("--strategy", choices=("greedy", "random"), default="greedy")
    ap.add_argument("--players", type=int, default=4, help="ATLAS only")
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--annotate", type=int, default=0)
    ap.add_argument("--out", default="/tmp/profile_jit")
    args = ap.parse_args()
    child(args) if os.environ.get("PROFILE_JIT_CHILD") else parent(args)


if __name__ == "__main__":
    main()
