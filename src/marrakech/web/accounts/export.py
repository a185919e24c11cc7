"""What an account's export holds (``GET /api/account/export``): everything stored
about it, as JSON data, and no secret (password hashes, keys and session tokens are not
data a person needs back)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

Rows = Sequence[Mapping[str, Any]]


def export_document(
    account: tuple[str, str, float],
    session: str,
    credentials: Rows,
    sessions: Rows,
    seats: Rows,
    ratings: Rows,
    history: Rows,
    mail: Rows,
) -> dict[str, Any]:
    """The export of ``account`` (its id, name and creation time) from its rows in the
    store; ``session``: the hash of the session asking, marked ``this_one``."""
    account_id, name, created = account
    return {
        "account": {"id": account_id, "name": name, "created": iso(created)},
        "credentials": [
            {
                "kind": row["kind"],
                "created": iso(row["created"]),
                "last_used": iso(row["last_used"]),
                **(
                    {"credential_id": row["credential_id"], "transports": row["transports"]}
                    if row["kind"] == "passkey"
                    else {}
                ),
            }
            for row in credentials
        ],
        "sessions": [
            {
                "created": iso(row["created"]),
                "last_seen": iso(row["last_seen"]),
                "user_agent": row["user_agent"],
                "this_one": row["token_hash"] == session,
            }
            for row in sessions
        ],
        "games": [
            {
                "game_id": row["game_id"],
                "seat": row["seat"],
                "name": row["name"],
                "players": row["players"],
                "rules": row["rules"],
                "status": row["status"],
                "created": iso(row["created"]),
                "replay": f"/r/{row['game_id']}",
                "record": f"/api/games/{row['game_id']}/record",
            }
            for row in seats
        ],
        "ratings": [
            {
                "players": row["players"],
                "mu": row["mu"],
                "sigma": row["sigma"],
                "games": row["games"],
                "wins": row["wins"],
                "updated": iso(row["updated"]),
            }
            for row in ratings
        ],
        "rating_history": [
            {
                "game_id": row["game_id"],
                "players": row["players"],
                "at": iso(row["at"]),
                "place": row["place"],
                "mu_before": row["mu_before"],
                "sigma_before": row["sigma_before"],
                "mu": row["mu"],
                "sigma": row["sigma"],
            }
            for row in history
        ],
        # The reminders' address (issue 25), if the account gave one.
        "email": [
            {
                "address": row["address"],
                "lang": row["lang"],
                "status": row["status"],
                "created": iso(row["created"]),
            }
            for row in mail
        ],
    }


def iso(seconds: float | None) -> str | None:
    """Epoch seconds as ISO 8601 (UTC), for the export."""
    from marrakech.web.protocol import iso_time

    return None if seconds is None else iso_time(float(seconds))
