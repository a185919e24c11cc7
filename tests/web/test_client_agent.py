"""What plays a seat for ``marrakech connect``: bot specs and policy files (bot,
choose, policy over ``marrakech_v0``), their errors, links and the view's merge
(docs/connect.md)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from marrakech import State
from marrakech.actions import parse_action
from marrakech.web.connect import AgentError, ConnectError, load_agent, load_policy, parse_target
from marrakech.web.connect.agent import agent_of
from marrakech.web.connect.game_client import merge_changes

START = State.new(players=3)


def decide(agent_spec: str | object, state: State = START) -> str:
    agent = load_policy(agent_spec) if isinstance(agent_spec, str) else agent_of(agent_spec, "x")
    return str(agent.decide(state, random.Random(0), None))


def test_a_bot_spec_plays_and_a_searching_bot_can_be_stopped() -> None:
    assert str(load_agent("greedy").decide(START, random.Random(0), None)) in "LSR"
    search = load_agent("search:0.5")
    assert search.stoppable
    assert not load_agent("easy").stoppable
    with pytest.raises(AgentError, match="bot spec 'nosuchbot'"):
        load_agent("nosuchbot")


def test_policy_files_of_each_kind(tmp_path: Path) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text("from marrakech.bots import make_bot\nbot = make_bot('greedy')\n")
    assert decide(str(bot)) in ("L", "S", "R")
    choose = tmp_path / "choose.py"
    choose.write_text("def choose(state, rng):\n    return 'R'\n")
    assert decide(str(choose)) == "R"
    policy = tmp_path / "policy.py"
    policy.write_text(
        "import numpy as np\n"
        "seen = []\n"
        "def policy(observation, mask):\n"
        "    seen.append((observation.shape, observation.dtype.name, mask.dtype.name))\n"
        "    return int(np.flatnonzero(mask)[0])\n"
        "def other(observation, mask):\n"
        "    return 2\n"
    )
    assert decide(str(policy)) == "L"  # decision id 0
    assert decide(f"{policy}:other") == "R"  # decision id 2


def test_a_policy_module_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "my_agents.py").write_text(
        "def cautious(state, rng):\n    return 'S'\n"
        "class Picky:\n    name = 'picky'\n"
        "    def choose(self, state, rng):\n        return state.legal_actions()[-1]\n"
        "picky = Picky()\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert decide("my_agents:cautious") == "S"  # first parameter named state: a choose
    assert decide("my_agents:picky") == "R"  # a choose method: a bot
    assert load_policy("my_agents:picky").name == "picky"


def test_policy_answers_are_checked(tmp_path: Path) -> None:
    illegal = tmp_path / "illegal.py"
    illegal.write_text("def policy(observation, mask):\n    return 40\n")  # a placement
    with pytest.raises(AgentError, match="answered decision 40, not one of the legal"):
        decide(str(illegal))
    wrong = tmp_path / "wrong.py"
    wrong.write_text("def choose(state, rng):\n    return 3.5\n")
    with pytest.raises(AgentError, match="must answer an Action or an action token"):
        decide(str(wrong))
    with pytest.raises(AgentError, match="expected a Python file, found none there"):
        load_policy(str(tmp_path / "missing.py"))
    with pytest.raises(AgentError, match="found neither"):
        load_policy("no_such_module_here")
    empty = tmp_path / "empty.py"
    empty.write_text("x = 1\n")
    with pytest.raises(AgentError, match="expected it to define bot, choose or policy"):
        load_policy(str(empty))
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('boom')\n")
    with pytest.raises(AgentError, match="failed to load: RuntimeError"):
        load_policy(str(broken))


def test_an_agent_never_answers_a_chance_node() -> None:
    rolling = START.apply(parse_action("S"))
    assert rolling.is_chance
    with pytest.raises(ValueError, match="decision node"):
        load_agent("greedy").decide(rolling, random.Random(0), None)


def test_links() -> None:
    invited = parse_target("http://127.0.0.1:8000/g/abc#t=T1")
    assert invited.tokens == ("T1",) and invited.game_id == "abc"
    assert invited.socket_url() == "ws://127.0.0.1:8000/ws/abc"
    assert invited.link() == "http://127.0.0.1:8000/g/abc#t=T1"
    assert parse_target("https://x.org/g/abc").socket_url() == "wss://x.org/ws/abc"
    assert parse_target("wss://x.org/").site == "https://x.org/"
    for bad in ("x.org", "ftp://x.org/", "http://x.org/g/", "http:///g/abc"):
        with pytest.raises(ConnectError, match="expected a seat's invitation link"):
            parse_target(bad)


def test_changes_merge_as_the_page_merges_them() -> None:
    view = {"seats": [{"dirhams": 30}, {"dirhams": 30}], "phase": "orient", "notation": "a"}
    changes = {"seats": {"1": {"dirhams": 27}}, "phase": "roll", "notation": "b"}
    assert merge_changes(view, changes) == {
        "seats": [{"dirhams": 30}, {"dirhams": 27}],
        "phase": "roll",
        "notation": "b",
    }
    assert view["phase"] == "orient"  # the old view is left as it was
