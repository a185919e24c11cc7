"""The arena: matches between bots with rotated seats, in parallel, with ratings.

>>> outcome = run_match(MatchConfig(players=2, bots=("greedy", "random"), games=2, seed=5))
>>> [row.bot for row in summarise(outcome.games)] in (["greedy", "random"], ["random", "greedy"])
True
"""

from marrakech.arena.match import GameResult, MatchConfig, arrangements, game_seed, play_game
from marrakech.arena.runner import (
    MatchOutcome,
    ProgressBar,
    is_results_file,
    read_game,
    read_results,
    run_match,
)
from marrakech.arena.stats import BotSummary, bradley_terry, format_table, summarise, wilson

__all__ = [
    "BotSummary",
    "GameResult",
    "MatchConfig",
    "MatchOutcome",
    "ProgressBar",
    "arrangements",
    "bradley_terry",
    "format_table",
    "game_seed",
    "is_results_file",
    "play_game",
    "read_game",
    "read_results",
    "run_match",
    "summarise",
    "wilson",
]
