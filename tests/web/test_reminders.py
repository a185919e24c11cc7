"""Email reminders end to end (issue 25, item 3; docs/playing.md, "Reminders"): a real
SMTP server in the test process (aiosmtpd) receives what the app sends; the app runs
on the test's SQLite file with a clock the tests move on (no waiting out delays).

Verification links (and a real ``marrakech serve`` process), your-turn reminders after
the quiet delay and none while the page is open, deadline reminders, unsubscribing by
the link's page and by RFC 8058's one-click POST, per-game mutes, forged, reused and
expired links, an SMTP relay that is down (queued, retried, sent once), a refused
recipient (undeliverable), French messages, and the account's address.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from marrakech.web.reminders.settings import MailSettings, ReminderTiming, parse_smtp_url
from tests.web.conftest import Apps, Conn, create_game, mover, seat_token
from tests.web.postgres import free_port
from tests.web.servers import Served
from tests.web.smtp_server import Certificates, Inbox, text_part
from tests.web.test_accounts import CHEAP, sign_up

FROM = "Marrakech <games@example.org>"
QUIET = 600.0
TIMING = ReminderTiming(quiet_delay=QUIET, poll=3600.0, retry_first=30.0, attempts=5)


class Clock:
    """The reminders' time: now, plus however far the test moved it on."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds


@pytest.fixture
def inbox() -> Iterator[Inbox]:
    with Inbox() as box:
        yield box


@pytest.fixture
def clock() -> Clock:
    return Clock()


def settings(port: int, timing: ReminderTiming = TIMING) -> MailSettings:
    return MailSettings(
        parse_smtp_url(f"smtp://127.0.0.1:{port}"), FROM, "http://testserver", timing
    )


@pytest.fixture
def web(apps: Apps, inbox: Inbox, clock: Clock) -> TestClient:
    return apps.start(
        mail=settings(inbox.port), mail_clock=clock, passwords=CHEAP, relaxed_seconds=7200
    )


def wait_until(check: Callable[[], object], what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def rows(db: Path, sql: str, *params: Any) -> list[dict[str, Any]]:
    with sqlite3.connect(db) as connection:
        connection.row_factory = sqlite3.Row
        return [dict(row) for row in connection.execute(sql, params)]


def outbox(db: Path, kind: str | None = None) -> list[dict[str, Any]]:
    found = rows(db, "SELECT * FROM mail_outbox ORDER BY created")
    return [row for row in found if kind is None or row["kind"] == kind]


def deliver(web: TestClient, db: Path, clock: Clock) -> None:
    """Send what is due now (as the background task would), and wait until no message
    is left half-sent."""
    reminders = web.app.state.web.reminders  # type: ignore[attr-defined]
    web.portal.call(reminders.run_once)  # type: ignore[union-attr]

    def settled() -> bool:
        due = rows(
            db,
            "SELECT key FROM mail_outbox WHERE status = 'sending' "
            "OR (status = 'queued' AND due <= ?)",
            clock(),
        )
        if due:
            web.portal.call(reminders.run_once)  # type: ignore[union-attr]
        return not due

    wait_until(settled, "the outbox to settle")


def link_in(message: Any, path: str) -> str:
    """The path and query of the message's link to ``path``."""
    found = re.search(rf"http://testserver({re.escape(path)}\?[^\s\"<>]+)", text_part(message))
    assert found, text_part(message)
    return found.group(1)


def token_of(link: str) -> str:
    found = re.search(r"[?&]t=([^&]+)", link)
    assert found
    return found.group(1)


def give_seat_address(
    web: TestClient, game: dict[str, Any], seat: int, address: str, lang: str = "en"
) -> dict[str, Any]:
    reply = web.post(
        "/api/mail/seat",
        json={
            "game": game["game_id"],
            "token": seat_token(game, seat),
            "address": address,
            "lang": lang,
        },
    )
    assert reply.status_code == 200, reply.text
    state: dict[str, Any] = reply.json()
    return state


def seat_state(web: TestClient, game: dict[str, Any], seat: int) -> dict[str, Any]:
    reply = web.post(
        "/api/mail/seat", json={"game": game["game_id"], "token": seat_token(game, seat)}
    )
    assert reply.status_code == 200, reply.text
    state: dict[str, Any] = reply.json()
    return state


def verified_seat(
    web: TestClient, inbox: Inbox, game: dict[str, Any], seat: int, address: str, lang: str = "en"
) -> None:
    """Give the seat an address and follow the verification link it receives."""
    before = len(inbox.messages)
    assert give_seat_address(web, game, seat, address, lang)["email"]["status"] == "pending"
    message = inbox.wait_for(before + 1)[-1]
    assert message["To"] == address
    link = link_in(message, "/mail/verify")
    page = web.get(link)
    assert page.status_code == 200 and 'method="post"' in page.text, page.text
    done = web.post(f"/mail/verify?lang={lang}", data={"t": token_of(link)})
    assert done.status_code == 200, done.text
    assert seat_state(web, game, seat)["email"]["status"] == "verified"


def play_turn(web: TestClient, game: dict[str, Any], seat: int) -> None:
    """Seat ``seat`` plays its whole turn (its page open meanwhile), then leaves."""
    with web.websocket_connect(f"/ws/{game['game_id']}") as ws:
        conn = Conn(ws, [seat_token(game, seat)])
        assert mover(conn.state) == seat
        while mover(conn.state) == seat and conn.legal[str(seat)]:
            version = conn.version
            conn.act(seat, conn.legal[str(seat)][0])
            conn.until(lambda c, v=version: c.version > v)  # type: ignore[misc]


def two_people(web: TestClient, **spec: Any) -> dict[str, Any]:
    return create_game(web, players=2, seats=[{"kind": "human"}] * 2, first_seat=0, **spec)


def test_a_your_turn_email_after_the_quiet_delay_once(
    web: TestClient, inbox: Inbox, clock: Clock, db_path: Path
) -> None:
    game = two_people(web, clock="relaxed")
    verified_seat(web, inbox, game, 1, "bob@example.org")
    play_turn(web, game, 0)
    wait_until(lambda: outbox(db_path, "your_turn"), "the reminder to be queued")
    (queued,) = outbox(db_path, "your_turn")
    assert queued["status"] == "queued" and queued["seat"] == 1
    assert queued["due"] == pytest.approx(clock() + QUIET, abs=5)
    deliver(web, db_path, clock)
    assert len(inbox.messages) == 1  # not before the quiet delay
    clock.advance(QUIET + 1)
    deliver(web, db_path, clock)
    message = inbox.wait_for(2)[-1]
    assert message["To"] == "bob@example.org" and message["From"] == FROM
    assert message["Subject"] == "Marrakech: your turn"
    assert message.get_content_type() == "multipart/alternative"
    assert [part.get_content_type() for part in message.iter_parts()] == [
        "text/plain",
        "text/html",
    ]
    assert "It is your turn in your game of Marrakech with Red" in text_part(message)
    assert f"http://testserver/g/{game['game_id']}" in text_part(message)
    assert f'href="http://testserver/g/{game["game_id"]}"' in text_part(message, "html")
    unsubscribe = message["List-Unsubscribe"]
    assert unsubscribe.startswith("<http://testserver/mail/unsubscribe?t=")
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    # Never twice: another round, or the turn told again (a reloaded room), sends nothing.
    listener = web.app.state.web.reminders  # type: ignore[attr-defined]
    from marrakech.web.reminders.hooks import TurnStart

    assert web.portal is not None
    web.portal.call(listener._queue_turn, TurnStart(game["game_id"], 1, queued["turn"], False))
    clock.advance(QUIET + 1)
    deliver(web, db_path, clock)
    assert len(inbox.messages) == 2
    assert [row["status"] for row in outbox(db_path, "your_turn")] == ["sent"]


def test_no_your_turn_email_while_the_page_is_open(
    web: TestClient, inbox: Inbox, clock: Clock, db_path: Path
) -> None:
    game = two_people(web)  # no clock: your-turn reminders still come
    verified_seat(web, inbox, game, 1, "bob@example.org")
    with web.websocket_connect(f"/ws/{game['game_id']}") as ws:
        Conn(ws, [seat_token(game, 1)])  # Blue's page is open when the turn comes
        play_turn(web, game, 0)
        clock.advance(QUIET + 1)
        deliver(web, db_path, clock)
    assert outbox(db_path, "your_turn") == []  # not even queued
    assert len(inbox.messages) == 1  # the verification only

    # Blue away when the turn comes, but back before the delay: no email either.
    play_turn(web, game, 1)
    play_turn(web, game, 0)
    wait_until(lambda: outbox(db_path, "your_turn"), "the reminder to be queued")
    with web.websocket_connect(f"/ws/{game['game_id']}") as ws:
        Conn(ws, [seat_token(game, 1)])
        clock.advance(QUIET + 1)
        deliver(web, db_path, clock)  # due while the page is open
    # (The room, unloaded when Blue left, told turn 2 again when it was loaded: that
    # reminder is skipped too, the turn being over.)
    latest = outbox(db_path, "your_turn")[-1]
    assert (latest["status"], latest["problem"]) == ("skipped", "the page is open")
    assert all(row["status"] == "skipped" for row in outbox(db_path, "your_turn"))
    assert len(inbox.messages) == 1


def test_a_visit_after_the_turn_began_cancels_the_reminder(
    web: TestClient, inbox: Inbox, clock: Clock, db_path: Path
) -> None:
    game = two_people(web)
    verified_seat(web, inbox, game, 1, "bob@example.org")
    play_turn(web, game, 0)
    wait_until(lambda: outbox(db_path, "your_turn"), "the reminder to be queued")
    clock.advance(60)
    with web.websocket_connect(f"/ws/{game['game_id']}") as ws:
        Conn(ws, [seat_token(game, 1)])  # Blue looks, and leaves without playing
    wait_until(lambda: rows(db_path, "SELECT * FROM mail_visits WHERE seat = 1"), "the visit noted")
    clock.advance(QUIET)
    deliver(web, db_path, clock)
    (row,) = outbox(db_path, "your_turn")
    assert (row["status"], row["problem"]) == ("skipped", "the player came since")
    assert len(inbox.messages) == 1


def stored_deadline(db: Path, game: dict[str, Any], seat: int) -> float:
    """The running turn's deadline as stored, once it is ``seat``'s turn's."""

    def found() -> list[dict[str, Any]]:
        return rows(
            db,
            "SELECT clock_deadline FROM games WHERE id = ? AND clock_seat = ?",
            game["game_id"],
            seat,
        )

    wait_until(found, f"seat {seat}'s deadline to be stored")
    return float(found()[0]["clock_deadline"])


def sweep(web: TestClient, at: float) -> None:
    """The clocks' sweep as it would run at ``at`` (it says whose time runs out soon:
    the reminders listen to it, not to a timing of their own)."""
    assert web.portal is not None
    web.portal.call(web.app.state.web.manager.sweep_clocks, at)  # type: ignore[attr-defined]


def test_a_deadline_email_before_the_time_runs_out(
    web: TestClient, inbox: Inbox, clock: Clock, db_path: Path
) -> None:
    game = two_people(web, clock="relaxed")  # 2 hours a turn here: warned 30 minutes before
    verified_seat(web, inbox, game, 1, "bob@example.org")
    with web.websocket_connect(f"/ws/{game['game_id']}") as ws:
        Conn(ws, [seat_token(game, 1)])  # present: no your-turn email, but a deadline one
        play_turn(web, game, 0)
    deadline = stored_deadline(db_path, game, 1)
    sweep(web, deadline - 1800 - 120)
    assert outbox(db_path) == [row for row in outbox(db_path) if row["kind"] == "verify"]
    clock.advance(deadline - 1800 + 1 - clock())
    sweep(web, clock())  # the sweep says the time runs out soon: the email is queued
    wait_until(lambda: outbox(db_path, "deadline"), "the deadline reminder to be queued")
    assert outbox(db_path, "your_turn") == []
    (queued,) = outbox(db_path, "deadline")
    assert queued["due"] == pytest.approx(clock(), abs=5) and queued["turn"] == 2
    deliver(web, db_path, clock)
    message = inbox.wait_for(2)[-1]
    assert message["Subject"] == "Marrakech: your time runs out soon"
    assert "runs out in about 30 minutes" in text_part(message)
    assert "UTC" in text_part(message) and "a bot plays for you" in text_part(message)
    sweep(web, clock() + 60)  # once a turn
    deliver(web, db_path, clock)
    assert len(outbox(db_path, "deadline")) == 1 and len(inbox.messages) == 2


def test_a_turn_based_deadline_email_at_most_12_hours_before(
    web: TestClient, inbox: Inbox, clock: Clock, db_path: Path
) -> None:
    # 3 days a move (and 3 more in the bank): a quarter of the move would be 18 hours
    # before the deadline, but the warning comes 12 hours before it. The address given
    # after the turn began gets it too: the turn's time running short is the sweep's to
    # tell, whenever the address came.
    game = two_people(web, clock="turn_3d")
    play_turn(web, game, 0)
    deadline = stored_deadline(db_path, game, 1)
    verified_seat(web, inbox, game, 1, "bob@example.org")
    clock.advance(deadline - 18 * 3600 + 60 - clock())
    sweep(web, clock())
    assert outbox(db_path, "deadline") == []
    clock.advance(6 * 3600)
    sweep(web, clock())
    wait_until(lambda: outbox(db_path, "deadline"), "the deadline reminder to be queued")
    deliver(web, db_path, clock)
    subjects = [message["Subject"] for message in inbox.messages]
    assert subjects.count("Marrakech: your time runs out soon") == 1
    assert "runs out in about 12 hours" in text_part(inbox.messages[-1])


def test_no_deadline_email_for_short_turns_nor_with_the_page_open(
    web: TestClient, inbox: Inbox, clock: Clock, db_path: Path
) -> None:
    blitz = two_people(web, clock="blitz")  # 30 seconds a turn: an email would come late
    verified_seat(web, inbox, blitz, 1, "bob@example.org")
    play_turn(web, blitz, 0)
    wait_until(lambda: outbox(db_path, "your_turn"), "the your-turn reminder queued")
    sweep(web, stored_deadline(db_path, blitz, 1) - 2)
    assert outbox(db_path, "deadline") == []

    game = two_people(web, clock="relaxed")
    verified_seat(web, inbox, game, 1, "bob@example.org")
    play_turn(web, game, 0)
    deadline = stored_deadline(db_path, game, 1)
    with web.websocket_connect(f"/ws/{game['game_id']}") as ws:
        Conn(ws, [seat_token(game, 1)])  # the page is open when the warning is due
        clock.advance(deadline - 1800 + 1 - clock())
        sweep(web, clock())
        wait_until(lambda: outbox(db_path, "deadline"), "the deadline reminder queued")
        deliver(web, db_path, clock)
    (row,) = outbox(db_path, "deadline")
    assert (row["status"], row["problem"]) == ("skipped", "the page is open")
    subjects = [message["Subject"] for message in inbox.messages]
    assert "Marrakech: your time runs out soon" not in subjects


def test_french_emails(web: TestClient, inbox: Inbox, clock: Clock, db_path: Path) -> None:
    game = two_people(web, clock="relaxed")
    verified_seat(web, inbox, game, 1, "chloe@example.org", lang="fr")
    assert inbox.messages[0]["Subject"] == "Marrakech : confirmez votre adresse"
    assert inbox.messages[0]["Content-Language"] == "fr"
    play_turn(web, game, 0)
    wait_until(lambda: outbox(db_path, "your_turn"), "the reminder to be queued")
    clock.advance(stored_deadline(db_path, game, 1) - 1800 + 1 - clock())
    sweep(web, clock())
    wait_until(lambda: outbox(db_path, "deadline"), "the deadline reminder to be queued")
    deliver(web, db_path, clock)
    subjects = [message["Subject"] for message in inbox.wait_for(3)]
    assert sorted(subjects[1:]) == [
        "Marrakech : votre temps s’achève bientôt",
        "Marrakech : à vous de jouer",
    ]
    turn = next(m for m in inbox.messages if m["Subject"] == "Marrakech : à vous de jouer")
    assert "C’est votre tour dans votre partie de Marrakech avec Rouge" in text_part(turn)
    assert "Se désabonner de tous les rappels" in text_part(turn, "html")
    assert "lang=fr" in turn["List-Unsubscribe"]
    page = web.get(link_in(turn, "/mail/unsubscribe"))
    assert '<html lang="fr">' in page.text and "Se désabonner" in page.text


def reminded(web: TestClient, inbox: Inbox, clock: Clock, db: Path, game: dict[str, Any]) -> Any:
    """Seat 0 plays, seat 1 gets its your-turn email: that email."""
    before = len(inbox.messages)
    # A room loaded again tells the turn it is at, so a reminder of seat 1's previous
    # turn may have been queued when its page opened (to be skipped at sending): wait
    # for the one of the turn that begins now.
    known = {row["key"] for row in outbox(db, "your_turn")}
    play_turn(web, game, 0)
    wait_until(
        lambda: any(
            row["status"] == "queued" and row["key"] not in known for row in outbox(db, "your_turn")
        ),
        "a reminder",
    )
    clock.advance(QUIET + 1)
    deliver(web, db, clock)
    return inbox.wait_for(before + 1)[-1]


def test_unsubscribe_by_the_links_page_works_once(
    web: TestClient, inbox: Inbox, clock: Clock, db_path: Path
) -> None:
    game = two_people(web)
    verified_seat(web, inbox, game, 1, "bob@example.org")
    link = link_in(reminded(web, inbox, clock, db_path, game), "/mail/unsubscribe")
    page = web.get(link)  # a mail scanner opening it changes nothing
    assert page.status_code == 200 and "Stop every Marrakech reminder" in page.text
    assert seat_state(web, game, 1)["email"]["status"] == "verified"
    done = web.post("/mail/unsubscribe?lang=en", data={"t": token_of(link)})
    assert done.status_code == 200 and "no more reminders" in done.text
    assert seat_state(web, game, 1)["email"]["status"] == "unsubscribed"
    # Used again: refused, nothing changes.
    again = web.post("/mail/unsubscribe?lang=en", data={"t": token_of(link)})
    assert again.status_code == 410 and "used already" in again.text
    assert web.get(link).status_code == 410
    # No more reminders.
    play_turn(web, game, 1)
    play_turn(web, game, 0)
    clock.advance(QUIET + 1)
    deliver(web, db_path, clock)
    assert len(inbox.messages) == 2


def test_one_click_unsubscribe_by_list_unsubscribe_post(
    web: TestClient, inbox: Inbox, clock: Clock, db_path: Path
) -> None:
    game = two_people(web)
    verified_seat(web, inbox, game, 1, "bob@example.org")
    message = reminded(web, inbox, clock, db_path, game)
    url = message["List-Unsubscribe"].strip("<>").removeprefix("http://testserver")
    # RFC 8058: the mail provider POSTs this body to the header's URL, from its own site.
    reply = web.post(
        url,
        content=b"List-Unsubscribe=One-Click",
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Origin": "https://mail.example.net",
        },
    )
    assert reply.status_code == 200, reply.text
    assert seat_state(web, game, 1)["email"]["status"] == "unsubscribed"
    again = web.post(url, content=b"List-Unsubscribe=One-Click")
    assert again.status_code == 410


def test_forged_links_are_refused_and_change_nothing(
    web: TestClient, inbox: Inbox, clock: Clock, db_path: Path
) -> None:
    game = two_people(web)
    give_seat_address(web, game, 1, "bob@example.org")
    link = link_in(inbox.wait_for(1)[0], "/mail/verify")
    token = token_of(link)
    payload, mac = token.split(".")
    for forged in (f"{payload}.{mac[:-4]}AAAA", f"{payload[:-2]}xy.{mac}", "nonsense", ""):
        for path in ("/mail/verify", "/mail/unsubscribe"):
            page = web.get(f"{path}?t={forged}")
            assert page.status_code == 400 and "not valid" in page.text, page.text
            reply = web.post(path, data={"t": forged})
            assert reply.status_code == 400 and "nothing changed" in reply.text
    # A verification link is no unsubscribe link, nor the reverse.
    assert web.post("/mail/unsubscribe", data={"t": token}).status_code == 400
    assert seat_state(web, game, 1)["email"]["status"] == "pending"
    assert web.post("/mail/verify", data={"t": token}).status_code == 200
    reused = web.post("/mail/verify", data={"t": token})
    assert reused.status_code == 410 and "used already" in reused.text
    assert seat_state(web, game, 1)["email"]["status"] == "verified"


def test_an_expired_verification_link_is_refused(
    web: TestClient, inbox: Inbox, clock: Clock, db_path: Path
) -> None:
    game = two_people(web)
    give_seat_address(web, game, 1, "bob@example.org")
    token = token_of(link_in(inbox.wait_for(1)[0], "/mail/verify"))
    clock.advance(TIMING.verify_valid + 1)
    reply = web.post("/mail/verify", data={"t": token})
    assert reply.status_code == 410 and "expired" in reply.text
    assert seat_state(web, game, 1)["email"]["status"] == "pending"


def test_a_new_address_kills_the_old_ones_links(
    web: TestClient, inbox: Inbox, clock: Clock, db_path: Path
) -> None:
    game = two_people(web)
    give_seat_address(web, game, 1, "old@example.org")
    old = token_of(link_in(inbox.wait_for(1)[0], "/mail/verify"))
    give_seat_address(web, game, 1, "new@example.org")
    inbox.wait_for(2)
    assert web.post("/mail/verify", data={"t": old}).status_code == 410
    assert seat_state(web, game, 1)["email"] == {
        "address": "new@example.org",
        "lang": "en",
        "status": "pending",
    }


def test_mute_one_game(web: TestClient, inbox: Inbox, clock: Clock, db_path: Path) -> None:
    game = two_people(web)
    verified_seat(web, inbox, game, 1, "bob@example.org")
    reply = web.post(
        "/api/mail/seat/mute",
        json={"game": game["game_id"], "token": seat_token(game, 1), "muted": True},
    )
    assert reply.status_code == 200 and reply.json()["muted"] is True
    play_turn(web, game, 0)
    clock.advance(QUIET + 1)
    deliver(web, db_path, clock)
    assert outbox(db_path, "your_turn") == [] and len(inbox.messages) == 1
    # Another seat's token cannot mute (or read) this seat.
    refused = web.post(
        "/api/mail/seat/mute",
        json={"game": game["game_id"], "token": "not-a-token", "muted": False},
    )
    assert refused.status_code == 403
    unmuted = web.post(
        "/api/mail/seat/mute",
        json={"game": game["game_id"], "token": seat_token(game, 1), "muted": False},
    )
    assert unmuted.json()["muted"] is False
    play_turn(web, game, 1)
    assert reminded(web, inbox, clock, db_path, game)["Subject"] == "Marrakech: your turn"


def test_an_unreachable_relay_queues_retries_and_sends_once(
    apps: Apps, clock: Clock, db_path: Path
) -> None:
    port = free_port()  # nothing listens there yet
    web = apps.start(mail=settings(port), mail_clock=clock)
    game = two_people(web)
    give_seat_address(web, game, 1, "bob@example.org")
    deliver(web, db_path, clock)
    (row,) = outbox(db_path)
    assert (row["status"], row["attempts"]) == ("queued", 1)
    assert "cannot reach" in row["problem"]
    assert row["due"] == pytest.approx(clock() + 30, abs=5)  # the first retry
    clock.advance(31)
    deliver(web, db_path, clock)
    (row,) = outbox(db_path)
    assert (row["status"], row["attempts"]) == ("queued", 2)
    assert row["due"] == pytest.approx(clock() + 60, abs=5)  # twice as long
    with Inbox(port) as inbox:
        clock.advance(61)
        deliver(web, db_path, clock)
        (message,) = inbox.wait_for(1)
        assert message["Subject"] == "Marrakech: confirm your email address"
        clock.advance(3600)
        deliver(web, db_path, clock)
        assert len(inbox.messages) == 1
    (row,) = outbox(db_path)
    assert (row["status"], row["attempts"], row["link"]) == ("sent", 3, None)
    # Done messages are forgotten after a while.
    reminders = web.app.state.web.reminders  # type: ignore[attr-defined]
    assert web.portal is not None
    web.portal.call(reminders.purge)
    assert len(outbox(db_path)) == 1
    clock.advance(TIMING.keep_done + 1)
    web.portal.call(reminders.purge)
    assert outbox(db_path) == []


def test_a_move_never_waits_for_the_relay(apps: Apps, clock: Clock, db_path: Path) -> None:
    # A relay that accepts connections and never answers: moves go on all the same.
    import socket

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    try:
        web = apps.start(mail=settings(listener.getsockname()[1]), mail_clock=clock)
        game = two_people(web)
        give_seat_address(web, game, 1, "bob@example.org")
        started = time.monotonic()
        play_turn(web, game, 0)
        play_turn(web, game, 1)
        assert time.monotonic() - started < 10
    finally:
        listener.close()


def test_a_refused_recipient_is_marked_undeliverable(
    web: TestClient, inbox: Inbox, clock: Clock, db_path: Path
) -> None:
    game = two_people(web)
    verified_seat(web, inbox, game, 1, "bob@example.org")
    inbox.handler.refuse.add("bob@example.org")  # the mailbox is gone since
    play_turn(web, game, 0)
    wait_until(lambda: outbox(db_path, "your_turn"), "the reminder to be queued")
    clock.advance(QUIET + 1)
    deliver(web, db_path, clock)
    (row,) = outbox(db_path, "your_turn")
    assert row["status"] == "failed" and "550" in row["problem"]
    assert seat_state(web, game, 1)["email"]["status"] == "undeliverable"
    # Nothing more goes to it: not even queued.
    play_turn(web, game, 1)
    play_turn(web, game, 0)
    clock.advance(QUIET + 1)
    deliver(web, db_path, clock)
    assert len(outbox(db_path, "your_turn")) == 1 and len(inbox.messages) == 1


def test_a_bad_address_is_refused_with_what_was_expected(web: TestClient) -> None:
    game = two_people(web)
    for address in ("bob", "bob@localhost", "a b@example.org", "x" * 250 + "@example.org"):
        reply = web.post(
            "/api/mail/seat",
            json={
                "game": game["game_id"],
                "token": seat_token(game, 1),
                "address": address,
                "lang": "en",
            },
        )
        assert reply.status_code == 400, address
        assert "expected an email address like ana@example.org" in reply.json()["message"]


def test_the_accounts_address_covers_its_seats(
    web: TestClient, inbox: Inbox, clock: Clock, db_path: Path
) -> None:
    assert web.get("/api/mail/account").status_code == 401
    sign_up(web, "Bob")
    reply = web.post("/api/mail/account", json={"address": "bob@example.org", "lang": "en"})
    assert reply.status_code == 202, reply.text
    link = link_in(inbox.wait_for(1)[0], "/mail/verify")
    assert web.post("/mail/verify", data={"t": token_of(link)}).status_code == 200
    assert web.get("/api/mail/account").json()["email"]["status"] == "verified"
    game = two_people(web)
    claim = web.post(
        "/api/account/claim",
        json={"seats": [{"game_id": game["game_id"], "token": seat_token(game, 1)}]},
    )
    assert claim.status_code == 200, claim.text
    assert seat_state(web, game, 1)["account_email"]["status"] == "verified"
    message = reminded(web, inbox, clock, db_path, game)
    assert message["To"] == "bob@example.org"
    removed = web.post("/api/mail/account/remove")
    assert removed.json() == {"email": None}
    assert rows(db_path, "SELECT * FROM mail_addresses WHERE account_id IS NOT NULL") == []


def test_deleting_the_account_deletes_its_address(
    web: TestClient, inbox: Inbox, db_path: Path
) -> None:
    sign_up(web, "Dee")
    reply = web.post("/api/mail/account", json={"address": "dee@example.org", "lang": "en"})
    assert reply.status_code == 202
    exported = web.get("/api/account/export").json()["email"]
    assert [(e["address"], e["status"]) for e in exported] == [("dee@example.org", "pending")]
    assert rows(db_path, "SELECT address FROM mail_addresses") == [{"address": "dee@example.org"}]
    assert web.post("/api/account/delete", json={"name": "Dee"}).status_code == 204
    assert rows(db_path, "SELECT address FROM mail_addresses") == []


def test_a_server_without_smtp_has_no_reminders(client: TestClient) -> None:
    reply = client.get("/api/mail/account")
    assert reply.status_code == 404 and "--smtp-url" in reply.json()["message"]


def post_json(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        answer: dict[str, Any] = json.loads(reply.read())
    return answer


def get_json(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url, timeout=10) as reply:
        answer: dict[str, Any] = json.loads(reply.read())
    return answer


@pytest.mark.slow
def test_the_verification_link_end_to_end_with_a_real_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``marrakech serve`` as deployed, its relay's URL (TLS and AUTH, a private CA) in
    ``MARRAKECH_SMTP_URL``: the link in the email verifies the address."""
    port = free_port()
    certificates = Certificates(tmp_path)
    tls = certificates.server_context()
    with Inbox(tls=tls, users={"games@example.org": "s3cret:/@"}) as inbox:
        monkeypatch.setenv(
            "MARRAKECH_SMTP_URL",
            f"smtps://games%40example.org:s3cret%3A%2F%40@localhost:{inbox.port}",
        )
        served = Served(
            tmp_path / "games.sqlite3",
            "--smtp-ca-file",
            str(certificates.ca_file),
            "--mail-from",
            FROM,
            "--public-url",
            f"http://127.0.0.1:{port}",
            port=port,
        )
        try:
            api = f"http://127.0.0.1:{port}/api"
            assert get_json(f"{api}/config")["reminders"] is True
            game = post_json(f"{api}/games", {"players": 2, "seats": [{"kind": "human"}] * 2})
            ask = {"game": game["game_id"], "token": game["seats"][1]["token"]}
            state = post_json(
                f"{api}/mail/seat", {**ask, "address": "bob@example.org", "lang": "en"}
            )
            assert state["email"]["status"] == "pending"
            (message,) = inbox.wait_for(1)
            found = re.search(r"(http://127\.0\.0\.1:\d+/mail/verify\?\S+)", text_part(message))
            assert found
            with urllib.request.urlopen(found.group(1), timeout=10) as page:
                assert 'method="post"' in page.read().decode()
            token = token_of(found.group(1))
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}/mail/verify",
                data=f"t={token}".encode(),
                headers={"Content-Type": "application/x-www-form-urlencoded"},
            )
            with urllib.request.urlopen(request, timeout=10) as done:
                assert "confirmed" in done.read().decode()
            assert post_json(f"{api}/mail/seat", ask)["email"]["status"] == "verified"
            assert inbox.logins == ["games@example.org"]
        finally:
            served.stop()


def test_a_seat_that_changed_hands_keeps_nothing_of_the_old_address(
    web: TestClient, inbox: Inbox, clock: Clock, db_path: Path
) -> None:
    game = two_people(web)
    verified_seat(web, inbox, game, 1, "first@example.org")
    # Another player holds the seat now, with another token (as when the host opens a
    # left seat again and someone else joins): the first player's address is not theirs.
    with sqlite3.connect(db_path) as connection:
        connection.execute(
            "UPDATE seats SET token_hash = 'another' WHERE game_id = ? AND seat = 1",
            (game["game_id"],),
        )
    play_turn(web, game, 0)
    clock.advance(QUIET + 1)
    deliver(web, db_path, clock)
    assert outbox(db_path, "your_turn") == [] and len(inbox.messages) == 1
