"""Real ``marrakech serve`` processes and Debian's HAProxy in front of them, for tests.

:class:`Served` starts ``python -m marrakech.web`` on a free port and waits for its
"ready" line; :class:`Balancer` runs HAProxy with the shipped ``deploy/haproxy.cfg``
(its addresses given by environment variables). Both are stopped by their tests.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from tests.web.postgres import free_port

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


class Served:
    """One ``marrakech serve`` process."""

    def __init__(self, db: str | Path, *options: str, port: int = 0) -> None:
        command = [sys.executable, "-m", "marrakech.web", "--port", str(port), "--db", str(db)]
        # Its log goes to a file, never to a pipe nobody reads (a full pipe would stall
        # the server); log() shows it when a test fails.
        self.log_file = tempfile.NamedTemporaryFile(  # noqa: SIM115 (closed in _close_pipes)
            "w+", prefix="marrakech-serve-", suffix=".log", delete=False
        )
        self.process = subprocess.Popen(
            [*command, "--log-level", "warning", *options],
            stdout=subprocess.PIPE,
            stderr=self.log_file,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line.startswith("Marrakech is ready at "):
            self.process.kill()
            self.process.wait(timeout=10)
            raise RuntimeError(f"the server did not start: {line!r} {self.log()}")
        self.url = line.split()[4]
        #: Where the server says its games are stored (its second line).
        self.stored_in = self.process.stdout.readline().strip()
        self.port = int(self.url.rsplit(":", 1)[1].strip("/"))
        self.pid = self.process.pid

    def children(self) -> list[int]:
        """The processes this server started (its bot workers, multiprocessing's
        resource tracker), from /proc."""
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if int(fields[1]) == self.pid:
                    found.append(int(entry.name))
        return found

    def kill(self) -> None:
        """``kill -9``: no cleanup of any kind."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)
        self._close_pipes()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._close_pipes()

    def log(self) -> str:
        """The end of what the server logged so far."""
        return Path(self.log_file.name).read_text(errors="replace")[-4000:]

    def _close_pipes(self) -> None:
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.log_file.close()
        Path(self.log_file.name).unlink(missing_ok=True)


def run_showing_logs(scenario: Coroutine[Any, Any, None], **servers: Served) -> None:
    """Run an async test ``scenario`` against ``servers``; if it fails, the failure says
    what each server logged (by the names given)."""
    try:
        asyncio.run(scenario)
    except Exception as error:
        logs = "\n".join(f"{name}:\n{server.log()}" for name, server in servers.items())
        raise AssertionError(logs) from error


def alive(pid: int) -> bool:
    """Whether a process runs (a zombie waiting to be reaped does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


class Balancer:
    """HAProxy with ``deploy/haproxy.cfg`` in front of two instances."""

    def __init__(self, one: Served, two: Served) -> None:
        program = shutil.which("haproxy") or "/usr/sbin/haproxy"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.command = [program, "-db", "-f", str(DEPLOY / "haproxy.cfg")]
        self.env = {
            **os.environ,
            "MARRAKECH_LB_BIND": f"127.0.0.1:{self.port}",
            "MARRAKECH_ONE": f"127.0.0.1:{one.port}",
            "MARRAKECH_TWO": f"127.0.0.1:{two.port}",
        }
        self.process = self._run()
        # Ready once round robin has reached both instances: until HAProxy's first checks
        # pass, it may send everything to one, and the tests need both in play.
        seen: set[str] = set()
        deadline = time.monotonic() + 15
        while len(seen) < 2:
            try:
                with urllib.request.urlopen(self.url + "api/health", timeout=2) as reply:
                    seen.add(json.loads(reply.read())["instance"])
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"HAProxy did not reach both instances (reached {seen})")
            time.sleep(0.1)

    def _run(self) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            self.command, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )

    def restart(self) -> None:
        """Stop HAProxy (every connection through it drops) and start it again on the
        same port, as ``systemctl restart haproxy`` does."""
        self.stop()
        self.process = self._run()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
