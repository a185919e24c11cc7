"""What plays a seat for :mod:`marrakech.web.connect`: a bot spec, or a policy file.

An :class:`Agent` answers one decision (orient or place, R9, R14) of the core's
:class:`~marrakech.state.State` within a time budget. It is made from

- a **bot spec** (``docs/bots.md``: ``expert``, ``search:0.5``, ``mcts@iterations=400``):
  :func:`bot_agent`, through :func:`marrakech.bots.make_bot`;
- a **policy file** (``docs/connect.md``): a Python file ``path/to/agent.py`` or an
  importable module ``package.module``, optionally ``:NAME``, exporting one of

  - ``bot``: an object with ``choose(state, rng) -> Action`` (the bots' protocol,
    :class:`marrakech.bots.Bot`);
  - ``choose(state, rng)``: a function answering an :class:`~marrakech.actions.Action`
    or its token (``"L"``, ``"c3-c4"``);
  - ``policy(observation, mask)``: a function of the ``marrakech_v0`` observation (474
    float32 seen from the seat to move) and legal-decision mask (87 booleans, numpy
    arrays: ``docs/environments.md``) answering a decision id (0..86), as a policy
    trained in the environments does.

  Without ``:NAME`` the first of ``bot``, ``choose``, ``policy`` the file defines is
  used; with it, an object with a ``choose`` method is a bot, a function whose first
  parameter is named ``state`` a ``choose``, any other callable a ``policy``.

>>> agent = load_agent("greedy")
>>> from marrakech import State
>>> import random
>>> str(agent.decide(State.new(players=3), random.Random(0), None)) in ("L", "S", "R")
True
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import random
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from marrakech.actions import Action, action_from_id, parse_action
from marrakech.bots import make_bot
from marrakech.bots.base import Bot, StopFlag, choose_stoppable
from marrakech.errors import MarrakechError
from marrakech.state import State

#: The names a policy file is searched for, in this order, when none is given.
ENTRY_POINTS = ("bot", "choose", "policy")


class AgentError(MarrakechError):
    """A bot spec or policy file that cannot play: the message says what was expected."""


@dataclass
class Agent:
    """A player for one seat: ``decide(state, rng, stop)`` answers a legal decision.

    ``stoppable``: told to stop (``stop`` set), it answers at once with its best so far
    (the searching bots); otherwise the client waits for it, within the clock, and
    plays a quick move instead if it is late."""

    name: str
    _decide: Callable[[State, random.Random, StopFlag | None], Action]
    stoppable: bool = False

    def decide(self, state: State, rng: random.Random, stop: StopFlag | None) -> Action:
        """A legal decision of ``state`` (a decision node) for its seat to move."""
        if state.is_chance or state.is_terminal:
            raise ValueError(f"an agent decides at a decision node, found {state.phase.name}")
        action = self._decide(state, rng, stop)
        if action not in state.legal_actions():
            legal = ", ".join(str(a) for a in state.legal_actions())
            raise AgentError(f"{self.name} answered {action}, not one of the legal {legal}")
        return action


def bot_agent(bot: Bot) -> Agent:
    """An agent playing as ``bot`` does (a stop flag ends its search, if it searches)."""

    def decide(state: State, rng: random.Random, stop: StopFlag | None) -> Action:
        return bot.choose(state, rng) if stop is None else choose_stoppable(bot, state, rng, stop)

    return Agent(getattr(bot, "name", type(bot).__name__), decide, hasattr(bot, "stop"))


def _as_action(answer: Any, who: str) -> Action:
    if isinstance(answer, Action):
        return answer
    if isinstance(answer, str):
        return parse_action(answer)
    raise AgentError(f"{who} must answer an Action or an action token, found {answer!r}")


def choose_agent(choose: Callable[[State, random.Random], Any], name: str) -> Agent:
    """An agent of a ``choose(state, rng)`` function (an Action or a token)."""

    def decide(state: State, rng: random.Random, stop: StopFlag | None) -> Action:
        return _as_action(choose(state, rng), name)

    return Agent(name, decide)


def policy_agent(policy: Callable[[Any, Any], Any], name: str) -> Agent:
    """An agent of a ``policy(observation, mask)`` function over ``marrakech_v0``
    (needs numpy: ``pip install 'marrakech[fast]'``)."""
    try:
        import numpy as np
    except ImportError:
        raise AgentError(f"{name}: a policy(observation, mask) needs numpy") from None
    from marrakech.observation import encode_observation_f32

    def decide(state: State, rng: random.Random, stop: StopFlag | None) -> Action:
        observation = np.frombuffer(encode_observation_f32(state, state.to_move), np.float32)
        mask = np.asarray(state.legal_mask(), dtype=bool)
        answer = policy(observation, mask)
        try:
            decision = int(answer)
        except (TypeError, ValueError):
            raise AgentError(f"{name} must answer a decision id 0..86, found {answer!r}") from None
        if not 0 <= decision < len(mask) or not mask[decision]:
            legal = [int(i) for i in np.flatnonzero(mask)]
            raise AgentError(f"{name} answered decision {decision}, not one of the legal {legal}")
        return action_from_id(decision)

    return Agent(name, decide)


def load_agent(spec: str) -> Agent:
    """The agent of a bot spec (``expert``, ``search:0.5``...): :func:`bot_agent`."""
    try:
        return bot_agent(make_bot(spec))
    except ValueError as error:
        raise AgentError(f"bot spec {spec!r}: {error}") from None


def load_policy(spec: str) -> Agent:
    """The agent of a policy file or module: ``path/to/file.py[:NAME]`` or
    ``package.module[:NAME]`` (see the module's docstring for what it may export)."""
    where, _, wanted = spec.partition(":")
    if where.endswith(".py") or Path(where).is_file():
        path = Path(where)
        if not path.is_file():
            raise AgentError(f"policy file {where!r}: expected a Python file, found none there")
        module_name = f"marrakech_policy_{abs(hash(str(path.resolve())))}"
        loader_spec = importlib.util.spec_from_file_location(module_name, path)
        if loader_spec is None or loader_spec.loader is None:
            raise AgentError(f"policy file {where!r}: not a Python file")
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[module_name] = module
        try:
            loader_spec.loader.exec_module(module)
        except Exception as error:
            raise AgentError(f"policy file {where!r} failed to load: {error!r}") from error
    else:
        try:
            module = importlib.import_module(where)
        except ImportError as error:
            raise AgentError(
                f"policy {spec!r}: expected a Python file (FILE.py[:NAME]) or an importable "
                f"module (package.module[:NAME]), found neither ({error})"
            ) from None
    names = (wanted,) if wanted else ENTRY_POINTS
    for name in names:
        found = getattr(module, name, None)
        if found is not None:
            return agent_of(found, f"{where}:{name}")
    expected = f"{wanted!r}" if wanted else "bot, choose or policy"
    raise AgentError(f"policy {where!r}: expected it to define {expected}, found none")


def agent_of(thing: Any, name: str) -> Agent:
    """An agent of whatever plays: an :class:`Agent`, a bot (``choose`` method), a
    ``choose(state, rng)`` function (first parameter named ``state``) or a
    ``policy(observation, mask)`` callable."""
    if isinstance(thing, Agent):
        return thing
    if hasattr(thing, "choose") and callable(thing.choose):
        return bot_agent(thing)
    if not callable(thing):
        raise AgentError(f"{name}: expected a bot, a choose or a policy, found {thing!r}")
    try:
        parameters = list(inspect.signature(thing).parameters)
    except (TypeError, ValueError):
        parameters = []
    if parameters[:1] == ["state"] or name.endswith(":choose"):
        return choose_agent(thing, name)
    return policy_agent(thing, name)


def quick_agent() -> Agent:
    """What plays when the chosen agent would be late: ``greedy`` (a few milliseconds)."""
    return bot_agent(make_bot("greedy"))


class StopTimer:
    """A stop flag set after ``seconds`` (None: never), for a searching bot's budget."""

    def __init__(self, seconds: float | None) -> None:
        self.flag = threading.Event()
        self._timer = None if seconds is None else threading.Timer(seconds, self.flag.set)
        if self._timer is not None:
            self._timer.daemon = True
            self._timer.start()

    def cancel(self) -> None:
        self.flag.set()
        if self._timer is not None:
            self._timer.cancel()


def default_name(agent: Agent) -> str:
    """The name a joined seat gets when none is given: the agent's, marked as a bot.

    >>> default_name(load_agent("greedy"))
    'greedy (bot)'
    """
    return f"{agent.name[:33]} (bot)"
