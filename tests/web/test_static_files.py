"""Static files (served by servestatic, ``app/web/assets.py``): fingerprinted names in the
pages, cached for a year and immutable, precompressed bodies chosen by Accept-Encoding, no
cookie, a short cache for a plain name, a 404 for an unknown one, and a new URL when a file
changes."""

from __future__ import annotations

import re
from pathlib import Path

import brotli
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.web.assets import StaticFiles, static_url

ROOT = Path(__file__).resolve().parents[2]
HTMX = (ROOT / "static" / "vendor" / "htmx-4.0.1.min.js").read_bytes()
YEAR = 365 * 24 * 3600


def max_age(cache_control: str) -> int:
    found = re.search(r"max-age=(\d+)", cache_control)
    assert found, cache_control
    return int(found.group(1))


def test_pages_reference_fingerprinted_names(app: FastAPI) -> None:
    page = TestClient(app).get("/rules", headers={"Accept": "text/html"}).text
    urls = re.findall(r'(?:href|src)="(/static/[^"]+)"', page)
    assert urls, page[:500]
    for url in urls:
        assert re.search(r"\.[0-9a-f]{12}\.(css|js|png)$", url), url
        assert "?" not in url
    assert static_url("vendor/htmx-4.0.1.min.js") in urls  # htmx stays vendored, ours


def test_a_fingerprinted_url_is_immutable_and_compressed_when_asked(app: FastAPI) -> None:
    client = TestClient(app)
    url = static_url("vendor/htmx-4.0.1.min.js")
    r = client.get(url, headers={"Accept-Encoding": "br, gzip"})
    assert r.status_code == 200
    assert "immutable" in r.headers["cache-control"] and "public" in r.headers["cache-control"]
    assert max_age(r.headers["cache-control"]) >= YEAR
    assert r.headers["content-encoding"] == "br"
    assert r.headers["vary"] == "Accept-Encoding"
    assert r.headers["content-type"].startswith("text/javascript")
    assert r.headers["x-content-type-options"] == "nosniff"
    # Cached for a year, maybe by a shared cache: never with someone's new player cookie.
    assert "set-cookie" not in r.headers
    assert "set-cookie" not in client.get("/static/css/app.css").headers
    assert int(r.headers["content-length"]) < len(HTMX) / 2
    assert r.content == HTMX  # the client decoded brotli

    r = client.get(url, headers={"Accept-Encoding": "gzip"})
    assert r.headers["content-encoding"] == "gzip" and r.content == HTMX
    assert int(r.headers["content-length"]) < len(HTMX) / 2
    r = client.get(url, headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in r.headers and r.content == HTMX
    assert int(r.headers["content-length"]) == len(HTMX)

    etag = client.get(url, headers={"Accept-Encoding": "gzip"}).headers["etag"]
    again = client.get(url, headers={"Accept-Encoding": "gzip", "If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""


def test_the_brotli_body_is_the_file(app: FastAPI) -> None:
    """What a browser decodes is the file itself (read here without the client's decoding)."""
    client = TestClient(app)
    url = static_url("css/app.css")
    with client.stream("GET", url, headers={"Accept-Encoding": "br"}) as r:
        body = b"".join(r.iter_raw())
    assert r.headers["content-encoding"] == "br"
    assert brotli.decompress(body) == (ROOT / "static" / "css" / "app.css").read_bytes()


def test_plain_names_get_a_short_cache_and_unknown_names_a_404(app: FastAPI) -> None:
    client = TestClient(app)
    r = client.get("/static/css/app.css")
    assert r.status_code == 200 and "immutable" not in r.headers["cache-control"]
    assert max_age(r.headers["cache-control"]) <= 3600
    assert r.content == (ROOT / "static" / "css" / "app.css").read_bytes()
    assert client.get("/static/css/nothing.css").status_code == 404
    assert client.get("/static/css/app.0123456789ab.css").status_code == 404
    assert client.get("/static/../app/main.py").status_code == 404
    assert client.get("/static/%2e%2e/app/main.py").status_code == 404
    assert client.post(static_url("css/app.css")).status_code in (403, 405)


def test_a_changed_file_gets_a_new_url(tmp_path: Path) -> None:
    source, built = tmp_path / "static", tmp_path / "built"
    css = source / "css" / "site.css"
    css.parent.mkdir(parents=True)
    built.mkdir()
    css.write_text("body { color: black; }\n" * 40)
    url = StaticFiles(source, built).url("css/site.css")
    assert re.fullmatch(r"/static/css/site\.[0-9a-f]{12}\.css", url)
    assert StaticFiles(source, built).url("css/site.css") == url  # stable while unchanged
    css.write_text("body { color: navy; }\n" * 40)
    second = StaticFiles(source, built)
    new_url = second.url("css/site.css")
    assert new_url != url and re.fullmatch(r"/static/css/site\.[0-9a-f]{12}\.css", new_url)

    client = TestClient(second.app)  # (servestatic alone: 404 for anything it does not hold)
    fresh = client.get(new_url, headers={"Accept-Encoding": "gzip"})
    assert "immutable" in fresh.headers["cache-control"] and b"navy" in fresh.content
    assert fresh.headers["content-encoding"] == "gzip"
    assert client.get(url).status_code == 404  # the old name is gone with the old content
    assert b"navy" in client.get("/static/css/site.css").content
