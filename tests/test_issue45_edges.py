"""Issue 45 ("Trust at the edges, round 2"), items 3 and 12 (and the folder parts of 10 and 11):
strict JSON from one encoder, TOML from a TOML writer, one writer per folder (sub-runs, other
threads), one folder one product, and the minor refusals."""

from __future__ import annotations

import json
import math
import threading
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from cardsim.sim import jsonio, rundir, runner
from cardsim.sim.config import build_config
from cardsim.sim.errors import CardsimError

import tests.test_tune  # noqa: F401  (registers the "tunable" fake engine)
from tests import hung_strategy
from tests.fake_engine import FakeEngine


def strict(text: str | bytes):
    """json.loads that refuses NaN / Infinity (what a strict parser does)."""

    def refuse(name):
        raise ValueError(f"bare {name}")

    return json.loads(text, parse_constant=refuse)


def strict_files(folder: Path) -> list[Path]:
    """Every .json file under ``folder`` parsed strictly, plus every part's JSON metadata."""
    files = sorted(folder.rglob("*.json"))
    for f in files:
        strict(f.read_bytes())
    for part in folder.rglob("part-*.parquet"):
        for k, v in pl.read_parquet_metadata(part).items():
            if k in ("cardsim.seats", "cardsim.rules", "cardsim.assignments"):
                strict(v)
    return files


# --- item 3: one strict encoder -------------------------------------------------------------


def test_3_the_encoder_writes_null_for_every_non_finite_number():
    """issue 45 item 3: NaN / inf (Python's and NumPy's, in arrays too) become null."""
    doc = {
        "a": math.nan, "b": [math.inf, -math.inf, 1.5], "c": np.float32("nan"),
        "d": np.int64(3), "e": np.array([1.0, np.nan]), "f": (np.float64("inf"),),
    }  # fmt: skip
    text = jsonio.dumps(doc, indent=1)
    assert strict(text) == {"a": None, "b": [None, None, 1.5], "c": None, "d": 3,
                            "e": [1.0, None], "f": [None]}  # fmt: skip
    with pytest.raises(ValueError):
        strict('{"x": NaN}')


def test_3_tune_json_is_strict_json_after_verify(tmp_path):
    """issue 45 item 3: tune.json held bare NaN (p_tost, needed) whenever verify ran; every
    JSON file of the folder (verify study report, run manifests, part metadata) is strict."""
    from cardsim.workflows.tune import tune

    out = tmp_path / "t"
    tune("tunable", "first_excess", out=out, options="cap=5..7", budget=1_200, seed=2,
         progress=False, min_games=100, verify_games=300)  # fmt: skip
    doc = strict((out / "tune.json").read_bytes())
    assert doc["configurations"] == 3
    assert doc["verification"]
    names = {p.name for p in strict_files(out)}
    assert {"tune.json", "tune-manifest.json", "manifest.json", "report.json"} <= names


def test_3_every_writer_goes_through_the_one_encoder():
    """issue 45 item 3: no module of the package calls json.dump(s) itself but sim/jsonio.py,
    however it is imported (a hash of a document is not a file: the study's identity digest,
    ``study_digest``, is the one exception)."""
    import ast

    root = Path(__file__).resolve().parents[1]
    offenders = []
    for folder in ("sim", "analysis", "cardsim", "kernels"):
        for f in (root / folder).rglob("*.py"):
            if f.name == "jsonio.py":
                continue
            tree = ast.parse(f.read_text(encoding="utf-8"))
            allowed = {
                id(n)
                for fn in ast.walk(tree)
                if isinstance(fn, ast.FunctionDef) and fn.name == "study_digest"
                for n in ast.walk(fn)
            }
            for n in ast.walk(tree):
                if id(n) in allowed:
                    continue
                if isinstance(n, ast.ImportFrom) and n.module == "json":
                    if {a.name for a in n.names} & {"dump", "dumps"}:
                        offenders.append(f"{f.relative_to(root)}:{n.lineno} imports json.dump(s)")
                elif (
                    isinstance(n, ast.Attribute)
                    and n.attr in ("dump", "dumps")
                    and isinstance(n.value, ast.Name)
                    and n.value.id == "json"
                ):
                    offenders.append(f"{f.relative_to(root)}:{n.lineno}")
    assert offenders == []


def test_3_rules_and_strategies_json_are_strict(capsys):
    """issue 45 item 3 (fast tier): the --json outputs that play nothing parse strictly."""
    for game in ("yuanzi", "atlas"):
        for command in ("rules", "strategies"):
            code, out, err = cli(capsys, command, game, "--json")
            assert code == 0, err
            assert strict(out)


@pytest.mark.heavy
def test_3_every_commands_json_parses_strictly(tmp_path, capsys):
    """issue 45 item 3: run, compare (--json), report (.json and --json), study (a scenario, a
    comparison and a design: report.json, the factorial .json), ladder (ladder.json) and the
    tune above: every .json they write and every --json they print, parsed by a strict parser
    (NaN / Infinity refused), plus every part's JSON metadata. Tiny counts."""
    yz = ["--strategy", "random", "--quiet"]
    assert cli(capsys, "run", "yuanzi", "--games", "40", "--out", tmp_path / "run", *yz)[0] == 0
    code, out, err = cli(capsys, "compare", "yuanzi", "--strategies", "random,greedy", "--games",
                         "20", "--out", tmp_path / "cmp", "--json", "--quiet")  # fmt: skip
    assert code == 0, err
    strict(out)
    code, out, err = cli(capsys, "report", tmp_path / "run", "--out", tmp_path / "rep.json",
                         "--json", tmp_path / "rep-all.json")  # fmt: skip
    assert code == 0, err
    study = tmp_path / "s.toml"
    study.write_text(
        '[[scenario]]\nname = "a"\ngame = "yuanzi"\ngames = 30\nstrategy = "random"\n'
        '[[scenario]]\nname = "b"\ngame = "yuanzi"\ngames = 30\nstrategy = "random"\n'
        "rules = { pass_is_final = true }\n"
        '[[comparison]]\nname = "pass"\nscenarios = ["a", "b"]\n'
        '[[design]]\nname = "d"\ngame = "yuanzi"\ngames = 30\nstrategy = "random"\n'
        'options = { pass_is_final = "all", lead_after_out = ["next", "partner"] }\n'
    )
    code, _, err = cli(capsys, "study", study, "--out", tmp_path / "st", "--quiet")
    assert code == 0, err
    code, _, err = cli(capsys, "ladder", "yuanzi", "--levels", "random,greedy", "--games", "20",
                       "--deals", "20", "--out", tmp_path / "lad", "--quiet")  # fmt: skip
    assert code == 0, err
    names = {p.name for p in strict_files(tmp_path)}
    assert {"manifest.json", "rep.json", "rep-all.json", "report.json", "d-factorial.json",
            "ladder.json"} <= names, names  # fmt: skip


# --- item 12: TOML by a TOML writer ---------------------------------------------------------


def test_12_verify_toml_keeps_a_strategy_path_with_quote_backslash_and_newline(tmp_path):
    """issue 45 item 12: verify.toml was written by f-string; a `"` ended the race with "not
    valid TOML", a backslash was read as an escape, a newline could add keys."""
    import tomllib

    from cardsim.sim.games import get_engine

    from cardsim.workflows.tune import Candidate, write_verify

    weird = 'my "dir"\\x\nrules = 1/strat.py:choose'
    path = write_verify(tmp_path, get_engine("tunable"), Candidate("c001", {"cap": "5"}), 4,
                        weird, 3, 500, "length=45")  # fmt: skip
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    assert [s["strategy"] for s in doc["scenario"]] == [weird, weird]
    assert doc["scenario"][0]["rules"] == {"cap": "5"} and "rules" not in doc["scenario"][1]
    assert doc["comparison"][0]["objective"] == "length=45"


# --- item 12: one writer per folder, sub-runs included; locks per thread --------------------


def fake_run(out, games=200, **kw):
    cfg = build_config(FakeEngine(), games=games, seed=3, strategy="random")
    return runner.run(cfg, out, chunk_size=100, progress=False, engine=FakeEngine(), **kw)


def test_10_a_run_inside_another_runs_folder_is_refused(tmp_path):
    """issue 45 item 10: `--out runs/at4/games/x` wrote a run inside another run."""
    fake_run(tmp_path / "at4")
    for inner in ("games/x", "deeper/still/x"):
        with pytest.raises(CardsimError, match="is inside the run directory"):
            fake_run(tmp_path / "at4" / inner)
    assert not (tmp_path / "at4" / "games" / "x").exists()
    assert not (tmp_path / "at4" / "deeper").exists()


def test_12_a_sub_run_of_a_folder_another_process_holds_is_refused(tmp_path):
    """issue 45 item 12: `cardsim run ... --out STUDY/a --force` while the study plays got past
    the folder lock; a run refuses a folder inside a folder another process holds."""
    import subprocess
    import sys

    study = tmp_path / "study"
    fake_run(study / "a")  # a finished scenario of the study
    before = rundir.read_manifest(study / "a")
    code = (
        "import sys, time\nfrom cardsim.sim.rundir import hold_folder\n"
        "with hold_folder(sys.argv[1], 'study'):\n    print('held', flush=True)\n"
        "    sys.stdin.readline()\n"
    )
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.Popen([sys.executable, "-c", code, str(study)], cwd=root, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)  # fmt: skip
    try:
        assert proc.stdout.readline().strip() == "held"
        with pytest.raises(CardsimError, match=rf"inside {study}.*pid {proc.pid}"):
            fake_run(study / "a", games=300, force=True)
        with pytest.raises(CardsimError, match="another cardsim command"):
            fake_run(study / "new")
    finally:
        proc.communicate("\n", timeout=30)
    assert rundir.read_manifest(study / "a") == before
    assert not (study / "new").exists()
    fake_run(study / "new")  # once the study is done, the folder is free


def test_12_locks_are_per_thread_and_temporaries_unique_per_call(tmp_path):
    """issue 45 item 12: hold_folder treated a second thread's call as nesting (process-wide
    _HELD); now only the same thread nests; another thread is another writer, for the folder
    and for runs inside it. Temporary names carry pid, thread and call."""
    study = tmp_path / "s"
    held, done = threading.Event(), threading.Event()

    def first():
        with rundir.hold_folder(study, "study"):
            held.set()
            done.wait(30)

    t = threading.Thread(target=first)
    t.start()
    try:
        assert held.wait(30)
        with (
            pytest.raises(CardsimError, match="being written by another"),
            rundir.hold_folder(study, "study"),
        ):
            pass
        with pytest.raises(CardsimError, match=r"another cardsim command \(this process\)"):
            fake_run(study / "a")
    finally:
        done.set()
        t.join()
    with rundir.hold_folder(study, "study"), rundir.hold_folder(study, "ladder"):
        fake_run(study / "a")  # the same thread nests, and its own sub-runs are its own
    names = set()

    def suffix():
        names.add(rundir.unique_suffix())

    threads = [threading.Thread(target=suffix) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    suffix()
    assert len(names) == 5


# --- item 12: one folder, one product; verify walks the products ---------------------------


def cli(capsys, *args):
    from cardsim.cli import main

    with pytest.raises(SystemExit) as e:
        main([str(a) for a in args])
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


@pytest.fixture
def tuned(tmp_path):
    from cardsim.workflows.tune import tune

    out = tmp_path / "t"
    tune("tunable", "first_excess", out=out, options="cap=5..6", budget=400, seed=2,
         progress=False, min_games=100, run_verify=False)  # fmt: skip
    return out


def snapshot(d: Path) -> dict:
    return {p.relative_to(d): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def test_12_study_and_ladder_force_into_a_tune_folder_are_refused(tuned, tmp_path, capsys):
    """issue 45 item 12: `study --force` and `ladder --force` into a finished tune folder
    succeeded (two products in one folder); a run there is refused too, and a tune into a
    study's folder. Refused before anything is read or written."""
    study = tmp_path / "s.toml"
    study.write_text(
        '[[scenario]]\nname = "yz"\ngame = "yuanzi"\ngames = 20\nstrategy = "random"\n'
    )
    before = snapshot(tuned)
    for args, command in (
        (["study", study, "--force"], "study"),
        (["ladder", "yuanzi", "--levels", "random,greedy", "--games", "20", "--force"], "ladder"),
    ):
        code, _, err = cli(capsys, *args, "--out", tuned, "--quiet")
        assert code == 2 and len(err.strip().splitlines()) == 1, err
        assert f"holds a cardsim tune (tune-manifest.json); a {command} writes only" in err
    assert snapshot(tuned) == before
    # a study's folder refuses a ladder the same way (the marker study writes)
    (tmp_path / "st").mkdir()
    (tmp_path / "st" / ".cardsim-study").write_text("x")
    with (
        pytest.raises(CardsimError, match=r"holds a cardsim study \(\.cardsim-study\)"),
        rundir.hold_folder(tmp_path / "st", "ladder"),
    ):
        pass
    with rundir.hold_folder(tmp_path / "st", "study"):  # its own product: fine
        pass


def test_12_a_tune_rung_that_is_a_link_is_refused(tuned, tmp_path):
    """issue 45 item 12: a rung folder that is a symbolic link was completed through the link
    (a study refuses a linked scenario folder); the linked run is left as it is."""
    from cardsim.workflows.tune import tune

    rung = tuned / "configs" / "c000" / "r0"
    victim = tmp_path / "victim"
    rung.rename(victim)
    rundir.part_path(victim, "games", 0).unlink()  # something to complete
    before = snapshot(victim)
    rung.symlink_to(victim, target_is_directory=True)
    with pytest.raises(CardsimError, match=r"r0 is a symbolic link .*never through a link"):
        tune("tunable", "first_excess", out=tuned, options="cap=5..6", budget=400, seed=2,
             progress=False, min_games=100, run_verify=False)  # fmt: skip
    assert snapshot(victim) == before


def test_12_verify_walks_study_ladder_and_tune_folders(tuned, capsys):
    """issue 45 item 12: `cardsim verify TUNE` said "not a cardsim run directory"; it now
    checks every run inside (here the rungs), one line each, and names a damaged one."""
    runs = rundir.find_runs(tuned)
    assert runs and all(p.parent.parent.name == "configs" for p in runs)
    code, out, err = cli(capsys, "verify", tuned)
    assert code == 0, err
    assert out.count(": ok:") == len(runs) and str(runs[0]) in out
    part = rundir.part_path(runs[-1], "games", 0)
    data = bytearray(part.read_bytes())
    data[len(data) // 2] ^= 0xFF
    part.write_bytes(bytes(data))
    code, out, _ = cli(capsys, "verify", tuned)
    assert code == 1 and f"{runs[-1]}: DAMAGED" in out


# --- item 12: bounded budgets, Ctrl-C -------------------------------------------------------


@pytest.mark.parametrize(
    "args, message",
    [
        (["--max-games", "100000000000000"], "at most 1,000 looks"),
        (["--max-minutes", "1e9"], "--max-minutes must be a number of minutes above 0 and at most"),
        (["--decide", "first_excess,first_excess"], "--decide names 'first_excess' twice"),
    ],
)
def test_12_until_decided_budgets_are_bounded_and_decide_has_no_duplicates(
    capsys, tmp_path, args, message
):
    """issue 45 item 12: `--max-games 10**14` built a Python list of 10**11 looks (13.9 GB, then
    a MemoryError traceback); `--max-minutes 1e9` was accepted while inf was refused;
    `--decide first_excess,first_excess` was accepted. One line, exit 2, nothing written."""
    out = tmp_path / "lad"
    code, _, err = cli(capsys, "ladder", "yuanzi", "--levels", "random,greedy", "--games", "100",
                       "--until-decided", *args, "--out", out, "--quiet")  # fmt: skip
    assert code == 2 and len(err.strip().splitlines()) == 1 and message in err, err
    assert not out.exists()


def test_12_max_minutes_inf_from_the_api_reads_as_the_cli_bound():
    """issue 45 item 12: one rule for --max-minutes, whatever the spelling (inf, nan, 1e9)."""
    from cardsim.workflows.ladder import Sequential, check_sequential
    from cardsim.workflows.ladder_plan import build_ladder

    lad = build_ladder("yuanzi", "random,greedy", games=100, deals=100)
    for bad in (math.inf, math.nan, 1e9, 0.0):
        with pytest.raises(CardsimError, match="at most 525,600"):
            check_sequential(lad, Sequential(max_minutes=bad))
    assert check_sequential(lad, Sequential(max_minutes=60.0, max_games=300)) == 3


@pytest.mark.parametrize("minutes", ["inf", "1e9"])
def test_12_max_minutes_on_the_command_line_reads_the_same_bound(minutes, tmp_path, capsys):
    """Review of item 12: `--max-minutes inf` was "not a number"; it now gets the bound."""
    from cardsim.cli import main

    with pytest.raises(SystemExit) as e:
        main(["ladder", "yuanzi", "--levels", "random,greedy", "--games", "40", "--until-decided",
              "--max-minutes", minutes, "--out", str(tmp_path / "l")])  # fmt: skip
    err = capsys.readouterr().err
    assert e.value.code == 2 and "at most 525,600" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "l").exists()


def test_12_a_ladders_interrupted_sub_run_says_run_the_ladder_again():
    """issue 45 item 12: the ladder's interrupt line said "run the study again"."""
    assert runner._again("ladder") == "run the ladder again"
    assert runner._again("study") == "run the study again"
    import inspect

    from cardsim.workflows import ladder

    src = inspect.getsource(ladder)
    assert src.count('command="ladder"') == 2  # both ways the ladder plays its sub-runs


def test_12_ctrl_c_while_the_modules_load_is_one_line_exit_130(tmp_path):
    """issue 45 item 12: Ctrl-C in the first ~2 s (imports) printed a 28–35-line traceback.
    The command line's hook turns an uncaught KeyboardInterrupt into one line, exit 130; a
    program importing the API keeps Python's own behaviour."""
    import subprocess
    import sys

    code = "import sys\nsys.argv[0] = {!r}\nimport cardsim\nraise KeyboardInterrupt\n"
    root = Path(__file__).resolve().parents[1]
    for argv0 in ("/usr/bin/cardsim", "-m"):
        p = subprocess.run([sys.executable, "-c", code.format(argv0)], cwd=root,
                           capture_output=True, text=True, timeout=120)  # fmt: skip
        assert (
            p.returncode == 130 and p.stderr.strip() == "cardsim: interrupted (nothing was written)"
        ), p.stderr
    p = subprocess.run([sys.executable, "-c", code.format("myscript.py")], cwd=root,
                       capture_output=True, text=True, timeout=120)  # fmt: skip
    assert "Traceback" in p.stderr


@pytest.mark.heavy
def test_12_ctrl_c_stops_strategy_check_on_a_strategy_that_never_returns(tmp_path):
    """issue 45 item 12: `cardsim strategy check` on a compiled strategy that never returns
    was still running 25–120 s after Ctrl-C; its plays now run in a kernel thread, as run's."""
    import signal
    import subprocess
    import sys
    import time

    hang = hung_strategy.write(tmp_path)
    root = Path(__file__).resolve().parents[1]
    env = {**__import__("os").environ, "PYTHONUNBUFFERED": "1", "NUMBA_NUM_THREADS": "1"}
    p = subprocess.Popen(
        [sys.executable, "-m", "cardsim", "strategy", "check", "yuanzi", f"{hang}:choose",
         "--games", "10", "--threads", "1"],
        cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    hung_strategy.wait_until_looping(p)
    time.sleep(1.0)
    assert p.poll() is None
    p.send_signal(signal.SIGINT)
    p.wait(30)
    err = p.stderr.read()
    assert p.returncode == 130 and "Traceback" not in err, err
    assert err.strip().splitlines()[-1].startswith("cardsim: interrupted"), err


# --- item 12 (minor): canonical strategy names, clear refusals ------------------------------


@pytest.mark.parametrize(
    "given, canonical",
    [
        ("greedy:eps=0.10", "greedy:eps=0.1"),
        ("greedy:eps=1e-1", "greedy:eps=0.1"),
        ("soft:temp=1e2", "soft:temp=100"),
        ("pimc:cap=3,samples=016", "pimc:samples=16,cap=3"),
        ("ismcts:c=0.50,iters=48", "ismcts:iters=48,c=0.5"),
        ("greedy:eps", "greedy:eps"),
        ("pimc", "pimc"),
        # a value at its default is left out (review of item 12): one strategy, one label
        ("greedy:eps=0.20", "greedy:eps"),
        ("pimc:cap=4", "pimc"),
    ],
)
def test_12_a_strategy_with_parameters_has_one_label(given, canonical):
    """issue 45 item 12: the raw spelling became the label, so compare rated
    greedy:eps=0.1, greedy:eps=0.10 and greedy:eps=1e-1 as three strategies."""
    from cardsim.sim.config import check_strategy
    from cardsim.sim.games import get_engine

    for game in ("yuanzi", "atlas"):
        assert check_strategy(get_engine(game), given) == canonical


def test_12_one_strategy_spelt_three_ways_is_one_strategy_in_compare_and_ladder():
    from cardsim.sim.compare import build_compare_config
    from cardsim.sim.games import get_engine

    from cardsim.workflows.ladder_plan import build_ladder

    cfg = build_compare_config(get_engine("yuanzi"),
                               ["greedy:eps=0.1", "greedy:eps=0.10", "greedy:eps=1e-1"],
                               games=10, seed=1)  # fmt: skip
    assert sorted(set(cfg.seats)) == ["greedy:eps=0.1", "greedy:eps=0.1@2"]
    with pytest.raises(CardsimError, match="greedy:eps=0.1 is listed twice"):
        build_ladder("yuanzi", "greedy:eps=0.1,greedy:eps=1e-1", games=100, deals=100)


@pytest.mark.parametrize(
    "name, message",
    [
        ("ismcts:iters=８", "is not an integer (ASCII digits 0-9 only)"),
        ("ismcts:iters= 8", "no spaces inside a strategy's name"),
        ("soft:temp=１", "is not a number (ASCII digits 0-9 only)"),
        ("random:eps=0.1", "random takes no parameters (those that do: pimc, ismcts"),
        ("ismcts:", "no parameters after ':' (e.g. ismcts:iters="),
        ("pimc:", "no parameters after ':' (e.g. pimc:samples="),
    ],
)
def test_12_strategy_names_refused_in_words_that_fit(name, message):
    """issue 45 item 12: full-width digits and spaces were accepted; `random:eps=0.1` said
    "is not 'pimc'"; the `ismcts:` hint suggested samples=16 (a pimc parameter)."""
    from cardsim.sim.config import check_strategy
    from cardsim.sim.games import get_engine

    with pytest.raises(CardsimError) as e:
        check_strategy(get_engine("yuanzi"), name)
    assert message in str(e.value) and "'pimc'" not in str(e.value)


def test_12_api_seats_with_text_keys_and_tune_options_as_a_list_are_clear_errors(tmp_path):
    """issue 45 item 12: `seats={"0": "random"}` raised a bare TypeError, `tune(options=[…])`
    a bare AttributeError."""
    import cardsim

    with pytest.raises(CardsimError, match=r"a seat is a number 0\.\.3 .*got '0'"):
        cardsim.simulate("yuanzi", games=5, seats={"0": "random"})
    with pytest.raises(CardsimError, match="options is one text"):
        cardsim.tune("yuanzi", "first_excess", tmp_path / "t", options=["pass_is_final"])
    assert not (tmp_path / "t").exists()


def test_12_run_force_with_resume_is_refused(tmp_path):
    """issue 45 item 12: `run --force --resume` silently resumed."""
    out = tmp_path / "r"
    fake_run(out)
    before = snapshot(out)
    with pytest.raises(CardsimError, match="--force and --resume do not go together"):
        fake_run(out, force=True, resume=True)
    assert snapshot(out) == before


def test_12_the_report_finds_the_unreadable_part_by_name(tmp_path):
    """issue 45 item 12 (fast tier): when the report's queries fail, each part is read alone
    and the first unreadable one is named (run, table, part)."""
    from types import SimpleNamespace

    from cardsim.analysis.report import _unreadable_part

    out = tmp_path / "r"
    fake_run(out)
    run = SimpleNamespace(path=out, manifest=rundir.read_manifest(out))
    assert _unreadable_part([run]) is None
    rundir.part_path(out, "seats", 1).write_bytes(b"PAR1" + b"\xab" * 64 + b"PAR1")
    assert _unreadable_part([run]).startswith(f"{out}: seats/part-00001.parquet is unreadable")


@pytest.mark.heavy
def test_12_report_on_a_damaged_part_names_the_part(tmp_path, capsys):
    """issue 45 item 12: a part damaged inside its data (footer intact) failed the report with
    "cannot read the run tables (…)", naming no part; now it names run, table and part."""
    out = tmp_path / "r"
    code, _, err = cli(capsys, "run", "yuanzi", "--games", "400", "--chunk-size", "200",
                       "--strategy", "random", "--out", out, "--quiet")  # fmt: skip
    assert code == 0, err
    part = rundir.part_path(out, "games", 0)
    good = part.read_bytes()
    for pos in range(len(good) // 6, len(good) // 2, max(1, len(good) // 40)):
        data = bytearray(good)
        data[pos] ^= 0xFF  # inside the data pages: the footer (metadata, rows) stays intact
        part.write_bytes(bytes(data))
        code, _, err = cli(capsys, "report", out, "--out", tmp_path / "rep.html")
        if code != 0:
            break
    assert code == 2 and f"{out}: games/part-00000.parquet is unreadable" in err, err


# --- item 11 (part): a scenario folder that is a link, also when made while the study plays --


def test_11_a_scenario_folder_linked_while_the_study_plays_is_refused(tmp_path, monkeypatch):
    """issue 45 item 11: `study --force` followed a scenario folder that is itself a link. The
    folders are checked before anything plays (tests/test_study.py) and now again just before
    each scenario plays: a link made meanwhile is refused, the linked run left as it is."""
    from cardsim.workflows import study as st

    victim = tmp_path / "victim"
    fake_run(victim)
    before = snapshot(victim)
    out = tmp_path / "out"
    text = "".join(
        f'[[scenario]]\nname = "{n}"\ngame = "yuanzi"\ngames = 20\nstrategy = "random"\n'
        for n in ("a", "b")
    )
    real = runner.run

    def run_then_link(cfg, run_dir, **kw):
        result = real(cfg, run_dir, **kw)
        if Path(run_dir).name == "a":  # scenario b's folder becomes a link meanwhile
            (out / "b").symlink_to(victim, target_is_directory=True)
        return result

    monkeypatch.setattr(runner, "run", run_then_link)
    with pytest.raises(CardsimError, match=r"b is a symbolic link .*never through a link"):
        st.run_study(st.parse_study(text, "s.toml"), out, progress=False, force=True)
    assert (out / "b").is_symlink() and snapshot(victim) == before


def test_12_a_foreign_manifest_with_chunks_is_not_a_run(tmp_path):
    """Review of item 12: another tool's manifest.json with a "chunks" key (a web bundler's)
    does not make its folder a cardsim run, so an --out inside it is not refused for that."""
    build = tmp_path / "build"
    build.mkdir()
    (build / "manifest.json").write_text(jsonio.dumps({"chunks": {"main": ["a.js"]}}))
    assert not rundir._is_run_dir(build)
    rundir.refuse_inside_another(build / "runs" / "x")  # no error


def test_11_a_null_covariance_falls_back_to_independent_ratings():
    """Review of item 11: the strict encoder writes a non-finite covariance as null; the
    out-of-order interval then treats the two ratings as independent, with no traceback."""
    from cardsim.analysis import ladder

    ra = {"se": 0.3, "cov": jsonio.dumps({"a": 0.09, "b": float("nan")})}
    rb = {"se": 0.4, "cov": jsonio.dumps({"a": float("nan"), "b": 0.16})}
    assert ladder._difference_se(ra, rb, "a", "b") == pytest.approx(0.5)
