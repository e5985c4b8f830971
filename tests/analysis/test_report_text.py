"""The report's text says plainly what it means (issue 19 #17): Markdown rendered in HTML, no
"p = 0", no zero-width reference rows, no filler answers, no placeholder in the header, points
where points are meant, separated ratings said in words."""

from __future__ import annotations

import html
import re

import pytest
from cardsim.analysis import duplicate
from cardsim.analysis.model import p_value

from cardsim.cli import main


@pytest.fixture(scope="module")
def default_study(tmp_path_factory):
    out = tmp_path_factory.mktemp("default")
    with pytest.raises(SystemExit) as e:
        main(["study", "--games", "400", "--out", str(out), "--quiet"])
    assert e.value.code == 0
    page = (out / "report.html").read_text(encoding="utf-8")
    body = re.sub(r"<(style|script)\b.*?</\1>", "", page, flags=re.S)
    text = html.unescape(re.sub(r"<img[^>]*>|<[^>]+>", " ", body))
    return page, text


@pytest.mark.heavy
def test_the_default_study_report_reads_plainly(default_study):
    page, text = default_study
    assert "**" not in text and "<strong>seat-adjusted expectation</strong>" in page
    assert "<default study>" not in text and "the built-in default study ·" in text
    assert "+0.00 [+0.00, +0.00]" not in text  # the reference level is not listed at 0
    assert "the reference at 0" in text
    assert "0.0 % vs 0.0 %" not in text  # filler answers: things that happened in neither run
    assert re.search(r"excess over the fair share\): [+-]\d+\.\d vs [+-]\d+\.\d points", text)
    assert not re.search(r"[+-]\d+\.\d vs [+-]\d+\.\d %", text)
    # parts whose runs play one strategy in every seat have no empty "Strategy effect" card
    assert 'id="part1-strategy"' not in page and 'id="part3-strategy"' in page


def test_separated_strategies_are_said_in_words():
    row = {
        "a": "greedy", "b": "random", "diff": 1.0, "diff_lo": 1.0, "diff_hi": 1.0,
        "win_a": 1.0, "win_b": 0.0, "deals": 200, "p": 0.0, "se": 0.0,
    }  # fmt: skip
    f = duplicate.pair_finding(row)
    assert f.text == "greedy won every game against random (paired on 200 duplicate deals)."
    assert "± 0.0" not in f.text


def test_a_p_value_that_underflows_is_never_zero(capsys, tmp_path):
    from cardsim.cli import _p_words
    from cardsim.workflows.strategy_check import _p

    assert p_value(0.0) == "< 1e-300" and p_value(2e-301) == "< 1e-300"
    assert p_value(6.9e-55) == "6.9e-55" and _p_words(0.0) == _p(0.0) == "< 1e-300"
    assert _p_words(0.25) == "= 0.25"
