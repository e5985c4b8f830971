"""Every section of a study file is read by a pydantic model (issue 20 item 4): [[scenario]],
[[comparison]], [[design]], [[ladder]], [margins], [study] and the file's sections; the
one-line messages are the ones the hand checks gave."""

import pytest
from cardsim.sim.errors import CardsimError

from cardsim.workflows.ladder_plan import LADDER_KEYS, _LadderTable
from cardsim.workflows.study import (
    DESIGN_KEYS,
    SCENARIO_KEYS,
    _DesignTable,
    _ScenarioTable,
    parse_study,
)

HEAD = '[[scenario]]\nname = "a"\ngame = "atlas"\n'


def _error(text: str) -> str:
    with pytest.raises(CardsimError) as e:
        parse_study(text)
    return str(e.value)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("games = 10.0", "games must be an integer (no decimal point), got 10.0"),
        ("games = true", "games must be an integer (no decimal point), got True"),
        ("games = 10\nstrategy = 3", "strategy must be a string, got 3"),
        ("games = 10\nuntil_ci = true", "until_ci must be a number, got True"),
    ],
)
def test_strict_types(line, message):
    assert _error(HEAD + line + "\n").endswith(message)


def test_a_wrong_type_is_reported_before_an_unknown_key_and_a_missing_one():
    msg = _error('[[scenario]]\ngame = "atlas"\nbogus = 1\nseed = "x"\n')
    assert msg == "<study>, line 4 (seed): seed must be an integer (no decimal point), got 'x'"
    msg = _error('[[scenario]]\ngame = "atlas"\nzz = 1\nbogus = 1\n')
    assert msg.startswith("<study>, line 4 (bogus): unknown scenario key (allowed: chunk_size,")
    assert _error("[[scenario]]\ngames = 3\n") == "<study>, scenario 1: missing key 'name'"


def test_unknown_comparison_key():
    two = HEAD + "games = 10\n" + HEAD.replace('"a"', '"b"') + "games = 10\n"
    msg = _error(two + '[[comparison]]\nscenarios = ["a", "b"]\nfoo = 1\n')
    assert (
        msg
        == "<study>, line 11 (foo): unknown comparison key (allowed: name, scenarios, objective)"
    )


def test_the_model_has_every_scenario_key():
    assert set(_ScenarioTable.model_fields) == SCENARIO_KEYS
    assert parse_study(HEAD + "games = 10\nuntil_ci = 0.01\n").scenarios[0].until_ci == 0.01


DESIGN = (
    '[[design]]\nname = "d"\ngame = "yuanzi"\ngames = 10\n'
    "options = { pass_only_if_unable = [false, true] }\n"
)
LADDER = '[[ladder]]\nname = "l"\ngame = "yuanzi"\ngames = 10\n'
RUN = '[[scenario]]\nname = "s"\ngame = "yuanzi"\ngames = 10\n'
MARGINS_RULE = (
    '<study> (margins): [margins] maps a measure to a positive number, e.g. "win rate" = 0.02 '
    "(two percentage points; docs/report.md)"
)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # unknown key
        (
            DESIGN + "bogus = 1\n",
            "<study>, line 6 (bogus): unknown design key (allowed: chunk_size,",
        ),
        # wrong types
        (DESIGN + "fraction = 1.0\n", "<study>, design 1 (d): fraction must be an integer p >= 0 "),
        (
            DESIGN + "interactions = 1\n",
            "<study>, design 1 (d): interactions must be true or false",
        ),
        (
            DESIGN + "rules = 3\n",
            "<study>, design 1 (d): rules must be a table like { key = value }",
        ),
        (DESIGN + "generators = 3\n", "<study>, design 1 (d): generators is a table and needs"),
        (DESIGN + "foldover = 'a'\n", "<study>, design 1 (d): foldover lists design options to"),
        (DESIGN + "margins = { rate = true }\n", "<study>, design 1 (d): margins must be a table"),
        (DESIGN.replace("10", "10.0"), "<study>, design 1 (d), cell 0, line 4 (games): games must"),
        # bad values
        (DESIGN + "fraction = -1\n", "<study>, design 1 (d): fraction must be an integer p >= 0 "),
        (DESIGN + "margins = { rate = 0 }\n", "<study>, design 1 (d): margins must be a table"),
        (DESIGN + "fraction = 1\nfoldover = ['z']\n", "<study>, design 1 (d): foldover lists"),
        (DESIGN + "generators = { a = 'b' }\n", "<study>, design 1 (d): generators is a table and"),
        (DESIGN.replace('"d"', '"d d"'), "<study>, design 1: design name 'd d' must use letters"),
        (DESIGN.replace("games = 10\n", ""), "<study>, design 1: missing key 'games'"),
    ],
)
def test_design_table(text, message):
    assert _error(text).startswith(message)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # unknown key (named as before: after the label, quoted)
        (
            LADDER + "level = 1\n",
            "<study>, ladder 1: unknown ladder key 'level' (allowed: chunk_size",
        ),
        # wrong types
        (LADDER.replace("10", "10.0"), "<study>, ladder 1 (l): games must be an integer, got 10.0"),
        (LADDER + "seed = true\n", "<study>, ladder 1 (l): seed must be an integer, got True"),
        (LADDER + "deals = 'x'\n", "<study>, ladder 1 (l): deals must be an integer, got 'x'"),
        (LADDER + "levels = [1]\n", '<study>, ladder 1 (l): levels must list strategies, e.g. ["'),
        (
            LADDER + "rules = 3\n",
            "<study>, ladder 1 (l): rules must be a table like { key = value }",
        ),
        # bad values (the command line's checks, without the dashes)
        (LADDER + "deals = 0\n", "<study>, ladder 1 (l): deals must be a positive integer, got 0"),
        (LADDER.replace('"l"', '"l l"'), "<study>, ladder 1: ladder name 'l l' must use letters"),
        (LADDER.replace("games = 10\n", ""), "<study>, ladder 1: missing key 'games'"),
    ],
)
def test_ladder_table(text, message):
    assert _error(text).startswith(message)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[margins]\n'win rate' = true\n" + RUN, MARGINS_RULE),  # wrong type
        ("[margins]\n'win rate' = 'x'\n" + RUN, MARGINS_RULE),
        ("[margins]\n'win rate' = -0.5\n" + RUN, MARGINS_RULE),  # bad value
        ("[margins]\nrate = nan\n" + RUN, MARGINS_RULE),
        ("margins = 3\n" + RUN, MARGINS_RULE.replace("<study>", "<study>, line 1")),  # no table
    ],
)
def test_margins_table(text, message):
    assert _error(text) == message


def test_margins_are_floats():
    study = parse_study("[margins]\n'win rate' = 0.02\nmean = 1\n" + RUN)
    assert study.margins == {"win rate": 0.02, "mean": 1.0}
    assert all(type(v) is float for v in study.margins.values())


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # unknown key: [study] has one key (it used to be ignored)
        ('[study]\nname = "x"\ntitle = "y"\n' + RUN, "<study>, line 3 (title): unknown [study] key (allowed: name)"),
        # wrong type, bad value
        ("[study]\nname = 5\n" + RUN, "<study>, line 2 (name): [study] name must be a non-empty string, got 5"),
        ("[study]\nname = ' '\n" + RUN, "<study>, line 2 (name): [study] name must be a non-empty string, got ' '"),
        ("study = 3\n" + RUN, "<study>, line 1 (study): [study] must be a table"),
    ],
)  # fmt: skip
def test_study_table(text, message):
    assert _error(text) == message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[bogus]\nx = 1\n" + RUN, "<study> (bogus): unknown section (allowed: study, scenario, comparison, margins, design, ladder, sweep, screen)"),
        ("design = [1]\n" + RUN, "<study>: designs are [[design]] tables"),
        ("ladder = 3\n" + RUN, "<study>: ladders are [[ladder]] tables (double brackets)"),
        ("comparison = 3\n" + RUN, "<study>: comparisons are [[comparison]] tables (double brackets)"),
        ("scenario = [1]\n", "<study>: a study needs one or more [[scenario]] (or [[design]], [[ladder]], [[sweep]], [[screen]]) tables"),
        ("[study]\nname = 'x'\n", "<study>: a study needs one or more [[scenario]] (or [[design]], [[ladder]], [[sweep]], [[screen]]) tables"),
    ],
)  # fmt: skip
def test_sections(text, message):
    assert _error(text) == message


def test_the_models_have_every_key():
    assert set(_DesignTable.model_fields) == DESIGN_KEYS and "foldover" in DESIGN_KEYS
    assert set(_LadderTable.model_fields) == LADDER_KEYS and "deals" in LADDER_KEYS
    assert parse_study('[study]\nname = "mine"\n' + RUN).name == "mine"
    assert parse_study(RUN, "dir/file.toml").name == "file"
