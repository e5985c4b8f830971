"""User strategies called through a table of native function addresses (issue 21).

A driver's user variant (``cardsim.kernels.variants.user_variant``) is compiled once per kernel
version and cached like any kernel: it does not contain the user's functions. Each game has a
:class:`Table` of ``TABLE_SIZE`` entries, one per distinct user function loaded in this process,
holding the address of the function's Numba-compiled native entry point. The table is an LLVM
global variable whose symbol (``cardsim_<game>_user_table``) is given to the JIT linker with
llvmlite's ``add_symbol``, so compiled (and cached) code finds this process's table wherever
it is loaded. The driver calls an entry with Numba's own calling convention (:meth:`Table.caller`),
so an exception the user's function raises reaches the driver's ``try`` exactly as from a
direct call. A new user strategy therefore compiles only itself (seconds), never a driver copy.

An entry is given once per function and process and never changes, so runs with different user
strategies can share a process (threads of a Dask worker) without locks: the strategy id of a
user seat is ``base + entry`` (``base + TABLE_SIZE + entry``: raise mode, see the drivers).
"""

from __future__ import annotations

import ctypes
import threading

from cardsim.kernels.errors import CardsimError
from llvmlite import binding as llvm
from llvmlite import ir
from numba.core import cgutils, types
from numba.core.errors import TypingError
from numba.extending import intrinsic

#: Distinct user functions one process can load per game (entries are never reused).
TABLE_SIZE = 64


class Table:
    """A game's table of user-function addresses (see the module docstring)."""

    def __init__(self, game: str) -> None:
        self.symbol = f"cardsim_{game}_user_table"
        self._addresses = (ctypes.c_int64 * TABLE_SIZE)()
        llvm.add_symbol(self.symbol, ctypes.addressof(self._addresses))
        self._entries: dict[int, int] = {}
        self._keep: list[object] = []  # the compiled functions stay alive while the table does
        self._lock = threading.Lock()

    def entry(self, dispatcher, argtypes: tuple) -> int:
        """The entry of ``dispatcher``'s overload for ``argtypes`` (compiled already; it must
        return int64), given on first use."""
        cres = dispatcher.overloads[tuple(argtypes)]
        address = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
        with self._lock:
            if address not in self._entries:
                if len(self._entries) >= TABLE_SIZE:
                    raise CardsimError(
                        f"more than {TABLE_SIZE} different user strategies in one process: "
                        "run the rest in a new one"
                    )
                k = len(self._entries)
                self._addresses[k] = address
                self._entries[address] = k
                self._keep.append(dispatcher)
            return self._entries[address]

    def caller(self, argtypes: tuple):
        """An intrinsic ``call(k, a0, .., a5) -> int64`` that calls entry ``k`` with the six
        arguments of a user strategy (exactly ``argtypes``); -1 for an empty entry."""
        symbol, expected = self.symbol, tuple(argtypes)

        @intrinsic
        def call_user(_typingctx, k, a0, a1, a2, a3, a4, a5):
            args = (a0, a1, a2, a3, a4, a5)
            if args != expected:
                raise TypingError(f"user call with {args}, expected {expected}")

            def codegen(context, builder, signature, values):
                k_val, *arg_vals = values
                i64 = ir.IntType(64)
                table_ty = ir.ArrayType(i64, TABLE_SIZE)
                module = builder.module
                try:
                    table = module.get_global(symbol)
                except KeyError:
                    table = ir.GlobalVariable(module, table_ty, symbol)  # a declaration:
                    # no initializer, so the linker takes the address ``add_symbol`` gave
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

        return call_user


_TABLES: dict[str, Table] = {}
_TABLES_LOCK = threading.Lock()


def table(game: str) -> Table:
    """``game``'s table: one per process (every variant of a driver module shares it)."""
    with _TABLES_LOCK:
        if game not in _TABLES:
            _TABLES[game] = Table(game)
        return _TABLES[game]
