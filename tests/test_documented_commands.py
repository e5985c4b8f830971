"""Every command shown in README.md and docs/*.md shell blocks runs, in order, as pasted.

The commands are parsed from the documents themselves, so a command added later is covered
too. Each document is played in a fresh temporary directory (a clone's root, with examples/)
in the order it shows them — ``runs/at4`` must have been made before ``report runs/at4`` —
through the real ``cardsim`` entry point (:func:`cardsim.cli.main`), with game counts cut down to
a few hundred. Setting-up commands (the venv, the install, the test suite itself) are checked
for their shape but not re-run: the environment running this test was made by them; so are
the ``dask scheduler`` / ``dask worker`` lines of a cluster walk-through, whose cardsim
commands are run here without their ``--scheduler`` (tests/test_cluster_workflows.py runs
them on a real cluster).
"""

from __future__ import annotations

import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from cardsim.cli import main

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = ["README.md", *sorted(p.relative_to(ROOT).as_posix() for p in ROOT.glob("docs/*.md"))]
SHELL = {"bash", "sh", "shell", "console"}
#: small counts for the commands' --games (deals for compare), and for a study's scenarios
SMALL = {"run": 300, "compare": 100, "study": 100, "ladder": 40, "sweep": 60}
#: run and compare with a search seat (pimc, ismcts: ~1,000 times greedy's time per decision)
SMALL_SEARCH = {"run": 20, "compare": 10, "ladder": 20}
SEARCH = re.compile(r"(^|[=,])(pimc|ismcts)(:|,|$)")


@dataclass
class Command:
    document: str
    line: int
    argv: list[str]

    def __str__(self) -> str:
        return f"{self.document}:{self.line}: {shlex.join(self.argv)}"


def fenced_blocks(text: str):
    """(language, first line number, body) of each fenced code block."""
    for m in re.finditer(r"^```([\w-]*)[^\n]*\n(.*?)^```", text, re.S | re.M):
        yield m.group(1).lower(), text.count("\n", 0, m.start()) + 2, m.group(2)


def split_commands(body: str, document: str, first_line: int) -> list[Command]:
    """The commands of a shell block: comments dropped, ``\\`` continued, ``;``/``&&`` split."""
    out: list[Command] = []
    pending, start = "", first_line
    for i, raw in enumerate(body.splitlines()):
        if not pending:
            start = first_line + i
        if raw.rstrip().endswith("\\"):
            pending += raw.rstrip()[:-1] + " "
            continue
        line, pending = pending + raw, ""
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|<>")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        argv: list[str] = []
        for token in [*lexer, ";"]:
            if token in (";", "&&"):
                if argv:
                    out.append(Command(document, start, argv))
                argv = []
            elif set(token) <= set("|<>&"):
                raise AssertionError(f"{document}:{start}: pipes and redirections ({token}) are not "
                                     "taught to this test; keep documented commands plain")  # fmt: skip
            else:
                argv.append(token)
    return out


def documented_commands(document: str) -> list[Command]:
    text = (ROOT / document).read_text(encoding="utf-8")
    commands: list[Command] = []
    for lang, line, body in fenced_blocks(text):
        if lang in SHELL:
            commands += split_commands(body, document, line)
    return commands


def is_cardsim(argv: list[str]) -> bool:
    return argv[0] == "cardsim" or argv[0].endswith("/bin/cardsim")


def setup_kind(argv: list[str]) -> str | None:
    """What a setting-up command is, or None if it is not one."""
    joined = " ".join(argv)
    if argv[:3] == ["python3", "-m", "venv"]:
        return "venv"
    if argv[0].endswith("/bin/pip") and argv[1] == "install":
        return "install"
    if argv[0].endswith("/bin/python") and argv[1:3] == ["-m", "pytest"]:
        return "tests"
    if joined == "source .venv/bin/activate":
        return "activate"
    if argv[0].endswith("dask") and argv[1:2] in (["scheduler"], ["worker"]):
        return "cluster"  # docs/cli.md, "Running on a cluster": not started by this test
    return None


def small(argv: list[str]) -> list[str]:
    """The cardsim command with game counts cut down (and a study cut down by --games)."""
    args = list(argv[1:])
    sub = args[0]
    if "--scheduler" in args:  # the walk-through's workers are not running here: play locally
        i = args.index("--scheduler")  # (the cluster path: tests/test_cluster_workflows.py)
        del args[i : i + 2]
    # a search level, named (the ladder's default levels are scripted: learned at the top)
    search = any(map(SEARCH.search, args))
    if "--games" in args:
        i = args.index("--games") + 1
        counts = SMALL_SEARCH if sub in SMALL_SEARCH and search else SMALL
        args[i] = str(min(int(args[i]), counts.get(sub, 300)))
    if "--deals" in args:  # cardsim ladder: the rating run's deals
        i = args.index("--deals") + 1
        args[i] = str(min(int(args[i]), 10 if search else 20))
    if "--scripted-games" in args:  # cardsim ladder: the scripted levels' self-play games
        i = args.index("--scripted-games") + 1
        args[i] = str(min(int(args[i]), 400))
    if "--max-games" in args:  # cardsim ladder --until-decided: two looks (with a search: one)
        i = args.index("--max-games") + 1
        args[i] = str((1 if search else 2) * int(args[args.index("--games") + 1]))
    if sub == "train":  # positions per round, deals of the improvement
        i = args.index("--decisions") + 1
        args[i] = str(min(int(args[i]), 200))
        if "--improve" in args:
            i = args.index("--improve") + 1
            args[i] = str(min(int(args[i]), 96))
    if sub == "exploit":  # deals of the search and of the verification
        for flag, cap in (("--budget", 96), ("--verify", 40)):
            if flag in args:
                i = args.index(flag) + 1
                args[i] = str(min(int(args[i]), cap))
            else:
                args += [flag, str(cap)]
    elif "--budget" in args:  # cardsim tune: games in all
        i = args.index("--budget") + 1
        args[i] = str(min(int(args[i]), 2000))
    elif sub == "study" and "--template" not in args:
        args += ["--games", str(SMALL["study"])]
    return args


def test_the_documents_show_commands_and_every_one_is_understood():
    """Each shell command is cardsim or one of the known setting-up commands."""
    every = [c for d in DOCUMENTS for c in documented_commands(d)]
    assert sum(is_cardsim(c.argv) for c in every) >= 15, "the README's commands went missing?"
    for c in every:
        assert is_cardsim(c.argv) or setup_kind(c.argv), f"{c}: this test cannot run it"
    kinds = {setup_kind(c.argv) for c in every} - {None}
    assert kinds == {"venv", "install", "tests", "activate", "cluster"}


def test_untagged_blocks_hold_only_synopses():
    """A runnable command in a block without a shell tag would escape the test below."""
    for document in DOCUMENTS:
        text = (ROOT / document).read_text(encoding="utf-8")
        for lang, line, body in fenced_blocks(text):
            if lang in SHELL:
                continue
            for ln in body.splitlines():
                if re.match(r"\s*(\.venv/bin/)?cardsim\s", ln):
                    assert re.search(r"\[|\b[A-Z]{2,}\b", ln), (
                        f"{document}:{line}: {ln.strip()!r} looks runnable: put it in a ```bash block"
                    )


def test_setup_commands_match_the_project():
    """The install the README shows is the one pyproject.toml supports."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "cardsim" in project["scripts"]  # what .venv/bin/cardsim is
    for c in (c for d in DOCUMENTS for c in documented_commands(d)):
        kind = setup_kind(c.argv)
        if kind == "install":
            target = c.argv[c.argv.index("-e") + 1]
            extras = re.findall(r"\[(.*)\]", target)
            assert target.startswith("."), c
            for extra in extras:
                assert set(extra.split(",")) <= set(project["optional-dependencies"]), c
        if kind == "activate" and sys.prefix != sys.base_prefix:
            assert (Path(sys.prefix) / "bin" / "activate").is_file()


def run_cardsim(capsys, argv: list[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as e:
        main(argv)
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


@pytest.mark.heavy
@pytest.mark.parametrize("document", [d for d in DOCUMENTS if documented_commands(d)])
def test_documented_commands_run_in_order(document, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "examples").symlink_to(ROOT / "examples", target_is_directory=True)
    ran = 0
    for c in documented_commands(document):
        if not is_cardsim(c.argv):
            continue
        args = small(c.argv)
        code, out, err = run_cardsim(capsys, args)
        assert code == 0, f"{c} (run as cardsim {shlex.join(args)}) failed: {err[-2000:]}"
        if "--out" in args and "--template" not in args:
            target = tmp_path / args[args.index("--out") + 1]
            assert target.exists(), f"{c}: wrote nothing at {target}"
        if args[:2] == ["study", "--template"]:
            assert (tmp_path / args[2]).is_file(), c
        if args[0] == "study" and "--template" not in args:
            assert "report:" in out or "factorial report" in out, c
        if args[0] in ("replay", "rules", "strategies"):
            assert out.strip(), f"{c}: printed nothing"
        ran += 1
    assert ran > 0
