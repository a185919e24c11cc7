"""The shipped nginx site (deploy/nginx-marrakech.conf) end to end, as HAProxy's is
(issue 23): on a port that is not 443, over TLS, the page's POSTs and WebSockets pass
the server's same-origin check (Host keeps its port), and the per-client caps answer in
the server's JSON error shape."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import TWO_HUMANS
from tests.web.postgres import free_port
from tests.web.servers import DEPLOY, Served

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("nginx") is None, reason="needs Debian's nginx"),
]
websockets = pytest.importorskip("websockets.asyncio.client")
from websockets.exceptions import InvalidStatus  # noqa: E402

#: The caps of deploy/nginx-marrakech.conf.
CONNECTIONS, POST_BURST = 40, 20


class Nginx:
    """nginx running the shipped site, on a free port with a self-signed certificate,
    in front of ``server``."""

    def __init__(self, folder: Path, server: Served) -> None:
        self.port = free_port()
        self.origin = f"https://127.0.0.1:{self.port}"
        folder.mkdir()
        subprocess.run(
            [
                *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
                *("-subj", "/CN=127.0.0.1", "-keyout", "key.pem", "-out", "cert.pem"),
            ],
            cwd=folder,
            check=True,
            capture_output=True,
        )
        site = (DEPLOY / "nginx-marrakech.conf").read_text()
        for shipped, here in (
            ("listen 443 ssl;", f"listen 127.0.0.1:{self.port} ssl;"),
            ("/etc/letsencrypt/live/marrakech.example.org/fullchain.pem", str(folder / "cert.pem")),
            ("/etc/letsencrypt/live/marrakech.example.org/privkey.pem", str(folder / "key.pem")),
            ("http://127.0.0.1:8000", f"http://127.0.0.1:{server.port}"),
        ):
            assert shipped in site, shipped
            site = site.replace(shipped, here)
        (folder / "site.conf").write_text(site)
        temp = "".join(
            f"{kind}_temp_path {folder}/{kind};\n"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        user = "user root;\n" if os.geteuid() == 0 else ""
        (folder / "nginx.conf").write_text(
            f"{user}daemon off;\nworker_processes 1;\npid {folder}/nginx.pid;\n"
            f"error_log {folder}/error.log;\nevents {{ worker_connections 1024; }}\n"
            f"http {{\naccess_log off;\n{temp}include {folder}/site.conf;\n}}\n"
        )
        self.folder = folder
        self.process = subprocess.Popen(
            ["nginx", "-p", str(folder), "-c", str(folder / "nginx.conf")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.tls = ssl.create_default_context()
        self.tls.check_hostname = False
        self.tls.verify_mode = ssl.CERT_NONE
        deadline = time.monotonic() + 10
        while self.request("GET", "/api/health")[0] != 200:
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError((folder / "error.log").read_text())
            time.sleep(0.1)

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, dict[str, str], Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.origin + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        request.add_header("Origin", self.origin)
        try:
            with urllib.request.urlopen(request, timeout=5, context=self.tls) as reply:
                return reply.status, dict(reply.headers), json.loads(reply.read())
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), json.loads(error.read() or b"null")
        except OSError:
            return 0, {}, None

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


@pytest.fixture
def nginx(tmp_path: Path) -> Any:
    server = Served(tmp_path / "games.sqlite3", "--max-sockets-per-client", "100")
    proxy = Nginx(tmp_path / "nginx", server)
    yield proxy
    proxy.stop()
    server.stop()


def test_nginx_on_another_port_passes_the_origin_check_and_caps_clients(nginx: Nginx) -> None:
    status, _, game = nginx.request("POST", "/api/games", TWO_HUMANS)
    assert status == 201, game  # Host kept its port: the Origin matched
    uri = f"wss://127.0.0.1:{nginx.port}/ws/{game['game_id']}"

    async def sockets() -> None:
        held = []
        try:
            for _ in range(CONNECTIONS):
                ws = await websockets.connect(
                    uri, ssl=nginx.tls, origin=nginx.origin, ping_interval=None
                )
                await ws.send(json.dumps({"type": "hello"}))
                assert json.loads(await ws.recv())["type"] == "welcome"
                held.append(ws)
            with pytest.raises(InvalidStatus) as refused:
                await websockets.connect(uri, ssl=nginx.tls, origin=nginx.origin)
            response = refused.value.response
            assert response.status_code == 429
            assert json.loads(response.body)["error"] == "rate_limited"
        finally:
            for ws in held:
                await ws.close()

    asyncio.run(sockets())
    # Past the burst (2 a second refill it: a slow machine may need a few more).
    answers = [nginx.request("POST", "/api/nothing-here", {}) for _ in range(POST_BURST)]
    assert answers[0][0] != 429
    while answers[-1][0] != 429:
        assert len(answers) < 10 * POST_BURST, [status for status, _, _ in answers]
        answers.append(nginx.request("POST", "/api/nothing-here", {}))
    status, headers, refusal = answers[-1]
    assert refusal["error"] == "rate_limited" and headers["Retry-After"]
    assert nginx.request("GET", "/api/health")[0] == 200  # reading goes on
