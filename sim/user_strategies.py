"""User-written strategies (``path/to/file.py:function``): one mechanism for every game.

A seat may name a Numba-compilable function in a Python file instead of a built-in strategy
(docs/strategies.md). Every engine goes through this module:

- :func:`is_user_strategy` tells a user strategy from a built-in name, :func:`parse` checks
  the reference and hashes the file, :func:`labels` gives the names the tables show
  (``mybot:choose``: file stem and function; the manifest keeps the path and the sha256;
  two files that would share a label in one run are refused).
- :func:`load` imports the file (an exception or ``sys.exit`` there is one line, never a
  traceback or a silent exit) and returns the function as a Numba dispatcher.
- :func:`entry` compiles the user function alone, with the exact argument types the driver
  passes (``USER_ARGTYPES`` next to each driver), so that a broken strategy fails in seconds
  with Numba's real reason and the place in the user's file, and puts it in the game's table
  of user functions (``cardsim.kernels.call_tables``): the strategy id of its seats names that
  entry. Nothing else is compiled for a new strategy or a changed file.
- :func:`driver_for` returns the game's user variant, the driver whose dispatch calls the table
  (``cardsim.kernels.variants.user_variant``): compiled once per kernel version and cached,
  for every user strategy (a line on stderr says so the one time it compiles).
- :func:`failure` explains a chunk in which a user strategy failed: the driver catches an
  exception raised in a strategy (exceptions do not cross Numba's parallel loop), counts it
  like an out-of-range answer, and the engine replays the failing game in "raise mode"
  (strategy id + ``MAX_USER``, one thread) so that the user's own message is reported.

Inputs are protected in the user variant: a user strategy gets private copies of its hand,
the played cards, the public state and the legal list (issue 11 #6); built-in strategies keep
the zero-copy path of the cached built-in driver.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from cardsim.sim.errors import CardsimError

#: How a user strategy is written on the command line and in configurations.
HINT = "path/to/file.py:function"
#: Distinct user strategies one run may use.
MAX_USER = 4


#: Prefix of a plain-Python strategy written against the reference's View
#: (``py:path/to/file.py:function``, ``sim/python_strategies.py``).
PY_PREFIX = "py:"


def is_user_strategy(name: object) -> bool:
    """True for a user-written strategy reference ``path/to/file.py:function`` (Numba) or
    ``py:path/to/file.py:function`` (plain Python, :func:`is_python_strategy`)."""
    return isinstance(name, str) and ":" in name and name.rsplit(":", 1)[0].endswith(".py")


def is_python_strategy(name: object) -> bool:
    """True for a plain-Python strategy ``py:path/to/file.py:function`` (a comparison copy
    suffix ``@2`` allowed); it plays on the reference engine (``sim/python_strategies.py``)."""
    if not isinstance(name, str) or not name.startswith(PY_PREFIX):
        return False
    return is_user_strategy(_split_suffix(name)[0][len(PY_PREFIX) :])


def file_of(name: str) -> str:
    """The file part of a user strategy reference (``py:`` and ``:function`` removed)."""
    base = _split_suffix(name)[0]
    if base.startswith(PY_PREFIX):
        base = base[len(PY_PREFIX) :]
    return base.rsplit(":", 1)[0]


@dataclass(frozen=True)
class UserStrategy:
    """A parsed ``path/to/file.py:function`` reference."""

    spec: str  # as given
    path: Path  # resolved
    function: str
    sha256: str  # of the file's bytes when parsed
    python: bool = False  # ``py:``: plain Python on the reference engine, never compiled

    @property
    def label(self) -> str:
        """``stem:function`` (:func:`label`; :func:`labels` refuses two files with one label)."""
        return f"{self.path.stem}:{self.function}"


def parse(spec: str) -> UserStrategy:
    """Check ``path/to/file.py:function`` (form, file, function name) and hash the file."""
    if not is_user_strategy(spec):
        raise CardsimError(f"bad user strategy {spec!r}: use {HINT}")
    python = spec.startswith(PY_PREFIX)
    path_text, function = spec[len(PY_PREFIX) if python else 0 :].rsplit(":", 1)
    path = Path(path_text)
    if not function.isidentifier():
        raise CardsimError(f"user strategy {spec!r}: {function!r} is not a function name")
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise CardsimError(f"user strategy file not found: {path_text}") from None
    except OSError as exc:
        raise CardsimError(f"user strategy file {path_text}: {exc.strerror or exc}") from None
    sha = hashlib.sha256(data).hexdigest()
    return UserStrategy(spec, path.resolve(), function, sha, python)


def label(name: str) -> str:
    """The one name a strategy has in tables, reports, manifests' readers, ``--test``, studies
    and ladders: a built-in name as it is, a user strategy as ``stem:function`` (a comparison
    suffix ``@2`` is kept): ``bots/mybot.py:choose`` -> ``mybot:choose``; ``py:`` strategies
    alike. The stem is the file's after symlinks are resolved — the file that is hashed and
    played — so every spelling of one file (relative, absolute, through a link) gives one
    label. (``cardsim.sim.schema.strategy_label`` is this function.)"""
    base, suffix = _split_suffix(name)
    if not is_user_strategy(base):
        return name
    function = base.rsplit(":", 1)[1]
    return f"{Path(file_of(base)).resolve().stem}:{function}{suffix}"


def labels(seats: Sequence[str]) -> list[str]:
    """:func:`label` of every seat; two different files that would get the same label in one
    run are refused (the tables could not tell them apart)."""
    seen: dict[str, Path] = {}
    for name in seats:
        base, _ = _split_suffix(name)
        if is_user_strategy(base):
            path = Path(file_of(base)).resolve()
            other = seen.setdefault(label(base), path)
            if other != path:
                raise CardsimError(
                    f"user strategies {other} and {path} would both be labelled "
                    f"{label(base)!r} in the tables: rename one of the files"
                )
    return [label(name) for name in seats]


def _split_suffix(name: str) -> tuple[str, str]:
    """``x.py:f@2`` -> (``x.py:f``, ``@2``): the copy number of a strategy compared with itself."""
    head, sep, tail = name.rpartition("@")
    if sep and tail.isdigit() and is_user_strategy(head):
        return head, sep + tail
    return name, ""


# --- loading ---------------------------------------------------------------------------------
_MODULES: dict[tuple[Path, str], ModuleType] = {}


def _module_name(strategy: UserStrategy) -> str:
    # stable across processes (a cached driver refers to its callees' modules by name)
    stem = re.sub(r"\W", "_", strategy.path.stem)
    return f"cardsim_user_{stem}_{strategy.sha256[:12]}"


def _place_in(exc: BaseException, path: Path) -> str:
    """`` (at file.py line N)`` of the innermost traceback frame in ``path``, or ''."""
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename).resolve() == path:
            line = frame.lineno
    return f" (at {path.name} line {line})" if line else ""


def import_file(strategy: UserStrategy) -> ModuleType:
    """Import the strategy's file once per content (errors there are one line, never a
    traceback or a silent exit)."""
    return _import(strategy)


def _import(strategy: UserStrategy) -> ModuleType:
    key = (strategy.path, strategy.sha256)
    if key in _MODULES:
        return _MODULES[key]
    name = _module_name(strategy)
    spec = importlib.util.spec_from_file_location(name, strategy.path)
    if spec is None or spec.loader is None:
        raise CardsimError(f"user strategy {strategy.spec!r}: cannot import {strategy.path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # Numba finds a function's globals through sys.modules
    try:
        spec.loader.exec_module(module)
    except KeyboardInterrupt:
        sys.modules.pop(name, None)
        raise
    except SystemExit as exc:  # never let the user's file end cardsim (silently, with its code)
        sys.modules.pop(name, None)
        raise CardsimError(
            f"user strategy file {strategy.path}: calls sys.exit({exc.code!r}) when imported"
            f"{_place_in(exc, strategy.path)}"
        ) from None
    except BaseException as exc:  # anything the user's file raises: one line, no traceback
        sys.modules.pop(name, None)
        raise CardsimError(
            f"user strategy file {strategy.path}: {type(exc).__name__}: {exc}"
            f"{_place_in(exc, strategy.path)}"
        ) from None
    _MODULES[key] = module
    return module


def load(strategy: UserStrategy):
    """The strategy's function as a Numba dispatcher (a plain function is jitted here)."""
    from cardsim.kernels.jit import user_kernel
    from numba.core.registry import CPUDispatcher

    fn = getattr(_import(strategy), strategy.function, None)
    if fn is None:
        raise CardsimError(
            f"user strategy {strategy.spec!r}: no function {strategy.function!r} in {strategy.path}"
        )
    if isinstance(fn, CPUDispatcher):
        return fn
    if not callable(fn):
        raise CardsimError(
            f"user strategy {strategy.spec!r}: {strategy.function!r} is not a function"
        )
    return user_kernel(fn)


# --- compiling -------------------------------------------------------------------------------
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_PLACE = re.compile(r'File "([^"]+)", line (\d+)')


def numba_reason(exc: BaseException) -> str:
    """Numba's reason for a failed compile in one line, with the first place it names."""
    text = _ANSI.sub("", str(exc))
    lines = [ln.strip() for ln in text.splitlines()]
    body = [
        ln
        for ln in lines
        if ln
        and not ln.startswith(("Failed in ", "During:", "- Resolution failure", "<source"))
        and not _PLACE.match(ln)
    ]
    reason = body[0] if body else type(exc).__name__
    if reason.endswith(":") and len(body) > 1:  # "No implementation ... for signature:" + sig
        reason = f"{reason} {body[1].lstrip('>').strip()}"
    place = _PLACE.search(text)
    if place:
        reason += f" (at {Path(place.group(1)).name} line {place.group(2)})"
    return reason


def check_compiles(strategy: UserStrategy, fn, argtypes: tuple, label: str) -> None:
    """Compile ``fn`` alone for the driver's exact argument types; raise one line if it fails
    or if it does not return an integer."""
    from numba.core import types
    from numba.core.errors import NumbaError

    try:
        fn.compile(tuple(argtypes))
    except NumbaError as exc:
        raise CardsimError(
            f"user strategy {label} ({strategy.path}) does not compile: {numba_reason(exc)}"
        ) from None
    except Exception as exc:  # an error of the user's code while Numba runs it (e.g. globals)
        raise CardsimError(
            f"user strategy {label} ({strategy.path}) does not compile: {type(exc).__name__}: {exc}"
        ) from None
    result = fn.overloads[tuple(argtypes)].signature.return_type
    if not isinstance(result, types.Integer):
        line = fn.py_func.__code__.co_firstlineno
        raise CardsimError(
            f"user strategy {label} ({strategy.path}) must return an integer index, "
            f"but returns {result} (function at {strategy.path.name} line {line})"
        )


_COMPILED: dict[tuple, object] = {}  # (path, sha256, function, argtypes) -> dispatcher
_ENTERED: dict[tuple, object] = {}  # the same key -> the int64 function the table calls


def compiled(spec: str, argtypes: tuple):
    """User strategy ``spec`` loaded and compiled alone for ``argtypes`` (a driver's exact
    argument types), once per version of its file and process: a broken one fails here with
    one line (:func:`check_compiles`)."""
    strategy = parse(spec)
    key = (strategy.path, strategy.sha256, strategy.function, tuple(argtypes))
    if key not in _COMPILED:
        fn = load(strategy)
        check_compiles(strategy, fn, tuple(argtypes), label(spec))
        _COMPILED[key] = fn
    return _COMPILED[key]


def _widened(fn, argtypes: tuple):
    """``fn`` itself if it returns int64 for ``argtypes``, else a jitted wrapper that does."""
    import numpy as np
    from numba import njit
    from numba.core import types

    if fn.overloads[argtypes].signature.return_type == types.int64:
        return fn
    inner = fn

    @njit
    def wide(a0, a1, a2, a3, a4, a5):
        return np.int64(inner(a0, a1, a2, a3, a4, a5))

    wide.compile(argtypes)
    return wide


def entry(spec: str, driver: ModuleType) -> int:
    """The entry of user strategy ``spec`` in the table of user functions of ``driver``'s game
    (``USER_TABLE``, called with ``USER_ARGTYPES``; ``cardsim.kernels.call_tables``): the
    function compiled alone (:func:`compiled`), entered once per process."""
    argtypes = tuple(driver.USER_ARGTYPES)
    fn = compiled(spec, argtypes)
    key = (fn, argtypes)
    if key not in _ENTERED:
        _ENTERED[key] = _widened(fn, argtypes)
    return driver.USER_TABLE.entry(_ENTERED[key], argtypes)


def driver_for(
    driver: ModuleType, specs: Sequence[str], entry_point: str, title: str, estimate: str
) -> ModuleType:
    """The user variant of ``driver`` (``cardsim.kernels.variants.user_variant``), which calls
    the user strategies ``specs`` through the game's table (:func:`entry` puts them there).

    It is compiled once per kernel version, for every user strategy: the one notice of that
    compile is given only when ``entry_point`` (the driver function about to be called) really
    compiles; ``title``/``estimate``: the game's name and a rough compile time for it.
    """
    from cardsim.kernels.variants import is_cached, user_variant

    if len(specs) > MAX_USER:
        raise CardsimError(f"at most {MAX_USER} different user strategies in one run")
    names = labels(list(specs))  # refuses two files with one label
    module = user_variant(driver)
    dispatcher = getattr(module, entry_point)
    if not is_cached(dispatcher) and not dispatcher.signatures:
        print(
            f"cardsim: user strategy {', '.join(names)}: now compiling the {title} "
            f"driver for user strategies ({entry_point}, {estimate}; once, for every user "
            "strategy: later ones compile only themselves)",
            file=sys.stderr,
            flush=True,
        )
    return module


# --- errors while playing --------------------------------------------------------------------
def describe(exc: BaseException) -> str:
    """``Type: message`` of the exception a user strategy raised (innermost cause first)."""
    inner = exc
    while isinstance(inner, SystemError) and (inner.__cause__ or inner.__context__):
        inner = inner.__cause__ or inner.__context__
    message = _ANSI.sub("", str(inner)).strip().splitlines()
    return f"{type(inner).__name__}: {message[0]}" if message else type(inner).__name__


def failure(names: Sequence[str], rerun: Callable[[int | None], bool], where: str) -> CardsimError:
    """The error of a chunk in which a user strategy failed (raised or answered out of range).

    ``rerun(slot)`` replays the failing game with user slot ``slot`` (all if None) in raise
    mode: it raises what the strategy raised, or returns whether the game still failed.
    """
    try:
        rerun(None)
    except Exception as exc:
        who = list(names)
        for slot in range(len(names)) if len(names) > 1 else ():
            try:
                rerun(slot)
            except Exception:
                who = [names[slot]]
                break
        return CardsimError(f"user strategy {', '.join(who)} raised {describe(exc)} ({where})")
    return CardsimError(
        f"user strategy {', '.join(names)} returned an index outside 0..n-1 ({where})"
    )
