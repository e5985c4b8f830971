"""ATLAS's analysis declaration (``cardsim.analysis.games``): its report sections and the
measures its engine's headline and the shared Length and Scores sections read."""

from __future__ import annotations

from cardsim.analysis.games import GameAnalysis
from cardsim.analysis.games.atlas import cards as atlas_cards
from cardsim.analysis.games.atlas import end as atlas_end

ANALYSIS = GameAnalysis(
    sections=(atlas_end, atlas_cards),
    length_values=atlas_end.length_values,
    length_main=atlas_end.LENGTH_MAIN,
    length_intro=atlas_end.LENGTH_INTRO,
    score_values=atlas_end.score_values,
    score_intro=atlas_end.SCORE_INTRO,
    score_section=atlas_end.score_section,
)
