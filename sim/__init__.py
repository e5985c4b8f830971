"""cardsim: Monte Carlo balance studies of the ATLAS card game and 原子 (yuanzi)."""

#: The one version number (pyproject.toml reads it; CHANGELOG.md names it).
__version__ = "0.2.0"
