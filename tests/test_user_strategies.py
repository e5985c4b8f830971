"""sim/user_strategies.py: one user-strategy mechanism for both games.

Labels, loading errors in one line, a fail-fast compile of the function alone, the compile
cache (a second process loads the driver instead of compiling it), protected inputs (issue 11
#6: a strategy that writes into its inputs plays exactly the games of the built-in ``random``),
the user's own exception message (issue 11 #11), and the pinned outcomes of the example
strategies (tests/fixtures/pinned_v1).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from cardsim.sim import user_strategies as us
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import RunConfig
from cardsim.sim.games import get_engine
from polars.testing import assert_frame_equal

ROOT = Path(__file__).resolve().parents[1]
FILES = ROOT / "tests" / "user_strategy_files"
PINNED = ROOT / "tests" / "fixtures" / "pinned_v1"
YZ_VANDAL = f"{FILES / 'yuanzi_vandal.py'}:choose"
AT_VANDAL = f"{FILES / 'atlas_vandal.py'}:choose"


def config(game: str, seats, seed: int = 7, rules: dict | None = None) -> RunConfig:
    return RunConfig(
        game=game, players=len(seats), seats=tuple(seats), rules=rules or {}, seed=seed
    )


# --- names ------------------------------------------------------------------------------------
def test_is_user_strategy_is_the_one_test():
    from cardsim.sim.config import is_user_strategy as config_test

    assert config_test is us.is_user_strategy
    assert us.is_user_strategy("bots/mybot.py:choose")
    for name in ("greedy", "mybot.py", "mybot:choose", "mybot.txt:choose", 3, None):
        assert not us.is_user_strategy(name)


def test_labels_are_stem_and_function_and_refuse_clashes():
    from cardsim.sim.schema import strategy_label

    assert us.labels(["x/mybot.py:choose", "x/mybot.py:other", "random"]) == [
        "mybot:choose",
        "mybot:other",
        "random",
    ]
    assert us.labels(["/r/bot.py:f", "/r/bot.py:f@2", "greedy@2"]) == [
        "bot:f",
        "bot:f@2",
        "greedy@2",
    ]
    assert strategy_label("/home/me/bots/mybot.py:choose") == "mybot:choose"
    with pytest.raises(CardsimError, match="would both be labelled 'mybot:choose'"):
        us.labels(["/a/v1/mybot.py:choose", "greedy", "/a/v2/mybot.py:choose"])


def test_a_changed_file_is_a_new_function_in_the_table(tmp_path):
    """The table entry follows the file's contents: the same file gives the same entry, an edited
    one a new entry that plays the edited code (nothing of the old version runs)."""
    from cardsim.kernels.yuanzi import driver

    f = tmp_path / "mine.py"
    f.write_text("def choose(own, played, pub, legal, n_legal, rng):\n    return 0\n")
    seats = [f"{f}:choose", "greedy", "greedy", "greedy"]
    spec = seats[0]
    first = us.entry(spec, driver)
    assert us.entry(spec, driver) == first
    before, _ = get_engine("yuanzi").play_chunk(config("yuanzi", seats), 0, 6)
    f.write_text("def choose(own, played, pub, legal, n_legal, rng):\n    return n_legal - 1\n")
    assert us.entry(spec, driver) != first
    after, _ = get_engine("yuanzi").play_chunk(config("yuanzi", seats), 0, 6)
    assert not before.equals(after)


# --- loading and compiling: one line, in seconds ----------------------------------------------
@pytest.mark.parametrize(
    ("game", "spec", "message"),
    [
        (
            "yuanzi",
            "broken.py:yuanzi_choose",
            r"Can't unify return type.*\(at broken\.py line [67]\)",
        ),
        ("atlas", "broken.py:atlas_choose", r"returns float64 \(function at broken\.py line 10\)"),
        ("yuanzi", "broken.py:missing", "no function 'missing'"),
        ("atlas", "broken.py:not_a_function", "is not a function"),
        ("yuanzi", "fails_on_import.py:choose", r"KeyError: 'b' \(at fails_on_import\.py line 4\)"),
        ("atlas", "exits.py:choose", r"calls sys\.exit\(3\) when imported \(at exits\.py line 5\)"),
        ("yuanzi", "nowhere.py:choose", "not found"),
    ],
)
def test_broken_strategies_fail_in_one_line_before_the_driver_compiles(game, spec, message):
    engine = get_engine(game)
    seats = [str(FILES / spec)] + ["greedy"] * 3
    with pytest.raises(CardsimError, match=message) as err:
        engine.play_chunk(config(game, seats), 0, 2)
    assert "\n" not in str(err.value)


def test_sys_exit_in_a_strategy_file_is_one_line_and_exit_2(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "cardsim", "run", "yuanzi", "--games", "3", "--quiet",
         "--seat", f"0={FILES / 'exits.py'}:choose", "--out", str(tmp_path / "run")],
        capture_output=True, text=True, cwd=ROOT, timeout=600,
    )  # fmt: skip
    assert out.returncode == 2, out.stderr
    assert "sys.exit(3)" in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


# --- protected inputs (issue 11 #6) ------------------------------------------------------------
def _without_strategy(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.drop([c for c in frame.columns if c.startswith("strategy")])


@pytest.mark.parametrize(("game", "vandal"), [("yuanzi", YZ_VANDAL), ("atlas", AT_VANDAL)])
def test_a_strategy_that_writes_into_its_inputs_cannot_change_the_game(game, vandal):
    engine = get_engine(game)
    seats = [vandal, "greedy", vandal, "greedy"]
    g, s = engine.play_chunk(config(game, seats), 0, 150)
    rg, rs = engine.play_chunk(config(game, ["random", "greedy", "random", "greedy"]), 0, 150)
    # the deal never depends on what a strategy does
    deal_games, deal_seats = engine.facts.deal_columns_games, engine.facts.deal_columns_seats
    assert_frame_equal(g.select(deal_games), rg.select(deal_games))
    assert_frame_equal(s.select(deal_seats), rs.select(deal_seats))
    # and it plays the legal moves it picked: exactly the games of the built-in random
    assert_frame_equal(_without_strategy(g), _without_strategy(rg))
    assert_frame_equal(_without_strategy(s), _without_strategy(rs))
    assert g["strategy_s0"][0] == f"{game}_vandal:choose"


@pytest.mark.parametrize("game", ["yuanzi", "atlas"])
def test_a_strategy_exception_keeps_the_users_message(game):
    vandal = YZ_VANDAL if game == "yuanzi" else AT_VANDAL
    engine = get_engine(game)
    with pytest.raises(CardsimError) as err:
        engine.play_chunk(config(game, ["greedy", "greedy", "greedy", vandal]), 0, 20)
    text = str(err.value)
    assert f"user strategy {game}_vandal:choose raised ValueError: " in text
    assert "the vandal refuses to play seat 3" in text and "game " in text
    assert "CPUDispatcher" not in text and "\n" not in text


@pytest.mark.parametrize("game", ["yuanzi", "atlas"])
def test_an_out_of_range_answer_is_named(game):
    vandal = YZ_VANDAL if game == "yuanzi" else AT_VANDAL
    engine = get_engine(game)
    with pytest.raises(CardsimError, match=f"{game}_vandal:choose returned an index outside"):
        engine.play_chunk(config(game, ["greedy", vandal, "greedy", "greedy"]), 0, 20)


@pytest.mark.parametrize("game", ["yuanzi", "atlas"])
def test_a_strategy_returning_a_narrow_integer_plays_like_int64(game, tmp_path):
    """The table calls int64 functions: another integer return type is widened by a wrapper,
    and the games are those of the same strategy returning int64."""
    args = (
        "own, played, pub, legal, n_legal, rng" if game == "yuanzi" else "d, h, p, o, n_legal, rng"
    )
    narrow, wide = tmp_path / "narrow.py", tmp_path / "wide.py"
    narrow.write_text(
        f"import numpy as np\ndef choose({args}):\n    return np.int32(n_legal - 1)\n"
    )
    wide.write_text(f"import numpy as np\ndef choose({args}):\n    return np.int64(n_legal - 1)\n")
    engine = get_engine(game)
    runs = [
        engine.play_chunk(config(game, [f"{f}:choose", "greedy", "random", "greedy"]), 0, 8)
        for f in (narrow, wide)
    ]
    for i in (0, 1):  # games, seats: everything but the strategy labels (Enums of other names)
        a, b = (r[i].select(pl.exclude("^strategy.*$")) for r in runs)
        assert_frame_equal(a, b)


def test_a_full_table_is_one_line(monkeypatch):
    """Entries are never reused: the table refuses one function more than it holds."""
    import numpy as np
    from cardsim.kernels import call_tables
    from numba import njit, types

    table = call_tables.Table("test_full")
    argtypes = (types.int64,)
    first, second = njit(lambda x: np.int64(x)), njit(lambda x: np.int64(x + 1))
    for fn in (first, second):
        fn.compile(argtypes)
    monkeypatch.setattr(call_tables, "TABLE_SIZE", 1)
    assert table.entry(first, argtypes) == 0
    assert table.entry(first, argtypes) == 0  # the same function: its entry again
    with pytest.raises(CardsimError, match="more than 1 different user strategies in one process"):
        table.entry(second, argtypes)


# --- the compile cache --------------------------------------------------------------------------
@pytest.mark.heavy
def test_a_second_process_loads_the_user_driver_from_the_cache(tmp_path):
    """The user variant compiles once, for every user strategy: a second process with another
    user strategy (a new file) compiles only that function and loads the driver, silently."""
    other = tmp_path / "another_vandal.py"
    other.write_text(Path(YZ_VANDAL.rsplit(":", 1)[0]).read_text() + "\n# another file\n")
    script = (
        "import sys\n"
        "from cardsim.sim.game import RunConfig\n"
        "from cardsim.sim.games import get_engine\n"
        "from sim import user_strategies as us\n"
        "from cardsim.kernels.yuanzi import driver as drv\n"
        "seats = (sys.argv[1], 'greedy', 'random', 'greedy')\n"
        "e = get_engine('yuanzi')\n"
        "e.play_chunk(RunConfig(game='yuanzi', players=4, seats=seats, seed=3), 0, 5)\n"
        "mod = e._driver((seats[0],), 'simulate_part')\n"
        "print(sum(mod.simulate_part.stats.cache_hits.values()),"
        " sum(mod.simulate_part.stats.cache_misses.values()))\n"
    )
    env = {**os.environ, "NUMBA_NUM_THREADS": "1"}
    runs = [
        subprocess.run([sys.executable, "-c", script, spec], capture_output=True, text=True,
                       cwd=ROOT, env=env, timeout=900)
        for spec in (YZ_VANDAL, f"{other}:choose")
    ]  # fmt: skip
    for r in runs:
        assert r.returncode == 0, r.stderr
    hits, misses = map(int, runs[1].stdout.split())
    assert (hits, misses) == (1, 0)  # loaded, not compiled
    assert "compiling" not in runs[1].stderr
    # a compile is announced on stderr before it starts (only when one happens)
    if int(runs[0].stdout.split()[1]):
        assert "now compiling the 原子 driver" in runs[0].stderr


# --- results are kept (pinned sample recorded before the restructuring) -------------------------
def _pinned_user_configs():
    configs = json.loads((PINNED / "configs.json").read_text())
    return [c for c in configs if any(us.is_user_strategy(s) for s in c["seats"])]


@pytest.mark.parametrize("c", _pinned_user_configs(), ids=lambda c: c["id"])
def test_user_strategy_configurations_reproduce_the_pinned_tables(c):
    """The example strategies (run through the cached user driver) give the v1 tables recorded
    before this mechanism existed; only the strategy label changed (path -> stem:function)."""
    from tests.schema_v1 import to_v1
    from tests.test_pinned_sample import LEGACY

    seats = [str(ROOT / s) if us.is_user_strategy(s) else s for s in c["seats"]]
    cfg = RunConfig(
        game=c["game"], players=c["players"], seats=tuple(seats),
        rules={**LEGACY[c["game"]], **c["rules"]}, seed=c["seed"], games=c["games"],
    )  # fmt: skip
    tables = get_engine(c["game"]).play_chunk(cfg, 0, c["games"])
    label = dict(zip(c["seats"], us.labels(c["seats"]), strict=True))
    assert {"yuanzi_strategy:choose", "atlas_strategy:choose"} & set(label.values())
    for name, new in zip(("games", "seats"), tables, strict=True):
        old = pl.read_parquet(PINNED / f"{c['id']}_{name}.parquet")
        cols = [x for x in old.columns if x.startswith("strategy")]
        want = old.with_columns(
            pl.col(x).cast(pl.String).replace_strict(label, return_dtype=pl.String) for x in cols
        )
        got = to_v1(c["game"], name, new).select(want.columns)
        casts = {x: want.schema[x] for x in want.columns if x not in cols}
        assert_frame_equal(got.cast(casts), want, check_dtypes=False)
