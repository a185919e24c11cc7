"""Recorded games as an offline dataset (envs/dataset.py): exact replays of arena games."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from marrakech import State
from marrakech.actions import DECISION_IDS
from marrakech.bots import make_bot
from marrakech.envs.dataset import (
    DEFAULT_SOURCES,
    game_files,
    iter_games,
    load_decisions,
)
from marrakech.envs.spec import final_margins, observation
from marrakech.errors import NotationError
from marrakech.record import GameRecord

ARENA_FILE = DEFAULT_SOURCES[0] / "greedy-random-2p.jsonl"


def arena_lines(count: int) -> list[str]:
    """The match line and the first ``count`` game lines of an arena results file."""
    lines = ARENA_FILE.read_text(encoding="utf-8").splitlines()
    return lines[: count + 1]


def test_decisions_replay_the_arena_games_exactly(tmp_path: Path) -> None:
    games_file = tmp_path / "games.jsonl"
    lines = arena_lines(3)
    games_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    games = list(iter_games([games_file]))
    assert len(games) == 3
    for line, game in zip(lines[1:], games, strict=True):
        written = json.loads(line)
        record = GameRecord.from_dict(written["record"])
        deciding = [
            (state, action)
            for state, action in zip(record.states(), record.actions, strict=False)
            if state.to_move >= 0
        ]
        assert game.actions.tolist() == [action.id for _, action in deciding]
        for k, (state, _) in enumerate(deciding):
            assert game.seats[k] == state.to_move
            assert np.array_equal(game.observations[k], observation(state, state.to_move))
            assert game.masks[k].tolist() == state.legal_mask()
        # every action played is legal where it was played
        assert game.masks[np.arange(len(game.actions)), game.actions].all()
        # the outcome is the one the arena wrote: ranks (R21) and scores (R20)
        assert game.ranks.tolist() == written["ranks"]
        assert game.scores.tolist() == written["scores"]
        assert game.seat_names == tuple(written["seats"])
        assert game.over and game.source == f"{games_file}:{lines.index(line) + 1}"
        assert game.margins.sum() == 0
        assert game.margins[0] == written["scores"][0] - written["scores"][1]


def test_load_decisions_gives_each_decision_its_seats_outcome(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text("\n".join(arena_lines(4)) + "\n", encoding="utf-8")
    data = load_decisions([tmp_path], players=2, max_games=3)
    games = list(iter_games([tmp_path]))[:3]
    assert data.observations.shape == (len(data.actions), 474)
    assert data.masks.shape == (len(data.actions), DECISION_IDS)
    assert sorted(set(data.games.tolist())) == [0, 1, 2]
    for k, game in enumerate(games):
        rows = data.games == k
        assert np.array_equal(data.actions[rows], game.actions)
        assert np.array_equal(data.rank_rewards[rows], game.rank_rewards[game.seats])
        assert np.array_equal(data.margins[rows], game.margins[game.seats])
        assert np.array_equal(data.win_shares[rows], game.win_shares[game.seats])
        names = [data.names[i] for i in data.bots[rows]]
        assert names == [game.seat_names[s] for s in game.seats]
        assert data.game_ranks[k].tolist() == game.ranks.tolist()
    assert set(data.names) == {"greedy", "random"}
    # the winner's decisions carry +1 (rank) and 1 (win), the loser's -1 and 0
    assert set(data.rank_rewards.tolist()) <= {-1.0, 0.0, 1.0}
    assert np.array_equal(data.win_shares == 1, data.rank_rewards == 1)


def random_record(players: int, seed: int) -> GameRecord:
    rng = random.Random(seed)
    bot = make_bot("random")
    state = State.new(players)
    actions = []
    while not state.is_terminal:
        action = (
            rng.choice([a for a, _ in state.chance_outcomes()])
            if state.is_chance
            else bot.choose(state, rng)
        )
        actions.append(action)
        state = state.apply(action)
    return GameRecord.from_actions(State.new(players), actions, seats=("bot:random",) * players)


def test_more_games_are_added_as_files_of_records(tmp_path: Path) -> None:
    """Self-play or any other games join the dataset as files of one record per line."""
    more = tmp_path / "self-play"
    more.mkdir()
    records = [random_record(3, 1), random_record(2, 2)]
    (more / "games.jsonl").write_text(
        "".join(record.to_json() + "\n" for record in records), encoding="utf-8"
    )
    (tmp_path / "arena.jsonl").write_text("\n".join(arena_lines(2)) + "\n", encoding="utf-8")
    assert game_files([tmp_path]) == [tmp_path / "arena.jsonl", more / "games.jsonl"]
    three = list(iter_games([tmp_path], players=3))
    assert len(three) == 1 and three[0].seat_names == ("random",) * 3
    assert three[0].ranks.tolist() == list(records[0].final_state().ranks())
    assert len(list(iter_games([tmp_path], players=2))) == 3
    assert len(list(iter_games([tmp_path], bots=["greedy"]))) == 2


def test_bad_input_is_refused_with_its_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(arena_lines(1)[1] + "\n" + '{"hello": 1}\n', encoding="utf-8")
    with pytest.raises(NotationError, match=r"bad.jsonl:2: expected an arena \"game\" line"):
        list(iter_games([bad]))
    with pytest.raises(FileNotFoundError, match="expected a games file or directory"):
        game_files([tmp_path / "missing"])
    with pytest.raises(ValueError, match="max_games must be None or >= 0"):
        load_decisions([bad], players=2, max_games=-1)


def test_final_margins_sum_to_zero() -> None:
    assert final_margins((84, 17)) == (67.0, -67.0)
    assert final_margins((40, 30, 20, 10)) == (20.0, 20 / 3, -20 / 3, -20.0)


def test_the_default_games_are_the_arenas_results() -> None:
    files = game_files()
    assert ARENA_FILE in files and len(files) > 40
    count = sum(
        1 for path in files for line in path.open(encoding="utf-8") if '"type":"game"' in line
    )
    assert count > 10_000


def test_the_default_games_include_the_trainers_self_play() -> None:
    """Issue 38, item 6: the self-play games of the committed ``marrakech train`` runs are
    default games too (and only their games files: a run's log is no game)."""
    selfplay = [path for path in game_files() if "training" in path.parts]
    assert selfplay and all(path.name.startswith("games-") for path in selfplay)
    game = next(iter_games([selfplay[-1]]))
    assert game.over and len(game.actions) > 20
    assert all(name.startswith("az-gen") for name in game.seat_names)
