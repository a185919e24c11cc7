"""The lobby's games to watch (issue 37, item 5; docs/web.md, "Games to watch"): one
statement, compiled for a store's dialect and run through
:meth:`~marrakech.web.store.GameStore.transact` as the tournaments' are.

A game to watch is one being played (stored ``running``, shown ``playing``) that moved
since a given time, and that no private tournament holds (a private tournament is
"listed nowhere: by link", nor are its games). Every other game is listed: a game has no
notion of private of its own (the lobby lists every waiting game's open seats, and a
spectator link is the game page without a seat token). The most interesting come first:
rated games, then those whose best-rated account is rated higher (for the game's player
count), then the most recently moved.
"""

from __future__ import annotations

from sqlalchemy import and_, bindparam, func, select
from sqlalchemy.sql import ClauseElement

from marrakech.web.store.queries import Statement, compile_statement
from marrakech.web.store.schema import Dialects, games, ratings, seats
from marrakech.web.store.tournament_schema import tournament_games, tournaments

P = bindparam

#: The rating that sorts a game with no rated account (below any real rating).
UNRATED = -1_000_000.0


def _compiled(statement: ClauseElement, dialect: Dialects) -> Statement:
    return compile_statement(statement, dialect)


class WatchlistQueries:
    """The games-to-watch statement for ``dialect``; its rows have one column, ``id``."""

    def __init__(self, dialect: Dialects) -> None:
        g, s, r = games, seats, ratings
        best_rating = (
            select(func.max(r.c.mu))
            .select_from(s.join(r, and_(r.c.player == s.c.account_id, r.c.kind == "account")))
            .where(s.c.game_id == g.c.id, r.c.players == g.c.players)
            .scalar_subquery()
        )
        private = (
            select(tournament_games.c.game_id)
            .select_from(
                tournament_games.join(
                    tournaments, tournaments.c.id == tournament_games.c.tournament_id
                )
            )
            .where(tournaments.c.private.is_(True))
        )
        self.live = _compiled(
            select(g.c.id)
            .where(
                g.c.status == "running",
                g.c.updated >= P("since"),
                g.c.id.not_in(private),
            )
            .order_by(
                g.c.rated.desc(),
                func.coalesce(best_rating, UNRATED).desc(),
                g.c.updated.desc(),
                g.c.id,
            )
            .limit(P("limit")),
            dialect,
        )
