"""cardsim: Monte Carlo balance studies of the ATLAS card game and 原子 (yuanzi)."""

__version__ = "0.1.0"
