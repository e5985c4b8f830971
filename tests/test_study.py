"""`cardsim study`: a small study file end to end, reuse of finished runs, and file errors."""

import json

import pytest

from cardsim.cli import main
from cardsim.workflows.study import default_study

STUDY = """
[study]
name = "tiny"

[[scenario]]
name = "yz"
game = "yuanzi"
games = 300
strategy = "random"

[[scenario]]
name = "yz-same-count"
game = "yuanzi"
games = 300
strategy = "random"
rules = { dao_bomb = "same_count_only" }

[[scenario]]
name = "at-cmp"
game = "atlas"
players = 3
compare = ["greedy", "random"]
games = 100

[[comparison]]
name = "dao bomb"
scenarios = ["yz", "yz-same-count"]
"""


def cardsim(capsys, *args):
    with pytest.raises(SystemExit) as e:
        main(list(map(str, args)))
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


def test_small_study_runs_reports_and_reuses_finished_runs(capsys, tmp_path):
    f = tmp_path / "study.toml"
    f.write_text(STUDY)
    out = tmp_path / "study"
    code, stdout, err = cardsim(capsys, "study", f, "--out", out, "--quiet")
    assert code == 0, err
    assert (out / "report.html").is_file() and "report:" in stdout
    for name in ("yz", "yz-same-count", "at-cmp"):
        m = json.loads((out / name / "manifest.json").read_text())
        assert m["status"] == "complete"
    assert (
        json.loads((out / "yz-same-count" / "manifest.json").read_text())["rules"]["dao_bomb"]
        == "same_count_only"
    )
    assert "assignments" in json.loads((out / "at-cmp" / "manifest.json").read_text())
    before = (out / "yz" / "games" / "part-00000.parquet").stat().st_mtime_ns
    code, _, err = cardsim(capsys, "study", f, "--out", out)  # not --quiet: it says so
    assert code == 0 and err.count("reused finished run") == 3
    assert (out / "yz" / "games" / "part-00000.parquet").stat().st_mtime_ns == before


@pytest.mark.heavy
def test_changed_scenario_needs_force(capsys, tmp_path):
    f = tmp_path / "study.toml"
    f.write_text(STUDY)
    out = tmp_path / "study"
    assert cardsim(capsys, "study", f, "--out", out, "--quiet")[0] == 0
    f.write_text(
        STUDY.replace(
            'games = 300\nstrategy = "random"\n\n[[scenario]]\nname = "yz-same',
            'games = 301\nstrategy = "random"\n\n[[scenario]]\nname = "yz-same',
        )
    )
    code, _, err = cardsim(capsys, "study", f, "--out", out, "--quiet")
    assert code == 2 and "different run" in err and "--force" in err


def test_bad_study_file_is_one_line_naming_file_and_key(capsys, tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text('[[scenario]]\nname = "a"\ngame = "yuanzi"\ngames = 10\nrules = { nope = 1 }\n')
    code, _, err = cardsim(capsys, "study", f, "--out", tmp_path / "o", "--quiet")
    assert code == 2 and "bad.toml" in err and "nope" in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()
    code, _, err = cardsim(capsys, "study", tmp_path / "missing.toml", "--quiet")
    assert code == 2 and "cannot read" in err


def test_default_study_is_valid_and_covers_both_games():
    s = default_study()
    games = {sc.game for sc in s.scenarios}
    assert games == {"yuanzi", "atlas"}
    for game in games:
        assert any(sc.is_compare for sc in s.scenarios if sc.game == game)
        assert any(
            c
            for c in s.comparisons
            if s.scenarios[[x.name for x in s.scenarios].index(c.scenarios[0])].game == game
        )


def test_example_study_file_is_valid():
    from pathlib import Path

    from cardsim.workflows.study import load_study

    s = load_study(Path(__file__).resolve().parents[1] / "examples" / "study.toml")
    assert [c.scenarios for c in s.comparisons] == [["atlas-4p", "atlas-6p"]]
    assert s.scenarios[1].until_ci == 0.01 and s.scenarios[2].compare == ["points", "greedy"]


@pytest.mark.parametrize("force", [True, False])
def test_a_scenario_folder_that_is_a_symlink_is_never_followed(capsys, tmp_path, force):
    """OUT/<scenario> linked to another run: refused (one line, exit 2) with or without
    --force, as run refuses a linked games/; the linked run and its parts are left alone."""
    from pathlib import Path

    victim = tmp_path / "victim"
    code, _, err = cardsim(capsys, "run", "yuanzi", "--games", "50", "--strategy", "random",
                           "--out", victim, "--quiet")  # fmt: skip
    assert code == 0, err
    before = sorted((p.name, p.stat().st_size) for p in victim.rglob("*") if p.is_file())
    study = tmp_path / "s.toml"
    study.write_text(
        '[[scenario]]\nname = "yz"\ngame = "yuanzi"\ngames = 60\nstrategy = "greedy"\n'
    )
    out = tmp_path / "out"
    out.mkdir()
    (out / "yz").symlink_to(victim, target_is_directory=True)
    code, _, err = cardsim(capsys, "study", study, "--out", out, "--quiet",
                           *(["--force"] if force else []))  # fmt: skip
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert f"{out / 'yz'} is a symbolic link (to {victim})" in err and "never through a link" in err
    assert (out / "yz").is_symlink() and Path(victim / "manifest.json").is_file()
    assert sorted((p.name, p.stat().st_size) for p in victim.rglob("*") if p.is_file()) == before
    assert not (out / "report.html").exists()
