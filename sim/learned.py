"""Learned strategies: weight files and the names ``learned``, ``learned:FILE``, ``learned:temp=T``.

A learned policy plays the legal move of highest ``w · φ(view, move)`` (the game's features,
``kernels/<game>/learned.py``; docs/strategies.md, "Learned"); at a temperature T it plays move
i with probability ∝ exp(score_i / T). Its weights are data (issue 48 item 4):

- a **weights file** is an ``.npz`` holding ``weights`` (float64, one per feature) and
  ``provenance`` (one JSON text: the format, the game, the feature names and their schema hash,
  and how the weights were made — teacher, decisions, seed, DAgger rounds, regularisation, the
  cardsim version, the fit's figures). A file made for other features is refused with one line.
- ``learned`` plays the game's built-in weights, shipped in the package
  (``sim/games/<game>/learned.npz``), reproducible by the ``cardsim train`` command its
  provenance records (docs/strategies.md).
- ``learned:PATH.npz`` plays a weights file; ``,temp=T`` (or ``learned:temp=T``) plays it at
  temperature T (0.01 … 100, in units of the score).

The kernel reads the weights from its process-wide table (``cardsim.kernels.learned``); a seat's
id names the row, so no compile follows new weights.
"""

from __future__ import annotations

import hashlib
import importlib
import io
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from cardsim.sim import __version__
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import StrategyInfo
from cardsim.sim.jsonio import dumps
from cardsim.sim.learned_names import split
from cardsim.sim.strategy_params import Param, parse_params

FORMAT = "cardsim-learned-weights/1"
#: the built-in weights of a game, in its package folder
BUILTIN_FILE = "learned.npz"
TEMP = Param("temp", 0, "softmax temperature in units of the score w·φ (0: the best move)", 0, 100, decimals=2)  # fmt: skip


def features_module(game: str):
    """The game's feature kernel (``kernels/<game>/learned.py``)."""
    return importlib.import_module(f"cardsim.kernels.{game}.learned")


def feature_names(game: str) -> list[str]:
    return [name for name, _ in features_module(game).FEATURES]


def schema_hash(game: str) -> str:
    """A hash of the game's feature schema (its version and the features' names, in order)."""
    mod = features_module(game)
    text = dumps([game, int(mod.FEATURE_VERSION), feature_names(game)])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Weights:
    """A weight vector and where it came from."""

    game: str
    weights: np.ndarray
    provenance: dict

    def save(self, path: Path | str) -> Path:
        """Write the ``.npz`` (atomically: a temporary file renamed)."""
        path = Path(path)
        prov = {
            "format": FORMAT,
            "game": self.game,
            "schema": schema_hash(self.game),
            "features": feature_names(self.game),
            "cardsim_version": __version__,
            **self.provenance,
        }
        from cardsim.sim.rundir import atomic_write_bytes

        buf = io.BytesIO()
        np.savez(
            buf, weights=np.asarray(self.weights, np.float64), provenance=np.array(dumps(prov))
        )
        atomic_write_bytes(path, buf.getvalue())
        return path


def new_weights(game: str, weights: np.ndarray, **provenance) -> Weights:
    w = np.asarray(weights, np.float64)
    n = len(feature_names(game))
    if w.shape != (n,):
        raise CardsimError(f"{game} weights need {n} numbers, got {w.shape}")
    return Weights(game, w, dict(provenance))


def load(game: str, path: Path | str) -> Weights:
    """Read a weights file for ``game``; one-line CardsimError when it is not one, is for the
    other game or for another feature schema."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as z:
            w = np.array(z["weights"], np.float64)
            prov = json.loads(str(z["provenance"]))
    except FileNotFoundError:
        raise CardsimError(f"weights file not found: {path}") from None
    except (OSError, KeyError, ValueError) as exc:
        raise CardsimError(f"{path}: not a cardsim weights file ({exc})") from None
    if not isinstance(prov, dict) or prov.get("format") != FORMAT:
        raise CardsimError(f"{path}: not a cardsim weights file (format {prov.get('format')!r})")
    if prov.get("game") != game:
        raise CardsimError(f"{path}: weights for {prov.get('game')}, not {game}")
    if prov.get("schema") != schema_hash(game):
        raise CardsimError(
            f"{path}: made for another {game} feature schema ({prov.get('schema')}; this cardsim "
            f"has {schema_hash(game)}): train it again with cardsim train"
        )
    if w.shape != (len(feature_names(game)),) or not np.isfinite(w).all():
        raise CardsimError(f"{path}: weights of shape {w.shape}, or not finite")
    return Weights(game, w, prov)


def builtin_path(game: str) -> Path:
    return Path(importlib.import_module(f"cardsim.sim.games.{game}").__file__).parent / BUILTIN_FILE


def builtin(game: str) -> Weights:
    """The game's shipped weights (``learned``)."""
    return load(game, builtin_path(game))


class LearnedStrategies:
    """``learned``, ``learned:FILE`` and ``,temp=T`` of one game (``base``: its ``LEVEL_BASE``)."""

    def __init__(self, game: str, base: int) -> None:
        self.game, self.base = game, base

    @property
    def info(self) -> StrategyInfo:
        return StrategyInfo(
            "learned",
            -1,  # the id depends on the weights' row in this process: see ``id``
            "strong play at scripted speed: a linear policy over documented move features, "
            "distilled from ismcts and improved by policy search (docs/strategies.md, Learned); "
            "learned:FILE.npz plays other weights (cardsim train), ,temp=T softmax at T",
        )

    def handles(self, name: str) -> bool:
        return name == "learned" or name.startswith("learned:")

    def weights(self, name: str) -> Weights:
        path, _ = split(name)
        return builtin(self.game) if path is None else load(self.game, path)

    def canonical(self, name: str) -> str:
        """``name`` checked, in its one spelling: the file's absolute path (through symlinks:
        the label names the file read) and the temperature (left out at 0)."""
        path, base = split(name)
        self.weights(name)
        t = float(parse_params(base, "learned", (TEMP,))["temp"])
        parts = [str(Path(path).resolve())] if path is not None else []
        if t:
            parts.append(f"temp={TEMP.text(t)}")
        return "learned" + (":" + ",".join(parts) if parts else "")

    def id(self, name: str) -> int:
        """The kernel id of ``name``: its weights put in the game's table (CardsimError)."""
        from cardsim.kernels import levels
        from cardsim.kernels.learned import weight_table

        _, base = split(name)
        t = float(parse_params(base, "learned", (TEMP,))["temp"])
        slot = weight_table(self.game).slot(self.weights(name).weights)
        return levels.encode_learned(self.base, slot, round(t * 100))
