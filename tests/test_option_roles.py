"""Issue 47 item 3: the rule-option table marks what each option is (``RuleOption.role``)."""

import re

import pytest
from cardsim.kernels.options import ROLES, RuleOption
from cardsim.sim.games import GAMES, get_engine
from click.testing import CliRunner

from cardsim.cli import cli


@pytest.mark.parametrize("game", GAMES)
def test_every_option_has_a_role_that_agrees_with_its_ruling(game):
    """Issue 47 item 3: every row sets a role; D-ids (AT-Dn, YZ-Dn) are design parameters and
    only they; the rest are readings of the text or run settings."""
    for o in get_engine(game).rule_options:
        assert o.role in ROLES, (o.name, o.role)
        is_design_id = re.fullmatch(r"[A-Z]+-D\d+", o.ruling) is not None
        assert (o.role == "design") == is_design_id, (o.name, o.ruling, o.role)
        if o.role == "design":
            assert o.kind == "int", o.name  # design parameters are numeric


def test_the_settings_are_atlas_turn_cap_and_rounds():
    """Issue 47 item 3: turn_cap and rounds are run settings, not readings (AT-23, AT-25)."""
    roles = {o.name: o.role for g in GAMES for o in get_engine(g).rule_options}
    assert sorted(n for n, r in roles.items() if r == "setting") == ["rounds", "turn_cap"]
    assert roles["exhausted"] == "reading" and roles["dao_bomb"] == "reading"


def test_an_unknown_role_is_refused_at_import_time():
    with pytest.raises(ValueError, match="role 'ruling' is not one of reading, design, setting"):
        RuleOption("x", "T-01", False, "h", role="ruling")


@pytest.mark.parametrize("game", GAMES)
def test_cardsim_rules_and_the_rules_doc_show_the_role(game):
    """Issue 47 item 3: `cardsim rules GAME` (text and JSON) and docs/RULES-GAME.md's option
    table show each option's role."""
    import json
    from pathlib import Path

    runner = CliRunner()
    text = runner.invoke(cli, ["rules", game]).output
    doc = json.loads(runner.invoke(cli, ["rules", game, "--json"]).output)
    table = Path(__file__).parents[1].joinpath(f"docs/RULES-{game}.md").read_text("utf-8")
    for o, row in zip(get_engine(game).rule_options, doc, strict=True):
        assert row["role"] == o.role
        line = next(x for x in text.splitlines() if x.startswith(o.name + " "))
        assert f"  {o.ruling}  {o.role}  " in line
        assert re.search(rf"^\| `{o.name}` \|.*\| {o.ruling} \| {o.role} \|", table, re.M), o.name
