"""First-use papercuts, the rest of issue 45 item 10, and order-exact report sums (item 11)."""

from types import SimpleNamespace

import pytest
from cardsim.sim.errors import CardsimError
from cardsim.sim.games import get_engine


def test_engine_unknown_strategy_suggests_the_close_name():
    """issue 45 item 10: the engines' own "unknown strategy" lines offer "did you mean"."""
    atlas = get_engine("atlas")
    config = SimpleNamespace(players=4, seats=("gready",) * 4, rules={})
    with pytest.raises(CardsimError, match="did you mean 'greedy'"):
        atlas.seat_ids(config)
    with pytest.raises(CardsimError, match="did you mean 'greedy'"):
        get_engine("yuanzi").strategy_ids(("gready",) * 4)
