"""原子's analysis declaration (``cardsim.analysis.games``): its report sections, the measures
the shared Length and Scores sections read, and the ladder's readings of the 刀 rank (the effect
of holding 刀 cards and jokers, which play can change) and of the bombs."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl
from cardsim.analysis.games import GameAnalysis
from cardsim.analysis.games.yuanzi import bombs as yuanzi_bombs
from cardsim.analysis.games.yuanzi import dao as yuanzi_dao
from cardsim.analysis.games.yuanzi import finish as yuanzi_finish
from cardsim.sim.game import GameFacts, Measure
from scipy import stats as ss


def _dealt(column: str) -> Callable:
    """Slope of team 0's match win on the count of ``column`` it was dealt (the report's 刀
    cards / jokers trend, :func:`cardsim.analysis.games.yuanzi.dao.dealt_trend`): points of win rate
    per card."""

    def read(run) -> dict:
        tr = yuanzi_dao.trend(yuanzi_dao.dealt_trend(run.seats, column).collect())
        z = ss.norm.ppf(0.975)
        return {
            "estimate": tr.slope,
            "se": tr.se,
            "lo": tr.slope - z * tr.se,
            "hi": tr.slope + z * tr.se,
            "n": int(tr.clusters),
        }

    return read


def ladder_dealt(measure: Measure, facts: GameFacts) -> list:
    """The 刀 rank depends only on the deal: the ladder reads the effect of the 刀 cards and
    jokers dealt instead (first half)."""
    from cardsim.analysis.ladder import LadderMeasure

    return [
        LadderMeasure(
            f"{col.removeprefix('h1_')}_effect",
            f"holding {what}: team 0's match win rate per card dealt (first half)",
            "win rate", "deal", _dealt(col),
        )
        for col, what in (("h1_dao_cards", "刀 cards"), ("h1_jokers", "jokers"))
    ]  # fmt: skip


def ladder_bombs(measure: Measure, facts: GameFacts) -> list:
    """Bombs of the first half, a mean per match."""
    from cardsim.analysis.ladder import LadderMeasure, _mean

    return [
        LadderMeasure(
            "bombs", "bombs in the first half", "mean", "match", _mean(lambda f: pl.col("h1_bombs"))
        )
    ]


ANALYSIS = GameAnalysis(
    sections=(yuanzi_dao, yuanzi_finish, yuanzi_bombs),
    length_values=yuanzi_finish.length_values,
    length_main=yuanzi_finish.LENGTH_MAIN,
    length_intro=yuanzi_finish.LENGTH_INTRO,
    length_figures=yuanzi_finish.length_figures,
    score_values=yuanzi_finish.score_values,
    score_queries=yuanzi_finish.score_queries,
    score_intro=yuanzi_finish.SCORE_INTRO,
    score_fixed_means=yuanzi_finish.SCORE_FIXED_MEANS,
    score_section=yuanzi_finish.score_section,
    score_unit_note="seat points: one seat and half",
    ladder_measures={"dealt": ladder_dealt, "bombs": ladder_bombs},
    plot_words={
        "刀": "dao",
        "双夹": "shuangjia",
        "上游": "shangyou",
        "南北": "N-S",
        "东西": "E-W",
        "原子": "atom",
    },
)
