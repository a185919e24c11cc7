"""Delivering reminders over SMTP (issue 25): a real SMTP server in the test process
(aiosmtpd) with STARTTLS, TLS and AUTH on a throwaway certificate authority; how each
failure is told apart (the relay down, a refused recipient, wrong credentials, an
untrusted certificate); and ``--smtp-url`` with its neighbours, refused clearly when
they do not fit."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from marrakech.web.cli import main
from marrakech.web.reminders.mail import Letter, compose
from marrakech.web.reminders.senders import PermanentFailure, SmtpSender, TemporaryFailure
from marrakech.web.reminders.settings import MailSettingsError, SmtpRelay, parse_smtp_url
from tests.web.postgres import free_port
from tests.web.smtp_server import Certificates, Inbox, text_part

FROM = "Marrakech <games@example.org>"


def a_letter(to: str = "ana@example.org") -> Letter:
    return Letter(
        "your_turn",
        "en",
        to,
        game_url="https://m.example/g/g1",
        unsubscribe_url="https://m.example/mail/unsubscribe?t=x",
        opponents="Bob",
    )


def send(relay: SmtpRelay, to: str = "ana@example.org") -> None:
    asyncio.run(SmtpSender(relay).send(compose(a_letter(to), FROM), to))


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Certificates:
    return Certificates(tmp_path_factory.mktemp("certificates"))


def test_plain_smtp_delivers_a_multipart_message() -> None:
    with Inbox() as inbox:
        send(parse_smtp_url(f"smtp://127.0.0.1:{inbox.port}"))
        (message,) = inbox.wait_for(1)
    assert inbox.handler.envelopes == [("games@example.org", ["ana@example.org"])]
    assert message.get_content_type() == "multipart/alternative"
    assert "It is your turn" in text_part(message)
    assert '<a href="https://m.example/g/g1"' in text_part(message, "html")


def test_starttls_with_auth(certificates: Certificates) -> None:
    users = {"ana": "p@ss:word/1"}
    with Inbox(starttls=certificates.server_context(), users=users) as inbox:
        url = f"smtp+starttls://ana:p%40ss%3Aword%2F1@localhost:{inbox.port}"
        send(parse_smtp_url(url, cafile=str(certificates.ca_file)))
        inbox.wait_for(1)
        # The ?starttls flag is the same thing.
        url = f"smtp://ana:p%40ss%3Aword%2F1@localhost:{inbox.port}?starttls"
        send(parse_smtp_url(url, cafile=str(certificates.ca_file)))
        inbox.wait_for(2)
    assert inbox.logins == ["ana", "ana"]


def test_tls_from_the_start_with_auth(certificates: Certificates) -> None:
    with Inbox(tls=certificates.server_context(), users={"ana": "secret"}) as inbox:
        url = f"smtps://ana:secret@localhost:{inbox.port}"
        send(parse_smtp_url(url, cafile=str(certificates.ca_file)))
        inbox.wait_for(1)
    assert inbox.logins == ["ana"]


def test_an_untrusted_certificate_is_a_failure_to_try_again(certificates: Certificates) -> None:
    # The system's authorities do not know the throwaway one.
    with (
        Inbox(tls=certificates.server_context()) as inbox,
        pytest.raises(TemporaryFailure, match="certificate"),
    ):
        send(parse_smtp_url(f"smtps://localhost:{inbox.port}"))
    assert inbox.messages == []


def test_wrong_credentials_are_the_servers_problem_not_the_address(
    certificates: Certificates,
) -> None:
    with Inbox(tls=certificates.server_context(), users={"ana": "secret"}) as inbox:
        url = f"smtps://ana:wrong@localhost:{inbox.port}"
        with pytest.raises(TemporaryFailure, match="535"):
            send(parse_smtp_url(url, cafile=str(certificates.ca_file)))
    assert inbox.messages == []


def test_starttls_required_but_not_offered() -> None:
    with Inbox() as inbox:
        relay = parse_smtp_url(f"smtp+starttls://127.0.0.1:{inbox.port}")
        with pytest.raises(TemporaryFailure, match="does not offer STARTTLS"):
            send(relay)
    assert inbox.messages == []


def test_a_refused_recipient_is_permanent_and_a_dead_relay_temporary() -> None:
    with Inbox() as inbox:
        inbox.handler.refuse.add("gone@example.org")
        relay = parse_smtp_url(f"smtp://127.0.0.1:{inbox.port}")
        with pytest.raises(PermanentFailure, match="550"):
            send(relay, "gone@example.org")
    with pytest.raises(TemporaryFailure, match="cannot reach"):
        send(parse_smtp_url(f"smtp://127.0.0.1:{free_port()}"))


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://mail.example.org", "expected smtp://, smtp+starttls:// or smtps://, found http"),
        ("mail.example.org", "expected smtp://, smtp+starttls:// or smtps://"),
        ("smtp://", "expected a host"),
        ("smtp://mail.example.org:99999", "expected a port 1..65535"),
        ("smtp://mail.example.org/x", "expected no path"),
        ("smtps://mail.example.org?starttls", "?starttls does not go with it"),
        ("smtp://mail.example.org?tls=1", "the only option is ?starttls, found tls=1"),
        ("smtp://ana:pw@mail.example.org", "credentials would cross the network in clear"),
    ],
)
def test_bad_smtp_urls_say_what_was_expected(url: str, expected: str) -> None:
    with pytest.raises(MailSettingsError) as raised:
        parse_smtp_url(url)
    assert expected in str(raised.value)


def test_smtp_url_defaults() -> None:
    assert parse_smtp_url("smtp://relay").port == 25
    assert parse_smtp_url("smtp://relay?starttls").security == "starttls"
    # A local relay may take credentials in clear (nothing crosses the network).
    assert parse_smtp_url("smtp://ana:pw@127.0.0.1:2525").user == "ana"
    assert "pw" not in repr(parse_smtp_url("smtps://ana:pw@relay"))


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (["--smtp-url", "smtps://relay"], "expected --mail-from too"),
        (["--smtp-url", "smtps://relay", "--mail-from", "x"], "--mail-from: expected an address"),
        (
            ["--smtp-url", "smtps://relay", "--mail-from", "g@example.org"],
            "expected --public-url too",
        ),
        (
            ["--smtp-url", "smtps://relay", "--mail-from", "g@example.org", "--public-url", "x"],
            "--public-url: expected https://HOST",
        ),
        (["--mail-from", "g@example.org"], "--mail-from: expected --smtp-url too"),
        (["--smtp-url", "pop3://relay"], "--smtp-url: expected smtp://"),
        (["--smtp-url", "smtps://relay", "--smtp-ca-file", "/nonexistent"], "no such file"),
    ],
)
def test_serve_refuses_mail_options_that_do_not_fit(
    options: list[str], expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["--port", "0", "--db", str(tmp_path / "g.sqlite3"), *options])
    assert code == 2
    assert expected in capsys.readouterr().err
