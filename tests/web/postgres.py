"""A throwaway PostgreSQL cluster for the tests: Debian's server, a temporary folder.

:class:`ThrowawayPostgres` runs ``initdb`` in a temporary folder and ``postgres`` on a
free port of 127.0.0.1, never a shared cluster. PostgreSQL refuses to run as root, so as
root (CI) it runs as the unprivileged user ``nobody``, which then owns the folder. Tests
get a fresh database each (:meth:`ThrowawayPostgres.new_database`); the cluster stops at
the end of the session. Without PostgreSQL's programs, the tests that need it are
skipped (``.ci/run`` installs Debian's ``postgresql``).
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import socket
import subprocess
import time
import uuid
from pathlib import Path

USER = "marrakech"


def server_programs() -> Path | None:
    """The folder of Debian's PostgreSQL server programs (the newest), or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"), key=_version)
    if found:
        return Path(found[-1]).parent
    program = shutil.which("postgres")
    return Path(program).parent if program else None


def _version(path: str) -> int:
    part = path.split("/")[4]
    return int(part) if part.isdigit() else 0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


class ThrowawayPostgres:
    """A PostgreSQL cluster of its own in ``folder``, on 127.0.0.1."""

    def __init__(self, folder: Path, programs: Path) -> None:
        self.folder = folder
        self.programs = programs
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.as_user: list[str] = []
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root
            self.as_user = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
            os.chmod(folder, 0o755)
            shutil.chown(folder, "nobody")

    def start(self) -> None:
        data = self.folder / "data"
        initdb = subprocess.run(
            [
                *self.as_user,
                str(self.programs / "initdb"),
                "-D",
                str(data),
                "-U",
                USER,
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
            capture_output=True,
            text=True,
        )
        if initdb.returncode != 0:
            raise RuntimeError(f"initdb failed: {initdb.stderr[-2000:]}")
        self._serve()

    def restart(self, down_for: float = 0.0) -> None:
        """Restart as ``pg_ctl restart -m fast`` does (every connection is dropped),
        staying down ``down_for`` seconds."""
        assert self.process is not None
        self.process.send_signal(signal.SIGINT)  # fast shutdown
        self.process.wait(timeout=20)
        time.sleep(down_for)
        self._serve()

    def _serve(self) -> None:
        data = self.folder / "data"
        log = open(self.folder / "postgres.log", "ab")  # noqa: SIM115 (kept open by the server)
        self.process = subprocess.Popen(
            [
                *self.as_user,
                str(self.programs / "postgres"),
                "-D",
                str(data),
                "-p",
                str(self.port),
                "-k",
                str(self.folder),
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                "fsync=off",
                "-c",
                "synchronous_commit=off",
                "-c",
                "full_page_writes=off",
                "-c",
                "max_connections=200",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 30
        while True:
            ready = subprocess.run(
                [str(self.programs / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port)],
                capture_output=True,
            )
            if ready.returncode == 0:
                return
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError((self.folder / "postgres.log").read_text()[-2000:])
            time.sleep(0.1)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A new empty database; its URL."""
        import psycopg
        from psycopg import sql

        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return self.url(name)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()  # "smart" shutdown would wait for clients: use fast
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
