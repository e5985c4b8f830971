"""Names vulture cannot see used (tests/test_dead_code.py): each with the reason.

Vulture reads this file, never imports it; ``_.name`` marks ``name`` as used. Add a name here
only when something outside Python's static view uses it (a framework, a string, NumPy).
"""


class _Names:
    def __getattr__(self, name: str) -> str:
        return name


_ = _Names()

# click: commands registered by their decorators (cardsim/cli.py), called by click
_.run_cmd  # click command (@main.command)
_.train_cmd  # click command (@main.command)
_.exploit_cmd  # click command (@main.command)
_.compare_cmd  # click command (@main.command)
_.study_cmd  # click command (@main.command)
_.ladder_cmd  # click command (@main.command)
_.tune_cmd  # click command (@main.command)
_.sweep_cmd  # click command (@main.command)
_.screen_cmd  # click command (@main.command)
_.rules_cmd  # click command (@main.command)
_.strategies_cmd  # click command (@main.command)
_.strategy_check_cmd  # click command (@main.command)
_.replay_cmd  # click command (@main.command)
_.report_cmd  # click command (@main.command)
_.verify_cmd  # click command (@main.command)
_.convert  # click.ParamType.convert: click calls it to parse an option (cardsim/cli.py)

# pydantic: read by pydantic, not by our code
_.model_config  # a model's configuration (extra="forbid", ...)
_._done_has_files  # @model_validator of rundir.Chunk
_._consistent  # @model_validator of rundir.Manifest
_.manifest_version  # rundir.Manifest field: validated on every read of manifest.json
_.cardsim_version  # rundir.Manifest field: validated on every read of manifest.json
_.strategy_files  # rundir.Manifest field: validated on every read of manifest.json
_.comparison  # study._StudyFile field: the [[comparison]] tables' shape

# strings and other libraries
_.start_t  # tqdm's clock, re-based by sim/progress.py (tqdm reads it)
_.initial  # tqdm's count at its start (tqdm reads it)
_.last_print_n  # tqdm's last printed count (tqdm reads it)
_.last_print_t  # tqdm's last print time (tqdm reads it)
_.compiled_seconds  # RunResult field: public (the API's result, its notebook view)
_.ROLLOUT_RANDOM  # kernels/pimc_common.py: names rollout policy 1 of ROLLOUTS (ids decode to it)

# NumPy records: columns of the ATLAS games / seats tables, written into a record
# (g.first_player = ...) in kernels/atlas/driver.py and read as table columns
_.first_player  # ATLAS table column, set on a NumPy record (kernels/atlas/driver.py)
_.direction_changes  # ATLAS table column, set on a NumPy record (kernels/atlas/driver.py)
_.reshuffles  # ATLAS table column, set on a NumPy record (kernels/atlas/driver.py)
_.winner_points  # ATLAS table column, set on a NumPy record (kernels/atlas/driver.py)
_.triples  # ATLAS table column, set on a NumPy record (kernels/atlas/driver.py)
_.quads  # ATLAS table column, set on a NumPy record (kernels/atlas/driver.py)
_.fives  # ATLAS table column, set on a NumPy record (kernels/atlas/driver.py)
_.youxian_claims  # ATLAS table column, set on a NumPy record (kernels/atlas/driver.py)
_.last_card_pairs  # ATLAS table column, set on a NumPy record (kernels/atlas/driver.py)
_.self_melds  # ATLAS table column, set on a NumPy record (kernels/atlas/driver.py)
_.skips  # ATLAS table column, set on a NumPy record (kernels/atlas/driver.py)
_.reverses  # ATLAS table column, set on a NumPy record (kernels/atlas/driver.py)
_.trades  # ATLAS table column, set on a NumPy record (kernels/atlas/driver.py)
_.atlas_used  # ATLAS table column, set on a NumPy record (kernels/atlas/driver.py)
_.strategy_id  # ATLAS table column, set on a NumPy record (kernels/atlas/driver.py)
_.atlas_dealt  # ATLAS table column, set on a NumPy record (kernels/atlas/driver.py)
_.skip_dealt  # ATLAS table column, set on a NumPy record (kernels/atlas/driver.py)
_.reverse_dealt  # ATLAS table column, set on a NumPy record (kernels/atlas/driver.py)
_.trade_dealt  # ATLAS table column, set on a NumPy record (kernels/atlas/driver.py)
_.cards_left  # ATLAS table column, set on a NumPy record (kernels/atlas/driver.py)

# PettingZoo and OpenSpiel call these on the environments and games of cardsim/agents/
_.observation_space  # AECEnv: PettingZoo's API (cardsim/agents/pettingzoo_env.py)
_.action_space  # AECEnv: PettingZoo's API
_.make_py_observer  # pyspiel.Game: OpenSpiel asks a Python game for its observer
_._legal_actions  # pyspiel.State: called by OpenSpiel's State.legal_actions
_._apply_action  # pyspiel.State: called by OpenSpiel's State.apply_action
_._action_to_string  # pyspiel.State: called by OpenSpiel's State.action_to_string
_.set_from  # OpenSpiel's PyObserver: fills the observation tensor
_.string_from  # OpenSpiel's PyObserver: the observation string
