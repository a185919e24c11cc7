"""Text rendering: letters per colour, open walls inside a carpet, Assam, the rim."""

from __future__ import annotations

import random

from marrakech import State, random_game
from marrakech.observation import OBSERVATION_SIZE, encode_observation
from marrakech.render import render


def test_render_shows_letters_assam_and_rim() -> None:
    state = State.from_notation(
        "7/3BeBw2/1Rs5/1Rn5/7/7/7 c6N 30,30,30 9,9,10 - - orient:2 standard"
    )
    text = render(state, unicode=False, status=False)
    lines = text.splitlines()
    assert lines[0].count(".---.") == 3 and lines[0].rstrip().endswith("@")  # top arcs, g7 loop
    row6 = next(line for line in lines if line.startswith("6 "))
    assert "| . |^. | B   B |" in row6  # Assam on c6; d6-e6 one carpet: no wall between
    assert "R" in text and "@" in lines[-2]  # the a1 loop below the board


def test_render_unicode_colour_and_status() -> None:
    final, _ = random_game(State.new(2), random.Random(4))
    text = render(final, unicode=True, color=True)
    assert "\x1b[" in text and "↺" in text and "game over" in text
    assert "\x1b[" not in render(final, color=False)
    assert str(final).startswith(render(final, color=False)[:20])


def test_observation_from_each_seat() -> None:
    state = State.from_notation(
        "7/3BeBw2/1Rs5/1Rn5/7/7/7 c6N 30,30,30 9,9,10 - - orient:2 standard"
    )
    mine = encode_observation(state, 1)
    assert len(mine) == OBSERVATION_SIZE
    d6 = 5 * 7 + 3
    assert mine[0 * 49 + d6] == 1.0  # blue is seat 1's own colour: relative colour 0
    assert encode_observation(state, 0)[1 * 49 + d6] == 1.0  # for seat 0 blue is next seat's
    assert mine[4 * 49 + 1 * 49 + d6] == 1.0  # d6's other half lies East
    assert all(0.0 <= v <= 1.0 for v in mine)
