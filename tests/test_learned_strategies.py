"""Learned strategies as users name them (issue 48 items 2–4): weights files, ``learned``,
``learned:FILE`` (through a symlink too), ``,temp=T``, ``cardsim train`` and ``cardsim exploit``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from cardsim.sim.errors import CardsimError
from cardsim.sim.games import GAMES
from cardsim.sim.learned import builtin, features_module, load, new_weights

from cardsim.cli import main


def cardsim(capsys, *args):
    with pytest.raises(SystemExit) as e:
        main(list(map(str, args)))
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


def _weights(tmp_path: Path, game: str, w=None, name: str = "w.npz") -> Path:
    mod = features_module(game)
    w = mod.GREEDY_WEIGHTS if w is None else w
    return new_weights(game, w, made_by="a test").save(tmp_path / name)


def _tables(out: Path):
    return [pl.read_parquet(out / t / "*.parquet").sort(pl.all()) for t in ("games", "seats")]


@pytest.mark.parametrize("game", GAMES)
def test_builtin_weights_ship_with_their_command(game):
    """issue 48 item 4: the built-in ``learned`` weights are in the package, for this feature
    schema, with the ``cardsim train`` command that makes them."""
    w = builtin(game)
    assert w.weights.shape == (len(features_module(game).FEATURES),)
    assert w.provenance["command"].startswith(f"cardsim train {game} --teacher ismcts")
    assert w.provenance["plan"]["decisions"] >= 1000


def test_weights_files_are_checked(tmp_path, capsys):
    """issue 48 item 4: a file of the other game, another schema or no weights file at all is
    refused with one line (exit 2, no traceback) — and nothing is run."""
    atlas = _weights(tmp_path, "atlas", name="a.npz")
    with pytest.raises(CardsimError, match="weights for atlas, not yuanzi"):
        load("yuanzi", atlas)
    y = _weights(tmp_path, "yuanzi", name="y.npz")
    with np.load(y) as z:
        prov = json.loads(str(z["provenance"]))
        weights = z["weights"]
    prov["schema"] = "0123456789abcdef"
    stale = tmp_path / "stale.npz"
    np.savez(stale, weights=weights, provenance=np.array(json.dumps(prov)))
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    for bad, words in ((stale, "another yuanzi feature schema"), (tmp_path / "junk.npz", "not a cardsim weights file"),
                       (tmp_path / "none.npz", "not found")):  # fmt: skip
        code, out, err = cardsim(capsys, "run", "yuanzi", "--games", 5, "--strategy",
                                 f"learned:{bad}", "--out", tmp_path / "r")  # fmt: skip
        assert code == 2 and words in err and "Traceback" not in err, err
        assert len(err.strip().splitlines()) == 1
        assert not (tmp_path / "r").exists()


def test_learned_file_through_a_symlink_plays_the_file(tmp_path, capsys):
    """Test what users name: ``learned:LINK`` (a symlink) plays the weights of the file it
    points to — the same tables — and the label names the file read."""
    rng = np.random.default_rng(3)
    w = features_module("yuanzi").GREEDY_WEIGHTS + rng.normal(
        0, 0.3, len(features_module("yuanzi").FEATURES)
    )
    f = _weights(tmp_path, "yuanzi", w)
    link = tmp_path / "link.npz"
    link.symlink_to(f)
    for name, out in ((f, "a"), (link, "b")):
        code, _, err = cardsim(capsys, "run", "yuanzi", "--games", 60, "--seed", 2, "--strategy",
                               f"learned:{name}", "--out", tmp_path / out, "--quiet")  # fmt: skip
        assert code == 0, err
    a, b = _tables(tmp_path / "a"), _tables(tmp_path / "b")
    assert a[0].equals(b[0]) and a[1].equals(b[1])
    assert set(a[1]["strategy"].cast(str)) == {f"learned:{f.resolve()}"}


def test_an_edited_weights_file_is_another_run(tmp_path, capsys):
    """Reproducible: the file's bytes are part of the run's identity, so --resume after an edit
    is refused rather than mixing two policies."""
    f = _weights(tmp_path, "atlas")
    args = ["run", "atlas", "--players", 3, "--games", 40, "--chunk-size", 20,
            "--strategy", f"learned:{f}", "--out", tmp_path / "r", "--quiet"]  # fmt: skip
    assert cardsim(capsys, *args)[0] == 0
    w = features_module("atlas").GREEDY_WEIGHTS * 2.0
    new_weights("atlas", w, made_by="edited").save(f)
    code, _, err = cardsim(capsys, *args, "--resume")
    assert code == 2 and "strategy_files" in err, err


def test_temperature_names(capsys):
    """``learned:temp=T`` and ``learned:FILE,temp=T`` have one spelling; T out of range is
    refused."""
    from cardsim.sim.games import get_engine

    e = get_engine("yuanzi")
    assert e.parse_strategy("learned:temp=0.50") == "learned:temp=0.5"
    assert e.parse_strategy("learned:temp=0") == "learned"
    with pytest.raises(CardsimError, match="temp"):
        e.parse_strategy("learned:temp=101")


def test_train_is_reproducible_and_resumes(tmp_path, capsys):
    """issue 48 done-when: the same ``cardsim train`` command twice gives identical weights;
    an interrupted one (chunks lost) resumes to the same bits; DAgger adds a round."""
    args = ["train", "yuanzi", "--teacher", "points", "--decisions", 300, "--seed", 4,
            "--dagger", 1, "--quiet"]  # fmt: skip
    for out in ("a.npz", "b.npz"):
        code, text, err = cardsim(capsys, *args, "--out", tmp_path / out)
        assert code == 0, err
    a, b = load("yuanzi", tmp_path / "a.npz"), load("yuanzi", tmp_path / "b.npz")
    assert a.weights.tobytes() == b.weights.tobytes()
    assert [r["round"] for r in a.provenance["rounds"]] == [0, 1]
    assert "DAgger round 1" in text and "points" in text
    chunks = sorted((tmp_path / "a.npz.parts").rglob("chunk-*.npz"))
    for c in chunks[::2]:
        c.unlink()
    assert cardsim(capsys, *args, "--out", tmp_path / "a.npz")[0] == 0
    assert load("yuanzi", tmp_path / "a.npz").weights.tobytes() == a.weights.tobytes()
    other = [*args[:-1], "--l2", "0.5", "--quiet"]
    code, _, err = cardsim(capsys, *other, "--out", tmp_path / "a.npz")
    assert code == 2 and "another training" in err


@pytest.mark.heavy
def test_train_on_a_cluster_gives_the_same_weights(tmp_path, capsys):
    """``--scheduler`` (a real local Dask cluster) gives the local run's weights bit for bit."""
    args = ["train", "atlas", "--players", 3, "--teacher", "careful", "--decisions", 400,
            "--seed", 5, "--quiet"]  # fmt: skip
    assert cardsim(capsys, *args, "--out", tmp_path / "a.npz")[0] == 0
    code, _, err = cardsim(capsys, *args, "--out", tmp_path / "b.npz", "--scheduler", "local:2")
    assert code == 0, err
    assert (
        load("atlas", tmp_path / "a.npz").weights.tobytes()
        == load("atlas", tmp_path / "b.npz").weights.tobytes()
    )


@pytest.mark.heavy
def test_exploit_finds_a_planted_exploit(tmp_path, capsys):
    """issue 48 done-when: a field that never claims nor self-melds (ATLAS) is exploitable;
    the search answers "beats the field" with the fresh-deal interval above 0."""
    mod = features_module("atlas")
    w = mod.GREEDY_WEIGHTS.copy()
    mechanic, feature, weight = mod.RESTRICTIONS[0]
    w[[n for n, _ in mod.FEATURES].index(feature)] = weight
    field = _weights(tmp_path, "atlas", w, "never_meld.npz")
    code, out, err = cardsim(capsys, "exploit", "atlas", "--players", 3, "--field",
                             f"learned:{field}", "--budget", 96, "--verify", 60, "--out",
                             tmp_path / "x", "--json", "--quiet")  # fmt: skip
    assert code == 0, err
    res = json.loads(out)
    assert res["verdict"] == "exploit" and res["verification"]["lo"] > 0
    assert load("atlas", tmp_path / "x" / "exploit.npz").weights.shape == w.shape


@pytest.mark.heavy
def test_restricted_play_table(tmp_path, capsys):
    """issue 48 item 3: one row per mechanic, a verdict Enum, Parquet metadata."""
    code, out, err = cardsim(capsys, "exploit", "yuanzi", "--restricted", "--start", "learned",
                             "--verify", 40, "--out", tmp_path / "rp")  # fmt: skip
    assert code == 0, err
    t = pl.read_parquet(tmp_path / "rp" / "restricted.parquet")
    mechanics = [m for m, _, _ in features_module("yuanzi").RESTRICTIONS]
    assert t["mechanic"].to_list() == mechanics
    assert isinstance(t.schema["verdict"], pl.Enum)
    import pyarrow.parquet as pq

    meta = pq.read_metadata(tmp_path / "rp" / "restricted.parquet").metadata
    assert meta[b"cardsim.table"] == b"restricted"
    for m in mechanics:
        assert f"never {m}" in out


@pytest.mark.heavy
@pytest.mark.parametrize("game", GAMES)
def test_builtin_weights_are_reproduced_by_their_command(game, tmp_path, capsys, monkeypatch):
    """issue 48 item 4: the command the shipped weights record (docs/strategies.md) makes
    them again, bit for bit (a few minutes: ismcts labels 12,000 positions per game)."""
    import shlex

    shipped = builtin(game)
    argv = shlex.split(shipped.provenance["command"])
    assert argv[:2] == ["cardsim", "train"]
    monkeypatch.chdir(tmp_path)
    code, _, err = cardsim(capsys, *argv[1:], "--quiet")
    assert code == 0, err
    out = argv[argv.index("--out") + 1]
    assert load(game, tmp_path / out).weights.tobytes() == shipped.weights.tobytes()


@pytest.mark.heavy
def test_improvement_rounds_play_against_the_earlier_rounds(tmp_path, capsys):
    """``--improve-rounds 2``: the second round's field is the given field plus the first
    round's weights (fictitious play); the provenance keeps both rounds, the fitted weights and
    the check on fresh deals; the command is recorded with the option."""
    code, text, err = cardsim(capsys, "train", "yuanzi", "--teacher", "points", "--decisions", 200,
                              "--improve", 64, "--improve-rounds", 2, "--out", tmp_path / "w.npz",
                              "--quiet")  # fmt: skip
    assert code == 0, err
    prov = load("yuanzi", tmp_path / "w.npz").provenance
    rounds = prov["improvement"]["rounds"]
    assert [r["field"][0] for r in rounds] == ["greedy", "greedy"]
    assert len(rounds[0]["field"]) == 1 and rounds[1]["field"][1].startswith("learned:")
    assert "--improve-rounds 2" in prov["command"] and "2 rounds" in text
    assert len(prov["distilled"]) == len(features_module("yuanzi").FEATURES)


def test_python_api_train(tmp_path):
    """``cardsim.train`` is the command's (docs/python-api.md): the weights file, its plan; bad
    input in the API's words."""
    import cardsim

    res = cardsim.train("atlas", tmp_path / "w.npz", decisions=150, teacher="careful", players=3)
    assert load("atlas", tmp_path / "w.npz").weights.tobytes() == res.weights.tobytes()
    assert res.plan.teacher == "careful" and res.rounds[0]["positions"] == 150
    with pytest.raises(CardsimError, match="decisions 50"):
        cardsim.train("atlas", tmp_path / "v.npz", decisions=50)


def test_train_and_exploit_hold_their_folders(tmp_path, capsys):
    """One writer per output, never inside another command's folder: ``exploit`` into a run
    directory or below it, ``train`` with its positions inside a run directory, and ``train``
    while another process holds its ``OUT.npz.parts`` are refused with one line; through a
    symlinked folder ``train`` writes into the real one."""
    from cardsim.sim.rundir import hold_folder

    run = tmp_path / "run"
    assert cardsim(capsys, "run", "yuanzi", "--games", 5, "--out", run, "--quiet")[0] == 0
    for args in (["exploit", "yuanzi", "--restricted", "--verify", 20, "--out", run],
                 ["exploit", "yuanzi", "--restricted", "--verify", 20, "--out", run / "x"],
                 ["train", "yuanzi", "--teacher", "points", "--decisions", 100, "--out",
                  run / "w.npz"]):  # fmt: skip
        code, _, err = cardsim(capsys, *args)
        assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    args = ["train", "yuanzi", "--teacher", "points", "--decisions", 100, "--quiet", "--out",
            tmp_path / "link" / "w.npz"]  # fmt: skip
    assert cardsim(capsys, *args)[0] == 0
    assert load("yuanzi", real / "w.npz").provenance["plan"]["teacher"] == "points"
    import threading

    held, done = threading.Event(), threading.Event()

    def other_writer():
        with hold_folder(real / "w.npz.parts", "train"):
            held.set()
            done.wait(30)

    t = threading.Thread(target=other_writer)
    t.start()
    held.wait(30)
    try:
        code, _, err = cardsim(capsys, *args)
    finally:
        done.set()
        t.join()
    assert code == 2 and "Traceback" not in err, err
