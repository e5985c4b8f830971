"""In-process A/B of the kernels of an older checkout against this one (not a test).

    .venv/bin/python benchmarks/bench_ab.py OLD_CHECKOUT [--pairs 15] [--only yuanzi,atlas,pimc]

Both versions load into one process, this one as ``cardsim.kernels.*``. A checkout from before
the one installed name loads as ``kernels.*`` from OLD_CHECKOUT; a later one (its kernels import
as ``cardsim.kernels`` too) is copied to a temporary folder with its imports renamed
``old_cardsim.kernels`` (its pimc case needs the old bench script and is left out). Each case
then runs old and new back to back, ``--pairs`` times, the order swapped every pair, on one thread, timing each call's CPU seconds; the figure is the median of
the per-pair ratios (old seconds / new seconds = speed new/old), with its quartiles. Short,
finely interleaved pairs see the same machine state, which is what makes a ratio readable on a
shared 2-core machine where separate runs minutes apart differ by ±20 %.

Both sides play the same games (same root seed, same indices; ATLAS new with
``self_melds=any``, the default before the AT-07 revision, for an OLD before it), and the script
checks that they give equal outcome columns before it times anything.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

import numba
import numpy as np

HERE = Path(__file__).resolve().parent
ROOT_SEED = np.uint64(1)


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def cpu_of(fn) -> float:
    c = time.process_time()
    fn()
    return time.process_time() - c


def pairs(old_fn, new_fn, n: int) -> list[float]:
    """Speed ratios new/old (old CPU seconds / new CPU seconds) of ``n`` alternating pairs."""
    old_fn(), new_fn()  # warm (cache load)
    out = []
    for i in range(n):
        if i % 2:
            tn, to = cpu_of(new_fn), cpu_of(old_fn)
        else:
            to, tn = cpu_of(old_fn), cpu_of(new_fn)
        out.append(to / tn)
    return out


def report(name: str, ratios: list[float]) -> None:
    q = statistics.quantiles(ratios, n=4)
    print(
        f"{name:22s} new/old {statistics.median(ratios):.3f}  (quartiles {q[0]:.3f} .. {q[2]:.3f};"
        f" {len(ratios)} pairs)",
        flush=True,
    )


def yuanzi_cases(old_pkg: str, n_pairs: int, names: tuple[str, ...] = ("greedy", "random")) -> None:
    from cardsim.kernels.yuanzi import driver as new
    from cardsim.kernels.yuanzi import state as new_state

    old = importlib.import_module(f"{old_pkg}.yuanzi.driver")
    old_state = importlib.import_module(f"{old_pkg}.yuanzi.state")
    old_s = importlib.import_module(f"{old_pkg}.yuanzi.strategies")

    for name in names:
        count = 8_000 if name == "random" else 10_000
        sid = getattr(old_s, name.upper())
        sids = np.full(4, sid, np.int64)
        ro, rn = old_state.rules_array(), new_state.rules_array()
        go, _ = old.run_games(1, 0, 500, sids, ro)
        gn, _ = new.run_games(1, 0, 500, sids, rn)
        if go.shape != gn.shape or not np.array_equal(go, gn):
            raise SystemExit(f"原子 {name}: old and new play different games")
        ratios = pairs(
            lambda s=sids, r=ro, c=count: old.run_games(1, 0, c, s, r),
            lambda s=sids, r=rn, c=count: new.run_games(1, 0, c, s, r),
            n_pairs,
        )
        report(f"yuanzi {name}", ratios)


def atlas_cases(
    old_pkg: str, n_pairs: int, new_rules: dict[str, str], cases: set[str] | None = None
) -> None:
    from cardsim.kernels.atlas import driver as ND
    from cardsim.kernels.atlas import rules as NRL

    OD = importlib.import_module(f"{old_pkg}.atlas.driver")
    ORL = importlib.import_module(f"{old_pkg}.atlas.rules")

    for n in (2, 4, 10):
        for name, sid in (("greedy", 1), ("random", 0)):
            if cases and f"{name}:{n}" not in cases:
                continue
            games = {2: 20_000, 4: 12_000, 10: 5_000}[n]
            sids = np.full(n, sid, np.int64)
            Rn = NRL.OPTIONS.array(new_rules)  # a later OLD takes the same rule options
            Ro = (
                ORL.OPTIONS.array(new_rules)
                if hasattr(ORL, "OPTIONS")
                else ORL.DEFAULT_RULES.copy()
            )
            go, so = np.zeros(games, OD.GAMES_DTYPE), np.zeros(games * n, OD.SEATS_DTYPE)
            gn, sn = np.zeros(games, ND.GAMES_DTYPE), np.zeros(games * n, ND.SEATS_DTYPE)
            OD.simulate(np.uint64(1), 0, 300, n, sids, Ro, go, so)
            ND.simulate(np.uint64(1), 0, 300, n, sids, Rn, gn, sn)
            for col in ("turns", "winner"):
                if col in go.dtype.names and not np.array_equal(go[col][:300], gn[col][:300]):
                    raise SystemExit(f"ATLAS {name} n={n}: old and new play different rounds")
            old_args = (ROOT_SEED, 0, games, n, sids, Ro, go, so)
            new_args = (ROOT_SEED, 0, games, n, sids, Rn, gn, sn)
            ratios = pairs(
                lambda a=old_args: OD.simulate(*a),
                lambda a=new_args: ND.simulate(*a),
                n_pairs,
            )
            report(f"atlas {name} n={n}", ratios)


def pimc_cases(old_root: Path, n_pairs: int, new_rules: dict[str, str]) -> None:
    old_b = _load(old_root / "benchmarks" / "bench_pimc.py", "old_bench_pimc")
    new_b = _load(HERE / "bench_pimc.py", "new_bench_pimc")
    for game, positions in (("yuanzi", 150), ("atlas", 80)):
        fo, fn = getattr(old_b, f"bench_{game}"), getattr(new_b, f"bench_{game}")
        extra = (new_rules,) if game == "atlas" else (None,)
        ratios = []
        for i in range(n_pairs):  # each call times its own positions after a warm-up call
            if i % 2:
                tn, to = fn(positions, 1, *extra)[3], fo(positions, 1)[3]
            else:
                to, tn = fo(positions, 1)[3], fn(positions, 1, *extra)[3]
            ratios.append(to / tn)
        report(f"pimc {game}", ratios)


def _renamed_copy(old: Path) -> str:
    """A later checkout's kernels, copied with ``cardsim.kernels`` renamed ``old_cardsim.kernels``
    (both versions then load side by side); returns the package to import. The copy lives in a
    temporary folder named after OLD and is rewritten only where a file changed, so a second
    run loads the old kernels from its compile cache."""
    import hashlib
    import tempfile

    tag = hashlib.sha1(str(old).encode()).hexdigest()[:10]
    root = Path(tempfile.gettempdir()) / f"bench_ab_{tag}"
    for src in sorted((old / "kernels").rglob("*.py")):
        if "__pycache__" in src.parts:
            continue
        dst = root / "old_cardsim" / src.relative_to(old)
        text = src.read_text().replace("cardsim.kernels", "old_cardsim.kernels")
        if not dst.exists() or dst.read_text() != text:
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_text(text)
    (root / "old_cardsim" / "__init__.py").touch()
    sys.path.insert(0, str(root))
    return "old_cardsim.kernels"


def _old_package(old: Path) -> str:
    """The package OLD's kernels import as in this process (``kernels`` or a renamed copy)."""
    if not (old / "kernels" / "__init__.py").exists():
        raise SystemExit(f"{old}: not a cardsim checkout (no kernels/)")
    if (old / "cardsim" / "cli.py").exists():
        return _renamed_copy(old)
    sys.path.insert(0, str(old))
    import kernels  # noqa: F401  (the old checkout's, before anything else can shadow it)

    if not str(Path(kernels.__file__).resolve()).startswith(str(old)):
        raise SystemExit(f"`kernels` resolved to {kernels.__file__}, not under {old}")
    return "kernels"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", type=Path)
    ap.add_argument("--pairs", type=int, default=15)
    ap.add_argument("--only", default="yuanzi,atlas,pimc")
    ap.add_argument("--new-atlas-rules", default="self_melds=any")
    ap.add_argument(
        "--atlas-cases", default="", help="only these ATLAS cases, e.g. greedy:4,random:10"
    )
    ap.add_argument(
        "--yuanzi-cases",
        default="greedy,random",
        help="原子 strategies to time (all four seats), e.g. greedy,random,points,planner,bomber",
    )
    a = ap.parse_args()
    yz = tuple(filter(None, a.yuanzi_cases.split(",")))
    if set(yz) - {"greedy", "random", "points", "planner", "bomber"}:
        raise SystemExit(
            f"--yuanzi-cases: unknown {sorted(set(yz) - {'greedy', 'random', 'points', 'planner', 'bomber'})}"
        )
    cases = set(filter(None, a.atlas_cases.split(",")))
    known = {f"{s}:{n}" for s in ("greedy", "random") for n in (2, 4, 10)}
    if cases - known:
        raise SystemExit(f"--atlas-cases: unknown {sorted(cases - known)}; known: {sorted(known)}")
    old = a.old.resolve()
    old_pkg = _old_package(old)
    numba.set_num_threads(1)
    rules = dict(kv.split("=", 1) for kv in a.new_atlas_rules.split(",") if kv)
    only = a.only.split(",")
    print(f"old = {old} (as {old_pkg}); new = {HERE.parent}; 1 thread, CPU seconds per call")
    if "yuanzi" in only:
        yuanzi_cases(old_pkg, a.pairs, yz)
    if "atlas" in only:
        atlas_cases(old_pkg, a.pairs, rules, cases)
    if "pimc" in only and old_pkg == "kernels":
        pimc_cases(old, max(3, a.pairs // 3), rules)
    elif "pimc" in only:
        print("pimc: left out (a checkout after the one installed name)")


if __name__ == "__main__":
    main()
