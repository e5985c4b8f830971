"""[[scenario]] and [[comparison]] tables are read by pydantic models (issue 20 item 4); the
one-line messages are the ones the hand checks gave."""

import pytest
from cardsim.sim.errors import CardsimError

from cardsim.workflows.study import SCENARIO_KEYS, _ScenarioTable, parse_study

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
