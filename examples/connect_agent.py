"""Your own agent on a Marrakech server: a policy file for ``marrakech connect``.

    marrakech connect 'http://127.0.0.1:8000/g/GAME#t=TOKEN' --policy examples/connect_agent.py
    python examples/connect_agent.py http://127.0.0.1:8000/ --name "Cautious agent"

``marrakech connect`` loads this file and calls :func:`choose` at each decision of its
seat (orient, R9; place, R14-R16) with the core's state; rolls and draws are the
server's. The seat is shown to the other players as "bot (external)". Run as a script,
the file plays through :func:`marrakech.web.connect.play_seat` (docs/connect.md): the
URL is an invitation link, a game's link or a server's root (an open seat of its lobby).

This agent orients away from tithes (the orientation with the least expected loss,
:func:`marrakech.threat.cheapest_orient`) and places a carpet at random: replace either
with your own.
"""

from __future__ import annotations

import argparse
import random

from marrakech import State
from marrakech.actions import Action, parse_action
from marrakech.state import Phase
from marrakech.threat import cheapest_orient


def choose(state: State, rng: random.Random) -> Action:
    """The decision for the seat to move (never called at a roll or a draw)."""
    if state.phase is Phase.ORIENT:
        orient = cheapest_orient(state)[0]
        return parse_action("LSR"[orient])
    return rng.choice(list(state.legal_actions()))


def main() -> None:
    from marrakech.web.connect import play_seat

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url", help="an invitation link, a game's link or a server's root")
    parser.add_argument("--name", default="Cautious agent (bot)", help="the seat's name")
    parser.add_argument("--seed", type=int, default=None, help="the agent's random seed")
    args = parser.parse_args()
    result = play_seat(args.url, choose, name=args.name, seed=args.seed, report=print)
    print(result.summary())


if __name__ == "__main__":
    main()
