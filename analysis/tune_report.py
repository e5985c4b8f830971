"""``OUT/tune.html`` of ``cardsim tune``: the objective first, the winner against the default
rules on fresh seeds with the objective's own comparison, the top configurations, the paired
checks of the best, and the racing history (templates/tune.html.j2, the report's helpers)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
from cardsim.analysis import render, verdicts
from cardsim.analysis.model import FACT, QUESTION, Finding, Section, Table


def _rules(rules: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in rules.items()) or "(defaults)"


def _iv(est: float, lo: float, hi: float, sign: bool = False) -> str:
    f = "+.4f" if sign else ".4f"
    return f"{est:{f}} [{lo:{f}}, {hi:{f}}]"


def objective_text(result) -> str:
    """What the objective measures, in words, with its unit and margin."""
    words = {
        "first_excess": "|first player's (first leader's team's) win share − fair share| "
        "(share: 0.01 = one percentage point)",
        "seat_spread": "largest − smallest win share of the sides (share)",
        "length": "|mean length − target| (the game's length unit: its length measure, e.g. "
        "turns per round or tricks per match)",
    }
    parts = []
    for term in result.objective.split(","):
        head, _, weight = term.partition("*")
        name, _, target = head.partition("=")
        what = words.get(name, name)
        if target:
            what = what.replace("target", target)
        parts.append(f"{weight or '1'} × {what}")
    return (
        f"{result.objective} = " + " + ".join(parts) + f"; lower is better; equivalence "
        f"margin ±{result.margin:g} (in the objective's unit)."
    )


def findings(result) -> list[Finding]:
    """The Answers: the fresh-seed test of the winner against the defaults (a question with
    its verdict), then the race's winner (a fact)."""
    out = []
    v = result.verification
    if v:
        base = (
            f"On fresh seeds the winner {result.best.id} ({_rules(result.best.rules)}) scores "
            f"{_iv(v['a']['estimate'], v['a']['lo'], v['a']['hi'])} and the default rules "
            f"{_iv(v['b']['estimate'], v['b']['lo'], v['b']['hi'])}; difference (winner − "
            f"defaults) {_iv(v['diff'], v['lo'], v['hi'], True)}, {v['label']}."
        )
        out.append(
            Finding(
                base,
                base,
                v["p_two"],
                kind=QUESTION,
                estimate=v["diff"],
                se=v["se"],
                n=v["deals"],
                margin=v["margin"],
                measure="mean",
                unit="deal",
                answer=True,
            )  # fmt: skip
        )
    b = result.best
    z = 1.959964
    out.append(
        Finding(
            f"The race's best of {result.configurations} configurations: {b.id} "
            f"({_rules(b.rules)}): {'; '.join(getattr(b, 'measures', {}).values()) or 'objective'}"
            f" — objective (distance) "
            f"{_iv(b.estimate, max(0.0, b.estimate - z * b.se), b.estimate + z * b.se)} "
            f"over {b.games:,} games of the race (biased low: chosen as the smallest of many "
            f"noisy estimates; the fresh seeds are the unbiased check). "
            f"{result.games_spent:,} games spent of a budget of {result.budget:,}.",
            kind=FACT,
        )
    )
    out += [Finding(f"At the edge of the search: {e}", kind=FACT) for e in result.edges]
    verdicts.judge([("tune", f) for f in out])
    return out


def sections(result) -> list[Section]:
    z = 1.959964
    secs = []
    v = result.verification
    if v:
        rows = [
            {"configuration": f"winner {result.best.id}", "rules": _rules(result.best.rules),
             "deals": v["a"]["deals"], "objective": v["a"]["estimate"],
             "objective_lo": v["a"]["lo"], "objective_hi": v["a"]["hi"]},
            {"configuration": "default rules", "rules": "(defaults)", "deals": v["b"]["deals"],
             "objective": v["b"]["estimate"], "objective_lo": v["b"]["lo"],
             "objective_hi": v["b"]["hi"]},
        ]  # fmt: skip
        s = Section(
            "fresh",
            "Defaults vs winner on fresh seeds",
            f"verify.toml played into {result.out}/verify: the winner and the default rules on "
            "a seed the race never used. The objective of each, with its 95 % interval "
            "(delta method over deals).",
        )
        s.tables.append(Table("fresh", "Objective on fresh seeds", pl.DataFrame(rows)))
        comp = pl.DataFrame(
            [{"difference": v["diff"], "difference_lo": v["lo"], "difference_hi": v["hi"],
              "se": v["se"], "deals": v["deals"], "pairing": v["label"],
              "p_two_sided": v["p_two"], "p_one_sided_not_better": v["p_better"],
              "verdict": v["verdict"]}]
        )  # fmt: skip
        o = Section(
            "objective",
            "The objective's own comparison",
            "Winner − default rules, the tuned objective itself (not a proxy): paired on the "
            "shared deals when the two runs share seed, player count and deal rules, else as "
            f"independent samples; verdict with the margin ±{result.margin:g}.",
        )
        o.tables.append(Table("objective", "Winner − default rules", comp))
        secs += [s, o]
    top = pl.DataFrame(
        [{"configuration": c.id, "rules": _rules(c.rules), "rungs": c.rungs, "games": c.games,
          "measure": "; ".join(c.measures.values()),
          "objective": c.estimate, "objective_lo": max(0.0, c.estimate - z * c.se),
          "objective_hi": c.estimate + z * c.se,
          "dropped": "" if c.dropped_at is None else f"rung {c.dropped_at} ({c.dropped_by})"}
         for c in result.top]
    )  # fmt: skip
    t = Section("top", "Top configurations", "Those that went furthest in the race, best first.")
    t.tables.append(Table("top", "Top configurations (race estimates)", top))
    if result.comparisons:
        comp = pl.DataFrame(
            [{"configuration": c.id, "difference": c.diff, "difference_lo": c.lo,
              "difference_hi": c.hi, "deals": c.deals,
              "pairing": "paired on shared deals" if c.paired else
              "independent (a deck or hand-size option differs: other cards)",
              "p_one_sided_worse": c.p, "verdict": c.verdict} for c in result.comparisons]
        )  # fmt: skip
        t.tables.append(Table("best", f"Is the best really best? Each − {result.best.id}", comp))
    secs.append(t)
    hist = pl.DataFrame(
        [{"rung": r["rung"], "seed": r["seed"], "configurations": r["configurations"],
          "games_per_configuration": r["games_per_configuration"],
          "dropped_by_test": r["dropped_by_test"], "kept": r["kept"], "best": r["best"],
          "best_objective": r["best_estimate"]} for r in result.rungs]
    )  # fmt: skip
    h = Section(
        "history",
        "Racing history",
        "Successive halving on common deals: each rung plays every surviving configuration on "
        "the same seed; configurations clearly worse than the best (one-sided paired z-test, "
        "Holm over the rung, 5 %) are dropped, then the best half go on.",
    )
    h.tables.append(Table("history", "Rungs", hist))
    h.notes += list(result.log)
    secs.append(h)
    return secs


def tune_html(result) -> str:
    fs = findings(result)
    return (
        render._env()
        .get_template("tune.html.j2")
        .render(
            title=f"cardsim tune — {render.game_title(result.game)}: {result.objective}",
            subtitle=(
                f"{result.configurations} configurations of {', '.join(result.space)} · "
                f"{result.games_spent:,} games spent of {result.budget:,} · "
                f"{len(result.rungs)} rungs"
            ),
            css=render.CSS,
            objective=objective_text(result),
            answers=[render._finding_ctx(f) for f in fs],
            verdict_note=(
                "Verdict of the fresh-seed comparison: clear difference (p < 5 %), equivalent "
                f"within ±{result.margin:g} (two one-sided tests at 5 %) or not enough games."
            ),
            sections=[render._section_ctx(s) for s in sections(result)],
            json_name="tune.json",
        )
    )


def write_tune_html(result, out: Path) -> Path:
    """Write ``out`` (``OUT/tune.html``); returns it."""
    out = Path(out)
    render._atomic_write(out, tune_html(result).encode("utf-8"))
    return out


def _iv_text(d: dict, digits: int = 4) -> str:
    return f"{d['estimate']:.{digits}f} [{d['lo']:.{digits}f}, {d['hi']:.{digits}f}]"


def pareto_findings(result) -> list[Finding]:
    """The Answers of a several-objective tune: the front (each point with its measures and
    intervals), then the edges of the searched ranges."""
    front = result.front
    out = [
        Finding(
            f"{len(front)} of {result.configurations} configurations are on the Pareto front of "
            f"{' ; '.join(result.objectives)} (no other is at least as good on every objective "
            f"and better on one), {result.games_per_configuration:,} games each on the same "
            "deals; moving along the front buys one objective with another.",
            kind=FACT,
            answer=True,
        )
    ]
    for p in front:
        measures = "; ".join(m["text"] for m in p.measures)
        objs = "; ".join(f"{o['objective']} {_iv_text(o)}" for o in p.objectives)
        out.append(Finding(f"{p.id} ({_rules(p.rules)}): {measures} — {objs}.", kind=FACT,
                           answer=True))  # fmt: skip
    out += [
        Finding(f"At the edge of the search: {e}", kind=FACT, answer=True) for e in result.edges
    ]
    return out


def _point_row(result, p) -> dict:
    row = {"configuration": p.id, "rules": _rules(p.rules)}
    for i, o in enumerate(p.objectives):
        row[f"objective {i + 1}"] = o["estimate"]
        row[f"objective {i + 1}_lo"], row[f"objective {i + 1}_hi"] = o["lo"], o["hi"]
    for m in p.measures:
        key = f"{m['measure']} ({m['objective']})"
        row[key], row[f"{key}_lo"], row[f"{key}_hi"] = m["estimate"], m["lo"], m["hi"]
    row["dominated by"] = p.dominated_by or "– (on the front)"
    return row


def pareto_sections(result) -> list[Section]:
    from functools import partial

    from cardsim.analysis import plots
    from cardsim.analysis.model import Figure

    names = "; ".join(f"objective {i + 1} = {o}" for i, o in enumerate(result.objectives))
    f = Section(
        "front",
        "Pareto front",
        f"The configurations no other evaluated one beats on every objective ({names}; lower is "
        "better), ordered by the first objective; each objective and its measure with a 95 % "
        "interval (delta method over deals). The front is judged on the estimates: points "
        "whose intervals overlap may trade places with more games.",
    )
    f.tables.append(
        Table("front", "Pareto front", pl.DataFrame([_point_row(result, p) for p in result.front]))
    )
    pts = [
        {"id": p.id, "front": p.front, "x": p.objectives[0]["estimate"],
         "x_lo": p.objectives[0]["lo"], "x_hi": p.objectives[0]["hi"],
         "y": p.objectives[1]["estimate"], "y_lo": p.objectives[1]["lo"],
         "y_hi": p.objectives[1]["hi"]}
        for p in result.points
    ]  # fmt: skip
    title = f"Trade-off: {result.objectives[0]} against {result.objectives[1]}"
    if len(result.objectives) > 2:
        title += " (the first two objectives)"
    f.figures.append(
        Figure(
            "tradeoff",
            title,
            partial(plots.tradeoff, pts, result.objectives[0], result.objectives[1]),
        )
    )
    a = Section("all", "Every configuration", "Each evaluated configuration, and the first point "
                "that dominates it.")  # fmt: skip
    a.tables.append(
        Table(
            "all",
            "Every configuration",
            pl.DataFrame([_point_row(result, p) for p in result.points]),
        )
    )
    a.notes += list(result.log)
    return [f, a]


def pareto_html(result) -> str:
    return (
        render._env()
        .get_template("tune.html.j2")
        .render(
            title=f"cardsim tune — {render.game_title(result.game)}: Pareto front",
            subtitle=(
                f"{result.configurations} configurations of {', '.join(result.space)} · "
                f"{result.games_per_configuration:,} games each, {result.games_spent:,} in all"
            ),
            css=render.CSS,
            objective=" ; ".join(result.objectives) + " — each lower is better (tune.md: the "
            "objectives' meaning as for one objective).",
            answers=[render._finding_ctx(f) for f in pareto_findings(result)],
            verdict_note="Facts of one seed; intervals 95 %.",
            sections=[render._section_ctx(s) for s in pareto_sections(result)],
            json_name="tune.json",
        )
    )


def write_pareto_html(result, out: Path) -> Path:
    """Write ``out`` (``OUT/tune.html`` of a several-objective tune); returns it."""
    out = Path(out)
    render._atomic_write(out, pareto_html(result).encode("utf-8"))
    return out


__all__ = [
    "findings", "objective_text", "pareto_html", "sections", "tune_html", "write_pareto_html",
    "write_tune_html",
]  # fmt: skip
