"""Tournaments (issue 37): arenas and Swiss events, and the games they pair.

- :mod:`.scoring`: points by place (R21's shared places) with the arena's streaks, and
  the standings derived from the games' stored places;
- :mod:`.matching`: an arena's waiting entrants paired by score, a Swiss round with its
  byes;
- :mod:`.tournament`: a tournament's settings, checked, and its stored row;
- :mod:`.service`: tournaments on the server: created, joined, paired each tick under
  a lease, ended (their tables: ``store/tournament_schema.py``, their statements:
  ``store/tournament_queries.py``; their HTTP API: ``routes/tournaments.py``);
- :mod:`.schedule`: the schedule file (``marrakech serve --tournament-schedule``);
- :mod:`.admin`: ``marrakech admin tournament``.

docs/web.md, "Tournaments", says what is stored and how a tournament runs.
"""
