"""cardsim: Monte Carlo balance studies of the ATLAS card game and 原子 (yuanzi)."""

import os as _os

#: The one version number (pyproject.toml reads it; CHANGELOG.md names it).
__version__ = "0.3.0.dev0"

if _os.environ.get("CARDSIM_CLUSTER_WORKER"):  # a local Dask worker process (cardsim.sim.runner)
    import signal as _signal
    import threading as _threading

    if _threading.current_thread() is _threading.main_thread():
        # a terminal's Ctrl-C reaches the whole process group; the cardsim process stops it
        _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
