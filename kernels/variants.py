"""The user variant of a driver: its source compiled again with ``_USER_SLOTS`` preset.

Numba binds the functions a kernel calls when it compiles, so the only way to run one driver
with a different dispatch is another module with the same source. A variant is a real ``.py``
file — a short prelude that sets the global, then the driver's source — written once under the
kernel cache (``CACHE_DIR``, whose folder name is a fingerprint of every kernel source, so a
changed kernel gets new variant files) and imported under its own module name, so
``cache=True`` caches it like any kernel module.

The **user** variant (prelude ``_USER_SLOTS = True``) is the driver whose dispatch also calls
user strategies through the game's user table of function addresses
(``cardsim.kernels.call_tables``), on private copies of their inputs (which needs NRT in the
play loop). One per driver, compiled once: a new user strategy compiles only itself. Search
strategies need no variant: every driver calls them through the game's search table.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

_LOADED: dict[str, ModuleType] = {}

USER_PRELUDE = "_USER_SLOTS = True  # user strategies are called through the game's user table\n"


def write_once(path: Path, text: str) -> None:
    """Create ``path`` atomically unless it exists (rewriting it would void Numba's cache)."""
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    try:
        os.link(tmp, path)  # fails if another process made it first: keep theirs
    except FileExistsError:
        pass
    except OSError:
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def load_variant(driver: ModuleType, folder: str, name: str, prelude: str) -> ModuleType:
    """The variant of ``driver`` whose source starts with ``prelude``, as module ``name`` from
    ``CACHE_DIR / folder`` (the file written once; each call imports it anew, callers keep it)."""
    from cardsim.kernels.jit import CACHE_DIR

    source = Path(driver.__file__).read_text(encoding="utf-8")
    path = CACHE_DIR / folder / f"{driver.__name__.replace('.', '_')}_{folder.split('/')[0]}.py"
    write_once(path, prelude + "\n" + source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def user_variant(driver: ModuleType) -> ModuleType:
    """``driver`` whose dispatch also calls user strategies (the driver itself if it is one);
    loaded once per process."""
    if getattr(driver, "_USER", False):
        return driver
    name = f"cardsim_user_{driver.__name__.replace('.', '_')}"
    if name not in _LOADED:
        _LOADED[name] = load_variant(driver, "user", name, USER_PRELUDE)
    return _LOADED[name]


def is_cached(dispatcher) -> bool:
    """Whether Numba's disk cache has an index for ``dispatcher`` (private API, best effort)."""
    try:
        return os.path.exists(dispatcher._cache._cache_file._index_path)
    except AttributeError:
        return False
