"""The engine open to other people's agents (issue 46): a PettingZoo AEC environment
(:mod:`cardsim.agents.pettingzoo_env`, ``cardsim.env(...)``) and OpenSpiel games
(:mod:`cardsim.agents.openspiel_game`, ``cardsim_<game>``), both over the match contract
:class:`cardsim.sim.engine.Match` and nothing else, so they serve every registered game.

This package imports neither PettingZoo nor OpenSpiel; its two modules each import one
(``pip install "cardsim[agents]"``). Here: what both share — checking a game, a player count,
rule options and a root seed into a :class:`MatchSpec` that deals matches.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from cardsim.sim.config import MAX_SEED, resolve_rules
from cardsim.sim.engine import Match
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import GameEngine
from cardsim.sim.games import game_names, get_engine


@dataclass(frozen=True)
class MatchSpec:
    """A checked (game, players, rules): deals match ``game_index`` of root seed ``seed`` — the
    same deal as game ``game_index`` of ``cardsim run --seed seed`` with these rules."""

    engine: GameEngine
    players: int
    rules: dict  # every option, resolved (as RunConfig.rules)

    def new_match(self, seed: int, game_index: int) -> Match:
        check_seed(seed)
        return self.engine.new_match(self.players, dict(self.rules), seed, game_index)

    def __reduce__(self):  # pickles by name (an engine's facts hold functions)
        return (match_spec, (self.engine.name, self.players, canonical_rules(self)))


def check_seed(seed: object, name: str = "seed") -> int:
    """``seed`` if it is a root seed of cardsim (an integer 0 .. 2**64 - 1), else raise."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise CardsimError(f"{name} must be an integer in 0..{MAX_SEED}, got {seed!r}")
    return seed


def rule_items(rules: Mapping[str, object] | str | None) -> list[tuple[str, str]]:
    """Rule options as (name, text) pairs, from a mapping ``{option: value}`` (values as Python
    objects or text) or one text ``"option=value,option=value"`` (``;`` and ``:`` also separate,
    so the text can sit inside an OpenSpiel game string)."""
    if rules is None:
        return []
    if isinstance(rules, str):
        items = []
        for piece in rules.replace(";", ",").split(","):
            if not piece.strip():
                continue
            key, sep, value = piece.replace(":", "=", 1).partition("=")
            if not sep or not key.strip() or not value.strip():
                raise CardsimError(
                    f"rules: {piece.strip()!r} is not option=value "
                    "(e.g. 'option=value,option=value'; `cardsim rules GAME` lists them)"
                )
            items.append((key.strip(), value.strip()))
        return items
    if not isinstance(rules, Mapping):
        raise CardsimError(
            f"rules is a mapping {{option: value}} or 'option=value,…', got {rules!r}"
        )
    return [(str(k), str(v).lower() if isinstance(v, bool) else str(v)) for k, v in rules.items()]


def match_spec(
    game: str, players: int | None = None, rules: Mapping[str, object] | str | None = None
) -> MatchSpec:
    """Check ``game``, ``players`` (None: the game's default) and ``rules`` (None: the defaults)
    as ``cardsim run`` does; raises :class:`CardsimError` with one line naming the bad value."""
    if not isinstance(game, str):
        raise CardsimError(f"game is a name ({', '.join(game_names())}), got {game!r}")
    engine = get_engine(game)
    n = engine.default_players if players is None else players
    if isinstance(n, bool) or not isinstance(n, int) or n not in engine.player_counts:
        counts = engine.player_counts
        allowed = f"{counts[0]}..{counts[-1]}" if len(counts) > 1 else str(counts[0])
        raise CardsimError(f"{engine.name} is played by {allowed} players, got players={n!r}")
    return MatchSpec(engine, n, resolve_rules(engine, rule_items(rules), n))


def canonical_rules(spec: MatchSpec) -> str:
    """The options that differ from the game's defaults as ``option:value;option:value`` (the
    form that survives an OpenSpiel game string, whose parser splits at ``,`` and ``=``)."""
    defaults = spec.engine.rule_options.defaults()
    parts = []
    for name, value in spec.rules.items():
        if value != defaults.get(name):
            parts.append(f"{name}:{str(value).lower() if isinstance(value, bool) else value}")
    return ";".join(parts)
