"""The small surprises of issue 15: replay shows the deal and warns before compiling,
``--until-ci`` refuses widths nobody means and says its unit, ``--quiet`` is silent, one
default seed, and the study format's documentation and template."""

import re
import tomllib
from pathlib import Path

import pytest
from cardsim.sim import warmup
from cardsim.sim.config import DEFAULT_SEED, UNTIL_CI_RANGE
from cardsim.sim.game import RunConfig

from cardsim.cli import cli, main
from cardsim.workflows.study import (
    SCENARIO_KEYS,
    STUDY_TEMPLATE,
    Scenario,
    parse_study,
    scenario_config,
)

ROOT = Path(__file__).resolve().parents[1]


def cardsim(capsys, *args):
    with pytest.raises(SystemExit) as e:
        main(list(map(str, args)))
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


# --- replay ------------------------------------------------------------------------------------


def test_replay_yuanzi_prints_each_halfs_dealt_hands(capsys):
    from cardsim.sim.games.yuanzi.reference import rules as ref

    code, out, _ = cardsim(capsys, "replay", "yuanzi", "--game", "5", "--seed", "3")
    assert code == 0
    lines = out.splitlines()
    deal = ref.deal_from_seed(3, 5)
    setup = ref.setup_half(deal.deck0, deal.p0, 0)
    i = next(k for k, ln in enumerate(lines) if ln.startswith("half 0:"))
    for seat in range(4):  # the four hands, exactly as dealt (YZ-07), under the setup line
        hand = setup.hands[seat]
        assert lines[i + 1 + seat] == (
            f"  {ref.seat_label(seat)} holds {sum(hand)}: {ref.hand_text(hand)}"
        )
    assert sum(int(re.search(r"holds (\d+)", lines[i + 1 + s])[1]) for s in range(4)) == 162
    if any(ln.startswith("half 1:") for ln in lines):  # the second half's deal too
        j = next(k for k, ln in enumerate(lines) if ln.startswith("half 1:"))
        assert all(" holds " in lines[j + 1 + s] for s in range(4))


def test_replay_atlas_lists_the_hands(capsys):
    code, out, _ = cardsim(capsys, "replay", "atlas", "--game", "2", "--players", "3")
    assert code == 0
    assert sum(ln.startswith("  seat ") and " holds " in ln for ln in out.splitlines()[:5]) == 3


@pytest.mark.parametrize("game", ["yuanzi", "atlas"])
def test_replay_says_what_it_compiles_before_compiling(capsys, monkeypatch, game):
    from cardsim.sim.games import get_engine

    engine = get_engine(game)
    monkeypatch.setattr(warmup, "is_cached", lambda g, purpose="run": False)
    said = {}
    real = type(engine).replay

    def replay(self, config, game_index):
        said["err"] = capsys.readouterr().err  # what was printed before compiling began
        return real(self, config, game_index)

    monkeypatch.setattr(type(engine), "replay", replay)
    code, out, err = cardsim(capsys, "replay", game, "--game", "1")
    assert code == 0
    name = warmup.display_name(game)
    assert re.search(rf"compiling the replay kernels of {name} .*: about \d+ (s|min)", said["err"])
    assert "compiling" not in out and out.strip()


# --- --until-ci --------------------------------------------------------------------------------


@pytest.mark.parametrize("width", ["0.5", "0.2", "0.00001", "0", "-0.01", "1"])
@pytest.mark.parametrize("command", ["run", "compare"])
def test_until_ci_refuses_widths_that_cannot_be_meant(capsys, tmp_path, command, width):
    args = [command, "yuanzi", "--games", "5", "--out", tmp_path / "o", "--until-ci", width]
    if command == "compare":
        args += ["--strategies", "greedy,random"]
    code, _, err = cardsim(capsys, *args)
    assert code == 2
    assert "proportion" in err and f"{UNTIL_CI_RANGE[0]}..{UNTIL_CI_RANGE[1]}" in err
    assert not (tmp_path / "o").exists()


def test_until_ci_accepts_its_range_and_help_gives_the_unit(capsys, tmp_path):
    for i, width in enumerate(UNTIL_CI_RANGE):
        args = ["run", "yuanzi", "--games", "5", "--out", tmp_path / f"o{i}", "--quiet"]
        assert cardsim(capsys, *args, "--until-ci", width)[0] == 0
    for command in ("run", "compare"):
        _, out, _ = cardsim(capsys, command, "--help")
        flat = " ".join(out.split())
        assert "W is a proportion, 0.0001..0.1 (0.01 = ±1 percentage point)" in flat


def test_until_ci_in_a_study_file_has_the_same_range():
    base = "[[scenario]]\nname='a'\ngame='yuanzi'\ngames=10\n"
    assert parse_study(base + "until_ci=0.01\n").scenarios[0].until_ci == 0.01
    with pytest.raises(Exception, match=r"proportion .*0\.0001\.\.0\.1"):
        parse_study(base + "until_ci=0.5\n")


# --- --quiet -----------------------------------------------------------------------------------


def test_quiet_prints_nothing_on_stderr(capsys, tmp_path):
    code, out, err = cardsim(
        capsys, "run", "yuanzi", "--games", "30", "--out", tmp_path / "r", "--quiet"
    )
    assert (code, out, err) == (0, "", "")
    code, out, err = cardsim(
        capsys, "compare", "yuanzi", "--strategies", "greedy,random", "--games", "20",
        "--out", tmp_path / "c", "--quiet",
    )  # fmt: skip
    assert code == 0 and err == ""
    assert "greedy vs random" in out  # the comparison's answer is its output (stdout)
    study = tmp_path / "s.toml"
    study.write_text("[[scenario]]\nname='a'\ngame='yuanzi'\ngames=30\n")
    code, out, err = cardsim(capsys, "study", study, "--out", tmp_path / "s", "--quiet")
    assert code == 0 and err == "" and "report:" in out
    code, _, err = cardsim(
        capsys, "run", "yuanzi", "--games", "0", "--out", tmp_path / "x", "--quiet"
    )
    assert code == 2 and err.startswith("cardsim: error:")  # errors still speak


# --- one default seed --------------------------------------------------------------------------


def test_one_default_seed_everywhere():
    params = {p.name: p for p in cli.commands["run"].params}
    assert params["seed"].default == DEFAULT_SEED
    assert Scenario("a", "yuanzi", 1).seed == DEFAULT_SEED
    assert RunConfig("yuanzi", 4, ("greedy",) * 4).seed == DEFAULT_SEED
    sc = parse_study("[[scenario]]\nname='a'\ngame='atlas'\ngames=10\n").scenarios[0]
    assert scenario_config(sc).seed == DEFAULT_SEED == 0
    cli_doc = (ROOT / "docs/cli.md").read_text(encoding="utf-8")
    assert re.search(r"\| `--seed S` \|[^\n]*\| 0 \|", cli_doc)
    study_doc = (ROOT / "docs/study.md").read_text(encoding="utf-8")
    assert re.search(r"\| `seed` \| no \| integer \| `0` \|", study_doc)


# --- docs/study.md and --template --------------------------------------------------------------


def study_doc() -> str:
    return (ROOT / "docs/study.md").read_text(encoding="utf-8")


def test_the_study_docs_example_is_the_template_and_parses():
    blocks = re.findall(r"^```toml\n(.*?)^```", study_doc(), re.S | re.M)
    assert blocks == [STUDY_TEMPLATE]
    study = parse_study(blocks[0], "my-study.toml")
    assert len(study.scenarios) >= 3 and study.comparisons
    keys = set()
    for section in tomllib.loads(blocks[0])["scenario"]:
        keys |= set(section)
    assert keys == SCENARIO_KEYS  # the example shows every key


def test_the_study_docs_document_every_key_with_its_default():
    from cardsim.sim.runner import DEFAULT_CHUNK_SIZE

    doc = study_doc()
    rows = dict(re.findall(r"^\| `(\w+)` \| (?:yes|no) \|[^|]*\|([^|]*)\|", doc, re.M))
    assert set(rows) >= SCENARIO_KEYS and {"scenarios", "name"} <= set(rows)
    assert "`0`" in rows["seed"] and f"`{DEFAULT_CHUNK_SIZE}`" in rows["chunk_size"]
    assert "`4`" in rows["players"] and "`greedy`" in rows["strategy"]
    with pytest.raises(Exception, match="allowed") as e:  # the parser says what it allows
        parse_study("[bogus]\n[[scenario]]\nname='a'\ngame='atlas'\ngames=1\n")
    allowed = re.search(r"allowed: ([\w, ]+)\)", str(e.value))[1].split(", ")
    template = tomllib.loads(STUDY_TEMPLATE)
    for section in allowed:  # every section documented and shown in the example
        assert f"`[{section}]`" in doc or f"`[[{section}]]`" in doc, section
        assert section in template, section


def test_study_template_writes_the_example(capsys, tmp_path):
    code, out, _ = cardsim(capsys, "study", "--template")
    assert code == 0 and out == STUDY_TEMPLATE
    f = tmp_path / "my-study.toml"
    assert cardsim(capsys, "study", "--template", f)[0] == 0
    assert f.read_text(encoding="utf-8") == STUDY_TEMPLATE
    f.write_text("mine")
    code, _, err = cardsim(capsys, "study", "--template", f)
    assert code == 2 and "exists" in err and f.read_text() == "mine"


@pytest.mark.heavy
def test_study_games_makes_a_quick_trial(capsys, tmp_path):
    f = tmp_path / "s.toml"
    f.write_text(STUDY_TEMPLATE)
    code, out, _ = cardsim(capsys, "study", f, "--out", tmp_path / "o", "--games", "40", "--quiet")
    assert code == 0 and "report:" in out
    import json

    for name in ("yuanzi-default", "atlas-6p", "yuanzi-points-vs-greedy"):
        assert json.loads((tmp_path / "o" / name / "manifest.json").read_text())["games"] == 40
    code, _, err = cardsim(capsys, "study", f, "--out", tmp_path / "p", "--games", "0")
    assert code == 2 and "--games" in err
