"""Static files: fingerprinted names in the pages, immutable caching, precompressed bodies
chosen by Accept-Encoding, and a new URL when a file changes."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import brotli
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.applications import Starlette
from starlette.routing import Mount

from app.web.static_files import (
    IMMUTABLE,
    StaticAssets,
    accepted_encodings,
    get_static_assets,
    static_url,
)

ROOT = Path(__file__).resolve().parents[2]
HTMX = (ROOT / "static" / "vendor" / "htmx-4.0.1.min.js").read_bytes()


def test_pages_reference_fingerprinted_names(app: FastAPI) -> None:
    page = TestClient(app).get("/rules", headers={"Accept": "text/html"}).text
    urls = re.findall(r'(?:href|src)="(/static/[^"]+)"', page)
    assert urls, page[:500]
    for url in urls:
        assert re.search(r"\.[0-9a-f]{10}\.(css|js|png)$", url), url
        assert "?" not in url
    assert static_url("vendor/htmx-4.0.1.min.js") in urls  # htmx stays vendored, ours


def test_fingerprinted_url_is_immutable_and_negotiates_encoding(app: FastAPI) -> None:
    client = TestClient(app)
    url = static_url("vendor/htmx-4.0.1.min.js")
    r = client.get(url, headers={"Accept-Encoding": "br, gzip"})
    assert r.status_code == 200
    assert r.headers["cache-control"] == "public, max-age=31536000, immutable" == IMMUTABLE
    assert r.headers["content-encoding"] == "br"
    assert r.headers["vary"] == "Accept-Encoding"
    assert r.headers["content-type"].startswith("text/javascript")
    assert r.headers["x-content-type-options"] == "nosniff"
    # Cached for a year, maybe by a shared cache: never with someone's new player cookie.
    assert "set-cookie" not in r.headers
    assert "set-cookie" not in client.get("/static/css/app.css").headers
    assert int(r.headers["content-length"]) < len(HTMX) / 2
    assert r.content == HTMX  # the client decoded brotli
    body = get_static_assets().by_path["vendor/htmx-4.0.1.min.js"].bodies
    assert brotli.decompress(body["br"]) == HTMX and int(r.headers["content-length"]) == len(
        body["br"]
    )

    r = client.get(url, headers={"Accept-Encoding": "gzip"})
    assert r.headers["content-encoding"] == "gzip" and r.content == HTMX
    r = client.get(url, headers={"Accept-Encoding": "gzip;q=1.0, br;q=0.5"})
    assert r.headers["content-encoding"] == "gzip"
    r = client.get(url, headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in r.headers and r.content == HTMX
    assert int(r.headers["content-length"]) == len(HTMX)
    r = client.get(url, headers={"Accept-Encoding": "br;q=0, gzip;q=0"})
    assert "content-encoding" not in r.headers

    etag = client.get(url, headers={"Accept-Encoding": "gzip"}).headers["etag"]
    again = client.get(url, headers={"Accept-Encoding": "gzip", "If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""


def test_plain_and_stale_names_still_work_with_a_short_cache(app: FastAPI) -> None:
    client = TestClient(app)
    r = client.get("/static/css/app.css")
    assert r.status_code == 200 and r.headers["cache-control"] == "public, max-age=300"
    assert r.content == (ROOT / "static" / "css" / "app.css").read_bytes()
    stale = client.get("/static/css/app.0123456789.css")  # a previous release's page
    assert stale.status_code == 200 and "immutable" not in stale.headers["cache-control"]
    assert client.get("/static/css/nothing.css").status_code == 404
    assert client.get("/static/../app/main.py").status_code == 404
    assert client.post(static_url("css/app.css")).status_code in (403, 405)


def test_accept_encoding_parsing() -> None:
    assert accepted_encodings("gzip, deflate, br") == ["br", "gzip"]
    assert accepted_encodings("gzip") == ["gzip"]
    assert accepted_encodings("*") == ["br", "gzip"]
    assert accepted_encodings("*;q=0.5, br;q=0") == ["gzip"]
    assert accepted_encodings("") == []
    assert accepted_encodings("br;q=bogus, gzip") == ["gzip"]


def test_a_changed_file_gets_a_new_url(tmp_path: Path) -> None:
    css = tmp_path / "css" / "site.css"
    css.parent.mkdir()
    css.write_text("body { color: black; }\n" * 40)
    first = StaticAssets(tmp_path)
    url = first.url("css/site.css")
    assert re.fullmatch(r"/static/css/site\.[0-9a-f]{10}\.css", url)
    assert StaticAssets(tmp_path).url("css/site.css") == url  # stable while unchanged
    css.write_text("body { color: navy; }\n" * 40)
    second = StaticAssets(tmp_path)
    new_url = second.url("css/site.css")
    assert new_url != url and re.fullmatch(r"/static/css/site\.[0-9a-f]{10}\.css", new_url)

    client = TestClient(Starlette(routes=[Mount("/static", app=second)]))
    fresh = client.get(new_url, headers={"Accept-Encoding": "gzip"})
    assert fresh.headers["cache-control"] == IMMUTABLE and b"navy" in fresh.content
    assert fresh.headers["content-encoding"] == "gzip"
    assert gzip.decompress(second.by_path["css/site.css"].bodies["gzip"]) == css.read_bytes()
    old = client.get(url)  # the old name: today's content, not cached for a year
    assert old.status_code == 200 and b"navy" in old.content
    assert "immutable" not in old.headers["cache-control"]
