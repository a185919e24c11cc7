"""Write an SVG screenshot of a game in progress; the one in ``docs/``, byte for byte::

    python -m marrakech.tui.screenshot docs/screenshot-terminal.svg --seed 2 --turn 7 --cycle 1

It plays a seeded 4-player game (you, first, against three medium bots) by pressing
Enter for the human, stops at the human's placement of turn ``--turn`` and previews the
placement ``--cycle`` Tab presses on (``tests/tui/test_tui_docs.py`` checks that the
command reproduces the committed picture).
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from marrakech.tui.app import MarrakechApp, PlayOptions
from marrakech.tui.game_screen import GameScreen
from marrakech.tui.screen_base import Timing
from marrakech.tui.session import SeatSpec


async def capture(
    path: Path,
    *,
    seed: int = 2,
    turn: int = 9,
    cycle: int = 2,
    size: tuple[int, int] = (124, 40),
    lang: str = "en",
) -> None:
    seats = (SeatSpec.human(), *([SeatSpec.bot("medium")] * 3))
    options = PlayOptions(
        players=4, seats=seats, seed=seed, first_seat=0, lang=lang, timing=Timing.instant()
    )
    app = MarrakechApp(options)
    async with app.run_test(size=size) as pilot:
        placements = 0
        for _ in range(10_000):
            await app.workers.wait_for_complete()
            await pilot.pause(0)
            screen = app.screen
            if not isinstance(screen, GameScreen):
                raise RuntimeError(f"the game ended before turn {turn}")
            if screen.busy:
                continue
            if screen.can_place:
                placements += 1
                if placements == turn:
                    break
            await pilot.press("enter")
        for _ in range(cycle):
            await pilot.press("tab")
        await pilot.pause()
        path.write_text(app.export_screenshot(title="marrakech play"), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description="Write an SVG screenshot of a game in progress.")
    parser.add_argument("output", type=Path)
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--turn", type=int, default=9)
    parser.add_argument("--cycle", type=int, default=2, help="Tab presses before the shot")
    parser.add_argument("--lang", default="en")
    args = parser.parse_args()
    asyncio.run(
        capture(args.output, seed=args.seed, turn=args.turn, cycle=args.cycle, lang=args.lang)
    )


if __name__ == "__main__":
    main()
