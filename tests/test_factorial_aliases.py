"""Factorial aliases and the fold-over (issue 19, point 3).

A planted three-factor interaction c × d × e in a 2^(5−1) fraction (I = abcde, resolution V)
is aliased with the two-factor term a × b, of options that do nothing: the fraction reports
a × b as clear, and must not say a plain "clear"; its fold-over study separates them.
"""

import dataclasses
import itertools
import json

import numpy as np
import pytest
from cardsim.analysis import factorial
from cardsim.analysis.factorial import DesignSpec, alias_chain, design_cells, mask_name, model_terms
from cardsim.kernels.options import OptionTable, RuleOption
from cardsim.kernels.rng import bounded, new_stream
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import Measure, column
from cardsim.sim.games import get_engine, register_engine

from cardsim.workflows.study import load_study, parse_study, run_study
from tests.fake_engine import FACTS, FakeEngine, fake_tables

#: length = 50 + 4 (s_c + s_d + s_e) + 3 s_c s_d s_e + noise (s = ±1: the option's level)
MAIN, THREE_WAY = 4.0, 3.0


class ThreeWayEngine(FakeEngine):
    name = "threeway"
    facts = dataclasses.replace(
        FACTS,
        headline=(Measure("length", "length", "match", "continuous", column("length"), "length"),),
    )
    rule_options = OptionTable(
        "threeway",
        tuple(RuleOption(f, f"T-{i}", False, f"option {f}") for i, f in enumerate("abcde", 10)),
    )

    def play_chunk(self, config, first, count):
        s = {f: 1 if config.rules[f] else -1 for f in "abcde"}
        code = sum(int(config.rules[f]) << i for i, f in enumerate("abcde"))
        mean = 50 + MAIN * (s["c"] + s["d"] + s["e"]) + THREE_WAY * s["c"] * s["d"] * s["e"]
        idx = np.arange(first, first + count, dtype=np.int64)
        winner, leader, length = [], [], []
        for i in idx:
            deal = new_stream(config.seed, int(i), 0)
            play = new_stream(config.seed, int(i), 2 + code)  # differs by cell
            leader.append(bounded(deal, 4))
            winner.append(bounded(deal, 2))
            length.append(mean + bounded(deal, 21) - 10 + bounded(play, 5) - 2)
        return fake_tables(idx, leader, winner, length, config.seats)


try:
    get_engine("threeway")
except CardsimError:
    register_engine(ThreeWayEngine())

STUDY = """
[[design]]
name = "tw"
game = "threeway"
games = 300
seed = 4
options = { a = "all", b = "all", c = "all", d = "all", e = "all" }
fraction = 1
"""
AB, CDE = "a=true × b=true", "c=true × d=true × e=true"


def _effects(report_html):
    doc = json.loads(report_html.with_suffix(".json").read_text())
    (m,) = doc["measures"]
    return doc, {e["term"]: e for e in m["effects"]}


@pytest.fixture(scope="module")
def fraction_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("threeway")
    result = run_study(parse_study(STUDY, "tw.toml"), out, progress=False)
    return out, result


def test_aliased_two_way_term_is_not_plain_clear(fraction_run):
    out, result = fraction_run
    doc, by = _effects(result.designs["tw"])
    assert doc["resolution"] == 5
    ab = by[AB]
    assert ab["verdict"] == factorial.CLEAR  # the fraction sees c × d × e through a × b
    assert ab["aliases"] == [CDE] and ab["confounded"] == [CDE]
    for f in "cde":  # the planted main effects: clear, and their chains have no clear 2FI
        assert by[f"{f}=true"]["verdict"] == factorial.CLEAR
        assert by[f"{f}=true"]["confounded"] == []
    html = result.designs["tw"].read_text()
    assert f"clear, but aliased with {CDE}" in html
    answers = html.split("<h2>Answers</h2>")[1].split("</ul>")[0]
    assert f"{AB} " in answers and f"(or {CDE})" in answers and "Clear, but aliased" in answers
    # every estimated term's chain up to three-factor terms is named (a's alias is bcde)
    assert by["a=true"]["aliases"] == []
    cd = by["c=true × d=true"]
    assert cd["aliases"] == ["a=true × b=true × e=true"] and cd["confounded"] == []
    # the fold-over is offered as a ready study file, named in the report
    fold = out / "tw-foldover.toml"
    assert doc["suggested_foldover"] == list("abcde") and doc["foldover_file"] == str(fold)
    assert str(fold) in html and fold.is_file()


def test_foldover_study_separates_them(fraction_run):
    out, _ = fraction_run
    study = load_study(out / "tw-foldover.toml")
    (d,) = study.designs
    assert len(d.cells) == 32 and d.spec.foldover == list("abcde")
    again = run_study(study, out, progress=False)
    assert len(again.reused) == 16  # the fraction's own cells, reused; the folded half played
    report = again.designs["tw"]
    assert report.name == "tw-foldover-factorial.html"
    assert (out / "tw-factorial.html").is_file()  # the fraction's report is kept
    doc, by = _effects(report)
    assert doc["resolution"] is None  # the fold-over of I = abcde is the full factorial
    ab = by[AB]
    assert ab["aliases"] == [] and ab["verdict"] != factorial.CLEAR
    assert ab["lo"] <= 0.0 <= ab["hi"]
    assert all(by[f"{f}=true"]["verdict"] == factorial.CLEAR for f in "cde")
    assert "clear, but aliased" not in report.read_text()


def _spec(**kw):
    return DesignSpec({f: [False, True] for f in "abcde"}, fraction=1, **kw)


def _sign_columns(spec, cells, order=3):
    """Every term of up to ``order`` factors as its ±1 column over the cells (brute force)."""
    names = spec.factors
    x = {f: np.array([1 if c[f] else -1 for c in cells]) for f in names}
    out = {}
    for r in range(1, order + 1):
        for combo in itertools.combinations(range(len(names)), r):
            col = np.prod([x[names[i]] for i in combo], axis=0)
            out[sum(1 << i for i in combo)] = col
    return out


@pytest.mark.parametrize(
    ("k", "p", "generators", "foldover"),
    [
        (5, 1, {}, []),
        (6, 2, {}, []),
        (7, 3, {}, []),  # resolution IV: two-factor terms aliased in chains
        (6, 3, {}, []),  # resolution III
        (6, 2, {"e": "a*b*c", "f": "b*c*d"}, []),
        (6, 3, {}, ["a"]),  # a one-factor fold-over
        (7, 3, {}, list("abcdefg")),  # the full fold-over
    ],
)
def test_alias_chains_match_the_cells(k, p, generators, foldover):
    """The chains computed from the defining relation are exactly the terms (up to three
    factors) whose columns over the design's cells equal the term's."""
    names = "abcdefg"[:k]
    spec = DesignSpec({f: [False, True] for f in names}, p, generators, True, foldover)
    cells = design_cells(spec)
    cols = _sign_columns(spec, cells)
    _, terms, _ = model_terms(spec, cells)
    for t in terms:
        mask = sum(1 << spec.factors.index(f) for f in t.factors)
        brute = sorted(
            (m for m, c in cols.items() if m != mask and np.array_equal(c, cols[mask])),
            key=lambda m: (bin(m).count("1"), mask_name(spec, m)),
        )
        assert alias_chain(spec, t.factors) == brute, t.name


def test_bad_foldover_keys_are_clear_errors():
    for body, msg in (
        ('foldover = ["z"]', "foldover lists design options"),
        ('foldover = "a"', "foldover lists design options"),
        ('foldover = ["a", "a"]', "foldover lists design options"),
    ):
        with pytest.raises(CardsimError, match=msg):
            parse_study(STUDY + body + "\n", "tw.toml")
    with pytest.raises(CardsimError, match="needs fraction"):
        parse_study(STUDY.replace("fraction = 1", 'foldover = ["a"]'), "tw.toml")
