"""The statements of an append, the stores' busiest write: one game's, moving it on from
its expected version (SQLite's :attr:`Queries.move_game`), and a group commit's, many
games in a few statements whatever their number (:func:`appends_together` on SQLite,
:func:`appends_together_and_notify` on PostgreSQL, where it serves one game's append as
a group of one: its actions inserted and announced in the same statement).

Few statements for many games, because each statement costs the event loop or the
store's thread far more than the database's work: psycopg's own Python runs on the
loop, and SQLite's thread waits for the interpreter lock after each one.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    ARRAY,
    Boolean,
    Integer,
    SmallInteger,
    Text,
    bindparam,
    cast,
    func,
    insert,
    select,
    type_coerce,
    update,
)
from sqlalchemy.sql import ClauseElement

from marrakech.web.store.schema import actions, games

P = bindparam


def moved_on(version: Any, status: Any, bot: Any, turns: Any) -> dict[str, Any]:
    """What an append writes in its game's row (one game's or a group's): the new
    version, status, whether a bot moves next, the player-turn number, at ``now``."""
    return {
        "version": version,
        "status": status,
        "bot_to_move": bot,
        "updated": P("now"),
        "turns": turns,
    }


def _json_rows(name: str, *fields: tuple[str, Any]) -> Any:
    """The rows of the JSON array of arrays in parameter ``name``, as a subquery of the
    named, typed columns ``fields`` (SQLite's ``json_each``)."""
    each = func.json_each(P(name)).table_valued("value").alias("each")
    return select(
        *(
            type_coerce(func.json_extract(each.c.value, f"$[{i}]"), kind).label(label)
            for i, (label, kind) in enumerate(fields)
        )
    ).subquery(name)


def appends_together() -> tuple[ClauseElement, ClauseElement]:
    """SQLite's appends of many games, two statements for all of them (the SQLite store's
    group commit): move every game on from its expected version (parameter ``moves``:
    ``[game_id, at_version, next, new_status, bot, new_turns]`` each), then insert every
    action (``rows``: ``[game_id, number, token, seat]`` each), all at ``now``.

    One statement for many games rather than one per game: the store's thread lets go
    of Python's interpreter lock for each statement it runs and must wait to take it
    back from a busy event loop, so the waits, not SQLite, made a group's time."""
    moves = _json_rows(
        "moves",
        ("id", Text),
        ("at_version", Integer),
        ("next", Integer),
        ("new_status", Text),
        ("bot", Boolean),
        ("new_turns", Integer),
    )
    move = (
        update(games)
        .where(games.c.id == moves.c.id, games.c.version == moves.c.at_version)
        .values(moved_on(moves.c.next, moves.c.new_status, moves.c.bot, moves.c.new_turns))
    )
    rows = _json_rows(
        "rows", ("game_id", Text), ("number", Integer), ("token", Text), ("seat", SmallInteger)
    )
    add = insert(actions).from_select(
        ["game_id", "number", "token", "seat", "at"],
        select(rows.c.game_id, rows.c.number, rows.c.token, rows.c.seat, P("now")),
    )
    return move, add


def appends_together_and_notify() -> ClauseElement:
    """PostgreSQL's appends of many games in one statement (the PostgreSQL store's group
    commit): move each game on from its expected version when this instance owns it
    (parameters ``ids``, ``at_versions``, ``nexts``, ``statuses``, ``bots``, ``turns``,
    ``notices``: one item per game), insert the actions of the games that moved
    (``row_games``, ``numbers``, ``tokens``, ``seats``: one item per action) and
    ``NOTIFY`` each; the ids of the games that moved come back.

    One statement rather than one per game in a pipeline: psycopg's work for each
    statement, on the event loop, was a third of an instance's time under load."""
    moves = (
        func.unnest(
            *(
                cast(P(name), ARRAY(kind))
                for name, kind in (
                    ("ids", Text),
                    ("at_versions", Integer),
                    ("nexts", Integer),
                    ("statuses", Text),
                    ("bots", Boolean),
                    ("turns", Integer),
                    ("notices", Text),
                )
            )
        )
        .table_valued("id", "at_version", "next", "new_status", "bot", "new_turns", "notice")
        .render_derived(name="m")
    )
    moved = (
        update(games)
        .where(
            games.c.id == moves.c.id,
            games.c.version == moves.c.at_version,
            games.c.owner == P("instance"),
        )
        .values(moved_on(moves.c.next, moves.c.new_status, moves.c.bot, moves.c.new_turns))
        .returning(games.c.id, moves.c.notice)
        .cte("moved")
    )
    rows = (
        func.unnest(
            cast(P("row_games"), ARRAY(Text)),
            cast(P("numbers"), ARRAY(Integer)),
            cast(P("tokens"), ARRAY(Text)),
            cast(P("seats"), ARRAY(SmallInteger)),
        )
        .table_valued("game_id", "number", "token", "seat")
        .render_derived(name="r")
    )
    added = insert(actions).from_select(
        ["game_id", "number", "token", "seat", "at"],
        select(rows.c.game_id, rows.c.number, rows.c.token, rows.c.seat, P("now"))
        .select_from(rows)
        .join(moved, moved.c.id == rows.c.game_id),
    )
    return select(moved.c.id, func.pg_notify(P("channel"), moved.c.notice)).add_cte(
        added.cte("added")
    )
