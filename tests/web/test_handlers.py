"""The room's handlers: one per message type a connection sends after its hello, and a
clear refusal for any other (issue 22: no unnamed ``else`` taking what comes)."""

from __future__ import annotations

import asyncio
from typing import Any, get_args

import pytest

from marrakech.web.connection import Client
from marrakech.web.protocol import AnyClientMessage, Hello, Ping, ProtocolError
from marrakech.web.room import HANDLERS, handle, seat_commands


def test_every_message_after_the_hello_has_its_handler() -> None:
    answered_by_the_socket = {Hello, Ping}
    assert set(HANDLERS) == set(get_args(AnyClientMessage)) - answered_by_the_socket


def test_a_message_with_no_handler_is_refused_saying_what_is_expected() -> None:
    room: Any = object()  # no room: never reached, the refusal comes first
    client = Client(frozenset({0}), "en")
    with pytest.raises(ProtocolError) as refused:
        asyncio.run(handle(room, client, Hello(type="hello")))
    assert refused.value.code == "bad_message"
    message = refused.value.message
    assert message.startswith('type: expected one of "action", "hint", "resign"')
    assert message.endswith("found 'hello'")


def test_the_handlers_are_named_after_their_messages() -> None:
    names: dict[str, Any] = {
        get_args(model.model_fields["type"].annotation)[0]: handler.__name__
        for model, handler in HANDLERS.items()
    }
    assert names.pop("action") == "on_action" and names.pop("hint") == "on_hint"
    for chat in ("chat", "react", "report", "mute"):  # issue 24: the chat's own
        assert names.pop(chat) == f"on_{chat}"
    # The seat commands share one handler; each has its check and its step, by name.
    assert set(names.values()) == {"on_seat_command"}
    for name in names:
        assert callable(getattr(seat_commands, f"check_{name}"))
        assert callable(getattr(seat_commands, f"apply_{name}"))
