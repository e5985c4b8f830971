"""Factorial rule studies (issue 14): designs, regression, verdicts, report — on a planted effect.

The planted engine (a test-local subclass of the fake game) draws the first leader's team's win
from a known logistic model of two rule options, and the length from a known linear one, so
the regression's truth is known exactly.
"""

import dataclasses
import json
import math

import numpy as np
import polars as pl
import pytest
from cardsim.analysis import factorial, stats
from cardsim.analysis.factorial import DesignSpec, auto_generators, design_cells, resolution
from cardsim.kernels.options import OptionTable, RuleOption
from cardsim.kernels.rng import bounded, new_stream
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import Measure, column
from cardsim.sim.games import get_engine, register_engine

from cardsim.workflows.study import parse_study, run_study
from tests.fake_engine import FACTS, FakeEngine, fake_tables

#: planted truth: logit P(first side wins) = B0 + B_SPICY x_spicy + B_BOOST x_boost + B_INT x x
#: with x = ±1/2 (the analysis's centred coding of two levels); length = 50 + L_BOOST x_boost
B0, B_SPICY, B_BOOST, B_INT = 0.2, 0.8, 0.0, 0.4
L_BOOST = 6.0


class PlantedEngine(FakeEngine):
    name = "planted"
    facts = dataclasses.replace(
        FACTS,
        headline=(
            *FACTS.headline,  # first_side_wins
            Measure("length", "length", "match", "continuous", column("length"), "length"),
        ),
    )
    rule_options = OptionTable(
        "planted",
        (
            RuleOption("flavour", "T-01", "plain", "a choice option", choices=("plain", "spicy")),
            RuleOption("boost", "T-03", False, "a bool option"),
            RuleOption("noise", "T-04", False, "an option without effect"),
        ),
    )

    def play_chunk(self, config, first, count):
        xs = 0.5 if config.rules["flavour"] == "spicy" else -0.5
        xb = 0.5 if config.rules["boost"] else -0.5
        logit = B0 + B_SPICY * xs + B_BOOST * xb + B_INT * xs * xb
        p_first = 1 / (1 + math.exp(-logit))
        idx = np.arange(first, first + count, dtype=np.int64)
        winner, leader, length = [], [], []
        for i in idx:
            deal = new_stream(config.seed, int(i), 0)
            lead = bounded(deal, 4)
            u = bounded(deal, 1_000_000) / 1_000_000  # common to every cell: CRN
            first_wins = u < p_first
            winner.append(lead % 2 if first_wins else 1 - lead % 2)
            leader.append(lead)
            # deal noise (common to every cell) + play noise that differs with boost
            play = new_stream(config.seed, int(i), 2 if config.rules["boost"] else 3)
            length.append(50 + L_BOOST * xb + bounded(deal, 21) - 10 + bounded(play, 11) - 5)
        return fake_tables(idx, leader, winner, length, config.seats)


try:
    get_engine("planted")
except CardsimError:
    register_engine(PlantedEngine())

STUDY = """
[[design]]
name = "planted"
game = "planted"
games = 4000
seed = 5
strategy = "greedy"
options = { flavour = "all", boost = [false, true], noise = "all" }
"""


def _truth_share(term: str) -> float:
    """The planted effect of ``term`` in the analysis's unit (issue 47 item 4: a difference of
    predicted means, averaged over the other factor; an interaction: a difference of
    differences) — the share the planted model gives, not a log-odds rescaled at the mean."""

    def p(xs: float, xb: float) -> float:
        return 1 / (1 + math.exp(-(B0 + B_SPICY * xs + B_BOOST * xb + B_INT * xs * xb)))

    h = 0.5
    if term == "flavour=spicy":
        return sum(p(h, xb) - p(-h, xb) for xb in (-h, h)) / 2
    if term == "boost=true":
        return sum(p(xs, h) - p(xs, -h) for xs in (-h, h)) / 2
    return p(h, h) - p(h, -h) - p(-h, h) + p(-h, -h)


@pytest.fixture(scope="module")
def planted_study(tmp_path_factory):
    out = tmp_path_factory.mktemp("planted")
    study = parse_study(STUDY, "planted.toml")
    result = run_study(study, out, progress=False)
    return study, result, out


def test_design_expands_into_cells_on_one_seed(planted_study):
    study, result, _ = planted_study
    (d,) = study.designs
    assert len(d.scenarios) == 8 and len(d.cells) == 8
    assert {s.seed for s in d.scenarios} == {5}
    rules = {tuple(sorted(s.rules.items())) for s in d.scenarios}
    assert len(rules) == 8  # every combination once
    assert d.scenarios[0].rules == {"flavour": "plain", "boost": "false", "noise": "false"}
    assert result.report is None and set(result.designs) == {"planted"}


def test_planted_effects_recovered(planted_study):
    _, result, _ = planted_study
    doc = json.loads(result.designs["planted"].with_suffix(".json").read_text())
    by = {m["name"]: {e["term"]: e for e in m["effects"]} for m in doc["measures"]}
    win = by["first_side_wins"]
    for term, truth in (
        ("flavour=spicy", B_SPICY),
        ("flavour=spicy × boost=true", B_INT),
        ("boost=true", B_BOOST),
    ):
        e = win[term]
        assert e["coef"] - 1.96 * e["coef_se"] <= truth <= e["coef"] + 1.96 * e["coef_se"], term
        assert e["lo"] <= _truth_share(term) <= e["hi"], term
    assert win["flavour=spicy"]["coef"] > 0 and win["flavour=spicy"]["verdict"] == factorial.CLEAR
    assert win["flavour=spicy × boost=true"]["coef"] > 0
    length = by["length"]
    e = length["boost=true"]
    assert e["lo"] <= L_BOOST <= e["hi"] and e["verdict"] == factorial.CLEAR
    # no effect planted: the length ignores flavour exactly (same deals) -> equivalent
    assert length["flavour=spicy"]["verdict"] == factorial.EQUIVALENT
    # sorted by size
    sizes = [abs(e["effect"]) for e in doc["measures"][0]["effects"]]
    assert sizes == sorted(sizes, reverse=True)


def _strict(text: str):
    """JSON as JavaScript's JSON.parse reads it: NaN / Infinity tokens are errors."""

    def refuse(token):
        raise ValueError(f"not JSON: {token}")

    return json.loads(text, parse_constant=refuse)


def test_factorial_json_is_strict_json(planted_study):
    """Issue 19 #17: a number that does not exist is null, never a bare NaN token."""
    import numpy as np

    _, result, _ = planted_study
    _strict(result.designs["planted"].with_suffix(".json").read_text())
    r = factorial.FactorialResult(
        design="d", game="g", factors={"a": ["x", "y"]}, cells=2, deals_per_cell=1, fraction=0,
        resolution=None, aliased=[], measures=[],
        cell_means={"m": [{"mean": np.float64("nan"), "n": np.int64(3)}]},
        constant=[("m", "m", "", float("inf"))],
    )  # fmt: skip
    doc = _strict(r.to_json())
    assert doc["cell_means"]["m"] == [{"mean": None, "n": 3}] and doc["constant"][0][3] is None


def test_report_has_answers_table_and_interaction_plot(planted_study):
    _, result, _ = planted_study
    text = result.designs["planted"].read_text()
    assert "<h2>Answers</h2>" in text
    assert "What matters for first-player advantage" in text
    assert "flavour=spicy" in text.split("<h2>Answers</h2>")[1].split("</ul>")[0]
    assert text.count("data:image/png;base64,") >= 2  # interaction plots


def test_rerun_reuses_every_cell(planted_study, tmp_path):
    study, _, out = planted_study
    again = run_study(study, out, progress=False, report=False)
    assert len(again.reused) == 8


def test_fraction_half_of_five_factors_is_resolution_five():
    words = auto_generators(5, 1)
    assert resolution(words) == 5
    spec = DesignSpec({n: [0, 1] for n in "abcde"}, fraction=1)
    cells = design_cells(spec)
    assert len(cells) == 16
    # balanced and orthogonal: every pair of factors sees each level combination equally often
    for f in "abcde":
        for g in "abcde":
            if f < g:
                counts = {(c[f], c[g]) for c in cells}
                assert len(counts) == 4
    _, terms, notes = factorial.model_terms(spec, cells)
    assert len(terms) == 5 + 10 and not notes  # resolution V: 2FIs estimable


def test_fraction_resolution_three_aliases_interactions():
    spec = DesignSpec({n: [0, 1] for n in "abc"}, fraction=1)
    cells = design_cells(spec)
    _, terms, notes = factorial.model_terms(spec, cells)
    assert len(terms) == 3 and len(notes) == 3
    assert any("aliased with" in n for n in notes)


def test_eight_factor_quarter_fraction_is_resolution_five():
    assert resolution(auto_generators(8, 2)) == 5


def test_explicit_generators_and_bad_ones():
    spec = DesignSpec({n: [0, 1] for n in "abcd"}, fraction=1, generators={"d": "a*b*c"})
    cells = design_cells(spec)
    sign = {0: -1, 1: 1}  # level 0 / 1 as −1 / +1
    assert all(sign[c["d"]] == sign[c["a"]] * sign[c["b"]] * sign[c["c"]] for c in cells)
    with pytest.raises(CardsimError, match="product of two or more base"):
        design_cells(DesignSpec({n: [0, 1] for n in "abcd"}, fraction=1, generators={"d": "x"}))


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('options = { flavour = "all", colour = "all" }', "unknown planted rule option 'colour'"),
        ('options = { flavour = ["plain"] }', "two or more levels"),
        ('options = { flavour = ["plain", "sweet"] }', "invalid value 'sweet'"),
        ('options = { flavour = "all", boost = "all", noise = [false, true] }\nfraction = 5',
         "at least 2 base factors"),
        ('options = { flavour = "all" }\nrules = { flavour = "spicy" }', "both a fixed rule"),
        ('options = { flavour = "all" }\nwhatever = 1', "unknown design key"),
    ],
)  # fmt: skip
def test_bad_designs_are_clear_errors(body, message):
    text = f'[[design]]\nname = "x"\ngame = "planted"\ngames = 10\n{body}\n'
    with pytest.raises(CardsimError, match=message):
        parse_study(text, "bad.toml")


def test_verdict_semantics():
    assert factorial.verdict(0.05, 0.01, 0.001, 0.01, 1000)[0] == factorial.CLEAR
    assert factorial.verdict(0.0, 0.002, 0.9, 0.01, 1000)[0] == factorial.EQUIVALENT
    v, _, need = factorial.verdict(0.0, 0.01, 0.9, 0.01, 1000)
    assert v == factorial.NOT_ENOUGH and need > 1000


@pytest.mark.parametrize("kind", ["binary", "continuous"])
def test_cell_fit_equals_row_level_statsmodels(kind):
    """fit_cells (per-cell sums, deal-clustered scores) gives statsmodels' row-level fit with
    cluster-robust SEs: same coefficients, same standard errors."""
    rng = np.random.default_rng(1)
    spec = DesignSpec({"a": [0, 1], "b": [0, 1, 2], "c": [0, 1]})
    cells = design_cells(spec)
    xcell, _, _ = factorial.model_terms(spec, cells)
    deals = 400
    deal = np.repeat(np.arange(deals), len(cells))
    cell = np.tile(np.arange(len(cells)), deals)
    luck = rng.normal(size=deals)[deal]  # the deal shared by every cell: clustered rows
    eta = 0.3 + xcell[cell] @ rng.normal(scale=0.5, size=xcell.shape[1]) + luck
    if kind == "binary":
        y = (rng.random(eta.size) < 1 / (1 + np.exp(-eta))).astype(float)
    else:
        y = eta + rng.normal(size=eta.size)
    ref = factorial.fit_rows(y, xcell[cell], deal, kind)
    got = factorial.fit_cells(y, cell, deal, xcell, kind)
    np.testing.assert_allclose(got.params, ref.params, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got.bse, ref.bse, rtol=1e-4)


def test_example_factorial_study_is_a_resolution_five_half_fraction():
    from pathlib import Path

    from cardsim.workflows.study import load_study

    study = load_study(Path(__file__).resolve().parents[1] / "examples/factorial-yuanzi.toml")
    (d,) = study.designs
    assert len(d.cells) == 16 and resolution(factorial.parse_generators(d.spec)) == 5
    assert {s.seed for s in d.scenarios} == {1} and not study.scenarios


def test_bad_design_via_cli_is_one_line(tmp_path, capsys):
    from cardsim.cli import main

    f = tmp_path / "bad.toml"
    f.write_text(
        '[[design]]\nname = "d"\ngame = "yuanzi"\ngames = 10\noptions = { nope = "all" }\n'
    )
    with pytest.raises(SystemExit) as e:
        main(["study", str(f), "--out", str(tmp_path / "o"), "--quiet"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "bad.toml" in err and "nope" in err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "o").exists()


def test_measure_fixed_in_every_row_is_said_not_fitted():
    spec = DesignSpec({"boost": [False, True]})
    cells = design_cells(spec)
    rng = np.random.default_rng(3)
    tables = [
        pl.DataFrame(
            {
                "game": np.arange(200),
                "first_leader": rng.integers(0, 4, 200),
                "winner_team": rng.integers(0, 2, 200),
                "length": np.full(200, 7),
            }
        )
        for _ in cells
    ]
    result = factorial.analyse(spec, cells, tables, PlantedEngine.facts, name="c")
    assert [m.name for m in result.measures] == ["first_side_wins"]
    assert result.constant == [("length", "length", "match", 7.0)]
    assert any("is 7 in every match of every cell" in a for a in factorial.answers(result))


def test_holm_matches_statsmodels():
    from statsmodels.stats.multitest import multipletests

    p = np.array([0.01, 0.04, 0.03, 0.5, 0.001, 0.2, 0.04])
    np.testing.assert_allclose(stats.holm(p), multipletests(p, method="holm")[1])
    got = stats.holm([0.02, float("nan"), 0.01])
    assert math.isnan(got[1]) and np.allclose(got[[0, 2]], [0.02, 0.02])
