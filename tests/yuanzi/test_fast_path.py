"""The untraced driver may take shortcuts (e.g. greedy's follow shortcut); its outcomes must
equal the traced driver's, whose every decision the agreement test checks against the
reference."""

import numpy as np
import pytest
from cardsim.kernels.yuanzi import driver as drv
from cardsim.sim.config import build_config
from cardsim.sim.games.yuanzi import ENGINE


@pytest.mark.parametrize(
    "strategies, rules",
    [
        (("greedy",) * 4, []),
        (("greedy", "random", "greedy", "points"), [("pass_is_final", "true")]),
        (("greedy", "bomber", "greedy", "planner"), [("lead_after_out", "partner")]),
        (("greedy",) * 4, [("dao_bomb", "same_count_only"), ("joker_indicator", "redraw")]),
    ],
)
def test_untraced_outcomes_equal_traced_outcomes(strategies, rules):
    cfg = build_config(
        ENGINE, games=300, seed=31, rules=rules, seat_strategies=list(enumerate(strategies))
    )
    sids, _ = ENGINE.strategy_ids(cfg.seats)
    arr = ENGINE.rules_array(cfg.rules)
    fast_games, fast_seats = drv.run_games(cfg.seed, 0, 300, sids, arr)[:2]
    traced_games, traced_seats = ENGINE.trace(cfg, 0, 300)[:2]
    assert np.array_equal(fast_games, traced_games)
    assert np.array_equal(fast_seats, traced_seats)
