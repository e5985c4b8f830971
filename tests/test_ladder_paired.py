"""The ladder's answers (issue 23 item 4): levels out of order said in the Answers line, the
trend paired by deal (every level plays the same deals), the trend table that fits the page."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import polars as pl
import pytest
import statsmodels.api as sm
from cardsim.analysis.ladder import (
    influence,
    level_covariance,
    out_of_order,
    paired_trend,
    weighted_trend,
)

from cardsim.cli import main

# --- the paired trend against a hand computation ----------------------------------------------

#: 5 deals (rows) × 3 levels (columns): one value per deal, the deals shared by the levels
TABLE = np.array(
    [
        [1.0, 2.0, 4.0],
        [0.0, 1.0, 1.0],
        [2.0, 2.0, 5.0],
        [1.0, 3.0, 3.0],
        [0.0, 0.0, 2.0],
    ]
)
X = np.array([-1.0, 0.0, 2.5])  # the levels' ratings


def _levels(table: np.ndarray) -> list[pl.DataFrame]:
    g = table.shape[0]
    return [
        influence(pl.LazyFrame({"game": np.arange(g), "y": table[:, j]}), pl.col("y"))
        for j in range(table.shape[1])
    ]


def test_the_paired_slope_and_its_error_equal_a_hand_computation():
    g, k = TABLE.shape
    mean = TABLE.mean(axis=0)
    dev = (TABLE - mean) / g  # each deal's contribution to each level's mean
    se = np.sqrt(g / (g - 1) * (dev**2).sum(axis=0))  # CR1 by deal, per level
    w = 1 / se**2
    xbar = (w * X).sum() / w.sum()
    a = w * (X - xbar) / (w * (X - xbar) ** 2).sum()  # the WLS slope's weights on the means
    slope = float(a @ mean)
    var_paired = g / (g - 1) * sum(float(a @ dev[d]) ** 2 for d in range(g))
    var_indep = float((a**2 * se**2).sum())

    cov = level_covariance(_levels(TABLE))
    assert np.allclose(np.diag(cov), se**2)
    tr = paired_trend(X, mean, se, cov)
    assert tr.slope == pytest.approx(slope)
    assert tr.slope_se**2 / tr.dispersion == pytest.approx(var_paired)
    assert tr.variance_ratio == pytest.approx(var_paired / var_indep)
    assert tr.change == pytest.approx(slope * 3.5)
    # unpaired: the same slope, its variance the independent one
    un = weighted_trend(X, mean, se)
    assert un.slope == pytest.approx(slope)
    assert un.slope_se**2 / un.dispersion == pytest.approx(var_indep)
    assert var_paired < var_indep  # the deals move the levels together here


def test_two_levels_paired_equal_statsmodels_cluster_robust_by_deal():
    """With two levels the fit is exact: the sandwich is statsmodels' cluster-robust
    covariance of the stacked rows (weights 1 / se², clusters = deals), times G / (G − 1)."""
    t = TABLE[:, [0, 2]]
    g = t.shape[0]
    mean = t.mean(axis=0)
    se = np.sqrt(g / (g - 1) * (((t - mean) / g) ** 2).sum(axis=0))
    tr = paired_trend(X[[0, 2]], mean, se, level_covariance(_levels(t)))
    y = t.T.ravel()
    x = np.repeat(X[[0, 2]], g)
    deal = np.tile(np.arange(g), 2)
    fit = sm.WLS(y, sm.add_constant(x), weights=np.repeat(1 / se**2, g)).fit(
        cov_type="cluster", cov_kwds={"groups": deal, "use_correction": False}
    )
    assert tr.slope == pytest.approx(fit.params[1])
    assert tr.slope_se**2 == pytest.approx(fit.cov_params()[1, 1] * g / (g - 1))


def test_levels_out_of_order_are_named_with_clear_or_noise():
    r = pl.DataFrame(
        {
            "level": ["random", "greedy", "pimc:samples=2"],
            "rating": [-2.0, 0.0, -0.10],
            "se": [0.2, 0.0, 0.066],
        }
    )
    order, text, rated = out_of_order(["random", "greedy", "pimc:samples=2"], r)
    assert rated
    assert order == ["random", "pimc:samples=2", "greedy"]
    assert "not in the order given" in text and "pimc:samples=2 rated -0.10" in text
    assert "within noise" in text and "clearly" not in text
    order, text, _ = out_of_order(["greedy", "random"], r)
    assert order == ["random", "greedy"] and "random rated -2.00" in text and "clearly" in text
    assert out_of_order(["random", "greedy"], r) == (["random", "greedy"], "", True)
    apart = r.with_columns(
        pl.Series("rating", [-25.0, 0.0, -0.1]), pl.Series("se", [900.0, 0, 0.1])
    )
    order, text, _ = out_of_order(["greedy", "random"], apart)
    assert order == ["random", "greedy"] and "clearly weaker (the ratings separate" in text
    unrated = r.with_columns(pl.lit(float("nan")).alias("rating"))
    assert out_of_order(["greedy", "random"], unrated) == (["greedy", "random"], "", False)


# --- a real small ladder, levels given out of order -------------------------------------------


@pytest.fixture(scope="module")
def ladder_out(tmp_path_factory):
    out = tmp_path_factory.mktemp("lad") / "lad"
    with pytest.raises(SystemExit) as e:
        main(["ladder", "atlas", "--players", "3", "--levels", "greedy,random", "--games", "400",
              "--deals", "60", "--out", str(out), "--quiet"])  # fmt: skip
    assert e.value.code == 0
    return out


def _doc(out: Path) -> dict:
    return json.loads((out / "ladder.json").read_text())


def test_a_real_ladder_given_out_of_order_says_so_in_its_answers_line(ladder_out):
    doc = _doc(ladder_out)
    answer = [
        f["text"] for f in doc["findings"]
        if f["section"] == "ladder" and "Does it hold under stronger play" in f["text"]
    ]  # fmt: skip
    assert len(answer) == 1, answer
    text = answer[0]
    assert "(random → greedy, by rating)" in text
    assert "not in the order given: random rated" in text and "against greedy" in text
    assert "clearly weaker" in text  # greedy beats random by far


def test_a_real_ladder_pairs_the_trend_and_says_what_the_pairing_saves(ladder_out):
    doc = _doc(ladder_out)
    t = pl.DataFrame(
        doc["sections"]["ladder"]["tables"]["trends"]["rows"], infer_schema_length=None
    )
    paired = t.filter(pl.col("paired"))
    assert paired.height == t.height == 4  # ATLAS: the excess, the no-winner rate, two means
    # two levels: the line passes through both (dispersion 1), so the figures compare directly:
    # the variance ratio is the paired variance over the unpaired one
    assert (paired["dispersion"] == 1.0).all()
    ratio = (paired["change_se"] / paired["change_se_unpaired"]) ** 2
    ok = paired["variance_ratio"].is_finite() & (paired["change_se"] > 0)
    assert ok.all()
    excess = paired.filter(pl.col("measure").str.contains("excess")).row(0, named=True)
    assert excess["change_se"] <= excess["change_se_unpaired"]
    assert np.allclose(ratio.filter(ok), paired["variance_ratio"].filter(ok), rtol=0.05)
    notes = " ".join(doc["sections"]["ladder"]["notes"])
    assert "Pairing:" in notes and "median" in notes


def test_the_pairing_narrows_a_deal_driven_measure_on_a_real_yuanzi_ladder(tmp_path):
    """Bombs in the first half depend on the hands dealt: the levels' values move together
    deal by deal, and the paired interval is narrower than the independent one."""
    out = tmp_path / "yz"
    with pytest.raises(SystemExit) as e:
        main(["ladder", "yuanzi", "--levels", "random,greedy", "--games", "300", "--deals", "40",
              "--out", str(out), "--quiet"])  # fmt: skip
    assert e.value.code == 0
    rows = _doc(out)["sections"]["ladder"]["tables"]["trends"]["rows"]
    t = pl.DataFrame(rows, infer_schema_length=None)
    bombs = t.filter(pl.col("measure") == "bombs in the first half").row(0, named=True)
    assert bombs["paired"] and bombs["change_se"] < bombs["change_se_unpaired"]
    assert bombs["variance_ratio"] < 0.9
    # the per-card effects are slopes, not means: unpaired, said so
    assert not t.filter(pl.col("measure").str.contains("刀 cards"))["paired"][0]


# --- the section as rendered ------------------------------------------------------------------


def _ladder_section(html: str) -> str:
    start = html.index('id="ladder"')
    end = html.index("</details>", start)
    return html[start:end]


def _trends_table(section: str) -> tuple[list[str], list[list[str]]]:
    start = section.index('id="t-trends"')
    table = section[start : section.index("</table>", start)]
    head = re.findall(r"<th>(.*?)</th>", table)
    rows = [re.findall(r"<td[^>]*>(.*?)</td>", r) for r in re.findall(r"<tr>(.*?)</tr>", table)]
    return head, [r for r in rows if r]


def test_the_section_renders_markdown_and_a_narrow_trend_table(ladder_out):
    sec = _ladder_section((ladder_out / "ladder.html").read_text())
    assert "**" not in sec and "<strong>change across the ladder</strong>" in sec
    head, rows = _trends_table(sec)
    assert "verdict" in head and "p" in head
    assert len(head) <= 10, head
    # a rough width at 12.5 px type (≈ 7 px a character, 16 px padding a cell): a number
    # column (no wrap) as wide as its longest cell, a text column as its longest word
    width = 0
    for i, h in enumerate(head):
        cells = [r[i] for r in rows]
        words = [len(w) for c in [h, *cells] for w in c.split()]
        nums = [len(c) for c in cells if c[:1].isdigit() or c[:1] in "-+<–"]
        width += 7 * max([*words, *nums]) + 16
    assert width <= 1050, (width, head)


CHROMIUM = (
    shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
)

WIDTH_PROBE = """<script>
window.addEventListener('load', () => {
  document.querySelectorAll('details').forEach(d => d.open = true);
  const t = document.getElementById('t-trends').nextElementSibling.querySelector('table');
  const card = document.getElementById('ladder');
  const p = document.createElement('pre');
  p.id = 'probe';
  p.textContent = `table=${t.scrollWidth} card=${card.clientWidth}`;
  document.body.appendChild(p);
});
</script>"""


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed")
def test_the_trend_table_fits_its_card_in_chromium(ladder_out, tmp_path):
    html = (ladder_out / "ladder.html").read_text()
    probe = tmp_path / "probe.html"
    probe.write_text(html.replace("</body>", WIDTH_PROBE + "</body>"))
    res = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1280,4000",
         f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", "--virtual-time-budget=5000",
         probe.resolve().as_uri()],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    m = re.search(r"table=(\d+) card=(\d+)", res.stdout)
    assert m, res.stderr[-2000:]
    table, card = map(int, m.groups())
    assert table <= card - 48  # the card's padding
