"""The learned policies' weights, shared by both games (docs/strategies.md, "Learned").

A learned policy scores each legal move by ``w · φ(view, move)`` (the game's feature vector,
``kernels/<game>/learned.py``) and plays the best (or, at a temperature T, move i with
probability ∝ exp(score_i / T): the Gumbel-max trick of ``kernels/levels.py``).

The weights live in one table per game of ``SLOTS`` rows of ``MAX_FEATURES`` float64, outside
every compiled function: a process-wide buffer whose address the JIT linker gets under the
symbol ``cardsim_<game>_weights`` (llvmlite ``add_symbol``, as ``cardsim.kernels.call_tables``
does for functions), read by :func:`weight_reader`'s intrinsic. So a cached driver plays any
weights without a compile, and the seat's strategy id names only the row (``slot``). A row is
given on first use to one weight vector (keyed by its bytes) and never changed, so runs of
different weights may share a process (threads of a Dask worker) without locks on the reads.
"""

from __future__ import annotations

import ctypes
import hashlib
import threading

import numpy as np
from cardsim.kernels.errors import CardsimError
from llvmlite import binding as llvm
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

#: Rows of a game's table (distinct weight vectors one process can play).
SLOTS = 4096
#: Longest feature vector a game may define.
MAX_FEATURES = 64


class WeightTable:
    """One game's table of weight rows (see the module docstring)."""

    def __init__(self, game: str) -> None:
        self.symbol = f"cardsim_{game}_weights"
        self._values = (ctypes.c_double * (SLOTS * MAX_FEATURES))()
        llvm.add_symbol(self.symbol, ctypes.addressof(self._values))
        self._slots: dict[bytes, int] = {}
        self._lock = threading.Lock()

    def slot(self, weights: np.ndarray) -> int:
        """The row holding ``weights`` (float64, at most ``MAX_FEATURES``; zeros after them),
        given on first use."""
        w = np.ascontiguousarray(weights, dtype=np.float64)
        if w.ndim != 1 or not 0 < w.size <= MAX_FEATURES or not np.isfinite(w).all():
            raise CardsimError(f"weights must be 1..{MAX_FEATURES} finite numbers, got {w.shape}")
        key = hashlib.sha256(w.tobytes()).digest()
        with self._lock:
            if key not in self._slots:
                k = len(self._slots)
                if k >= SLOTS:
                    raise CardsimError(
                        f"more than {SLOTS} different learned weights in one process: "
                        "run the rest in a new one"
                    )
                at = k * MAX_FEATURES
                for j in range(MAX_FEATURES):
                    self._values[at + j] = float(w[j]) if j < w.size else 0.0
                self._slots[key] = k
            return self._slots[key]

    def row(self, slot: int) -> np.ndarray:
        """A copy of row ``slot`` (for tests and tools)."""
        at = slot * MAX_FEATURES
        return np.array(self._values[at : at + MAX_FEATURES], dtype=np.float64)


_TABLES: dict[str, WeightTable] = {}
_TABLES_LOCK = threading.Lock()


def weight_table(game: str) -> WeightTable:
    """``game``'s table: one per process."""
    with _TABLES_LOCK:
        if game not in _TABLES:
            _TABLES[game] = WeightTable(game)
        return _TABLES[game]


def weight_reader(game: str):
    """An intrinsic ``read(slot, j) -> float64``: weight ``j`` of row ``slot`` of ``game``'s
    table (no bounds check: the slot comes from :meth:`WeightTable.slot`, ``j`` from the
    game's feature count)."""
    symbol = weight_table(game).symbol
    size = SLOTS * MAX_FEATURES

    def codegen(context, builder, signature, values):
        slot, j = values
        i64 = ir.IntType(64)
        module = builder.module
        try:
            table = module.get_global(symbol)
        except KeyError:  # a declaration: the linker takes the address add_symbol gave
            table = ir.GlobalVariable(module, ir.ArrayType(ir.DoubleType(), size), symbol)
        k = builder.add(builder.mul(slot, ir.Constant(i64, MAX_FEATURES)), j)
        return builder.load(builder.gep(table, [ir.Constant(ir.IntType(32), 0), k]))

    @intrinsic
    def read_weight(_typingctx, slot, j):
        if not isinstance(slot, types.Integer) or not isinstance(j, types.Integer):
            return None
        sig = types.float64(types.int64, types.int64)
        return sig, codegen

    return read_weight
