"""Matches: seat rotation, per-game seeds, records, results that do not depend on the
number of workers, resume and Ctrl-C."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from marrakech import State
from marrakech.arena import (
    GameResult,
    MatchConfig,
    arrangements,
    game_seed,
    play_game,
    read_results,
    run_match,
    summarise,
)
from marrakech.errors import MarrakechError
from marrakech.record import GameRecord
from marrakech.rules import BGA

FAST = ("greedy", "random")


def test_arrangements_rotate_every_bot_through_every_seat() -> None:
    four = arrangements(("mcts", "greedy", "greedy", "greedy"))
    assert len(four) == 4
    assert {order.index("mcts") for order in four} == {0, 1, 2, 3}
    assert len(arrangements(("a", "b", "c", "d"))) == 24
    assert arrangements(("a", "b")) == [("a", "b"), ("b", "a")]


def test_game_seeds_depend_on_seed_and_index_only() -> None:
    assert game_seed(1, 5) == game_seed(1, 5)
    assert len({game_seed(1, i) for i in range(100)}) == 100
    assert game_seed(1, 5) != game_seed(2, 5)
    assert game_seed(1, 5, "seat0") != game_seed(1, 5)


def test_a_game_is_recorded_and_replays_exactly() -> None:
    config = MatchConfig(3, ("greedy", "random", "random"), games=3, seed=4, rules=BGA)
    result = play_game(config, 1)
    assert result.seats == config.arrangement(1)
    replayed = GameRecord.from_json(result.record.to_json()).final_state()
    assert replayed.is_terminal
    assert replayed.scores() == result.scores
    assert replayed.ranks() == result.ranks
    assert result.record.rules == BGA
    assert result.record.seats == tuple(f"bot:{s}" for s in result.seats)
    assert play_game(config, 1).record == result.record  # same seed, same game


def test_same_seed_same_results_with_one_or_two_workers(tmp_path: Path) -> None:
    config = MatchConfig(2, FAST, games=6, seed=9)
    one = run_match(config, workers=1, out=tmp_path / "one.jsonl")
    two = run_match(config, workers=2, out=tmp_path / "two.jsonl")
    assert one.complete and two.complete
    assert [g.record for g in one.games] == [g.record for g in two.games]

    def table(games: list[GameResult]) -> list[tuple[str, float, float, float]]:
        # Everything but the time the bots took.
        return [(r.bot, r.wins, r.mean_score, r.rating) for r in summarise(games)]

    assert table(one.games) == table(two.games)


def test_results_file_holds_header_games_and_summary(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    config = MatchConfig(2, FAST, games=4, seed=2)
    run_match(config, out=path)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["type"] for line in lines] == ["match", "game", "game", "game", "game", "summary"]
    stored, games = read_results(path)
    assert stored == config
    assert [g.index for g in games] == [0, 1, 2, 3]
    assert lines[-1]["bots"][0]["games"] == 4


def test_ctrl_c_keeps_finished_games_and_resume_completes_them(tmp_path: Path) -> None:
    path = tmp_path / "match.jsonl"
    config = MatchConfig(2, FAST, games=6, seed=3)

    def stop_after_two(done: int, total: int, elapsed: float) -> None:
        if done >= 2:
            raise KeyboardInterrupt

    stopped = run_match(config, out=path, progress=stop_after_two)
    assert stopped.interrupted and len(stopped.games) == 2
    assert len(read_results(path)[1]) == 2
    resumed = run_match(config, out=path, resume=True)
    assert resumed.complete
    whole = run_match(config, out=tmp_path / "whole.jsonl")
    assert [g.record for g in resumed.games] == [g.record for g in whole.games]


def test_resume_ignores_a_torn_last_line(tmp_path: Path) -> None:
    path = tmp_path / "torn.jsonl"
    config = MatchConfig(2, FAST, games=3, seed=3)
    run_match(config, out=path)
    text = path.read_text().splitlines()
    path.write_text("\n".join(text[:2]) + '\n{"type": "game", "ind')  # killed mid-write
    _, games = read_results(path)
    assert len(games) == 1
    assert run_match(config, out=path, resume=True).complete


def test_resume_refuses_another_match(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    run_match(MatchConfig(2, FAST, games=2, seed=1), out=path)
    with pytest.raises(MarrakechError, match="another match"):
        run_match(MatchConfig(2, FAST, games=2, seed=2), out=path, resume=True)


def test_bad_configurations_are_explained() -> None:
    with pytest.raises(MarrakechError, match="one bot per seat"):
        MatchConfig(4, ("greedy", "random"), games=4)
    with pytest.raises(MarrakechError, match="unknown bot"):
        MatchConfig(2, ("greedy", "genius"), games=4)
    with pytest.raises(MarrakechError, match="at least 1 game"):
        MatchConfig(2, FAST, games=0)
    with pytest.raises(MarrakechError, match="backend"):
        run_match(MatchConfig(2, FAST, games=1), backend="slurm")


def test_four_player_match_balances_first_seat() -> None:
    config = MatchConfig(4, ("greedy", "random", "random", "random"), games=4, seed=0)
    outcome = run_match(config)
    seats = [g.seats.index("greedy") for g in outcome.games]
    assert sorted(seats) == [0, 1, 2, 3]
    assert all(State.new(4).players == len(g.scores) for g in outcome.games)


def test_a_match_can_be_extended_to_more_games(tmp_path: Path) -> None:
    path = tmp_path / "grow.jsonl"
    run_match(MatchConfig(2, FAST, games=2, seed=8), out=path)
    longer = MatchConfig(2, FAST, games=4, seed=8)
    grown = run_match(longer, out=path, resume=True)
    assert grown.complete
    assert read_results(path)[0] == longer
    fresh = run_match(longer)
    assert [g.record for g in grown.games] == [g.record for g in fresh.games]


def test_a_match_of_bots_with_long_specs_resumes(tmp_path: Path) -> None:
    """A network's spec names its file's path (``az@weights=...``): far past a player's
    name, and its results file still reads back and resumes (a record written is one
    that reads back). A spec too long for a record's seat is refused before any game."""
    from marrakech.fast.az_network import Network

    folder = tmp_path / ("networks-of-a-long-training-run-" * 3) / ("generation-" * 5)
    folder.mkdir(parents=True)
    Network.initial(8, 2, seed=1).save(folder / "gen-0001.npz")
    spec = f"az@weights={folder / 'gen-0001.npz'}@simulations=2"
    assert len(spec) > 150
    config = MatchConfig(2, (spec, "random"), games=3, seed=1)
    path = tmp_path / "long.jsonl"

    def stop_after_one(done: int, total: int, elapsed: float) -> None:
        if done >= 1:
            raise KeyboardInterrupt

    run_match(config, out=path, progress=stop_after_one)
    assert run_match(config, out=path, resume=True).complete
    _, games = read_results(path)
    assert len(games) == 3 and games[0].record.seats[0] == f"bot:{spec}"
    with pytest.raises(MarrakechError, match=r"expected a spec of at most 996 characters"):
        MatchConfig(2, (f"az@weights={'x' * 1000}.npz", "random"), games=1)
