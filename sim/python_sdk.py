"""The former import path of 原子's Python SDK, kept for user strategy files written against it
(``from cardsim.sim import python_sdk as sdk``); the SDK is ``cardsim.sim.games.yuanzi.sdk``."""

from cardsim.sim.games.yuanzi.sdk import *  # noqa: F403
from cardsim.sim.games.yuanzi.sdk import __all__  # noqa: F401
