"""The strategy SDK (issue 12 item 3): named accessors, plain-Python strategies, strategy check.

- ``kernels/yuanzi/sdk.py`` / ``kernels/atlas/sdk.py``: every public name is documented; the
  accessors agree with the rules (a checker strategy answers -1 the moment one does not,
  YZ-28: the first half's result and the rule options in force); ATLAS's public block holds
  the rule options (``P_RULES``). The worked examples are written on the SDK and still give the
  pinned tables (tests/test_user_strategies.py).
- ``py:`` strategies (``sim/python_strategies.py`` and ``sim/games/<game>/adapter.py``): the worked example ported line by line to
  plain Python gives *identical* tables to the Numba version, in both games, with the built-ins
  as opponents (random draws from stream 2 included) and under rule variants.
- ``cardsim strategy check``: illegal answers with their position, speed and the comparison
  with greedy; one-line errors and exit code 2 for bad input.

CI time: the user-strategy drivers used here are the worked examples' — the same files and so
the same cache entries as the pinned test's (tests/test_user_strategies.py); the other Numba
functions are compiled alone (seconds) and run through the Python engine.
"""

from __future__ import annotations

import inspect
import json
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from cardsim.kernels.atlas import sdk as atlas_sdk
from cardsim.kernels.yuanzi import sdk as yuanzi_sdk
from cardsim.sim import python_strategies as ps
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import RunConfig
from cardsim.sim.games import get_engine
from cardsim.sim.games.atlas import adapter as atlas_adapter
from cardsim.sim.games.yuanzi import adapter as yuanzi_adapter
from polars.testing import assert_frame_equal

from cardsim.cli import main

ROOT = Path(__file__).resolve().parents[1]
FILES = ROOT / "tests" / "user_strategy_files"
NUMBA_EXAMPLE = f"{ROOT / 'examples' / 'yuanzi_strategy.py'}:choose"
PY_EXAMPLE = f"py:{ROOT / 'examples' / 'yuanzi_strategy_py.py'}:choose"
PY_FILE = FILES / "python_strategies.py"


def cardsim(capsys, *args):
    """Run the CLI in-process; returns (exit code, stdout, stderr)."""
    with pytest.raises(SystemExit) as e:
        main(list(map(str, args)))
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


def yz_config(seats, seed=11, rules=None, games=12) -> RunConfig:
    engine = get_engine("yuanzi")
    return RunConfig(
        game="yuanzi",
        players=4,
        seats=tuple(seats),
        rules=engine.rule_options.resolve(rules or {}),
        seed=seed,
        games=games,
    )


# --- the SDK modules ------------------------------------------------------------------------------
@pytest.mark.parametrize("sdk", [yuanzi_sdk, atlas_sdk], ids=["yuanzi", "atlas"])
def test_every_sdk_function_is_exported_and_documented(sdk):
    missing = [n for n in sdk.__all__ if not hasattr(sdk, n)]
    assert not missing
    undocumented = []
    for name in sdk.__all__:
        obj = getattr(sdk, name)
        fn = getattr(obj, "py_func", obj)
        if inspect.isfunction(fn) and not (fn.__doc__ or "").strip():
            undocumented.append(name)
    assert not undocumented
    assert "first_half_margin" in yuanzi_sdk.__all__ and "rule" in atlas_sdk.__all__


def test_the_python_sdk_reads_what_the_numba_sdk_reads():
    """Issue 19 #19: ``trick_points`` and ``opponent_min_count`` in the py: SDK agree with the
    Numba SDK's on every view of reference matches (pub holding the view's public numbers)."""
    from cardsim.kernels.yuanzi import state as KS
    from cardsim.sim.games.yuanzi import sdk as python_sdk
    from cardsim.sim.games.yuanzi.reference import rules as ref

    assert {"trick_points", "opponent_min_count"} <= set(python_sdk.__all__)
    views = []

    def recording(choose):
        return lambda v, legal: views.append(v) or choose(v, legal)

    for game in range(3):
        ref.play_match(ref.deal_from_seed(5, game), recording(ref.random_chooser(game)))
    assert any(v.trick_points > 0 for v in views) and any(0 in v.hand_sizes for v in views)
    for v in views:
        pub = np.zeros(KS.N_ST, np.int64)
        pub[KS.ST_COUNT : KS.ST_COUNT + 4] = v.hand_sizes
        pub[KS.ST_TRICK_PTS] = v.trick_points
        assert python_sdk.trick_points(v) == yuanzi_sdk.trick_points(pub)
        for seat in range(4):
            want = yuanzi_sdk.opponent_min_count(pub, seat)
            assert python_sdk.opponent_min_count(v, seat) == want
        assert python_sdk.opponent_min_count(v) == yuanzi_sdk.opponent_min_count(pub, v.seat)


def test_the_view_fields_are_documented():
    """Every field of both games' View is named in docs/strategies.md (view.seat, …)."""
    from dataclasses import fields

    from cardsim.sim.games.atlas.reference import rules as atlas
    from cardsim.sim.games.yuanzi.reference import rules as yuanzi

    text = (ROOT / "docs" / "strategies.md").read_text()
    for view in (yuanzi.View, atlas.View):
        missing = [f.name for f in fields(view) if f"view.{f.name}`" not in text]
        assert not missing, (view.__module__, missing)


def test_atlas_public_block_holds_the_rule_options():
    """P_RULES + R_* is the rule array in force, inside the public block (what strategies get)."""
    from cardsim.kernels.atlas import driver as drv
    from cardsim.kernels.atlas import state as ST
    from cardsim.kernels.atlas.rules import N_RULES, R_TRADE_PICK, R_TURN_CAP

    engine = get_engine("atlas")
    rules = engine.rule_options.resolve({"trade_pick": "seen", "turn_cap": 1500})
    arr = engine.rule_options.array(rules)
    assert ST.P_RULES + ST.RULE_SLOTS <= ST.PUB_LEN and N_RULES <= ST.RULE_SLOTS
    tr = drv.run_trace(3, 0, 4, np.array([1, 1, 1, 1], np.int64), arr, 1, 5)
    pub = tr.snapshot[: ST.PUB_LEN]
    assert list(pub[ST.P_RULES : ST.P_RULES + N_RULES]) == list(arr)
    assert atlas_sdk.rule(pub, R_TRADE_PICK) == atlas_sdk.TRADE_PICK_SEEN
    assert atlas_sdk.rule(pub, R_TURN_CAP) == 1500
    assert atlas_sdk.my_seat(pub) == tr.snapshot[ST.S_LEN]  # the seat deciding


def test_yuanzi_accessors_agree_with_the_rules():
    """A checker compiled alone, run through the Python engine: every accessor, both halves."""
    checker = f"{FILES / 'sdk_checker.py'}:choose"
    cfg = yz_config(
        [checker, "greedy", checker, "greedy"],
        rules={"pass_is_final": True, "lead_after_out": "partner"},
        games=30,
    )
    bad = []
    g, _s = yuanzi_adapter.play_yuanzi(cfg, 0, cfg.games, on_bad=bad.append)
    assert not bad, bad[0].text()
    from cardsim.kernels.yuanzi import driver as drv

    assert g[:, drv.G_SECOND].sum() >= 3  # second halves were played (and checked)


def test_atlas_accessors_agree_with_the_rules():
    """The ATLAS checker, compiled alone, through the Python engine (TRADE seen, face down)."""
    checker = f"{FILES / 'atlas_sdk_checker.py'}:choose"
    engine = get_engine("atlas")
    rules = engine.rule_options.resolve({"trade_pick": "seen", "turn_cap": 1500})
    cfg = RunConfig(game="atlas", players=4, seats=(checker, "greedy", checker, "careful"),
                    rules=rules, seed=4)  # fmt: skip
    bad = []
    games, _ = atlas_adapter.play_atlas(cfg, 0, 12, on_bad=bad.append)
    assert not bad, bad[0].text()
    assert games["trades"].sum() > 0 and games["self_melds"].sum() > 0
    illegal = f"{FILES / 'atlas_sdk_checker.py'}:illegal"
    bad = []
    atlas_adapter.play_atlas(
        replace(cfg, seats=(illegal, "greedy", "greedy", "greedy")), 0, 2, bad.append
    )
    assert bad and all(b.seat == 0 and "discard decision" in b.position for b in bad)
    assert "returned index" in bad[0].text() and "legal: discard" in bad[0].text()
    assert all(_hand_is_card_names(b.position) for b in bad)  # issue 19 #4: not O, r, a, …


def _hand_is_card_names(position: str) -> bool:
    """Whether the ``hand …`` of an ATLAS position lists whole card names (``Lion ×2, ATLAS``)."""
    from cardsim.kernels.atlas.encoding import CARD_NAMES

    held = position.split(" decision, hand ", 1)[1]
    return all(item.split(" ×")[0] in CARD_NAMES for item in held.split(", "))


# --- plain-Python strategies ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def numba_example():
    """The Numba worked example's driver, compiled once (the pinned test's cache entry)."""
    engine = get_engine("yuanzi")
    engine.play_chunk(yz_config([NUMBA_EXAMPLE, "greedy", "greedy", "greedy"]), 0, 1)
    return NUMBA_EXAMPLE


PORTS = [
    (("random", "greedy"), {}, 11),
    (("points", "bomber"), {"pass_is_final": True}, 12),
    (("planner", "random"), {"lead_after_out": "partner", "dao_bomb": "same_count_only"}, 13),
]


@pytest.mark.parametrize(("others", "rules", "seed"), PORTS, ids=["rg", "pb", "pr"])
def test_the_python_port_gives_identical_tables(numba_example, others, rules, seed):
    """The worked example in both forms: same deals, same stream 2, same choices, same tables."""
    engine = get_engine("yuanzi")
    a, b = others
    kernel = engine.play_chunk(yz_config([numba_example, a, numba_example, b], seed, rules), 0, 16)
    python = engine.play_chunk(yz_config([PY_EXAMPLE, a, PY_EXAMPLE, b], seed, rules), 0, 16)
    labels = {"yuanzi_strategy_py:choose": "yuanzi_strategy:choose"}
    for k, p in zip(kernel, python, strict=True):
        strat = [c for c in p.columns if c.startswith("strategy")]
        p = p.with_columns(
            pl.col(c).cast(pl.String).replace(labels).cast(k.schema[c]) for c in strat
        )
        assert_frame_equal(k, p)
    assert kernel[0]["second_half"].sum() > 0


AT_NUMBA = f"{ROOT / 'examples' / 'atlas_strategy.py'}:choose"
AT_PY = f"py:{ROOT / 'examples' / 'atlas_strategy_py.py'}:choose"
AT_PORTS = [
    (("random", "greedy", "careful"), {}, 21),
    (("careful", "random"), {"trade_pick": "seen", "self_melds_shown": True}, 22),
    (("random", "greedy", "random", "careful"), {"forced_claims": False, "claim_turn": "jump"}, 23),
    # the searches and the levels read the kernel mirror's state (sim/games/atlas/adapter.py)
    (("pimc:samples=3", "greedy:eps=0.2", "ismcts:iters=4"), {}, 24),
    (("soft", "pimc:samples=2,rollout=random"), {"forced_claims": False, "trade_pick": "seen"}, 25),
]


@pytest.mark.parametrize(
    ("others", "rules", "seed"),
    AT_PORTS,
    ids=["4p", "3p-seen", "5p-jump", "4p-search", "3p-search"],
)
def test_the_atlas_python_port_gives_identical_tables(others, rules, seed):
    """ATLAS: the worked example in both forms (the Numba one through the pinned test's cached
    driver), random draws and TRADE included, several player counts and rule variants."""
    engine = get_engine("atlas")

    def cfg(me):
        seats = (me, *others)
        return RunConfig(
            game="atlas", players=len(seats), seats=seats, seed=seed,
            rules=engine.rule_options.resolve(rules),
        )  # fmt: skip

    kernel = engine.play_chunk(cfg(AT_NUMBA), 0, 12)
    python = engine.play_chunk(cfg(AT_PY), 0, 12)
    labels = {"atlas_strategy_py:choose": "atlas_strategy:choose"}
    for k, p in zip(kernel, python, strict=True):
        strat = [c for c in p.columns if c.startswith("strategy")]
        p = p.with_columns(
            pl.col(c).cast(pl.String).replace(labels).cast(k.schema[c]) for c in strat
        )
        assert_frame_equal(k, p)
    assert kernel[0]["trades"].sum() > 0


def test_python_strategy_errors_are_one_line():
    lowest = f"py:{PY_FILE}:lowest"
    g, _ = yuanzi_adapter.play_yuanzi(
        yz_config([lowest, "greedy", lowest, "greedy"], games=2), 0, 2
    )
    assert len(g) == 2  # two arguments: no rng
    with pytest.raises(CardsimError, match=r"python_strategies:illegal: game \d+, decision \d+"):
        get_engine("yuanzi").play_chunk(yz_config([f"py:{PY_FILE}:illegal"] * 4, games=4), 0, 4)
    with pytest.raises(CardsimError, match="raised ValueError: no plan for the second half"):
        get_engine("yuanzi").play_chunk(yz_config([f"py:{PY_FILE}:raises"] * 4, games=4), 0, 4)
    with pytest.raises(CardsimError, match=r"choose\(view, legal\) or choose\(view, legal, rng"):
        ps.load(f"py:{PY_FILE}:wrong_signature")
    with pytest.raises(CardsimError, match="is a Numba function: drop the 'py:' prefix"):
        ps.load(f"py:{ROOT / 'examples' / 'yuanzi_strategy.py'}:choose")


def test_python_strategies_run_through_run_and_replay(capsys, tmp_path):
    code, out, err = cardsim(
        capsys, "run", "yuanzi", "--games", "6", "--seat", f"0={PY_EXAMPLE}", "--seat",
        f"2={PY_EXAMPLE}", "--out", tmp_path / "r", "--quiet",
    )  # fmt: skip
    assert code == 0, err
    seats = pl.read_parquet(tmp_path / "r" / "seats" / "*.parquet")
    assert "yuanzi_strategy_py:choose" in seats["strategy"].cast(pl.String).to_list()
    files = json.loads((tmp_path / "r" / "manifest.json").read_text())["strategy_files"]
    assert [Path(f).name for f in files] == ["yuanzi_strategy_py.py"]  # hashed: edits are seen
    assert "missing" not in files.values()
    code, out, err = cardsim(
        capsys, "replay", "yuanzi", "--game", "2", "--seat", f"0={PY_EXAMPLE}", "--seat",
        f"2={PY_EXAMPLE}",
    )  # fmt: skip
    assert code == 0, err
    assert "trick 1" in out and "delta per seat" in out


# --- cardsim strategy check -----------------------------------------------------------------------
def test_strategy_check_of_the_compiled_example(capsys, numba_example):
    code, out, err = cardsim(
        capsys, "strategy", "check", "yuanzi", numba_example, "--games", "200", "--threads", "1"
    )
    assert code == 0, err
    assert "illegal answers: none" in out
    assert "decisions/s" in out and "matches/s" in out
    assert "vs greedy on 200 duplicate deals" in out and "paired 95 %" in out
    assert "clear difference" in out and "greedy is better" in out


def test_strategy_check_says_one_compile_time(capsys, monkeypatch, numba_example):
    """Issue 19 #15: when the driver compiles, stderr announces it without a second, wrong
    compile time of the function alone ("compiled alone in 0.0 s": strategy check had compiled
    it already; stdout gives the real time)."""
    from cardsim.kernels import variants

    monkeypatch.setattr(variants, "_LOADED", {})  # a fresh user variant, as in a new process
    monkeypatch.setattr(variants, "is_cached", lambda dispatcher: False)  # announce its compile
    code, out, err = cardsim(
        capsys, "strategy", "check", "yuanzi", numba_example, "--games", "20", "--threads", "1"
    )
    assert code == 0, err
    assert re.search(r"^compiled alone in \d+\.\d s$", out, re.M)
    assert "now compiling the 原子 driver" in err and "compiled alone" not in err


def test_strategy_check_of_a_python_atlas_strategy(capsys):
    code, out, err = cardsim(capsys, "strategy", "check", "atlas", AT_PY, "--games", "10")
    assert code == 0, err
    assert "illegal answers: none" in out and "turns/s" in out
    assert "vs greedy on 10 duplicate deals (2 seat assignments" in out


@pytest.mark.heavy
def test_strategy_check_locates_illegal_answers(capsys):
    """A compiled function (compiled alone, located through the Python engine) and a py: one."""
    for spec, returned in (
        (f"{FILES / 'sdk_checker.py'}:illegal", "returned index"),
        (f"py:{PY_FILE}:illegal", "returned 0"),
    ):
        if not spec.startswith("py:"):  # the kernel's self-play needs the driver: use the engine
            cfg = yz_config([spec] * 4, seed=1, games=6)
            bad = []
            yuanzi_adapter.play_yuanzi(cfg, 0, 6, on_bad=bad.append)
            assert bad and all(b.decision >= 0 and "half 1" in b.position for b in bad)
            assert returned in bad[0].text() and "legal:" in bad[0].text()
            continue
        code, out, err = cardsim(capsys, "strategy", "check", "yuanzi", spec, "--games", "8")
        assert code == 1, err
        assert "ILLEGAL ANSWERS" in out and "leading" in out and "legal:" in out
        assert returned in out and "comparison is skipped" in out


@pytest.mark.parametrize(
    ("function", "returned"),
    [("last_index", r"returned \d+, not a move code"), ("huge", "returned 999999, not a move code"),
     ("minus_one", "returned -1, not a move code")],
)  # fmt: skip
def test_a_python_answer_outside_the_move_codes_is_one_line(capsys, tmp_path, function, returned):
    """Issue 19 #4: a py: 原子 answer that is no move code at all names game, decision and the
    answer — in strategy check (exit 1) and in a run (one line, exit 2) — never a traceback."""
    spec = f"py:{PY_FILE}:{function}"
    code, out, err = cardsim(capsys, "strategy", "check", "yuanzi", spec, "--games", "2")
    assert code == 1, err
    assert "Traceback" not in out + err and "ILLEGAL ANSWERS" in out
    assert f"python_strategies:{function}: game 0, decision " in out and re.search(returned, out)
    code, out, err = cardsim(capsys, "run", "yuanzi", "--games", "2", "--seat", f"1={spec}",
                             "--out", tmp_path / "r", "--quiet")  # fmt: skip
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert f"python_strategies:{function}: game 0, decision " in err and re.search(returned, err)
    assert "IndexError" not in err


def test_an_illegal_python_atlas_answer_lists_the_hand_by_card(capsys):
    code, out, err = cardsim(
        capsys, "strategy", "check", "atlas", f"py:{PY_FILE}:atlas_illegal", "--games", "2"
    )
    assert code == 1, err
    listed = [ln for ln in out.splitlines() if "returned -5, not a move code" in ln]
    assert listed and all(_hand_is_card_names(ln.split("; returned")[0]) for ln in listed)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nowhere/mine.py:choose", "strategy file not found: nowhere/mine.py"),
        (f"{FILES / 'broken.py'}:nothing", "no function 'nothing'"),
        (f"{FILES / 'broken.py'}:yuanzi_choose", "does not compile: Can't unify return type"),
        (f"{FILES / 'broken.py'}:not_a_function", "is not a function"),
        (f"{FILES / 'fails_on_import.py'}:choose", "user strategy file"),
        ("greedy", "needs a user strategy FILE.py:FUNC"),
        (f"py:{PY_FILE}:wrong_signature", "choose(view, legal)"),
    ],
)
def test_strategy_check_bad_input_is_one_line_and_exit_2(capsys, spec, message):
    code, out, err = cardsim(capsys, "strategy", "check", "yuanzi", spec, "--games", "5")
    assert code == 2
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_the_atlas_mirror_names_a_disagreement(monkeypatch):
    """The kernel mirror of an ATLAS game with a py: seat is checked at every decision: a
    mirror that does not play the moves disagrees at once, an internal error in one line."""
    monkeypatch.setattr(atlas_adapter._Mirror, "play", lambda self, code: None)
    cfg = RunConfig(game="atlas", players=3, seats=(AT_PY, "pimc:samples=2", "greedy"), seed=4)
    with pytest.raises(CardsimError, match="kernel mirror and reference disagree") as err:
        get_engine("atlas").play_chunk(cfg, 0, 1)
    assert "\n" not in str(err.value)
