"""Learned policies as bots (issue 27): the shipped weights, the file format, the
callables, and their strength against ``random``."""

from __future__ import annotations

import io
import json
import random
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from marrakech import State
from marrakech.arena import MatchConfig, run_match, summarise
from marrakech.bots import Bot, make_bot
from marrakech.bots.policy import FORMAT, SHIPPED, PolicyBot, PolicyError, load_policy
from marrakech.observation import encode_observation_f32


def first_legal(observation: Any, mask: Any) -> int:
    """A policy function as ``policy@function=`` takes it: the lowest legal id."""
    assert observation.shape == (474,) and mask.shape == (87,)
    return int(np.flatnonzero(mask)[0])


def always_fifty(observation: Any, mask: Any) -> int:
    return 50


def _decision(players: int) -> State:
    """The first decision of a game (at two players the piles are drawn first, R7)."""
    state, rng = State.new(players=players), random.Random(0)
    while state.is_chance:
        state = state.apply(rng.choice(state.legal_actions()))
    return state


def _play(bot: Bot, players: int, seed: int) -> State:
    """A whole game with ``bot`` in every seat; ``State.apply`` refuses illegal moves."""
    rng = random.Random(seed)
    state = State.new(players=players)
    while not state.is_terminal:
        if state.is_chance:
            state = state.apply(rng.choice(state.legal_actions()))
        else:
            action = bot.choose(state, rng)
            assert action in state.legal_actions()
            state = state.apply(action)
    return state


@pytest.mark.parametrize("players", [2, 4])
def test_the_shipped_policies_load_from_the_package_and_play_legal_games(players: int) -> None:
    name = f"policy-{players}p"
    network = load_policy(name)  # read from marrakech/bots/data through importlib.resources
    assert network.meta["format"] == FORMAT and network.players == players
    assert network.shapes[0][0] == 474 and network.shapes[-1][1] == 87
    assert network.meta["trained_by"].startswith("scripts/train_policy.py")
    bot = make_bot(name)
    assert isinstance(bot, PolicyBot) and bot.name == name
    assert _play(bot, players, seed=players).is_terminal


def test_numpy_and_plain_python_choose_the_same_decisions() -> None:
    """Without numpy the bot reads the file with zipfile and sums in Python: the same
    decisions as the numpy path, at every decision of two games."""
    network = load_policy("policy-2p")
    rng = random.Random(3)
    compared = 0
    for _ in range(2):
        state = State.new(players=2)
        while not state.is_terminal:
            if state.is_chance:
                state = state.apply(rng.choice(state.legal_actions()))
                continue
            legal = [action.id for action in state.legal_actions()]
            observation = encode_observation_f32(state, state.turn)
            assert network.decide(observation, legal) == network._decide_python(observation, legal)
            compared += 1
            state = state.apply(rng.choice(state.legal_actions()))
    assert compared > 100


@pytest.mark.parametrize(("policy", "players"), [("policy-2p", 4), ("policy-4p", 2)])
def test_a_policy_refuses_a_game_of_another_player_count(policy: str, players: int) -> None:
    trained = policy[-2]
    with pytest.raises(ValueError, match=f"trained for {trained}-player games, found a {players}"):
        make_bot(policy).choose(_decision(players), random.Random(0))


def test_the_shipped_policies_beat_random() -> None:
    """Through the arena, seats rotated, 40 seeded games at two players and 40 at four.
    A policy no better than random wins 50% and 25% on average; over 40 games it reaches
    75% and 45% with probability below 0.1% and 1%."""
    two = run_match(MatchConfig(2, ("policy-2p", "random"), games=40, seed=11))
    four = run_match(MatchConfig(4, ("policy-4p", "random", "random", "random"), 40, seed=11))
    share2 = {row.bot: row.win_share for row in summarise(two.games)}["policy-2p"]
    share4 = {row.bot: row.win_share for row in summarise(four.games)}["policy-4p"]
    assert share2 >= 0.75, share2
    assert share4 >= 0.45, share4


def test_the_bare_policy_plays_the_shipped_policy_of_the_player_count() -> None:
    bot = make_bot("policy")
    for players in (2, 4):
        state = _decision(players)
        expected = make_bot(f"policy-{players}p").choose(state, random.Random(0))
        assert bot.choose(state, random.Random(0)) == expected
    with pytest.raises(
        ValueError,
        match=r"plays 2- or 4-player games only, those of the shipped policies "
        r"\(policy-2p, policy-4p\), found a 3-player game",
    ):
        bot.choose(State.new(players=3), random.Random(0))


def test_a_policy_function_plays_through_make_bot() -> None:
    bot = make_bot("policy@function=tests.bots.test_policy:first_legal")
    state = State.new(players=3)
    assert bot.choose(state, random.Random(0)).id == 0  # orient left: the lowest legal id
    assert _play(bot, 3, seed=1).is_terminal  # any player count: a function declares none


def test_a_policy_function_that_answers_an_illegal_id_is_refused() -> None:
    bot = make_bot("policy@function=tests.bots.test_policy:always_fifty")
    with pytest.raises(PolicyError, match="returned 50, not legal here: expected one of 0, 1, 2"):
        bot.choose(_decision(2), random.Random(0))


def _npz(path: Path, **arrays: Any) -> Path:
    np.savez(path, **arrays)
    return path


def _meta(**fields: Any) -> Any:
    return np.frombuffer(json.dumps({"format": FORMAT, **fields}).encode(), dtype=np.uint8)


def test_a_policy_file_in_the_format_plays(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    path = _npz(
        tmp_path / "tiny.npz",
        w0=rng.standard_normal((474, 8)).astype("<f4"),
        b0=np.zeros(8, "<f4"),
        w1=rng.standard_normal((8, 87)).astype("<f4"),
        b1=np.zeros(87, "<f4"),
        meta=_meta(players=2),
    )
    bot = make_bot(f"policy@weights={path}")
    assert isinstance(bot, PolicyBot) and bot.players == 2
    assert _play(bot, 2, seed=2).is_terminal


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "not found"),
        (b"not a zip", r"not a \.npz file"),
        ({"w0": np.zeros((474, 87), "<f4"), "b0": np.zeros(87, "<f4")}, "no 'meta' array"),
        (
            {"w0": np.zeros((474, 87), "<f4"), "b0": np.zeros(87, "<f4"), "meta": "old"},
            "expected format marrakech-policy-1",
        ),
        (
            {"w0": np.zeros((400, 87), "<f4"), "b0": np.zeros(87, "<f4"), "meta": "ok"},
            r"w0 must be \(474, n\), found \(400, 87\)",
        ),
        (
            {"w0": np.zeros((474, 10), "<f4"), "b0": np.zeros(10, "<f4"), "meta": "ok"},
            "from 474 inputs to 87 logits",
        ),
        (
            {"w0": np.zeros((474, 87), "<f8"), "b0": np.zeros(87, "<f4"), "meta": "ok"},
            "expected float32",
        ),
    ],
)
def test_a_bad_policy_file_gets_a_clear_error(tmp_path: Path, content: Any, message: str) -> None:
    path = tmp_path / "bad.npz"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, dict):
        arrays = dict(content)
        if "meta" in arrays:
            text = {"format": "old"} if arrays["meta"] == "old" else {"format": FORMAT}
            arrays["meta"] = np.frombuffer(json.dumps(text).encode(), dtype=np.uint8)
        _npz(path, **arrays)
    with pytest.raises(ValueError, match=message):
        make_bot(f"policy@weights={path}")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("policy@weights=policy-2p@function=a:b", "found both"),
        ("policy@function=no_such_module_xyz:act", "cannot import no_such_module_xyz"),
        ("policy@function=tests.bots.test_policy:missing", "has no missing"),
        ("policy@function=nocolon", "expected a policy function as MODULE:CALLABLE"),
    ],
)
def test_a_bad_policy_spec_gets_a_clear_error(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_bot(spec)


def test_the_shipped_files_are_in_the_package_data() -> None:
    """The wheel carries bots/data/*.npz (pyproject's package-data), a few MB at most."""
    from importlib import resources

    text = Path(__file__).resolve().parents[2].joinpath("pyproject.toml").read_text()
    assert '"bots/data/*.npz"' in text
    for file in SHIPPED.values():
        data = resources.files("marrakech.bots").joinpath("data", file).read_bytes()
        assert 0 < len(data) < 4_000_000
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            assert "meta.npy" in archive.namelist()


def test_the_shipped_policy_plays_without_numpy() -> None:
    """The base install has no numpy: the policy file is read with zipfile and the
    network runs in plain Python (a fresh interpreter with numpy and Numba blocked)."""
    import subprocess
    import sys

    program = (
        "import sys; sys.modules['numpy'] = None; sys.modules['numba'] = None\n"
        "import random\n"
        "from marrakech import State\n"
        "from marrakech.bots import make_bot\n"
        "bot = make_bot('policy-4p')\n"
        "assert bot.network._numpy is None\n"
        "rng, state = random.Random(1), State.new(players=4)\n"
        "while not state.is_terminal:\n"
        "    legal = state.legal_actions()\n"
        "    choice = rng.choice(legal) if state.is_chance else bot.choose(state, rng)\n"
        "    assert choice in legal\n"
        "    state = state.apply(choice)\n"
        "print('over', state.outcome().over)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "over True"
