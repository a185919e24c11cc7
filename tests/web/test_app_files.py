"""The files that make the site an installable app (issue 25): the manifest, the service
worker with the page files' version written in, and the offline page; none cached."""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_the_app_files_are_served_from_the_root_uncached(client: TestClient) -> None:
    manifest = client.get("/manifest.webmanifest")
    assert manifest.status_code == 200
    assert manifest.headers["content-type"].startswith("application/manifest+json")
    assert manifest.json()["start_url"].startswith("/")
    worker = client.get("/sw.js")
    assert worker.headers["content-type"].startswith("text/javascript")
    version = client.get("/api/health").json()["page"]
    assert f'const VERSION = "{version}";' in worker.text
    offline = client.get("/offline")
    assert offline.headers["content-type"].startswith("text/html")
    assert 'data-testid="offline-page"' in offline.text
    for reply in (manifest, worker, offline):
        assert reply.headers["cache-control"] == "no-cache"
        assert "default-src 'self'" in reply.headers["content-security-policy"]


def test_the_page_links_the_manifest_and_the_icons(client: TestClient) -> None:
    page = client.get("/").text
    assert '<link rel="manifest" href="/manifest.webmanifest" />' in page
    assert 'name="theme-color"' in page
    for size in (192, 512):
        icon = client.get(f"/static/img/icon-{size}.png")
        assert icon.status_code == 200 and icon.headers["content-type"] == "image/png"
