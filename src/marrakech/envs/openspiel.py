"""OpenSpiel game ``python_marrakech``: explicit chance nodes, perfect information.

Importing this module registers the game; load it with its parameters ``players``
(2..4, default 4), ``rules`` (``standard``, ``bga`` or ``custom:...``) and ``reward``
(``rank`` or ``win``)::

    >>> import pyspiel
    >>> import marrakech.envs.openspiel
    >>> game = pyspiel.load_game("python_marrakech", {"players": 3})
    >>> state = game.new_initial_state()
    >>> state.current_player(), state.legal_actions()
    (0, [0, 1, 2])
    >>> state.apply_action(1)
    >>> state.is_chance_node(), [a for a, _ in state.chance_outcomes()]
    (True, [87, 88, 89, 90])
    >>> len(state.observation_tensor(0))
    474

Action ids are the core's everywhere: decisions 0..86 (``num_distinct_actions`` = 87) and
chance outcomes 87..94 (rolls r1..r4, draws +R +B +Y +P; ``max_chance_outcomes`` = 95, of
which only those ids occur), so ``state.history()`` is a core game record as it is.
Observation tensors are the shared ``marrakech_v0`` vector; observation strings are the
position's notation (``State.from_notation`` reads it back).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.observation import IIGObserverForPublicInfoGame

from marrakech.actions import ACTION_IDS, ACTIONS, DECISION_IDS, Action
from marrakech.envs.spec import (
    OUTCOME_REWARDS,
    RewardName,
    check_reward,
    coerce_players,
    coerce_rules,
    outcome_rewards,
)
from marrakech.observation import (
    LAYOUT,
    OBSERVATION_SIZE,
    encode_observation,
    encode_observation_f32,
)
from marrakech.render import render as render_text
from marrakech.rules import RuleSet, colours_in_play
from marrakech.state import CHANCE, TERMINAL, State

SHORT_NAME = "python_marrakech"
_DEFAULTS: dict[str, Any] = {"players": 4, "rules": "standard", "reward": "rank"}
# OpenSpiel's player ids of the core's CHANCE and TERMINAL seats, as plain ints.
_PLAYER_IDS = {CHANCE: int(pyspiel.PlayerId.CHANCE), TERMINAL: int(pyspiel.PlayerId.TERMINAL)}

__all__ = ["SHORT_NAME", "MarrakechGame", "MarrakechState", "max_game_length"]


def _game_type(reward: RewardName) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=SHORT_NAME,
        long_name="Python Marrakech",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=(
            pyspiel.GameType.Utility.ZERO_SUM
            if reward == "rank"
            else pyspiel.GameType.Utility.CONSTANT_SUM
        ),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=4,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(_DEFAULTS),
    )


def max_game_length(players: int, rules: RuleSet) -> int:
    """An upper bound on the actions of one game, chance outcomes included.

    Each carpet costs at most orient + roll + place (+ a draw at 2 players), each
    elimination orient + roll, and a 2-player game opens with two draws (R7).
    """
    carpets = colours_in_play(players) * rules.carpets_per_colour(players)
    per_carpet = 4 if players == 2 else 3
    return carpets * per_carpet + 2 * (players - 1) + 2


# The core gives the chance outcomes of a position as tuples it keeps (the die's, and
# each pile's, cached): their OpenSpiel form (ids, float probabilities) is kept with them.
_FLOAT_OUTCOMES: dict[int, tuple[object, tuple[tuple[int, float], ...]]] = {}


def _float_outcomes(outcomes: Sequence[tuple[Action, Fraction]]) -> tuple[tuple[int, float], ...]:
    kept = _FLOAT_OUTCOMES.get(id(outcomes))
    if kept is not None and kept[0] is outcomes:
        return kept[1]
    floats = tuple((action.id, float(p)) for action, p in outcomes)
    if len(_FLOAT_OUTCOMES) < 4096:  # kept with a reference: its id stays its own
        _FLOAT_OUTCOMES[id(outcomes)] = (outcomes, floats)
    return floats


class MarrakechGame(pyspiel.Game):  # type: ignore[misc]
    """The OpenSpiel game; prefer ``pyspiel.load_game("python_marrakech", {...})``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_DEFAULTS, **(params or {})}
        unknown = set(params) - set(_DEFAULTS)
        if unknown:
            raise ValueError(
                f"unknown parameter(s) {sorted(unknown)}: expected {sorted(_DEFAULTS)}"
            )
        self.players = coerce_players(params["players"])
        self.rules = coerce_rules(str(params["rules"]))
        self.reward_name = check_reward(params["reward"])
        if self.reward_name not in OUTCOME_REWARDS:
            # margin and share have no fixed bounds (GameInfo's min and max utility), and
            # OpenSpiel's algorithms read the returns at the end, where rank and win are.
            raise ValueError(
                f"python_marrakech takes reward 'rank' or 'win', found {self.reward_name!r}: "
                f"margin and share are offered by the Gymnasium, PettingZoo and batched "
                f"environments"
            )
        rank = self.reward_name == "rank"
        info = pyspiel.GameInfo(
            num_distinct_actions=DECISION_IDS,
            max_chance_outcomes=ACTION_IDS,
            num_players=self.players,
            min_utility=-1.0 if rank else 0.0,
            max_utility=1.0,
            utility_sum=0.0 if rank else 1.0,
            max_game_length=max_game_length(self.players, self.rules),
        )
        super().__init__(_game_type(self.reward_name), info, params)
        #: The opening position, shared by every new state (core states are immutable).
        self.initial_core = State.new(self.players, self.rules)

    def new_initial_state(self) -> MarrakechState:
        return MarrakechState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> Any:
        """The ``marrakech_v0`` observer, or the history observer for perfect recall."""
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return MarrakechObserver(params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class MarrakechState(pyspiel.State):  # type: ignore[misc]
    """An OpenSpiel state around an immutable core :class:`State`.

    Besides the methods OpenSpiel's C++ side calls back (``current_player``,
    ``_legal_actions``, ``_apply_action``...), the state answers the calls Python code
    makes most (``legal_actions``, ``is_chance_node``, ``rewards``, ``observation_tensor``)
    in Python directly, with exactly what the C++ side would return: Python algorithms
    (``rl_environment``, MCTS) then skip a round trip through C++ and back per call.
    """

    def __init__(self, game: MarrakechGame) -> None:
        super().__init__(game)
        self._reward_name: RewardName = game.reward_name
        self._set(game.initial_core)

    def _set(self, core: State) -> None:
        self.core = core
        seat = core.to_move
        self._player = seat if seat >= 0 else _PLAYER_IDS[seat]

    # -- the OpenSpiel state API --------------------------------------------------

    def current_player(self) -> int:
        return self._player

    def _legal_actions(self, player: int) -> list[int]:
        if player != self.core.to_move:
            return []
        return self.core.legal_action_ids()

    def legal_actions(self, player: int | None = None) -> list[int]:
        """As OpenSpiel's ``State.legal_actions``: the chance outcomes at a chance node,
        the actions of ``player`` (default: the player to move), none after the end."""
        core = self.core
        if core.is_terminal:
            return []
        if core.is_chance:
            return [action for action, _ in _float_outcomes(core.chance_outcomes())]
        if player is None or player == self._player:
            return core.legal_action_ids()
        if player < 0:
            raise pyspiel.SpielError(f"Called LegalActions for pseudo-player {player}")
        return []

    def is_chance_node(self) -> bool:
        return self.core.is_chance

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return list(_float_outcomes(self.core.chance_outcomes()))

    def _apply_action(self, action: int) -> None:
        self._set(self.core.apply(ACTIONS[action]))

    def _action_to_string(self, player: int, action: int) -> str:
        return str(ACTIONS[action])

    def is_terminal(self) -> bool:
        return self.core.is_terminal

    def returns(self) -> list[float]:
        if not self.core.is_terminal:
            return [0.0] * self.core.players
        return list(outcome_rewards(self.core, self._reward_name))

    def rewards(self) -> list[float]:
        """The rewards of the last action: the returns at the end (terminal rewards)."""
        return self.returns()

    def observation_tensor(self, player: int | None = None) -> list[float]:
        """The ``marrakech_v0`` vector from ``player`` (default: the player to move), the
        float32 values the observer writes, as OpenSpiel returns them (Python floats)."""
        if player is None:
            player = self._player
        if not 0 <= player < self.core.players:
            raise pyspiel.SpielError(
                f"observation_tensor: player must be 0..{self.core.players - 1}, found {player}"
            )
        return encode_observation(self.core, player, float32=True)

    def __str__(self) -> str:
        return render_text(self.core, unicode=False, color=False)


class MarrakechObserver:
    """The ``marrakech_v0`` vector as an OpenSpiel observer (PyObserver interface).

    ``dict`` holds one named view of ``tensor`` per piece of the layout
    (:data:`marrakech.observation.LAYOUT`: ``colours``, ``links``, ``assam``, ``phase``,
    ``facing``, ``seats``), in its shape. Rows of the 7x7 planes are ranks 1..7, columns
    files a..g.

        >>> observer = MarrakechObserver(None)
        >>> {name: view.shape for name, view in observer.dict.items()}["seats"]
        (4, 6)
    """

    def __init__(self, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, found {params}")
        self.tensor = np.zeros(OBSERVATION_SIZE, np.float32)
        self.dict: dict[str, np.ndarray[Any, Any]] = {
            piece.name: self.tensor[piece.offset : piece.end].reshape(piece.shape)
            for piece in LAYOUT
        }

    def set_from(self, state: MarrakechState, player: int) -> None:
        self.tensor[:] = np.frombuffer(encode_observation_f32(state.core, player), np.float32)

    def string_from(self, state: MarrakechState, player: int) -> str:
        return state.core.notation()


if SHORT_NAME not in pyspiel.registered_names():
    pyspiel.register_game(_game_type("rank"), MarrakechGame)
