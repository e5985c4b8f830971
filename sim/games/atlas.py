"""ATLAS game engine: rule options, strategies, and the pure chunk function over the Numba kernel.

User strategies
---------------
A seat may name ``path/to/file.py:function`` instead of a built-in strategy. The function must be
Numba-compilable (``@numba.njit`` or plain Python that ``njit`` accepts) with the signature of the
built-in strategies (``kernels.atlas.strategies``)::

    def choose(dtype, hand, pub, options, n, rng) -> int:
        # dtype   decision type: 0 claim, 1 self-meld, 2 discard, 3 trade target,
        #         4 trade take (trade_pick=seen), 5 trade give
        # hand    int32[64]: the deciding seat's card counts (ids: kernels.atlas.encoding)
        # pub     int32[PUB_LEN]: the public state (offsets P_* in kernels.atlas.state);
        #         pub[P_SEAT] is the deciding seat
        # options int32[n]: the legal decision codes; rng: uint64[4], the strategy stream
        # returns an index into options (0 <= index < n)

It sees exactly what AT-26 allows, as private copies. It is compiled into a variant of the driver
that is cached per version of the file (``sim/user_strategies.py``). See
``examples/atlas_strategy.py``.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from kernels.atlas import driver as _driver
from kernels.atlas import rules as _rules
from kernels.atlas.encoding import END_NAMES
from kernels.atlas.strategies import BUILTINS, MAX_USER, USER_BASE
from sim import user_strategies
from sim.errors import CardsimError
from sim.game import RuleOption, RunConfig, StrategyInfo

_RULE_OPTIONS = (
    RuleOption("self_melds", "any", "AT-07", "who may self-meld after drawing: any player, or only "
               "the next player in the turn after their claim", ("any", "after_claim_only")),
    RuleOption("all_wild_melds", False, "AT-11", "allow melds made of ATLAS cards only"),
    RuleOption("forced_claims", False, "AT-12", "a player must claim whenever able"),
    RuleOption("claim_turn", "stay", "AT-15", "after a claim: turn order unchanged (stay) or the "
               "claimant discards at once and play continues from them (jump)", ("stay", "jump")),
    RuleOption("reverse_two_players", "skip", "AT-18", "REVERSE with 2 players acts as SKIP, or "
               "has no effect", ("skip", "none")),
    RuleOption("trade_pick", "blind", "AT-19", "TRADE takes a random card (blind) or a card chosen "
               "from the target's hand (seen)", ("blind", "seen")),
    RuleOption("last_discard_wins", False, "AT-22", "discarding the last card wins (rummy style)"),
    RuleOption("exhausted", "reshuffle", "AT-23", "empty draw pile: reshuffle the discards, or end "
               "the round with no winner", ("reshuffle", "no_winner")),
    RuleOption("turn_cap", 2000, "AT-23", "turns after which a round ends with no winner",
               min=10, max=1_000_000),
    RuleOption("rounds", 1, "AT-25", "rounds in a match", min=1, max=100),
)  # fmt: skip

_RULE_INDEX = {
    "self_melds": (_rules.R_SELF_MELDS, ("any", "after_claim_only")),
    "all_wild_melds": (_rules.R_ALL_WILD, None),
    "forced_claims": (_rules.R_FORCED, None),
    "claim_turn": (_rules.R_CLAIM_TURN, ("stay", "jump")),
    "reverse_two_players": (_rules.R_REVERSE_2P, ("skip", "none")),
    "trade_pick": (_rules.R_TRADE_PICK, ("blind", "seen")),
    "last_discard_wins": (_rules.R_LAST_DISCARD, None),
    "exhausted": (_rules.R_EXHAUSTED, ("reshuffle", "no_winner")),
    "turn_cap": (_rules.R_TURN_CAP, None),
    "rounds": (_rules.R_ROUNDS, None),
}

_END_DTYPE = pl.Enum(list(END_NAMES))


def resolve_rules(rules: dict | None) -> dict:
    """Every rule option with its value (defaults filled in, text parsed); raises on bad input."""
    opts = {o.name: o for o in _RULE_OPTIONS}
    out = {o.name: o.default for o in _RULE_OPTIONS}
    for key, value in (rules or {}).items():
        if key not in opts:
            raise CardsimError(f"unknown ATLAS rule option {key!r} (allowed: {', '.join(opts)})")
        o = opts[key]
        ok = (
            (o.kind == "bool" and isinstance(value, bool))
            or (o.kind == "int" and isinstance(value, int) and not isinstance(value, bool)
                and o.min <= value <= o.max)
            or (o.kind == "choice" and value in o.choices)
        )  # fmt: skip
        out[key] = value if ok else o.parse(str(value))
    return out


def rules_array(rules: dict | None) -> np.ndarray:
    """The kernel's rule array (``kernels.atlas.rules`` R_* layout) of a rules dict."""
    res = resolve_rules(rules)
    arr = _rules.DEFAULT_RULES.copy()
    for key, (idx, choices) in _RULE_INDEX.items():
        v = res[key]
        arr[idx] = choices.index(v) if choices else int(v)
    return arr


class AtlasEngine:
    """The ATLAS :class:`sim.game.GameEngine` (2–10 players, AT-03)."""

    name = "atlas"
    player_counts = tuple(range(2, 11))
    default_players = 4
    rule_options = _RULE_OPTIONS
    strategies = tuple(StrategyInfo(name, sid, desc) for name, sid, desc in BUILTINS)

    # -- seats -------------------------------------------------------------------------------
    def seat_ids(self, config: RunConfig, entry: str = "simulate"):
        """Strategy id per seat and the driver module to run (the user-strategy variant if any
        seat is a user strategy; ``entry``: the driver function about to be called)."""
        n = config.players
        if n not in self.player_counts:
            raise CardsimError(f"ATLAS players: {n} (allowed: 2..10)")
        if len(config.seats) != n:
            raise CardsimError(f"{len(config.seats)} seat strategies for {n} players")
        builtin = {s.name: s.id for s in self.strategies}
        ids, users = [], []
        for name in config.seats:
            if name in builtin:
                ids.append(builtin[name])
            elif user_strategies.is_user_strategy(name):
                if name not in users:
                    users.append(name)
                ids.append(USER_BASE + users.index(name))
            else:
                raise CardsimError(
                    f"unknown ATLAS strategy {name!r} (allowed: {', '.join(builtin)}, "
                    "or path/to/file.py:function)"
                )
        if not users:
            return np.array(ids, np.int64), _driver
        mod = user_strategies.driver_for(
            "atlas", _driver, users, _driver.USER_ARGTYPES, entry, "ATLAS", "about 1-2 minutes"
        )
        return np.array(ids, np.int64), mod

    # -- play --------------------------------------------------------------------------------
    def play_arrays(self, config: RunConfig, first: int, count: int):
        """The raw structured arrays (GAMES_DTYPE, SEATS_DTYPE) of games first..first+count-1."""
        ids, mod = self.seat_ids(config)
        arr = rules_array(config.rules)
        rounds = int(arr[_rules.R_ROUNDS])
        n = config.players
        games = np.zeros(count * rounds, _driver.GAMES_DTYPE)
        seats = np.zeros(count * rounds * n, _driver.SEATS_DTYPE)
        if count > 0:
            err = mod.simulate(np.uint64(config.seed), first, count, n, ids, arr, games, seats)
            if err:
                raise self._user_failure(config, ids, arr, first, count)
        return games, seats

    def _user_failure(self, config, ids, arr, first, count) -> CardsimError:
        """A user strategy raised or answered out of range: find the first such game (one
        thread, raise mode) and say what happened there."""
        _ids, mod = self.seat_ids(config, "trace_match")
        user = ids >= USER_BASE
        n = config.players

        def play(game, sids):
            return _driver.run_trace(config.seed, game, n, sids, arr, 0, sim=mod).errors

        raising = np.where(user, ids + MAX_USER, ids)
        game = first
        for game in range(first, first + count):
            try:
                if play(game, raising):
                    break
            except Exception:
                break

        def rerun(slot):
            only = raising if slot is None else np.where(ids == USER_BASE + slot, raising, ids)
            return bool(play(game, only))

        labels = user_strategies.labels(config.seats)
        users = list(
            dict.fromkeys(x for x, sid in zip(labels, ids, strict=True) if sid >= USER_BASE)
        )
        return user_strategies.failure(users, rerun, f"game {game}, seed {config.seed}")

    def play_chunk(self, config: RunConfig, first: int, count: int):
        """Play games ``first .. first+count-1``: (games table, seats table), see docs/atlas-columns.md."""
        games, seats = self.play_arrays(config, first, count)
        return self.frames(games, seats, user_strategies.labels(config.seats))

    @staticmethod
    def frames(
        games: np.ndarray, seats: np.ndarray, seat_names
    ) -> tuple[pl.DataFrame, pl.DataFrame]:
        """Polars tables of the kernel's records."""
        g = pl.from_numpy(games)
        g = g.with_columns(
            pl.Series("end", np.asarray(END_NAMES)[games["end"]], dtype=pl.String).cast(_END_DTYPE)
        )
        names = pl.Enum(sorted(set(seat_names)))
        g = g.with_columns(
            [pl.lit(name, dtype=names).alias(f"strategy_{i}") for i, name in enumerate(seat_names)]
        )
        s = pl.from_numpy(seats)
        strat = np.asarray(seat_names, dtype=object)[seats["seat"].astype(np.int64)]
        s = s.with_columns(pl.Series("strategy", strat, dtype=pl.String).cast(names)).drop(
            "strategy_id"
        )
        cols = s.columns
        cols.remove("strategy")
        cols.insert(cols.index("position") + 1, "strategy")
        return g, s.select(cols)

    # -- replay ------------------------------------------------------------------------------
    def trace(self, config: RunConfig, game_index: int, level: int = 1):
        """The kernel trace of one game (``kernels.atlas.driver.Trace``)."""
        ids, mod = self.seat_ids(config, "trace_match")
        return _driver.run_trace(
            config.seed, game_index, config.players, ids, rules_array(config.rules), level, sim=mod
        )

    def replay(self, config: RunConfig, game_index: int) -> str:
        """A readable log of one game: the kernel's choices replayed by the reference rules."""
        from sim.rules import atlas as reference

        tr = self.trace(config, game_index)
        result = reference.replay_trace(
            config.seed, game_index, config.players, tr.chosen(), resolve_rules(config.rules)
        )
        return "\n".join(result.log)


ENGINE = AtlasEngine()
