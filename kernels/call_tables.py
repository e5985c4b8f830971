"""Functions called through tables of native addresses: user strategies and search strategies.

A driver is compiled once per kernel version and cached; it does not contain the functions it
calls through a table. Each table holds the addresses of Numba-compiled native entry points in
an LLVM global variable whose symbol (``cardsim_<name>_table``) is given to the JIT linker with
llvmlite's ``add_symbol``, so compiled (and cached) code finds this process's table wherever it
is loaded. The driver calls an entry with Numba's own calling convention (:meth:`Table.caller`),
so an exception the function raises reaches the driver's ``try`` exactly as from a direct call;
an empty entry answers -1 (a bad answer, never a jump to address 0).

Two kinds per game (issue 21, "compile only what a run plays"):

- the **user** table (:func:`user_table`, ``TABLE_SIZE`` entries): one entry per distinct user
  function loaded in this process, given on first use and never changed, so runs with
  different user strategies can share a process (threads of a Dask worker) without locks. A
  user seat's strategy id is ``base + entry`` (``base + TABLE_SIZE + entry``: raise mode, see
  the drivers). A new user strategy compiles only itself (seconds), never a driver copy; the
  calls need the driver's user variant (``cardsim.kernels.variants``), which copies the inputs.
- the **search** table (:func:`search_table`): the search strategies (pimc, ismcts) at fixed
  entries, filled by the driver's ``for_seats`` when a seat searches. A scripted run never
  compiles a search; the first search compiles only the search functions (cached on disk),
  not another copy of the driver.
"""

from __future__ import annotations

import ctypes
import threading

import numpy as np
from cardsim.kernels.errors import CardsimError
from llvmlite import binding as llvm
from llvmlite import ir
from numba.core import cgutils, types
from numba.core.errors import TypingError
from numba.extending import intrinsic

#: Distinct user functions one process can load per game (entries are never reused).
TABLE_SIZE = 64


def _address(dispatcher, argtypes: tuple) -> int:
    """The native entry point of ``dispatcher``'s compiled overload for ``argtypes``, which
    must return int64 (the callers' function type)."""
    cres = dispatcher.overloads[tuple(argtypes)]
    if cres.signature.return_type != types.int64:
        raise TypeError(f"{dispatcher} returns {cres.signature.return_type}, not int64")
    return cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)


class Table:
    """A table of function addresses (see the module docstring)."""

    def __init__(self, name: str, size: int = TABLE_SIZE) -> None:
        self.symbol = f"cardsim_{name}_table"
        self.size = size
        self._addresses = (ctypes.c_int64 * size)()
        llvm.add_symbol(self.symbol, ctypes.addressof(self._addresses))
        self._entries: dict[int, int] = {}
        self._keep: list[object] = []  # the compiled functions stay alive while the table does
        self._lock = threading.Lock()

    def entry(self, dispatcher, argtypes: tuple) -> int:
        """The entry of ``dispatcher``'s overload for ``argtypes`` (compiled already; it must
        return int64), given on first use (a user strategy's)."""
        address = _address(dispatcher, argtypes)
        with self._lock:
            if address not in self._entries:
                if len(self._entries) >= min(self.size, TABLE_SIZE):
                    raise CardsimError(
                        f"more than {TABLE_SIZE} different user strategies in one process: "
                        "run the rest in a new one"
                    )
                k = len(self._entries)
                self._addresses[k] = address
                self._entries[address] = k
                self._keep.append(dispatcher)
            return self._entries[address]

    def put(self, k: int, dispatcher, argtypes: tuple) -> None:
        """Fill fixed entry ``k`` with ``dispatcher``'s overload for ``argtypes`` (a search
        strategy's; the same function every time, so a second put changes nothing)."""
        address = _address(dispatcher, argtypes)
        with self._lock:
            if self._addresses[k] != address:
                self._keep.append(dispatcher)
                self._addresses[k] = address

    def fill(self, entries: tuple, argtypes: tuple) -> None:
        """Compile (or load from the disk cache) each ``(k, dispatcher)`` of ``entries`` for
        ``argtypes``, in the order given, and put it at entry ``k`` unless that is filled."""
        for k, dispatcher in entries:
            if not self.filled(k):
                dispatcher.compile(argtypes)
                self.put(k, dispatcher, argtypes)

    def filled(self, k: int) -> bool:
        return self._addresses[k] != 0

    def caller(self, argtypes: tuple):
        """An intrinsic ``call(k, a0, ..) -> int64`` that calls entry ``k`` with arguments of
        exactly ``argtypes``; -1 for an empty entry."""
        return _caller(self.symbol, self.size, tuple(argtypes))


def _caller(symbol: str, size: int, expected: tuple):
    def typer(_typingctx, k, *args):
        if args != expected:
            raise TypingError(f"table call with {args}, expected {expected}")

        def codegen(context, builder, signature, values):
            k_val, *arg_vals = values
            i64 = ir.IntType(64)
            module = builder.module
            try:
                table = module.get_global(symbol)
            except KeyError:
                # a declaration: no initializer, so the linker takes the address add_symbol gave
                table = ir.GlobalVariable(module, ir.ArrayType(i64, size), symbol)
            at = builder.gep(table, [ir.Constant(ir.IntType(32), 0), k_val])
            address = builder.load(at)
            result = cgutils.alloca_once_value(builder, ir.Constant(i64, -1))
            with builder.if_then(builder.icmp_unsigned("!=", address, ir.Constant(i64, 0))):
                fnty = context.call_conv.get_function_type(types.int64, expected)
                fn = builder.inttoptr(address, fnty.as_pointer())
                status, res = context.call_conv.call_function(
                    builder, fn, types.int64, expected, arg_vals
                )
                with cgutils.if_unlikely(builder, status.is_error):
                    context.call_conv.return_status_propagate(builder, status)
                builder.store(res, result)
            return builder.load(result)

        return types.int64(k, *args), codegen

    # Numba's @intrinsic takes named parameters only: give the typer one per argument.
    names = ", ".join(f"a{i}" for i in range(len(expected)))
    scope = {"typer": typer}
    source = f"def call_table(typingctx, k, {names}):\n    return typer(typingctx, k, {names})\n"
    exec(source, scope)  # noqa: S102
    return intrinsic(scope["call_table"])


class SearchSeats:
    """A driver's search strategies: the seats' ids in ``[lo, hi)`` are called through
    ``table``, whose ``(entry, dispatcher)`` pairs ``entries()`` gives (imported on first use)."""

    def __init__(self, table: Table, argtypes: tuple, lo: int, hi: int, entries) -> None:
        self.table, self.argtypes, self.lo, self.hi, self.entries = table, argtypes, lo, hi, entries

    def uses(self, sids) -> bool:
        """Whether any seat's strategy id is a search strategy's."""
        ids = np.asarray(sids)
        return bool(((ids >= self.lo) & (ids < self.hi)).any())

    def load(self) -> None:
        """Compile (or load from the disk cache) the search strategies and fill the table."""
        self.table.fill(self.entries(), self.argtypes)

    def for_seats(self, sids, driver):
        """``driver``, with the table filled first when a seat of ``sids`` searches."""
        if self.uses(sids):
            self.load()
        return driver


_TABLES: dict[str, Table] = {}
_TABLES_LOCK = threading.Lock()


def _table(name: str, size: int) -> Table:
    with _TABLES_LOCK:
        if name not in _TABLES:
            _TABLES[name] = Table(name, size)
        return _TABLES[name]


def user_table(game: str) -> Table:
    """``game``'s user table: one per process (every variant of a driver module shares it)."""
    return _table(f"{game}_user", TABLE_SIZE)


def search_table(game: str, size: int) -> Table:
    """``game``'s search table of ``size`` fixed entries: one per process."""
    return _table(f"{game}_search", size)
