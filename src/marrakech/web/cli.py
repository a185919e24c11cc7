"""``marrakech serve``: start the web app on uvicorn and print its address.

``--port 0`` picks a free port; the printed line carries the real one, once the server
accepts connections, so scripts can wait for it::

    $ marrakech serve --port 0
    Marrakech is ready at http://localhost:43121/  (Ctrl+C to stop)

On the loopback address (the default) the printed address names ``localhost``, not
``127.0.0.1``: browsers refuse passkeys on an IP address (WebAuthn's relying party must be
a domain name) and count ``http://localhost`` as a secure context.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import importlib.util
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

# Without the 'web' extra the command line offers to install it (see marrakech.cli).
for _module in ("fastapi", "uvicorn", "platformdirs"):
    if importlib.util.find_spec(_module) is None:
        raise ImportError(f"marrakech serve needs {_module}: pip install 'marrakech[web]'")

from marrakech.web import serve_workers  # noqa: E402 (after the check above)
from marrakech.web.limits import Limits, address_key  # noqa: E402
from marrakech.web.store.retry import RETRY_SECONDS  # noqa: E402

#: The values of ``--external-bots`` (:data:`marrakech.web.context.ExternalBots`).
EXTERNAL_BOTS = ("allow", "invited", "refuse")
if TYPE_CHECKING:
    from marrakech.web.reminders.settings import MailSettings

#: The options of :class:`Limits`: option, field, what it limits.
LIMIT_OPTIONS = (
    ("--games-per-minute", "creates_per_minute", "new games per minute per client address"),
    ("--max-games", "games", "unfinished games on the whole server"),
    ("--max-bots", "bots", "bot seats in unfinished games on the whole server"),
    ("--max-games-per-client", "games_per_client", "unfinished games of one client address"),
    ("--max-bots-per-client", "bots_per_client", "bot seats in one client address's games"),
    ("--max-sockets-per-client", "sockets_per_client", "open WebSockets of one client address"),
    ("--replays-per-minute", "replays_per_minute", "replays and analyses computed per client"),
    ("--chats-per-minute", "chats_per_minute", "chat lines per minute of one player"),
)

#: Largest WebSocket frame uvicorn accepts; the protocol's limit (4 KiB) is checked by the
#: app, which answers ``too_large``; anything past this is cut off by the server.
WS_MAX_SIZE = 64 * 1024


def flooding(app: Any, forwarded_allow_ips: str | None) -> Callable[[str], bool]:
    """Whether a connection from an address is to be closed as it opens: the address
    floods (its sockets' limits, ``SocketCounts.cooling``). Never a trusted proxy's:
    behind one every client has its address (an ``X-Forwarded-For`` the app reads)."""
    trusted = forwarded_allow_ips or os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
    proxies = {ip.strip() for ip in trusted.split(",")}
    sockets = app.state.web.sockets

    def refuse(ip: str) -> bool:
        return "*" not in proxies and ip not in proxies and sockets.cooling(address_key(ip)) > 0

    return refuse


def loopback_hosts(host: str, allow_origins: Sequence[str]) -> list[str] | None:
    """The names a server listening on ``host`` answers to by default: on a loopback
    address, only the machine's own names (and the other sites it allows); elsewhere any
    name (None), as a proxy in front passes the public one.

    >>> loopback_hosts("127.0.0.1", ["https://games.example.org"])
    ['localhost', '127.0.0.1', '::1', 'games.example.org']
    >>> loopback_hosts("0.0.0.0", []) is None
    True
    """
    if host not in ("127.0.0.1", "::1", "localhost"):
        return None
    others = [urlsplit(origin).hostname or "" for origin in allow_origins]
    return ["localhost", "127.0.0.1", "::1", *filter(None, others)]


def add_parser(subparsers: Any) -> None:
    """Add ``serve`` to the ``marrakech`` command."""
    parser = subparsers.add_parser(
        "serve",
        help="start the web app (lobby, live games, replays)",
        description="Start the Marrakech web app and print its address.",
    )
    add_serve_options(parser)
    parser.set_defaults(run=run)


def add_serve_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    parser.add_argument(
        "--port", type=_port, default=8000, help="port to listen on (8000; 0 = any free port)"
    )
    parser.add_argument(
        "--db",
        metavar="PATH|URL",
        default=os.environ.get("MARRAKECH_DB"),
        help="SQLite file of the games (default: marrakech.sqlite3 in your data directory), "
        "or a PostgreSQL URL (postgresql://USER@HOST/DB) that several servers share; "
        "also read from MARRAKECH_DB",
    )
    parser.add_argument(
        "--bot-delay",
        type=_seconds,
        default=0.7,
        metavar="SECONDS",
        help="pause before each bot move, so people can follow it (0.7)",
    )
    parser.add_argument(
        "--relaxed-seconds",
        type=_turn_seconds,
        default=180,
        metavar="SECONDS",
        help="seconds per player turn with the relaxed clock (180)",
    )
    parser.add_argument(
        "--blitz-seconds",
        type=_turn_seconds,
        default=30,
        metavar="SECONDS",
        help="seconds per player turn with the blitz clock (30)",
    )
    parser.add_argument(
        "--turn-based-scale",
        type=_scale,
        default=1.0,
        metavar="FACTOR",
        help="multiply the turn-based clocks' times per move (1; tests and demonstrations "
        "use 0.001 to make an hour 3.6 s)",
    )
    parser.add_argument(
        "--sweep-seconds",
        type=_sweep,
        default=10.0,
        metavar="SECONDS",
        help="seconds between two sweeps of the turn-based deadlines and of the games to "
        "resume (10)",
    )
    parser.add_argument(
        "--store-retry",
        type=_store_retry,
        default=RETRY_SECONDS,
        metavar="SECONDS",
        help="seconds a store failing for a moment (a database restart, a locked file) is "
        f"tried again before an action is refused ({RETRY_SECONDS:g})",
    )
    parser.add_argument(
        "--open-game-ttl",
        type=_turn_seconds,
        default=3600,
        metavar="SECONDS",
        help="seconds an open game nobody joins stays in the lobby (3600)",
    )
    parser.add_argument(
        "--external-bots",
        choices=EXTERNAL_BOTS,
        default="allow",
        help="programs that declare themselves bots (marrakech connect): allow them on "
        "any seat (default), only on seats they were invited to by link, or refuse "
        "them; they are always shown as 'bot (external)'",
    )
    parser.add_argument(
        "--leaderboard-min-games",
        type=int,
        default=5,
        metavar="N",
        help="rated games an account plays at a player count before it shows on "
        "that count's leaderboard (5)",
    )
    parser.add_argument(
        "--rate",
        type=float,
        default=20.0,
        metavar="N",
        help="messages per second allowed per WebSocket connection (20; bursts of 2N)",
    )
    parser.add_argument("--workers", type=int, default=1, metavar="N", help=serve_workers.HELP)
    parser.add_argument(
        "--bot-processes",
        type=int,
        default=2,
        metavar="N",
        help="worker processes for the bots' thinking (2; 0 = threads in the server)",
    )
    parser.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="another site whose pages may create and play games here "
        "(https://games.example.org; repeatable; default: this site only)",
    )
    parser.add_argument(
        "--header-timeout",
        type=_seconds,
        default=10.0,
        metavar="SECONDS",
        help="close a connection whose request headers take longer (slowloris; 10)",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[name for name in os.environ.get("MARRAKECH_ALLOWED_HOSTS", "").split(",") if name]
        or None,
        metavar="NAME",
        help="a name browsers reach this server by (games.example.org; repeatable; also "
        "read from MARRAKECH_ALLOWED_HOSTS, comma-separated); others are refused, so no "
        "other site's name can be pointed here (DNS rebinding). Default: on 127.0.0.1 "
        "or ::1, localhost and those addresses; elsewhere, any name",
    )
    parser.add_argument(
        "--forwarded-allow-ips",
        default=None,
        metavar="IPS",
        help="proxies trusted for X-Forwarded-For/-Proto, comma-separated "
        "(default: 127.0.0.1,::1; '*' for any)",
    )
    defaults = Limits()
    for option, name, what in LIMIT_OPTIONS:
        default = getattr(defaults, name)
        parser.add_argument(
            option,
            dest=name,
            type=type(default),
            default=default,
            metavar="N",
            help=f"{what} ({default:g})",
        )
    mail = parser.add_argument_group(
        "email reminders", "send players reminders of their turns (docs/deploy.md)"
    )
    mail.add_argument(
        "--smtp-url",
        default=os.environ.get("MARRAKECH_SMTP_URL"),
        metavar="URL",
        help="the SMTP relay: smtp://HOST[:PORT], smtp+starttls://USER:PASS@HOST[:PORT] "
        "(or smtp://...?starttls), smtps://USER:PASS@HOST[:PORT] (TLS); also read from "
        "MARRAKECH_SMTP_URL, which keeps the password out of the process list. "
        "Default: no reminders",
    )
    mail.add_argument(
        "--mail-from",
        default=os.environ.get("MARRAKECH_MAIL_FROM"),
        metavar="ADDRESS",
        help='the reminders\' sender ("Marrakech <games@example.org>"); needed with --smtp-url',
    )
    mail.add_argument(
        "--public-url",
        default=os.environ.get("MARRAKECH_PUBLIC_URL"),
        metavar="URL",
        help="this site's address as players reach it, for the links in emails "
        "(https://games.example.org); needed with --smtp-url",
    )
    mail.add_argument(
        "--smtp-ca-file",
        default=None,
        metavar="PATH",
        help="certificates (PEM) to trust for the relay's TLS, besides the system's (a private CA)",
    )
    mail.add_argument(
        "--reminder-delay",
        type=_turn_seconds,
        default=600,
        metavar="SECONDS",
        help="quiet delay before a your-turn email (600)",
    )
    from marrakech.web.reminders.webpush import add_push_options

    add_push_options(parser)  # --web-push, --push-key-file...
    from marrakech.web.pools import add_pool_options

    add_pool_options(parser)  # --pool-wave, --pool-bots-after
    from marrakech.web.tournaments.schedule import add_schedule_option

    add_schedule_option(parser)  # --tournament-schedule
    parser.add_argument(
        "--durable",
        action="store_true",
        help="flush every action to disk (survives a power cut; slower)",
    )
    parser.add_argument(
        "--log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug"],
        help="server log level (info)",
    )
    parser.add_argument(
        "--log-format",
        default="text",
        choices=["text", "json"],
        help="the log on stderr: lines for people (text), or one JSON object a line with "
        "time, level, logger, message and the request's fields (json)",
    )
    watch = parser.add_argument_group(
        "metrics", "Prometheus metrics on a port of their own (docs/deploy.md)"
    )
    watch.add_argument(
        "--metrics",
        type=_metrics_address,
        default=None,
        metavar="[HOST:]PORT",
        help="serve /metrics there, and only there (HOST: 127.0.0.1; PORT 0: any free "
        "port, printed). Default: no metrics",
    )
    watch.add_argument(
        "--metrics-allow",
        action="append",
        type=_metrics_network,
        default=[],
        metavar="NETWORK",
        help="an address or network that may read /metrics (10.0.0.7, 192.0.2.0/24; "
        "repeatable). Default: this machine only (127.0.0.0/8, ::1)",
    )


def _port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"expected a port 0..65535, found {text!r}")
    return int(text)


def _metrics_address(text: str) -> tuple[str, int]:
    """``--metrics``: ``PORT``, ``HOST:PORT`` or ``[IPv6]:PORT``; the host defaults to
    the loopback address."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or int(port) > 65535:
        raise argparse.ArgumentTypeError(
            f"expected [HOST:]PORT (9464, 127.0.0.1:9464, [::1]:9464), found {text!r}"
        )
    return host, int(port)


def _metrics_network(text: str) -> Any:
    from marrakech.web.metrics import metrics_network

    try:
        return metrics_network(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 60:
        raise argparse.ArgumentTypeError(f"expected seconds between 0 and 60, found {text!r}")
    return value


def _scale(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"expected a factor > 0 and <= 1, found {text!r}")
    return value


def _sweep(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.05 <= value <= 600:
        raise argparse.ArgumentTypeError(f"expected seconds between 0.05 and 600, found {text!r}")
    return value


def _store_retry(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 300:
        raise argparse.ArgumentTypeError(f"expected seconds between 0 and 300, found {text!r}")
    return value


def _turn_seconds(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 7 * 86400:
        raise argparse.ArgumentTypeError(
            f"expected whole seconds between 1 and 604800 (a week), found {text!r}"
        )
    return int(text)


def run(args: argparse.Namespace) -> int:
    """Run the server until Ctrl+C; returns the exit code."""
    import uvicorn

    from marrakech.web.app import create_app
    from marrakech.web.context import is_postgres
    from marrakech.web.http_protocol import (
        FirmWebSocketProtocol,
        ReadyServer,
        protocol_with_header_deadline,
    )
    from marrakech.web.logs import json_log_config
    from marrakech.web.metrics import LOOPBACK
    from marrakech.web.store import StoreError, default_db_path

    if args.db is not None and "://" in args.db and not is_postgres(args.db):
        scheme = args.db.split("://", 1)[0][:20]
        print(
            "marrakech serve: --db: expected a SQLite file or a postgresql:// URL, found a"
            f" {scheme}:// URL",
            file=sys.stderr,
        )
        return 2
    db: str | Path = args.db if is_postgres(args.db) else _sqlite_path(args.db, default_db_path)
    if args.rate <= 0:
        print(f"marrakech serve: --rate must be > 0, found {args.rate}", file=sys.stderr)
        return 2
    from marrakech.web.pools import pool_settings
    from marrakech.web.reminders.webpush import push_settings
    from marrakech.web.tournaments.schedule import schedule_of

    try:
        mail = mail_settings(args)
        push = push_settings(args)
        pools = pool_settings(args)
        schedule = schedule_of(args)
    except ValueError as error:
        print(f"marrakech serve: {error}", file=sys.stderr)
        return 2
    try:
        where = check_store(db)  # create or migrate the schema now, to fail clearly
    except (StoreError, ImportError) as error:
        print(f"marrakech serve: {error}", file=sys.stderr)
        return 1
    if (refusal := serve_workers.refusal(args.workers, is_postgres(db), args.metrics)) is not None:
        print(f"marrakech serve: {refusal}", file=sys.stderr)
        return 2
    try:
        sock = serve_workers.bind(args.host, args.port)
    except OSError as error:
        print(
            f"marrakech serve: cannot listen on {args.host}:{args.port}: {error.strerror}",
            file=sys.stderr,
        )
        return 1
    host, port = sock.getsockname()[:2]
    listeners = [sock]
    metrics_port: int | None = None
    if args.metrics is not None:
        metrics_host, wanted = args.metrics
        try:
            if wanted == port:
                raise OSError(0, "the site's own port: expected another one")
            metrics_sock = serve_workers.bind(metrics_host, wanted)
        except OSError as error:
            sock.close()
            print(
                f"marrakech serve: --metrics: cannot listen on {metrics_host}:{wanted}:"
                f" {error.strerror}",
                file=sys.stderr,
            )
            return 1
        listeners.append(metrics_sock)
        metrics_port = metrics_sock.getsockname()[1]
    address = url(host, port)

    def announce() -> None:
        print(f"Marrakech is ready at {address}  (Ctrl+C to stop)", flush=True)
        print(f"Games are stored in {where}", flush=True)
        if metrics_port is not None:
            allow = ", ".join(str(n) for n in args.metrics_allow or LOOPBACK)
            shown = url(listeners[1].getsockname()[0], metrics_port)
            print(f"Metrics at {shown}metrics  (for {allow})", flush=True)

    # --workers N: from here on, in each worker (the first process supervises them)
    listeners[0], ready = serve_workers.fork(args.workers, sock, announce)
    app = create_app(
        db,
        bot_delay=args.bot_delay,
        rate=args.rate,
        burst=max(1, int(args.rate * 2)),
        bot_processes=max(0, args.bot_processes),
        synchronous="FULL" if args.durable else "NORMAL",
        limits=dataclasses.replace(
            Limits(), **{name: getattr(args, name) for _, name, _ in LIMIT_OPTIONS}
        ),
        allow_origins=args.allow_origin,
        allowed_hosts=args.allowed_host or loopback_hosts(args.host, args.allow_origin),
        relaxed_seconds=args.relaxed_seconds,
        blitz_seconds=args.blitz_seconds,
        open_game_ttl=args.open_game_ttl,
        external_bots=args.external_bots,
        leaderboard_min_games=max(1, args.leaderboard_min_games),
        mail=mail,
        push=push,
        turn_scale=args.turn_based_scale,
        sweep_seconds=args.sweep_seconds,
        metrics_port=metrics_port,
        metrics_allow=args.metrics_allow or LOOPBACK,
        store_retry=args.store_retry,
        pools=pools,
        tournament_schedule=schedule,
    )
    log_config = json_log_config(args.log_level) if args.log_format == "json" else None
    config = uvicorn.Config(
        app,
        http=protocol_with_header_deadline(
            max(0.5, args.header_timeout), flooding(app, args.forwarded_allow_ips)
        ),
        ws=FirmWebSocketProtocol,
        log_level=args.log_level,
        log_config=log_config or uvicorn.config.LOGGING_CONFIG,
        ws_max_size=WS_MAX_SIZE,
        # Compressing every small message cost a quarter of the server's time per action.
        ws_per_message_deflate=False,
        lifespan="on",
        timeout_graceful_shutdown=5,
        forwarded_allow_ips=args.forwarded_allow_ips,
    )

    server = ReadyServer(config, ready)
    try:
        server.run(sockets=listeners)
    except KeyboardInterrupt:  # uvicorn re-raises Ctrl+C once it has shut down cleanly
        pass
    finally:
        for listener in listeners:
            listener.close()
    return 0 if server.started else 1


def mail_settings(args: argparse.Namespace) -> MailSettings | None:
    """The reminders' settings of ``serve``'s options (None without ``--smtp-url``);
    :class:`~marrakech.web.reminders.settings.MailSettingsError` says what is wrong."""
    from marrakech.web.reminders.settings import (
        MailSettings,
        MailSettingsError,
        ReminderTiming,
        parse_mail_from,
        parse_public_url,
        parse_smtp_url,
    )

    if not args.smtp_url:
        if args.mail_from:
            raise MailSettingsError("--mail-from: expected --smtp-url too (where to send)")
        return None
    if args.smtp_ca_file is not None and not Path(args.smtp_ca_file).is_file():
        raise MailSettingsError(f"--smtp-ca-file: no such file {args.smtp_ca_file!r}")
    relay = parse_smtp_url(args.smtp_url, cafile=args.smtp_ca_file)
    if not args.mail_from:
        raise MailSettingsError(
            "--smtp-url: expected --mail-from too (the sender, games@example.org)"
        )
    mail_from = parse_mail_from(args.mail_from)
    if not args.public_url:
        raise MailSettingsError(
            "--smtp-url: expected --public-url too (https://games.example.org, for the links)"
        )
    return MailSettings(
        relay,
        mail_from,
        parse_public_url(args.public_url),
        ReminderTiming(quiet_delay=float(args.reminder_delay)),
    )


def _sqlite_path(db: str | None, default: Any) -> Path:
    path: Path = Path(db).expanduser() if db else default()
    return path


def check_store(db: str | Path) -> str:
    """Open and close the store once: creates or migrates its schema, or raises
    :class:`~marrakech.web.store.StoreError` saying why it cannot be used. Returns
    where the games really are (a file, or a database as the server reached it; never
    a password)."""
    from marrakech.web.context import is_postgres
    from marrakech.web.store.sqlite import SQLiteStore

    if not is_postgres(db):
        SQLiteStore(db).close()
        return str(Path(db).resolve())
    try:
        from marrakech.web.store.postgres import PostgresStore
    except ImportError:
        raise ImportError(
            "a PostgreSQL database needs psycopg: pip install 'marrakech[postgres]'"
        ) from None

    async def check() -> str:
        store = await PostgresStore.open(str(db), min_size=1, max_size=1)
        try:
            async with store.pool.connection() as conn:
                info = conn.info
                place = f"{info.host}:{info.port}"
                if info.host.startswith("/"):  # a Unix socket's folder
                    place = f"the socket in {info.host} (port {info.port})"
                return f"PostgreSQL database {info.dbname!r} as {info.user!r} on {place}"
        finally:
            await store.close()

    return asyncio.run(check())


def url(host: str, port: int) -> str:
    """The address to open: on 127.0.0.1 or a wildcard host, ``localhost`` (passkeys
    work there, never on an IP address); ``::1`` stays as it is (``localhost`` may name
    127.0.0.1 only).

    >>> url("127.0.0.1", 8000), url("0.0.0.0", 80), url("::1", 8000)
    ('http://localhost:8000/', 'http://localhost:80/', 'http://[::1]:8000/')
    """
    if host in ("127.0.0.1", "0.0.0.0", "", "::"):
        host = "localhost"
    elif ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/"


def main(argv: list[str] | None = None) -> int:
    """``python -m marrakech.web``: the same as ``marrakech serve``."""
    parser = argparse.ArgumentParser(
        prog="python -m marrakech.web", description="Start the Marrakech web app."
    )
    add_serve_options(parser)
    args = parser.parse_args(argv)
    try:
        return run(args)
    except KeyboardInterrupt:
        return 130
