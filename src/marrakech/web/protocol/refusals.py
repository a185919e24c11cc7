"""The refusals both directions share: the error codes and the two errors.

A client's WebSocket message refused is a :class:`ProtocolError` with an
:data:`ErrorCode`, sent as ``{"type": "error", "code": ..., "message": ...}``; an HTTP
request refused is an :class:`ApiError` with an :data:`ApiErrorCode`, answered as
``{"error": ..., "message": ...}``. Each message says what was expected and what was
found (docs/web-protocol.md)::

    >>> error = ProtocolError("not_your_turn", "seat 1 is to move")
    >>> error.code, str(error)
    ('not_your_turn', 'not_your_turn: seat 1 is to move')
"""

from __future__ import annotations

from typing import Literal, get_args

#: Error codes sent in ``{"type": "error", "code": ...}`` (see docs/web-protocol.md).
ErrorCode = Literal[
    "bad_message",
    "too_large",
    "rate_limited",
    "not_found",
    "bad_token",
    "not_your_seat",
    "not_your_turn",
    "stale_version",
    "illegal_action",
    "game_over",
    "server_error",
    # Seats and hosting (docs/web-protocol.md, "Seats, clocks and hosting").
    "no_such_seat",
    "not_host",
    "not_started",
    "already_started",
    "already_resigned",
    "not_human",
    "seat_connected",
    "no_stand_in",
    "not_over",
    # Hints (docs/web-protocol.md, "Hints").
    "hints_off",
    # A rematch is a new game: the creation limits apply (docs/web-protocol.md).
    "too_many_games",
    "server_busy",
    # A connection past its address's cap of open sockets (closed at once).
    "too_many_connections",
    # Chat (docs/web-protocol.md, "Chat"), and an address the operator banned.
    "chat_off",
    "chat_too_fast",
    "chat_too_long",
    "chat_bad_text",
    "chat_channel",
    "no_such_message",
    "banned",
    # A program declared itself a bot where the server takes none (``--external-bots``).
    "bots_refused",
]
ERROR_CODES: tuple[ErrorCode, ...] = get_args(ErrorCode)
#: Error codes of the HTTP API, in ``{"error": ..., "message": ...}``.
ApiErrorCode = Literal[
    "bad_request",
    "bad_record",
    "forbidden",
    "not_found",
    "method_not_allowed",
    "seat_taken",
    "too_large",
    "unsupported_media_type",
    "rate_limited",
    "too_many_games",
    "too_many_connections",
    "server_busy",
    "server_error",
    "http_error",
    "banned",
    # Accounts (issue #24).
    "unauthorized",
    "bad_credentials",
    "bad_name",
    "name_taken",
    "weak_password",
    "bad_passkey",
    # Passkeys asked for on a page opened by an IP address (issue 36).
    "passkeys_unavailable",
    # External bots (``marrakech serve --external-bots``).
    "bots_refused",
    # Ratings (issue #24): a rated game's seats are for signed-in accounts.
    "sign_in_required",
    "already_seated",
    # Challenges (issue 37, docs/web-protocol.md, "Friends and challenges").
    "blocked",
    "already_challenged",
    "too_many_challenges",
    "challenge_gone",
    # Tournaments (issue 37): joined twice, after the end, a rating over the cap.
    "already_joined",
    "not_joined",
    "tournament_over",
    "rating_too_high",
]


class ProtocolError(ValueError):
    """A message of a client refused with an :data:`ErrorCode`, nothing changed: malformed
    (``bad_message``...), or refused by the game's room (``not_your_turn``...)."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class ApiError(Exception):
    """An HTTP error answered as ``{"error": code, "message": ...}`` with ``status``."""

    def __init__(
        self,
        status: int,
        code: ApiErrorCode,
        message: str,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers


#: Every public name of this module, re-exported by :mod:`marrakech.web.protocol`.
__all__ = [
    "ERROR_CODES",
    "ApiError",
    "ApiErrorCode",
    "ErrorCode",
    "ProtocolError",
]
