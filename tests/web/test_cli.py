"""``marrakech serve``: options, and a real server that prints its real address."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import websockets.asyncio.client as websockets
from websockets.exceptions import ConnectionClosed, InvalidMessage, InvalidStatus

from marrakech.cli import build_parser
from marrakech.web.cli import url
from tests.web.postgres import free_port
from tests.web.servers import Served

# End to end (real server processes, PostgreSQL, or the whole terminal app): `make test`
# runs it, `make test-fast` leaves it out as it does the browser tests.
pytestmark = pytest.mark.e2e


def test_serve_options() -> None:
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.db, args.bot_delay) == ("127.0.0.1", 8000, None, 0.7)
    assert args.store_retry == 5.0
    assert build_parser().parse_args(["serve", "--store-retry", "0"]).store_retry == 0.0
    args = build_parser().parse_args(
        ["serve", "--host", "0.0.0.0", "--port", "0", "--db", "x.sqlite3", "--bot-delay", "0"]
    )
    assert (args.host, args.port, args.db, args.bot_delay) == ("0.0.0.0", 0, "x.sqlite3", 0.0)
    assert callable(args.run)
    args = build_parser().parse_args(["serve"])
    assert (args.relaxed_seconds, args.blitz_seconds, args.open_game_ttl) == (180, 30, 3600)
    args = build_parser().parse_args(
        ["serve", "--relaxed-seconds", "600", "--blitz-seconds", "5", "--open-game-ttl", "60"]
    )
    assert (args.relaxed_seconds, args.blitz_seconds, args.open_game_ttl) == (600, 5, 60)
    assert (args.metrics, args.metrics_allow, args.log_format) == (None, [], "text")
    args = build_parser().parse_args(
        ["serve", "--metrics", "9464", "--metrics-allow", "10.0.0.7", "--log-format", "json"]
    )
    assert args.metrics == ("127.0.0.1", 9464) and args.log_format == "json"
    assert [str(network) for network in args.metrics_allow] == ["10.0.0.7/32"]
    assert build_parser().parse_args(["serve", "--metrics", "[::1]:0"]).metrics == ("::1", 0)


def test_serve_refuses_metrics_on_the_sites_port(tmp_path: Path) -> None:
    """``--metrics`` on the site's own port would serve them to the site's visitors:
    refused, saying why, before serving anything."""
    port = str(free_port())
    done = subprocess.run(
        [
            *(sys.executable, "-m", "marrakech.web", "--db", str(tmp_path / "games.sqlite3")),
            *("--port", port, "--metrics", f"127.0.0.1:{port}"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and not done.stdout
    assert f"--metrics: cannot listen on 127.0.0.1:{port}: the site's own port" in done.stderr


@pytest.mark.parametrize(
    "bad",
    [
        ["--port", "70000"],
        ["--port", "http"],
        ["--bot-delay", "-1"],
        ["--blitz-seconds", "0"],
        ["--relaxed-seconds", "1.5"],
        ["--open-game-ttl", "forever"],
        ["--metrics", "localhost"],
        ["--metrics", "127.0.0.1:99999"],
        ["--metrics-allow", "everyone"],
        ["--store-retry", "-1"],
        ["--store-retry", "forever"],
    ],
)
def test_serve_refuses_bad_options(bad: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", *bad])
    assert "expected" in capsys.readouterr().err


def test_url() -> None:
    # localhost, not 127.0.0.1: passkeys refuse IP addresses (issue 36).
    assert url("127.0.0.1", 8000) == "http://localhost:8000/"
    assert url("0.0.0.0", 80) == "http://localhost:80/"
    assert url("::", 80) == "http://localhost:80/"
    assert url("::1", 8000) == "http://[::1]:8000/"
    assert url("192.0.2.7", 8000) == "http://192.0.2.7:8000/"


def test_serve_prints_the_real_address_and_serves(tmp_path: Path) -> None:
    db = tmp_path / "served.sqlite3"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "marrakech.web",
            "--port",
            "0",
            "--db",
            str(db),
            "--bot-delay",
            "0",
            "--bot-processes",
            "0",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()  # printed once the server accepts connections
        assert line.startswith("Marrakech is ready at http://localhost:"), line
        address = line.split()[4]
        assert not address.endswith(":0/")
        assert process.stdout.readline().strip() == f"Games are stored in {db.resolve()}"
        with urllib.request.urlopen(address + "api/games/open", timeout=10) as reply:
            assert json.loads(reply.read()) == []
        assert db.exists()
    finally:
        process.send_signal(signal.SIGINT)
        try:
            code = process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
        finally:
            if process.stdout is not None:
                process.stdout.close()
    assert code == 0


def test_serve_reports_a_bad_database(tmp_path: Path) -> None:
    """A file that is not a database: one clear line and exit code 1, before serving
    anything, and the file is left as it was."""
    db = tmp_path / "bad.sqlite3"
    garbage = b"not a database" * 200
    db.write_bytes(garbage)
    done = subprocess.run(
        [sys.executable, "-m", "marrakech.web", "--port", "0", "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith(f"marrakech serve: cannot open the game store {db}: ")
    assert "Traceback" not in done.stderr
    assert "Marrakech is ready" not in done.stdout  # it never listened
    assert db.read_bytes() == garbage


def test_serve_refuses_a_database_url_it_cannot_use(tmp_path: Path) -> None:
    """A mistyped URL must not become a SQLite file by that name (issue 23)."""
    done = subprocess.run(
        [sys.executable, "-m", "marrakech.web", "--port", "0", "--db", "mysql://m@/m"],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=tmp_path,
    )
    assert done.returncode == 2, done.stderr
    assert "expected a SQLite file or a postgresql:// URL, found a mysql:// URL" in (done.stderr)
    assert list(tmp_path.iterdir()) == []  # nothing was created


def test_serve_names_the_postgresql_database_it_really_uses(pg_url: str) -> None:
    server = Served(pg_url)
    try:
        name = pg_url.rsplit("/", 1)[1]
        assert f"PostgreSQL database {name!r} as 'marrakech' on 127.0.0.1:" in server.stored_in
    finally:
        server.stop()


def test_a_half_sent_request_is_closed_by_the_server(tmp_path: Path) -> None:
    """Slowloris (issue 23): headers sent a line at a time are cut off after
    ``--header-timeout``; a WebSocket, once open, stays open past it."""
    server = Served(tmp_path / "games.sqlite3", "--header-timeout", "1")
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as slow:
            slow.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            started = time.monotonic()
            with contextlib.suppress(ConnectionResetError):
                while slow.recv(1024):  # the server sends nothing and closes
                    pass
            assert time.monotonic() - started < 5
        with urllib.request.urlopen(server.url + "api/health", timeout=10) as reply:
            assert reply.status == 200  # whole requests are served as before

        async def socket_outlives_the_deadline() -> None:
            uri = server.url.replace("http", "ws") + "ws/nogame12345"
            async with websockets.connect(uri, ping_interval=None) as ws:
                await asyncio.sleep(2.0)  # twice the headers' deadline
                await ws.send(json.dumps({"type": "ping"}))
                assert json.loads(await ws.recv())["type"] == "pong"

        asyncio.run(socket_outlives_the_deadline())
    finally:
        server.stop()


def test_a_flooding_socket_is_dropped_at_once(tmp_path: Path) -> None:
    """A script flooding a WebSocket and reading nothing (issue 23) is cut off once the
    server closes it, not after 10 s of frames the server would parse and throw away;
    its address then opens no socket for a while."""
    server = Served(tmp_path / "games.sqlite3")
    try:
        uri = server.url.replace("http", "ws") + "ws/nogame12345"

        async def flood() -> int:
            sent = 0
            with contextlib.suppress(ConnectionClosed):
                async with websockets.connect(uri, ping_interval=None) as ws:
                    while sent < 50_000:  # about 4 s of frames from a client on this machine
                        await ws.send("{not json")
                        sent += 1
                        await asyncio.sleep(0)
            return sent

        # 40 answered (the burst), 200 dropped: then closed, and no more frames go in.
        assert asyncio.run(flood()) < 50_000

        async def refused() -> dict[str, object]:
            async with websockets.connect(uri, ping_interval=None) as ws:
                answer: dict[str, object] = json.loads(await ws.recv())
                with pytest.raises(ConnectionClosed) as closed:
                    await ws.recv()
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429
                return answer

        answer = asyncio.run(refused())
        assert answer["code"] == "rate_limited" and "flooded" in str(answer["message"])
    finally:
        server.stop()


def test_a_connection_flood_is_closed_as_it_opens(tmp_path: Path) -> None:
    """One address opening sockets past its cap, over and over (issue 23): the first
    refusal says why, the next ones are refused at the handshake, and past 100 of those
    in 10 s every connection from it is closed as it opens, before a byte is read;
    another address is served as before."""
    server = Served(tmp_path / "games.sqlite3", "--max-sockets-per-client", "1")
    flooder, other = "127.0.0.2", "127.0.0.3"
    try:
        uri = server.url.replace("http", "ws") + "ws/nogame12345"

        async def flood() -> list[str]:
            outcomes = []
            async with websockets.connect(uri, local_addr=(flooder, 0), ping_interval=None):
                for _ in range(120):
                    try:
                        ws = await websockets.connect(uri, local_addr=(flooder, 0))
                        outcomes.append(json.loads(await ws.recv())["code"])
                        await ws.close()
                    except InvalidStatus as refused:
                        outcomes.append(str(refused.response.status_code))
                    except (ConnectionClosed, InvalidMessage, OSError) as closed:
                        outcomes.append(type(closed).__name__)
            return outcomes

        outcomes = asyncio.run(flood())
        assert outcomes[0] == "too_many_connections"
        assert outcomes[1:101] == ["429"] * 100
        assert "429" not in outcomes[102:] and len(outcomes) == 120

        def health(source: str) -> int:
            with socket.create_connection(
                ("127.0.0.1", server.port), timeout=10, source_address=(source, 0)
            ) as raw:
                raw.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                try:
                    answer = raw.recv(1024)
                except ConnectionResetError:
                    answer = b""
            return int(answer.split()[1]) if answer else 0

        assert health(flooder) == 0  # closed unanswered, for the cooldown
        assert health(other) == 200
    finally:
        server.stop()


def test_a_request_the_server_cannot_read_gets_the_json_error_and_headers(
    tmp_path: Path,
) -> None:
    """uvicorn's own 400 (a 100 KB URL) is the API's error shape, with the security
    headers every answer carries (issue 23)."""
    server = Served(tmp_path / "games.sqlite3")
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as raw:
            raw.sendall(b"GET /" + b"a" * 100_000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            answer = b""
            with contextlib.suppress(ConnectionResetError):
                while chunk := raw.recv(65536):
                    answer += chunk
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 400"), head[:200]
        assert b"content-security-policy:" in head.lower()
        assert b"x-frame-options: deny" in head.lower()
        assert json.loads(body)["error"] == "bad_request"
    finally:
        server.stop()
