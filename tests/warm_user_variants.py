"""Compile each game's user variant (its run and replay entry points) into the kernel cache.

``tests/conftest.py`` runs this (``python -m tests.warm_user_variants [GAME ...]``, every game
without arguments) once the game's run kernels are cached, so that no test waits for that
compile and the two test processes never compile it both at once. Every user strategy plays in
the one user variant of its game's driver (``cardsim.kernels.call_tables``): the examples warm
it for all of them.
"""

from __future__ import annotations

import sys
from pathlib import Path

from cardsim.sim.game import RunConfig
from cardsim.sim.games import get_engine

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = {
    "atlas": "examples/atlas_strategy.py:choose",
    "yuanzi": "examples/yuanzi_strategy.py:choose",
}


def main(games: list[str]) -> None:
    for game, spec in EXAMPLES.items():
        if games and game not in games:
            continue
        engine = get_engine(game)
        seats = (str(ROOT / spec), "greedy", "greedy", "greedy")
        config = RunConfig(game=game, players=4, seats=seats, seed=1)
        engine.play_chunk(config, 0, 1)
        engine.replay(config, 0)


if __name__ == "__main__":
    main(sys.argv[1:])
