"""First-use papercuts (issue 45 item 10)."""

import polars as pl
import pytest
from cardsim.analysis.model import Table, display_rows
from cardsim.kernels.errors import did_you_mean
from cardsim.sim.errors import CardsimError


def test_pp_columns_print_points_not_percent():
    """issue 45 item 10: a "(pp)" column's cells are points, not "%"."""
    t = Table("t", "t", pl.DataFrame({"diff": [0.012], "diff_lo": [0.002], "diff_hi": [0.022],
                                      "win_a": [0.5]}), ("diff", "win_a"))  # fmt: skip
    head, rows = display_rows(t)
    assert head[0] == "difference (pp) [95 % CI]"
    assert "%" not in rows[0][0] and rows[0][0].startswith("1.2")
    assert rows[0][1].endswith("%")  # a rate keeps its percent sign


def test_singular_counts():
    """issue 45 item 10: "(1 cards)" → "(1 card)"."""
    from cardsim.sim.games.yuanzi.reference import moves as ym

    singles = [c for c in range(1 << 16) if ym.is_move_code(c) and ym.size_of(c) == 1
               and ym.kind_of(c) != ym.ATOM]  # fmt: skip
    assert singles
    for c in singles[:5]:
        text = ym.describe_code(c)
        assert "(1 card)" in text and "(1 cards" not in text


@pytest.mark.parametrize(
    "name, choices, hint",
    [("gready", ["random", "greedy", "careful"], "did you mean 'greedy'?"),
     ("forced_claim", ["forced_claims", "claim_turn"], "did you mean 'forced_claims'?"),
     ("zzz", ["random", "greedy"], "")],
)  # fmt: skip
def test_did_you_mean(name, choices, hint):
    """issue 45 item 10: typos of strategy names and rule options get a suggestion."""
    got = did_you_mean(name, choices)
    assert got.endswith(hint) if hint else got == ""  # nothing close: no suggestion at all


def test_unknown_strategy_and_rule_suggest_the_close_name():
    import cardsim

    with pytest.raises(CardsimError, match="did you mean 'greedy'"):
        cardsim.config("atlas", games=1, strategy="gready")
    with pytest.raises(CardsimError, match="did you mean 'forced_claims'"):
        cardsim.config("atlas", games=1, rules={"forced_claim": "false"})


def test_run_until_ci_is_accepted_or_refused_in_words(tmp_path):
    """issue 45 item 10: ``cardsim.run(until_ci=…)`` raised a TypeError naming config()."""
    import cardsim

    with pytest.raises(CardsimError, match="until_ci is a proportion"):
        cardsim.run("atlas", tmp_path / "r", games=10, until_ci=5.0)


def test_report_has_quiet():
    """issue 45 item 10: ``cardsim report --quiet``."""
    from cardsim.cli import cli

    assert "--quiet" in [o for p in cli.commands["report"].params for o in p.opts]


def test_report_quiet_prints_nothing_on_stderr(tmp_path, capsys):
    """issue 45 item 10: with --quiet the report writes its files and says nothing on stderr
    (without it, it says where the report went)."""
    from cardsim.cli import main

    def cardsim(*args):
        with pytest.raises(SystemExit) as e:
            main(list(map(str, args)))
        return e.value.code, capsys.readouterr()

    code, _ = cardsim("run", "yuanzi", "--games", 20, "--out", tmp_path / "r", "--quiet")
    assert code == 0
    code, loud = cardsim("report", tmp_path / "r", "--out", tmp_path / "a.json")
    assert code == 0 and (loud.err.strip() or loud.out.strip())
    code, quiet = cardsim("report", tmp_path / "r", "--out", tmp_path / "b.json", "--quiet")
    assert code == 0 and quiet.err == "" and (tmp_path / "b.json").is_file()
