"""Names that look like others or like nothing (issue 36, item 2): accounts unique and
reserved by their UTS #39 skeleton, over HTTP and in the store itself (SQLite and
PostgreSQL, two instances signing up at once, the migration of accounts that already
look alike); seat names and chat lines refusing what renders blank, joiners where no
script needs them, and names that look like the server's bots or staff; legitimate
names in many scripts still accepted."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from marrakech.web.accounts.service import Account, Accounts, SignedIn
from marrakech.web.budgets import Rate
from marrakech.web.limits import Limits
from marrakech.web.protocol import ApiError, name_skeleton
from marrakech.web.store import GameStore, StoreConflict
from marrakech.web.store.queries import AccountQueries
from marrakech.web.store.sqlite import SQLiteStore
from marrakech.web.store.worker import StoreWorker
from tests.web.conftest import Apps, Conn, create_game, seat_token
from tests.web.test_accounts import CHEAP, PASSWORD
from tests.web.test_chat import chat_of, say
from tests.web.test_rooms import in_fresh_loop
from tests.web.test_store_legacy import LEGACY, _load_dump

#: Limits that these tests, creating many games and accounts, stay well within.
ROOMY = Limits(
    creates_per_minute=1000,
    create_burst=1000,
    joins_per_minute=1000,
    join_burst=1000,
    games_per_client=1000,
    chat_burst=100,
    chats_per_minute=600,
    address_chat_burst=100,
)

#: The issue's examples, and what each refusal says.
BLANK = [
    ("\u3164\u3164", "visible character"),  # Hangul filler
    ("\u2800\u2800", "visible character"),  # braille pattern blank
    ("\u115f\u1160", "visible character"),  # Hangul choseong and jungseong fillers
    ("Ana\u3164", "render blank, found U+3164 (HANGUL FILLER)"),
    ("Ana\u2800Lía", "render blank, found U+2800 (BRAILLE PATTERN BLANK)"),
    ("Ana\ufe0f\ufe0f", "variation selector only after a visible character"),
]
JOINERS = [
    ("alice\u200d", "zero-width joiner only between two emoji or after a virama"),
    ("ali\u200cce", "non-joiner only between two letters that join"),
]
#: Names that look like the server's bots or staff: no seat nor account takes them.
STAFF = [
    ("\u0430dmin", "looks like the reserved name 'admin'"),  # a Cyrillic а
    ("\u0412\u043e\u0442 hard", "looks like the reserved name 'bot'"),  # Вот: "Bot hard"
    ("BOT (EXPERT)", "reserved"),
    ("r\u043e\u0432\u043et m\u043eyen", "reserved"),  # rовоt: a French page's "robot"
]
#: Legitimate names, in many scripts, with the joiners their scripts need.
LEGITIMATE = [
    "Zoé Lefèvre",
    "François",
    "Nguyễn",
    "محمد",  # Arabic
    "می\u200cخواهم",  # Persian: a non-joiner between two joining letters
    "हिन्दी",  # Hindi
    "क्\u200dष",  # Devanagari: a joiner after a virama (a half form)
    "क्\u200cषमा",  # ...and a non-joiner after a virama (no conjunct)
    "ශ්\u200dරී",  # Sinhala: a joiner after the virama
    "王小明",
    "Ελένη",
    "Владимир",
    "한국어",
    "שלום",
    "👩\u200d💻 Ana",
    "🏳️\u200d🌈",
    "❤️ Bea",
    "Bottom",
]


def signup(web: TestClient, name: str) -> Any:
    return web.post("/api/account/signup", json={"name": name, "password": PASSWORD})


@pytest.fixture
def web(apps: Apps) -> TestClient:
    client = apps.start(passwords=CHEAP, limits=ROOMY)
    accounts = client.app.state.web.accounts  # type: ignore[attr-defined]
    accounts.sign_ups = Rate("sign-up", 10_000, 10_000)  # these tests sign up many
    return client


# -- accounts over HTTP -------------------------------------------------------------------


@pytest.mark.parametrize(("name", "expected"), BLANK + JOINERS + STAFF)
def test_blank_joined_and_staff_like_account_names_are_refused(
    web: TestClient, name: str, expected: str
) -> None:
    reply = signup(web, name)
    assert reply.status_code == 400, reply.text
    assert reply.json()["error"] == "bad_name" and expected in reply.json()["message"]
    reply = web.post("/api/account/passkey/register/options", json={"name": name})
    assert reply.status_code == 400 and reply.json()["error"] == "bad_name", reply.text


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("\u0430lice", "'\u0430lice' looks like the existing name 'alice'"),  # a Cyrillic а
        ("Al\u0456ce", "looks like the existing name 'alice'"),  # a Ukrainian і
        ("al\u0131ce", "looks like the existing name 'alice'"),  # a dotless ı
        ("aIice", "looks like the existing name 'alice'"),  # a capital I for the l
        ("ALICE", "'ALICE' is taken (names ignore case)"),
        ("ａｌｉｃｅ", "is taken (names ignore case)"),  # fullwidth
    ],
)
def test_a_name_that_looks_like_an_existing_account_is_taken(
    web: TestClient, name: str, expected: str
) -> None:
    assert signup(web, "alice").status_code == 201
    web.post("/api/account/signout", json={})
    reply = signup(web, name)
    assert reply.status_code == 409, reply.text
    assert reply.json()["error"] == "name_taken" and expected in reply.json()["message"]
    passkey = web.post("/api/account/passkey/register/options", json={"name": name})
    assert passkey.status_code == 409 and expected in passkey.json()["message"]


def test_legitimate_names_in_many_scripts_are_accounts(web: TestClient) -> None:
    for name in LEGITIMATE:
        reply = signup(web, name)
        assert reply.status_code == 201, (name, reply.text)
        assert reply.json()["account"]["name"] == name
        web.post("/api/account/signout", json={})


def test_a_deleted_accounts_look_is_free_again(web: TestClient) -> None:
    assert signup(web, "alice").status_code == 201
    assert web.post("/api/account/delete", json={"name": "alice"}).status_code == 204
    assert signup(web, "\u0430lice").status_code == 201


# -- seat names over HTTP, chat lines over the WebSocket -----------------------------------


@pytest.mark.parametrize(("name", "expected"), BLANK + JOINERS + STAFF)
def test_blank_joined_and_staff_like_seat_names_are_refused(
    web: TestClient, name: str, expected: str
) -> None:
    game = create_game(web, players=2, seats=[{"kind": "human"}, {"kind": "open"}])
    reply = web.post(f"/api/games/{game['game_id']}/join", json={"seat": 1, "name": name})
    assert reply.status_code == 400 and reply.json()["error"] == "bad_request", reply.text
    assert expected in reply.json()["message"]
    assert web.get(f"/api/games/{game['game_id']}").json()["open_seats"] == [1]
    seats = [{"kind": "human", "name": name}, {"kind": "bot", "level": "easy"}]
    reply = web.post("/api/games", json={"players": 2, "seats": seats})
    assert reply.status_code == 400 and expected in reply.json()["message"], reply.text


def test_legitimate_names_in_many_scripts_take_seats(web: TestClient) -> None:
    for name, joiner in zip(LEGITIMATE, [*LEGITIMATE[1:], LEGITIMATE[0]], strict=True):
        game = create_game(
            web, players=2, seats=[{"kind": "human", "name": name}, {"kind": "open"}]
        )
        reply = web.post(f"/api/games/{game['game_id']}/join", json={"seat": 1, "name": joiner})
        assert reply.status_code == 200, (name, reply.text)
        seats = web.get(f"/api/games/{game['game_id']}").json()["seats"]
        assert [seat["name"] for seat in seats] == [name, joiner]


@pytest.mark.parametrize("twin", ["Ann", "ANN", "Аnn"])  # the last one's A is Cyrillic
def test_two_players_at_one_table_never_look_alike(web: TestClient, twin: str) -> None:
    seats = [{"kind": "human", "name": "Ann"}, {"kind": "open"}, {"kind": "open"}]
    game = create_game(web, players=3, seats=seats)
    reply = web.post(f"/api/games/{game['game_id']}/join", json={"seat": 1, "name": twin})
    assert reply.status_code == 409 and reply.json()["error"] == "name_taken", reply.text
    assert "looks like seat 0's 'Ann'" in reply.json()["message"]
    assert web.get(f"/api/games/{game['game_id']}").json()["open_seats"] == [1, 2]
    reply = web.post(f"/api/games/{game['game_id']}/join", json={"seat": 1, "name": "Anna"})
    assert reply.status_code == 200, reply.text
    # On one screen too: two of the host's seats may not look alike either.
    seats = [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": twin}]
    reply = web.post("/api/games", json={"players": 2, "seats": seats})
    assert reply.status_code == 400, reply.text
    assert "seats[1].name: expected a name unlike the other seats'" in reply.json()["message"]


def test_blank_lines_and_stray_joiners_are_refused_in_the_chat(web: TestClient) -> None:
    game = create_game(web, players=2, seats=[{"kind": "human"}] * 2)
    with web.websocket_connect(f"/ws/{game['game_id']}") as ws:
        red = Conn(ws, [seat_token(game, 0)])
        for text, expected in [
            ("\u3164\u3164", "visible character"),
            ("\u2800", "visible character"),
            ("\u115f\u1160 \u2800", "visible character"),
            ("gg\u3164", "render blank, found U+3164"),
            ("good\u200d game", "zero-width joiner only between two emoji"),
            ("a\u200cb", "non-joiner only between two letters that join"),
        ]:
            say(red, text)
            assert expected in red.expect_error("chat_bad_text")["message"], text
        for text in ("gg 👍🏽 👩\u200d💻", "می\u200cخواهم", "क्\u200dष", "bravo ❤️"):
            say(red, text)
            (line,) = chat_of(red)["lines"]
            assert line["text"] == text
    replay = web.get(f"/api/games/{game['game_id']}/replay").json()
    assert len(replay["chat"]) == 4  # nothing refused was stored


# -- the store: unique by skeleton on both databases ---------------------------------------


@pytest.fixture(params=["sqlite", "postgresql"])
def open_database(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Callable[[str], Awaitable[GameStore]]:
    """Opens a store on the test's database (SQLite file, or PostgreSQL database),
    migrated to a revision (each call a new store: another instance on PostgreSQL)."""
    if request.param == "sqlite":

        async def sqlite(revision: str = "head") -> GameStore:
            path = tmp_path / "games.sqlite3"
            if revision != "head" and not path.exists():  # an older version's file
                shutil.copy(LEGACY / "sqlite-6.sqlite3", path)
            return StoreWorker.over(SQLiteStore(path, revision=revision))

        return sqlite
    url = request.getfixturevalue("pg_url")

    async def postgres(revision: str = "head") -> GameStore:
        from marrakech.web.store.postgres import PostgresStore

        if revision != "head":  # an older version's database
            await _load_dump(url, "postgres-5")
        return await PostgresStore.open(url, revision=revision)

    return postgres


def account_row(account_id: str, name: str, created: float, skeleton: str | None) -> Any:
    return {
        "id": account_id,
        "name": name,
        "name_key": name.casefold(),
        "name_skeleton": skeleton,
        "created": created,
    }


def insert(store: GameStore, row: dict[str, Any]) -> Any:
    q = AccountQueries("postgresql" if store.dialect == "postgresql" else "sqlite")
    return store.transact([(q.insert_account.sql, q.insert_account.params(row))])


async def accounts_table(store: GameStore) -> list[dict[str, Any]]:
    (rows,) = await store.transact(
        [("SELECT id, name, name_skeleton FROM accounts ORDER BY created", {})]
    )
    return rows


@in_fresh_loop
async def test_the_database_refuses_two_accounts_that_look_alike(
    open_database: Callable[[str], Awaitable[GameStore]],
) -> None:
    store = await open_database("head")
    try:
        await insert(store, account_row("a1", "alice", 1.0, name_skeleton("alice")))
        # Another name key (so not the case-insensitive index): the skeleton's refuses.
        with pytest.raises(StoreConflict):
            await insert(store, account_row("a2", "\u0430lice", 2.0, name_skeleton("\u0430lice")))
        await insert(store, account_row("a3", "bob", 3.0, name_skeleton("bob")))
        assert [row["id"] for row in await accounts_table(store)] == ["a1", "a3"]
    finally:
        await store.close()


@in_fresh_loop
async def test_two_instances_signing_up_look_alikes_at_once_make_one_account(
    open_database: Callable[[str], Awaitable[GameStore]],
) -> None:
    first, second = await open_database("head"), await open_database("head")
    try:
        results = await asyncio.gather(
            Accounts(first, CHEAP).sign_up("198.51.100.1", "alice", PASSWORD, "test"),
            Accounts(second, CHEAP).sign_up("198.51.100.2", "\u0430lice", PASSWORD, "test"),
            return_exceptions=True,
        )
        refused = [result for result in results if isinstance(result, ApiError)]
        assert len(refused) == 1, results
        assert refused[0].code == "name_taken" and "looks like the existing name" in str(
            refused[0].message
        )
        assert len(await accounts_table(first)) == 1
    finally:
        await second.close()
        await first.close()


@in_fresh_loop
async def test_the_migration_gives_look_alike_accounts_the_oldest_one_skeleton(
    open_database: Callable[[str], Awaitable[GameStore]], caplog: pytest.LogCaptureFixture
) -> None:
    old = await open_database("0007_shared_budgets")  # the revision before: no skeletons
    try:
        sql = "INSERT INTO accounts (id, name, name_key, created) VALUES (%s)" % (
            "%(id)s, %(name)s, %(key)s, %(created)s"
            if old.dialect == "postgresql"
            else ":id, :name, :key, :created"
        )
        for account_id, name, created in [
            ("a2", "\u0430lice", 2.0),  # accepted then, like alice, but made after her
            ("a1", "alice", 1.0),
            ("a3", "Bob", 3.0),
        ]:
            values = {"id": account_id, "name": name, "key": name.casefold(), "created": created}
            await old.transact([(sql, values)])
    finally:
        await old.close()
    with caplog.at_level("WARNING", logger="marrakech.web"):
        store = await open_database("head")
    assert "account a2 keeps its name '\u0430lice', which looks like the older account 'alice'" in (
        caplog.text
    )
    try:
        assert await accounts_table(store) == [
            {"id": "a1", "name": "alice", "name_skeleton": name_skeleton("alice")},
            {"id": "a2", "name": "\u0430lice", "name_skeleton": None},  # kept, unguarded
            {"id": "a3", "name": "Bob", "name_skeleton": name_skeleton("Bob")},
        ]
        accounts = Accounts(store, CHEAP)
        with pytest.raises(ApiError, match="looks like the existing name 'alice'"):
            await accounts.sign_up("198.51.100.1", "al\u0456ce", PASSWORD, "test")
        # alice goes: the look-alike that stays takes the skeleton, and guards it.
        alice = Account("a1", "alice", 1.0)
        await accounts.delete(SignedIn(alice, ""))
        assert (await accounts_table(store))[1] == {
            "id": "a2",
            "name": "\u0430lice",
            "name_skeleton": name_skeleton("alice"),
        }
        with pytest.raises(ApiError, match="looks like the existing name '\u0430lice'"):
            await accounts.sign_up("198.51.100.1", "alice", PASSWORD, "test")
    finally:
        await store.close()
