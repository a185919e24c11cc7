"""Tournaments (issue 37): arenas and Swiss events, and the games they pair.

- :mod:`.scoring`: points by place (R21's shared places) with the arena's streaks, and
  the standings derived from the games' stored places;
- :mod:`.matching`: an arena's waiting entrants paired by score, a Swiss round with its
  byes.

docs/web.md, "Tournaments", says what is stored and how a tournament runs.
"""
