"""``marrakech serve --workers N``: N server processes on one port, one per core.

One instance does all of a game's work but the store's commits and the bots' thinking
on one event loop, so it uses about one core whatever the machine has. With
``--workers N`` (PostgreSQL only) one ``marrakech serve`` command runs N **workers**,
each an instance of the cluster (docs/deploy.md "Several instances": each game's room
owned by one instance through a lease in the database, the others relaying its updates
to their clients and forwarding their clients' actions to it). Each worker listens on
the same port with its own socket (``SO_REUSEPORT``): the kernel spreads the
connections over them as a balancer would, so the two players of a game may land on
two workers, as on two instances, with no stickiness needed.

The first process only supervises (:func:`fork_workers`): it forks the workers before
any thread or event loop exists, prints the address once every worker accepts
connections, starts a worker again when one dies (its games go on at another worker as
after an instance's death: within the lease), and stops them all on Ctrl+C or
``SIGTERM``. A worker ends with the supervisor, even one killed with ``kill -9``
(Linux's parent-death signal).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import signal
import socket
import sys
import time
from collections.abc import Callable
from types import FrameType

#: Seconds the supervisor lets its workers shut down cleanly before it kills them.
STOP_SECONDS = 20.0
#: Linux's prctl option for the parent-death signal.
PR_SET_PDEATHSIG = 1


#: ``serve --workers``' help.
HELP = "server processes on the port, one per core (1; more need a postgresql:// --db)"


def refusal(workers: int, postgres: bool, metrics: object) -> str | None:
    """Why ``serve --workers`` cannot run so (None: it can)."""
    if workers == 1:
        return None
    if not 2 <= workers <= 64:
        return f"--workers: expected 1 to 64, found {workers}"
    if not postgres:
        return (
            f"--workers {workers}: expected a postgresql:// --db (the workers share the"
            " games through it), found a SQLite file"
        )
    if metrics is not None:
        return (
            f"--workers {workers}: --metrics serves one process's figures; run one"
            " instance per core with its own --metrics port instead (docs/deploy.md)"
        )
    return None


def bind(host: str, port: int) -> socket.socket:
    """A listening-ready TCP socket on ``host:port`` (``port`` 0: the system picks)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def reuse_port_sockets(first: socket.socket, count: int) -> list[socket.socket]:
    """``count`` sockets bound with ``SO_REUSEPORT`` to the address of ``first`` (closed:
    the option must be set before a socket binds): one per worker, the kernel
    spreading new connections over them."""
    address = first.getsockname()[:2]
    first.close()
    sockets: list[socket.socket] = []
    try:
        for _ in range(count):
            sock = socket.socket(first.family, socket.SOCK_STREAM)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            sock.bind(address)
            sock.set_inheritable(True)
    except OSError:
        for sock in sockets:
            sock.close()
        raise
    return sockets


def _end_with_parent() -> None:
    """Have Linux send this process ``SIGTERM`` when its parent dies, even by
    ``kill -9`` (elsewhere nothing: stop the workers by hand)."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


class Supervisor:
    """The first process of ``serve --workers N``: forks, watches and stops workers."""

    def __init__(self, sockets: list[socket.socket]) -> None:
        self.sockets = sockets
        self.workers: dict[int, int] = {}  # pid -> worker number
        self.stopping = False
        self.readers, self.writer = os.pipe()

    def fork(self, number: int) -> socket.socket | None:
        """Start worker ``number``: returns its socket in the worker, None here."""
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            os.setpgid(0, 0)  # Ctrl+C reaches the supervisor, which stops each once
            _end_with_parent()
            if os.getppid() == 1:  # the supervisor died between fork and prctl
                os._exit(1)
            for number_of, sock in enumerate(self.sockets):
                if number_of != number:
                    sock.close()
            os.close(self.readers)
            signal.signal(signal.SIGINT, signal.default_int_handler)  # as a lone instance
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            return self.sockets[number]
        self.workers[pid] = number
        return None

    def ready(self) -> None:
        """Called in a worker once it accepts connections."""
        os.write(self.writer, b".")

    def stop(self, signum: int = signal.SIGINT, frame: FrameType | None = None) -> None:
        """Ask every worker to shut down cleanly, with the signal this process got:
        Ctrl+C's ``SIGINT`` reaches the workers once, through here (they are in a
        process group of their own); systemd's ``SIGTERM`` reaches them from it too,
        and a second ``SIGTERM`` changes nothing (a second ``SIGINT`` would cut
        uvicorn's shutdown short)."""
        self.stopping = True
        for pid in self.workers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signum)

    def wait_ready(self, count: int) -> bool:
        """Whether all ``count`` workers started (False: one ended first)."""
        started = 0
        while started < count:
            if self.stopping or self._reap(restart=False):
                return False
            ready, _, _ = select.select([self.readers], [], [], 0.2)
            if ready:
                started += len(os.read(self.readers, count))
        return True

    def _reap(self, restart: bool) -> bool:
        """Collect ended workers; True if one ended (started again if ``restart``)."""
        ended = False
        while self.workers:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            number = self.workers.pop(pid, None)
            if number is None:
                continue
            ended = True
            if restart and not self.stopping:
                code = os.waitstatus_to_exitcode(status)
                print(
                    f"marrakech serve: worker {number + 1} (process {pid}) ended ({code});"
                    " starting it again",
                    file=sys.stderr,
                    flush=True,
                )
                time.sleep(1.0)  # a worker failing at once does not spin the machine
                if self.fork(number) is not None:
                    raise _InWorker(number)
        return ended

    def supervise(self) -> int:
        """Until stopped: start dead workers again; then wait for all to end."""
        while not self.stopping:
            select.select([self.readers], [], [], 0.5)
            with contextlib.suppress(BlockingIOError):
                os.set_blocking(self.readers, False)
                os.read(self.readers, 1024)  # restarted workers' "ready"
            self._reap(restart=True)
        deadline = time.monotonic() + STOP_SECONDS
        while self.workers and time.monotonic() < deadline:
            self._reap(restart=False)
            time.sleep(0.05)
        for pid in self.workers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        return 0


class _InWorker(Exception):
    """Raised in a worker the supervisor started again, out of the supervisor's loop."""

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.number = number


def fork(
    count: int, first: socket.socket, announce: Callable[[], None]
) -> tuple[socket.socket, Callable[[], None]]:
    """Start ``count`` workers on ``first``'s address and supervise them.

    Returns in each worker only: its listening socket and the function to call once it
    accepts connections. The supervisor calls ``announce`` once every worker is ready
    and exits (``SystemExit``) when they have all ended. With one worker, this process
    is it: ``(first, announce)``."""
    if count == 1:
        return first, announce
    supervisor = Supervisor(reuse_port_sockets(first, count))
    try:
        for number in range(count):
            mine = supervisor.fork(number)
            if mine is not None:
                return mine, supervisor.ready
        signal.signal(signal.SIGINT, supervisor.stop)
        signal.signal(signal.SIGTERM, supervisor.stop)
        if not supervisor.wait_ready(count):
            supervisor.stop()
            supervisor.supervise()
            raise SystemExit(1)
        announce()
        raise SystemExit(supervisor.supervise())
    except _InWorker as restarted:
        return supervisor.sockets[restarted.number], supervisor.ready
