"""How long a bot's turn takes in the terminal app at each animation speed.

Not a test: it prints numbers (close other work on the machine first). A real app runs
headless (Textual's pilot) with you against three bots; you roll and place with Enter,
and each bot turn is timed from the placement before it to its own placement (the pauses,
Assam's walk, the tithe and the bot's thinking, which runs during the pause before each
decision). docs/terminal.md's table of speeds comes from this script::

    .venv/bin/python benchmarks/bench_tui_speeds.py                       # medium bots
    .venv/bin/python benchmarks/bench_tui_speeds.py --level hard --speeds fast --rounds 4
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from marrakech.actions import Place
from marrakech.tui.app import MarrakechApp, PlayOptions
from marrakech.tui.game_screen import GameScreen
from marrakech.tui.session import SeatSpec
from marrakech.tui.timing import SPEEDS

SIZE = (96, 30)


async def _settle(pilot) -> GameScreen:  # type: ignore[no-untyped-def]
    """Wait until a human must decide, and return the game screen."""
    app = pilot.app
    while True:
        await app.workers.wait_for_complete()
        await pilot.pause(0)
        screen = app.screen
        if isinstance(screen, GameScreen) and not screen.busy:
            return screen


async def bot_turn_seconds(speed: str, level: str, rounds: int, seed: int) -> list[float]:
    """Seconds of each bot turn over ``rounds`` of the table (three bots of ``level``)."""
    seats = (SeatSpec.human(), *[SeatSpec.bot(level)] * 3)
    options = PlayOptions(players=4, seats=seats, seed=seed, first_seat=0, speed=speed)
    app = MarrakechApp(options)
    turns: list[float] = []
    async with app.run_test(size=SIZE) as pilot:
        game = await _settle(pilot)
        for _ in range(rounds):
            await pilot.press("enter")  # roll
            game = await _settle(pilot)
            seen = len(game.session.events) + 1  # after your placement
            await pilot.press("enter")  # place: the bots play
            placed = time.monotonic()
            while True:
                for event in game.session.events[seen:]:
                    if isinstance(event.action, Place):
                        turns.append(time.monotonic() - placed)
                        placed = time.monotonic()
                seen = len(game.session.events)
                if game.session.human_to_move and not game.busy:
                    break
                await pilot.pause(0.002)
    return turns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--speeds", default="slow,normal,fast", help="comma-separated")
    parser.add_argument("--level", default="medium", help="the three bots' level")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the table per speed")
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    print(f"{'speed':<8} {'bot turns':>9} {'average':>8} {'longest':>8}  ({args.level} bots)")
    for speed in args.speeds.split(","):
        if speed not in SPEEDS:
            parser.error(f"--speeds: expected some of {', '.join(SPEEDS)}, found {speed!r}")
        turns = asyncio.run(bot_turn_seconds(speed, args.level, args.rounds, args.seed))
        mean = statistics.fmean(turns)
        print(f"{speed:<8} {len(turns):>9} {mean:>7.2f}s {max(turns):>7.2f}s")


if __name__ == "__main__":
    main()
