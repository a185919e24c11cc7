"""The ratings' SQL statements (issue 24), compiled once per dialect like the store's
(:mod:`marrakech.web.store.queries`): what a rated game's end writes in its append's
transaction, and the reads of the leaderboard and the profiles."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import case, false, func, insert, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.sql import ClauseElement

from marrakech.web.store.queries import P, Statement, compile_statement
from marrakech.web.store.schema import Dialects, accounts, games, seats


class RatingQueries:
    """The ratings' statements (issue 24, :mod:`marrakech.web.ratings.standings`), compiled for
    ``dialect``: those a game's end runs in its append's transaction, and the reads of
    the leaderboard and the profiles (through :meth:`~marrakech.web.store.GameStore.
    transact`)."""

    def __init__(self, dialect: Dialects) -> None:
        from marrakech.web.store.schema import rating_history, ratings

        r, h = ratings, rating_history
        postgres = dialect == "postgresql"
        dialect_insert = postgresql_insert if postgres else sqlite_insert

        def compiled(statement: ClauseElement, columns: Sequence[str] = ()) -> Statement:
            return compile_statement(statement, dialect, columns)

        # -- the end of a game ------------------------------------------------------------
        self.end_seats = compiled(
            select(
                seats.c.seat,
                seats.c.kind,
                seats.c.level,
                seats.c.account_id,
                games.c.rated,
                games.c.players,
            )
            .join(games, games.c.id == seats.c.game_id)
            .where(seats.c.game_id == P("game_id"))
            .order_by(seats.c.seat)
        )
        self.set_place = compiled(
            update(seats)
            .where(seats.c.game_id == P("game_id"), seats.c.seat == P("at_seat"))
            .values(place=P("new_place"))
        )
        # A player's first rated game: its row, from the start (or the bot's seed);
        # then locked (PostgreSQL) until the game's end commits.
        self.add_rating = compiled(
            dialect_insert(r)
            .values(
                kind=P("kind"),
                player=P("player"),
                players=P("players"),
                mu=P("mu"),
                sigma=P("sigma"),
                games=P("games"),
                wins=0,
                updated=P("now"),
            )
            .on_conflict_do_nothing()
        )
        one = select(r).where(
            r.c.kind == P("kind"), r.c.player == P("player"), r.c.players == P("players")
        )
        self.rating = compiled(one.with_for_update() if postgres else one)
        self.save_rating = compiled(
            update(r)
            .where(r.c.kind == P("kind"), r.c.player == P("player"), r.c.players == P("players"))
            .values(
                mu=P("new_mu"),
                sigma=P("new_sigma"),
                games=P("new_games"),
                wins=P("new_wins"),
                updated=P("now"),
            )
        )
        self.insert_history = compiled(insert(h), columns=[column.name for column in h.c])

        # -- reads ---------------------------------------------------------------------
        self.account_seat = compiled(
            select(seats.c.seat).where(
                seats.c.game_id == P("game_id"), seats.c.account_id == P("account_id")
            )
        )
        conservative = (r.c.mu - 3 * r.c.sigma).label("conservative")
        self.leaderboard = compiled(
            select(r, accounts.c.name, conservative)
            .join(accounts, accounts.c.id == r.c.player)
            .where(
                r.c.kind == "account",
                r.c.players == P("players"),
                r.c.games >= P("min_games"),
                r.c.games <= P("max_games"),
                accounts.c.deleted == false(),
            )
            .order_by(conservative.desc(), accounts.c.name_key)
            .limit(P("limit"))
        )
        self.bot_ratings = compiled(
            select(r).where(r.c.kind == "bot").order_by(r.c.players, r.c.player)
        )
        self.ratings_of = compiled(
            select(r)
            .where(r.c.kind == "account", r.c.player == P("account_id"))
            .order_by(r.c.players)
        )
        self.history_of = compiled(
            select(h)
            .where(h.c.kind == "account", h.c.player == P("account_id"))
            .order_by(h.c.at, h.c.game_id)
        )
        over = games.c.status == "over"
        self.results_of = compiled(
            select(
                games.c.players,
                func.count().label("played"),
                func.coalesce(func.sum(case((seats.c.place == 1, 1), else_=0)), 0).label("won"),
            )
            .join(games, games.c.id == seats.c.game_id)
            .where(seats.c.account_id == P("account_id"), over)
            .group_by(games.c.players)
            .order_by(games.c.players)
        )
        self.last_games_of = compiled(
            select(
                seats.c.game_id,
                seats.c.seat,
                seats.c.place,
                games.c.players,
                games.c.status,
                games.c.rated,
                games.c.created,
                games.c.updated,
            )
            .join(games, games.c.id == seats.c.game_id)
            .where(seats.c.account_id == P("account_id"))
            .order_by(games.c.updated.desc(), seats.c.game_id)
            .limit(P("limit"))
        )
        bot = seats.alias("bot")
        self.bots_beaten_by = compiled(
            select(bot.c.level, func.count().label("times"))
            .select_from(seats)
            .join(bot, bot.c.game_id == seats.c.game_id)
            .where(
                seats.c.account_id == P("account_id"),
                bot.c.kind == "bot",
                seats.c.place < bot.c.place,
            )
            .group_by(bot.c.level)
            .order_by(bot.c.level)
        )
