"""sim/progress.py: plain lines in logs, a live bar in a terminal, the unit counted, silence."""

import io

from cardsim.sim import runner
from cardsim.sim.compare import DuplicateEngine, build_compare_config
from cardsim.sim.config import build_config
from cardsim.sim.progress import Progress

from tests.fake_engine import FakeEngine


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_plain_lines_when_not_a_terminal_count_the_unit_and_never_use_carriage_returns():
    log = io.StringIO()
    bar = Progress(1000, 0, "yuanzi", True, "deals", stream=log, interval=0.0)
    bar.message("compiling")
    for _ in range(4):
        bar.advance(250)
    bar.close()
    text = log.getvalue()
    assert "\r" not in text
    lines = text.splitlines()
    assert lines[0] == "cardsim: compiling"
    assert [ln.split(" deals")[0] for ln in lines[1:]] == [
        "yuanzi: 250/1,000",
        "yuanzi: 500/1,000",
        "yuanzi: 750/1,000",
        "yuanzi: 1,000/1,000",
    ]
    assert "deals/s" in lines[1] and "games" not in text
    assert lines[-1].endswith("done")


def test_plain_lines_are_throttled_but_the_last_one_is_always_written():
    log = io.StringIO()
    bar = Progress(10_000, 0, "atlas", True, stream=log, interval=3600.0)
    for _ in range(9):
        bar.advance(1000)
    bar.close()  # stopped early (--until-ci): the last line says where
    lines = log.getvalue().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("atlas: 1,000/10,000 games")
    assert lines[1].startswith("atlas: 9,000/10,000 games (90 %)")


def test_a_terminal_gets_a_live_bar_that_moves_at_every_advance():
    tty = Terminal()
    bar = Progress(300, 100, "yuanzi", True, "deals", stream=tty)
    bar._bar.mininterval = 0  # redraw at every advance (the runner calls it per sub-chunk)
    bar.message("kernels ready")
    seen = []
    for _ in range(2):
        bar.advance(100)
        seen.append(tty.getvalue().rsplit("\r", 1)[-1])
    bar.close()
    assert "cardsim: kernels ready" in tty.getvalue()
    assert "200/300" in seen[0] and "300/300" in seen[1]
    assert "deals" in seen[1]


def test_disabled_progress_writes_nothing():
    quiet = Terminal()
    bar = Progress(10, 0, "atlas", False, stream=quiet)
    bar.message("compiling")
    bar.advance(10)
    bar.close()
    assert quiet.getvalue() == ""


def test_the_runner_counts_deals_for_a_comparison_and_games_for_a_run(tmp_path, capsys):
    engine = FakeEngine()
    cmp = build_compare_config(engine, ["greedy", "random"], games=40, seed=3)
    runner.run(cmp, tmp_path / "cmp", chunk_size=20, engine=DuplicateEngine(engine))
    err = capsys.readouterr().err
    assert "40/40 deals" in err and "games" not in err.replace("cardsim:", "")
    cfg = build_config(engine, games=40, seed=3)
    runner.run(cfg, tmp_path / "run", chunk_size=20, engine=engine)
    assert "40/40 games" in capsys.readouterr().err
    runner.run(cfg, tmp_path / "quiet", chunk_size=20, engine=engine, progress=False)
    assert capsys.readouterr().err == ""
