"""The room's handlers: one per message type a connection sends after its hello, and a
clear refusal for any other (issue 22: no unnamed ``else`` taking what comes)."""

from __future__ import annotations

import ast
import asyncio
import importlib
import pkgutil
from pathlib import Path
from typing import Any, get_args

import pytest

from marrakech.web import protocol
from marrakech.web.connection import Client
from marrakech.web.protocol import (
    AnyClientMessage,
    Hello,
    Ping,
    ProtocolError,
    SeatMessage,
    message_type,
)
from marrakech.web.room import HANDLERS, handle, seat_commands
from marrakech.web.room.handlers import expected_types
from tests.recipe_copy import SourceCopy


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
    assert message == f"type: expected one of {expected_types()}, found 'hello'"
    for model in HANDLERS:
        assert f'"{message_type(model)}"' in message
    assert '"hello"' not in message


def test_the_handlers_are_named_after_their_messages() -> None:
    """``on_<type>``, but the seat commands, which share one handler and each have
    their check and their step, by name."""
    commands = set(get_args(SeatMessage))
    for model, handler in HANDLERS.items():
        name = message_type(model)
        if model in commands:
            assert handler.__name__ == "on_seat_command"
            assert callable(getattr(seat_commands, f"check_{name}"))
            assert callable(getattr(seat_commands, f"apply_{name}"))
        else:
            assert handler.__name__ == f"on_{name}"
    named = {message_type(model): handler.__name__ for model, handler in HANDLERS.items()}
    assert named["action"] == "on_action" and named["hint"] == "on_hint"
    for chat in ("chat", "react", "report", "mute"):  # issue 24: the chat's own
        assert named[chat] == f"on_{chat}"
    assert commands <= set(HANDLERS)


def test_each_protocol_module_exports_what_it_declares() -> None:
    """A model is declared once: in its module and that module's ``__all__``, which
    the package re-exports (``from marrakech.web.protocol import WaveMessage``)."""
    modules = pkgutil.iter_modules(protocol.__path__, prefix=f"{protocol.__name__}.")
    for module in (importlib.import_module(info.name) for info in modules):
        tree = ast.parse(Path(str(module.__file__)).read_text())
        declared = set()
        for node in tree.body:
            if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                declared.add(node.name)
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                declared |= {target.id for target in targets if isinstance(target, ast.Name)}
        public = {name for name in declared if not name.startswith("_")}
        assert set(module.__all__) == public, module.__name__
        assert set(module.__all__) <= set(protocol.__all__)
        for name in module.__all__:
            assert getattr(protocol, name) is getattr(module, name)


#: The recipe's steps, each where the recipe says: a model in the protocol's module (and
#: its ``__all__``), added to the union of its direction; a handler and its line in
#: ``HANDLERS``. ``wave`` has all of them; ``nod`` is declared with no handler.
WAVE_STEPS = (
    (
        "web/protocol/client.py",
        "AnyClientMessage = (\n",
        '''class WaveMessage(StrictModel):
    """A wave to everyone watching, as a seat this connection holds."""

    type: Literal["wave"]
    seat: Seat


class NodMessage(StrictModel):
    """A nod: declared, but no handler takes it."""

    type: Literal["nod"]


''',
        True,
    ),
    ("web/protocol/client.py", "    Hello\n", "    | WaveMessage\n    | NodMessage\n", False),
    ("web/protocol/client.py", "__all__ = [\n", '    "NodMessage",\n    "WaveMessage",\n', False),
    (
        "web/protocol/server.py",
        "AnyServerMessage = (\n",
        '''class Waved(StrictModel):
    """A seat waved."""

    type: Literal["waved"] = "waved"
    seat: int


''',
        True,
    ),
    ("web/protocol/server.py", "    Welcome\n", "    | Waved\n", False),
    ("web/protocol/server.py", "__all__ = [\n", '    "Waved",\n', False),
    (
        "web/room/handlers.py",
        "from marrakech.web.protocol import (\n",
        "    WaveMessage,\n    Waved,\n",
        False,
    ),
    (
        "web/room/handlers.py",
        "#: The handler of each message type",
        '''async def on_wave(room: Room, client: Client, message: WaveMessage) -> None:
    """A wave, to every page of this game that this instance serves."""
    check_holder(client, message.seat)
    room.send_all(Waved(seat=message.seat).model_dump_json())


''',
        True,
    ),
    ("web/room/handlers.py", "    MuteMessage: on_mute,\n", "    WaveMessage: on_wave,\n", False),
)
#: ...then the new message, sent through a real socket to a real room.
WAVE_PLAYS = """
import sys
from pathlib import Path
from typing import get_args

from marrakech.web.protocol import AnyClientMessage, Hello, NodMessage, Ping, WaveMessage
from marrakech.web.room import HANDLERS
from tests.web.conftest import Apps, Conn, create_game, seat_token

unhandled = set(get_args(AnyClientMessage)) - {Hello, Ping} - set(HANDLERS)
assert unhandled == {NodMessage} and WaveMessage in HANDLERS
apps = Apps(Path(sys.argv[1]))
try:
    web = apps.start()
    game = create_game(web)
    path = f"/ws/{game['game_id']}"
    with web.websocket_connect(path) as ws0, web.websocket_connect(path) as ws1:
        red, watcher = Conn(ws0, [seat_token(game, 0)]), Conn(ws1)
        red.send({"type": "wave", "seat": 0})
        for conn in (red, watcher):
            assert conn.receive() == {"type": "waved", "seat": 0}
        watcher.send({"type": "wave", "seat": 0})
        watcher.expect_error("not_your_seat")  # its handler's own check
        red.send({"type": "nod"})
        refused = red.expect_error("bad_message")["message"]
        assert '"wave"' in refused and refused.endswith("found 'nod'"), refused
finally:
    apps.stop_all()
"""


@pytest.mark.e2e
def test_a_new_message_is_its_model_and_its_handler(tmp_path: Path) -> None:
    """The recipe "A message to the web protocol" of docs/architecture.md, followed in a
    copy of the package: a page's ``wave`` is accepted, handled and sent to every page
    of the room; a message declared without a handler is refused; and this file's other
    tests pass as they are (but the one that wants a handler for every message)."""
    copy = SourceCopy(tmp_path, copied=("web",))
    for name, anchor, text, before in WAVE_STEPS:
        copy.insert(name, anchor, text, before=before)
    copy.run("-c", WAVE_PLAYS, str(tmp_path / "games.sqlite3"))
    others = "not new_message and not every_message"
    copy.run("-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", others, __file__)
