"""``cardsim train``: distil a search strategy into a learned policy (issue 48 item 2).

Positions come from self-play through the game's match engine (``ENGINE.new_match``: the same
deals as game *i* of a run). At every decision with two or more legal moves the seat's
features ``φ(view, move)`` of every legal move are recorded (``Match.decision_features``: the
seat's view only) with the **teacher**'s choice among the same moves (``Match.strategy_action``:
the teacher's own kernel decision on the seat's view). Round 0 follows the teacher's moves;
each DAgger round (``dagger``) plays fresh deals with the weights fitted so far and asks the
teacher at the positions the *learner* reaches (Ross, Gordon & Bagnell, AISTATS 2011), the
data of every round fitted together.

The fit is a conditional logit (McFadden's choice model: the teacher's move among the legal
ones, ``P(i) ∝ exp(w·φ_i)``) with an L2 penalty, by ``scipy.optimize.minimize`` (L-BFGS-B)
from greedy's point (feature ``SCORE`` at 1) — deterministic, so the same command gives the
same weights bit for bit.

Layout: ``OUT.npz`` (the weights, sim/learned.py) and its work folder ``OUT.npz.parts/``
(``train-plan.json`` and one ``.npz`` per finished chunk of games): the same command again reuses
the finished chunks, so an interrupted training resumes. Chunks are fixed blocks of
``CHUNK_GAMES`` games, taken in order and cut at exactly ``decisions`` positions per round, so
the data — and the weights — never depend on threads, workers or interruptions.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from cardsim.sim import jsonio
from cardsim.sim.errors import CardsimError

#: games per chunk of positions (the unit of resuming and of a cluster task)
CHUNK_GAMES = 4
#: game indices of DAgger round r start at r * ROUND_STRIDE (fresh deals per round)
ROUND_STRIDE = 1 << 32
#: chunks played per wave (one wave per look at the count of positions)
WAVE = 8


@dataclass(frozen=True)
class TrainPlan:
    """Everything that determines the weights (threads and workers do not)."""

    game: str
    teacher: str
    decisions: int
    seed: int
    players: int
    rules: dict = field(default_factory=dict)
    dagger: int = 0
    l2: float = 1e-3
    schema: str = ""  # the feature schema's hash (sim/learned.py): positions of another are stale
    improve: int = 0  # deals of policy improvement after the fit (0: none)
    improve_field: tuple[str, ...] = ("greedy",)
    improve_rounds: int = 1  # rounds of improvement, each also against the earlier rounds' weights

    def identity(self) -> dict:
        return json.loads(jsonio.dumps(asdict(self)))

    def positions_identity(self) -> dict:
        """What the positions depend on (the improvement after the fit does not change them)."""
        return {k: v for k, v in self.identity().items() if not k.startswith("improve")}


def build_plan(game: str, teacher: str, decisions: int, seed: int, *, players: int | None = None,
               rules=(), dagger: int = 0, l2: float = 1e-3, improve: int = 0,
               improve_field: tuple[str, ...] = ("greedy",),
               improve_rounds: int = 1) -> TrainPlan:  # fmt: skip
    """A checked plan (CardsimError on bad input)."""
    from cardsim.sim.config import build_config, check_strategy
    from cardsim.sim.games import get_engine

    engine = get_engine(game)
    base = build_config(engine, games=1, seed=seed, players=players, rules=rules)
    teacher = check_strategy(engine, teacher)
    if teacher.startswith("learned") or ".py:" in teacher or teacher.endswith(".py"):
        raise CardsimError(
            f"--teacher {teacher}: the teacher is a built-in search or scripted strategy (e.g. "
            "ismcts), not learned weights or a user file"
        )
    if decisions < 100:
        raise CardsimError(f"--decisions {decisions}: at least 100 positions per round")
    if not 0 <= dagger <= 10:
        raise CardsimError(f"--dagger {dagger}: 0..10 rounds")
    if not 0 <= l2 <= 100:
        raise CardsimError(f"--l2 {l2}: 0..100")
    if improve < 0:
        raise CardsimError(f"--improve {improve}: deals of policy improvement, 0 or more")
    if not 1 <= improve_rounds <= 10:
        raise CardsimError(f"--improve-rounds {improve_rounds}: 1..10")
    field_ = tuple(check_strategy(engine, f) for f in improve_field)
    from cardsim.sim.learned import schema_hash

    rules_text = {k: str(v) for k, v in sorted(base.rules.items())}
    return TrainPlan(game, teacher, decisions, base.seed, base.players, rules_text, dagger, l2,
                     schema_hash(game), improve, field_, improve_rounds)  # fmt: skip


# --- positions ---------------------------------------------------------------------------
def collect_chunk(plan: TrainPlan, round_: int, chunk: int, weights: np.ndarray | None) -> dict:
    """Positions of games ``chunk * CHUNK_GAMES ..`` of round ``round_``: ``X`` (rows: legal
    moves), ``sizes`` (moves per position), ``y`` (the teacher's move per position),
    ``learner`` (the learner's move; -1 in round 0)."""
    from cardsim.kernels.rng import STREAM_STRATEGY, seed_stream
    from cardsim.sim.games import get_engine

    engine = get_engine(plan.game)
    xs, sizes, ys, mine = [], [], [], []
    rng = np.empty(4, np.uint64)
    for g in range(chunk * CHUNK_GAMES, (chunk + 1) * CHUNK_GAMES):
        index = round_ * ROUND_STRIDE + g
        m = engine.new_match(plan.players, plan.rules, plan.seed, index)
        seed_stream(rng, np.uint64(plan.seed), np.uint64(index), STREAM_STRATEGY)
        while not m.is_over():
            legal = m.legal_actions()
            if len(legal) == 1:
                m.apply(int(legal[0]))
                continue
            x = m.decision_features()
            teacher = int(np.searchsorted(legal, m.strategy_action(plan.teacher, rng)))
            learner = -1 if weights is None else int(np.argmax(x @ weights))
            xs.append(x)
            sizes.append(len(legal))
            ys.append(teacher)
            mine.append(learner)
            m.apply(int(legal[teacher if weights is None else learner]))
    from cardsim.sim.learned import feature_names

    nf = len(feature_names(plan.game))
    return {
        "X": np.concatenate(xs) if xs else np.zeros((0, nf)),
        "sizes": np.array(sizes, np.int64),
        "y": np.array(ys, np.int64),
        "learner": np.array(mine, np.int64),
    }


# --- the fit -------------------------------------------------------------------------------
@dataclass
class Data:
    """Positions stacked: rows of features, moves per position, the teacher's move."""

    X: np.ndarray
    sizes: np.ndarray
    y: np.ndarray

    @property
    def starts(self) -> np.ndarray:
        return np.concatenate([[0], np.cumsum(self.sizes)[:-1]]).astype(np.int64)


def stack(parts: list[dict]) -> Data:
    return Data(
        np.concatenate([p["X"] for p in parts]),
        np.concatenate([p["sizes"] for p in parts]),
        np.concatenate([p["y"] for p in parts]),
    )


def _loss(w: np.ndarray, data: Data, l2: float) -> tuple[float, np.ndarray]:
    """Mean negative log-likelihood of the teacher's moves plus ``l2/2 · |w|²``, and its
    gradient."""
    s = data.X @ w
    starts = data.starts
    top = np.maximum.reduceat(s, starts)
    e = np.exp(s - np.repeat(top, data.sizes))
    z = np.add.reduceat(e, starts)
    p = e / np.repeat(z, data.sizes)
    chosen = starts + data.y
    n = len(data.sizes)
    nll = float(np.sum(np.log(z) + top - s[chosen])) / n
    grad = (data.X.T @ p - data.X[chosen].sum(axis=0)) / n
    return nll + 0.5 * l2 * float(w @ w), grad + l2 * w


def agreement(w: np.ndarray, data: Data) -> float:
    """Share of positions where the argmax of ``w·φ`` (first of the maxima) is the teacher's."""
    s = data.X @ w
    hits = 0
    for k, (a, n) in enumerate(zip(data.starts, data.sizes, strict=True)):
        hits += int(np.argmax(s[a : a + n]) == data.y[k])
    return hits / max(len(data.sizes), 1)


def fit(data: Data, start: np.ndarray, l2: float) -> tuple[np.ndarray, dict]:
    """The penalised conditional-logit weights (scipy L-BFGS-B) and the fit's figures.

    The fit runs on standardised features (each column divided by its root mean square over
    the positions' moves, 1 for a column that is always 0), so the penalty treats features of
    every scale alike; the weights are mapped back to the kernel's features."""
    from scipy import optimize

    scale = np.sqrt(np.mean(data.X**2, axis=0))
    scale[scale == 0] = 1.0
    z = Data(data.X / scale, data.sizes, data.y)
    res = optimize.minimize(
        _loss, start * scale, args=(z, l2), jac=True, method="L-BFGS-B",
        options={"maxiter": 5000, "gtol": 1e-9, "ftol": 1e-13},
    )  # fmt: skip
    w = np.asarray(res.x, np.float64) / scale
    return w, {
        "positions": int(len(data.sizes)),
        "converged": bool(res.success),
        "iterations": int(res.nit),
        "loss": float(res.fun),
        "agreement": agreement(w, data),
        "greedy_agreement": agreement(start, data),
    }


# --- the rounds, resumable -----------------------------------------------------------------
def _parts_dir(out: Path) -> Path:
    return out.with_name(out.name + ".parts")


#: the positions' plan in ``OUT.npz.parts`` (also what marks the folder as a training's)
PLAN_FILE = "train-plan.json"


def _open_parts(plan: TrainPlan, parts: Path, force: bool) -> None:
    """``parts`` (held by this command) for ``plan``: emptied with ``force`` (its lock kept);
    another training's positions are refused."""
    from cardsim.sim.rundir import LOCK, atomic_write_bytes

    ident = plan.positions_identity()
    if force:
        for child in parts.iterdir():
            if child.name != LOCK:
                shutil.rmtree(child) if child.is_dir() else child.unlink()
    names = {p.name for p in parts.iterdir()} - {LOCK}
    if names:
        try:
            old = json.loads((parts / PLAN_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            old = None
        if old != ident:
            raise CardsimError(
                f"{parts} holds another training's positions; use --force to replace them, "
                "or another --out"
            )
    else:
        atomic_write_bytes(parts / PLAN_FILE, jsonio.dump_bytes(ident, indent=2))


def _chunk_file(parts: Path, round_: int, chunk: int) -> Path:
    return parts / f"round-{round_}" / f"chunk-{chunk:06d}.npz"


def _load_chunk(path: Path) -> dict | None:
    try:
        with np.load(path, allow_pickle=False) as z:
            return {k: np.array(z[k]) for k in ("X", "sizes", "y", "learner")}
    except (OSError, KeyError, ValueError):
        return None


def _save_chunk(path: Path, part: dict) -> None:
    import io

    from cardsim.sim.rundir import atomic_write_bytes

    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    np.savez(buf, **part)
    atomic_write_bytes(path, buf.getvalue())


def _cut(parts: list[dict], decisions: int) -> list[dict]:
    """The first ``decisions`` positions of ``parts`` (in order)."""
    out, left = [], decisions
    for p in parts:
        k = min(left, len(p["sizes"]))
        if k <= 0:
            break
        rows = int(p["sizes"][:k].sum())
        out.append({"X": p["X"][:rows], "sizes": p["sizes"][:k], "y": p["y"][:k],
                    "learner": p["learner"][:k]})  # fmt: skip
        left -= k
    return out


def play_round(plan: TrainPlan, parts: Path, round_: int, weights, mapper, bar) -> list[dict]:
    """The positions of one round: chunks in order (from disk when finished) until
    ``plan.decisions`` positions, cut there."""
    got: list[dict] = []
    total, chunk = 0, 0
    while total < plan.decisions:
        wave = list(range(chunk, chunk + WAVE))
        todo = [c for c in wave if _load_chunk(_chunk_file(parts, round_, c)) is None]
        for c, part in zip(todo, mapper(plan, round_, todo, weights), strict=True):
            _save_chunk(_chunk_file(parts, round_, c), part)
        for c in wave:
            if total >= plan.decisions:
                break
            part = _load_chunk(_chunk_file(parts, round_, c))
            got.append(part)
            bar.advance(min(len(part["sizes"]), plan.decisions - total))
            total += len(part["sizes"])
        chunk += WAVE
    return _cut(got, plan.decisions)


def _local(plan: TrainPlan, round_: int, chunks: list[int], weights) -> list[dict]:
    return [collect_chunk(plan, round_, c, weights) for c in chunks]


def _on_cluster(client):
    def mapper(plan: TrainPlan, round_: int, chunks: list[int], weights) -> list[dict]:
        k = len(chunks)
        futures = client.map(collect_chunk, [plan] * k, [round_] * k, chunks, [weights] * k,
                             pure=False)  # fmt: skip
        return client.gather(futures)

    return mapper


@dataclass(frozen=True)
class TrainResult:
    plan: TrainPlan
    out: Path
    weights: np.ndarray
    rounds: list[dict]
    improved: dict = field(default_factory=dict)


def train(plan: TrainPlan, out: Path | str, *, scheduler=None, progress: bool = True,
          force: bool = False) -> TrainResult:  # fmt: skip
    """Collect the positions of every round (resuming from ``OUT.npz.parts``), fit, write
    ``out`` (a weights file, sim/learned.py). ``OUT.npz.parts`` is held for the whole command
    (``rundir.hold_folder``): a second writer is refused."""
    from cardsim.sim.rundir import hold_folder

    out = Path(out)
    if out.suffix != ".npz":
        raise CardsimError(f"--out {out}: a weights file ends in .npz")

    with hold_folder(_parts_dir(out), "train") as parts:  # one writer; never inside another's
        _open_parts(plan, parts, force)
        return _train_held(plan, out, parts, scheduler, progress)


def _train_held(plan: TrainPlan, out: Path, parts: Path, scheduler, progress: bool) -> TrainResult:
    from cardsim.sim.learned import features_module, new_weights
    from cardsim.sim.progress import Progress
    from cardsim.sim.runner import cluster_session

    start = np.asarray(features_module(plan.game).GREEDY_WEIGHTS, np.float64)
    rounds: list[dict] = []
    data: list[dict] = []
    w = start
    with cluster_session(scheduler) as session:
        mapper = _local if session is None else _on_cluster(session.client)
        for r in range(plan.dagger + 1):
            bar = Progress(plan.decisions, 0, f"round {r}", progress, unit="positions")
            got = play_round(plan, parts, r, None if r == 0 else w, mapper, bar)
            bar.close()
            data += got
            learner = np.concatenate([p["learner"] for p in got])
            teacher = np.concatenate([p["y"] for p in got])
            w, figures = fit(stack(data), start, plan.l2)
            if r:  # how often the learner, where it went, already played the teacher's move
                figures["learner_agreed_in_round"] = float(np.mean(learner == teacher))
            rounds.append({"round": r, **figures})
        improved = improve(plan, parts, w, None if session is None else session.client, progress)
    provenance = {"plan": plan.identity(), "rounds": rounds, "distilled": w,
                  "improvement": improved, "command": command_text(plan, out)}  # fmt: skip
    if improved:
        w = np.asarray(improved["weights"], np.float64)
    new_weights(plan.game, w, **provenance).save(out)
    return TrainResult(plan, out, w, rounds, improved)


#: fresh deals on which the improved weights are checked against the field (reported only)
IMPROVE_CHECK = 500


def improve(plan: TrainPlan, parts: Path, distilled: np.ndarray, client, progress: bool) -> dict:
    """Policy improvement (``plan.improve`` deals per round): CMA-ES over the family from the
    distilled weights against ``plan.improve_field`` — ``cardsim exploit``'s raced search — and
    a check of the result on fresh deals; {} when ``plan.improve`` is 0. Round k > 1 starts
    from round k − 1's weights and plays against the field plus every earlier round's weights
    (fictitious play: a best response to greedy alone is easy to exploit), on deals of seed
    ``seed + k − 1``."""
    if not plan.improve:
        return {}
    from cardsim.sim.learned import new_weights
    from cardsim.workflows import exploit as ex

    start = parts / "distilled.npz"
    # the same policy at unit scale (argmax w·φ ignores a positive factor), so that the search's
    # first steps (sigma) are relative to the weights
    unit = distilled / max(float(np.abs(distilled).max()), 1e-12)
    new_weights(plan.game, unit, made_by="cardsim train (the fit, at unit scale)").save(start)
    field_, rounds = plan.improve_field, []
    for k in range(plan.improve_rounds):
        folder = parts / ("improve" if k == 0 else f"improve-{k + 1}")
        xplan = ex.ExploitPlan(plan.game, field_, plan.improve, plan.seed + k, plan.players,
                               dict(plan.rules), verify=IMPROVE_CHECK, start=str(start.resolve()))  # fmt: skip
        w, used = _improve_round(xplan, folder, client, progress, k)
        name = ex.candidate_name(xplan, folder, w)
        rounds.append({"round": k + 1, "deals": used, "field": list(field_)})
        field_, start = (*field_, name), Path(name.removeprefix("learned:"))
    base = ex.ExploitPlan(plan.game, plan.improve_field, 0, plan.seed, plan.players,
                          dict(plan.rules), verify=IMPROVE_CHECK)  # fmt: skip
    check = ex._evaluate(base, [(name, ex.VERIFY_FIRST, IMPROVE_CHECK)], client)[0]
    first = ex.candidate_name(base, parts / "improve", distilled)
    before = ex._evaluate(base, [(first, ex.VERIFY_FIRST, IMPROVE_CHECK)], client)[0]
    return {
        "deals": sum(r["deals"] for r in rounds), "field": list(plan.improve_field),
        "rounds": rounds, "weights": w.tolist(), "check_deals": IMPROVE_CHECK,
        "after": vars(ex.Interval.of(check)), "before": vars(ex.Interval.of(before)),
    }  # fmt: skip


def _improve_round(xplan, folder: Path, client, progress: bool, k: int) -> tuple[np.ndarray, int]:
    from cardsim.sim.progress import Progress
    from cardsim.workflows import exploit as ex

    bar = Progress(xplan.budget, 0, f"improve {k + 1}", progress, unit="deals")
    w, state = ex.search(xplan, folder, client, bar)
    bar.close()
    return w, state.used


def command_text(plan: TrainPlan, out: Path) -> str:
    """The ``cardsim train`` command that makes these weights."""
    from cardsim.sim.config import resolve_rules
    from cardsim.sim.games import get_engine

    default = resolve_rules(get_engine(plan.game), (), plan.players)
    rules = "".join(f" --rule {k}={v}" for k, v in plan.rules.items() if str(default[k]) != v)
    extra = f" --dagger {plan.dagger}" if plan.dagger else ""
    extra += f" --l2 {plan.l2:g}" if plan.l2 != 1e-3 else ""
    if plan.improve:
        extra += f" --improve {plan.improve} --improve-field {','.join(plan.improve_field)}"
        extra += f" --improve-rounds {plan.improve_rounds}" if plan.improve_rounds > 1 else ""
    return (
        f"cardsim train {plan.game} --teacher {plan.teacher} --decisions {plan.decisions} "
        f"--seed {plan.seed} --players {plan.players}{extra}{rules} --out {out.name}"
    )


def summary(result: TrainResult) -> str:
    """The answer in words."""
    last = result.rounds[-1]
    lines = [
        f"{result.out}: {result.plan.game} weights distilled from {result.plan.teacher} on "
        f"{last['positions']:,} positions (decisions with 2+ legal moves) in "
        f"{len(result.rounds)} round(s).",
        f"The fitted policy plays the teacher's move at {last['agreement']:.1%} of these "
        f"positions; greedy (the starting point) at {last['greedy_agreement']:.1%}.",
    ]
    for r in result.rounds[1:]:
        lines.append(
            f"DAgger round {r['round']}: where the learner went, it already played the "
            f"teacher's move at {r['learner_agreed_in_round']:.1%} of the positions."
        )
    imp = result.improved
    if imp:
        b, a = imp["before"], imp["after"]
        lines.append(
            f"Policy improvement ({imp['deals']:,} deals of CMA-ES against {', '.join(imp['field'])}"
            f"{'' if len(imp['rounds']) == 1 else ' and the earlier rounds, ' + str(len(imp['rounds'])) + ' rounds'}): "
            f"on {imp['check_deals']} fresh deals the fitted weights score {b['mean']:+.3f} "
            f"[{b['lo']:+.3f}, {b['hi']:+.3f}] against the field, the improved {a['mean']:+.3f} "
            f"[{a['lo']:+.3f}, {a['hi']:+.3f}] (win rate per game); the file holds the improved."
        )
    if not last["converged"]:
        lines.append("Note: the optimiser stopped before its tolerance (see the provenance).")
    lines.append(f"Play it: --strategy learned:{result.out} (docs/strategies.md, Learned).")
    return "\n".join(lines)
