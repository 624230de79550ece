"""Static files: fingerprinted names, precompressed bodies, long caching.

At start-up every file under ``static/`` is read once and kept in memory with its gzip and
brotli forms (text types only, kept only when smaller). Each file has two URLs:

- the fingerprinted one, ``/static/css/app.<10 hex of its SHA-256>.css``, which is what the
  templates use (``static_url``): ``Cache-Control: public, max-age=31536000, immutable``. A
  changed file gets a new name, so a browser never keeps a stale copy;
- the plain one, ``/static/css/app.css`` (and an out-of-date fingerprint, e.g. a page from the
  previous release): the current content with a short cache (``max-age=300``) and an ETag.

``Accept-Encoding`` chooses brotli, then gzip, then identity (``q=0`` refuses a coding); every
answer carries ``Vary: Accept-Encoding``. ``If-None-Match`` gets a 304.
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from starlette.types import Receive, Scope, Send

try:  # brotli is a dependency; without it we still serve gzip
    import brotli
except ImportError:  # pragma: no cover - exercised only where brotli is missing
    brotli = None

ROOT = Path(__file__).resolve().parents[2]
STATIC_DIR = ROOT / "static"
PREFIX = "/static/"
IMMUTABLE = "public, max-age=31536000, immutable"
SHORT = "public, max-age=300"
HASH_LENGTH = 10
COMPRESSIBLE = frozenset({".css", ".js", ".mjs", ".svg", ".json", ".txt", ".html", ".md", ".map"})
_FINGERPRINT_RE = re.compile(
    r"^(?P<stem>.+)\.(?P<hash>[0-9a-f]{" + str(HASH_LENGTH) + r"})(?P<suffix>\.[^./]+)$"
)

mimetypes.add_type("text/javascript", ".js")
mimetypes.add_type("text/javascript", ".mjs")
mimetypes.add_type("image/svg+xml", ".svg")
mimetypes.add_type("text/markdown", ".md")


@dataclass(frozen=True)
class Asset:
    path: str  # relative, e.g. "css/app.css"
    digest: str
    media_type: str
    bodies: dict[str, bytes] = field(default_factory=dict)  # "identity", "br", "gzip"

    @property
    def fingerprinted(self) -> str:
        stem, dot, suffix = self.path.rpartition(".")
        if not dot or "/" in suffix:
            return f"{self.path}.{self.digest}"
        return f"{stem}.{self.digest}.{suffix}"


def _media_type(path: Path) -> str:
    media_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    if media_type.startswith("text/") or media_type in ("image/svg+xml", "application/json"):
        media_type += "; charset=utf-8"
    return media_type


def _load(path: Path, rel: str) -> Asset:
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()[:HASH_LENGTH]
    bodies = {"identity": data}
    if path.suffix.lower() in COMPRESSIBLE and len(data) > 256:
        if brotli is not None:
            compressed = brotli.compress(data, quality=11)
            if len(compressed) < len(data):
                bodies["br"] = compressed
        compressed = gzip.compress(data, compresslevel=9, mtime=0)
        if len(compressed) < len(data):
            bodies["gzip"] = compressed
    return Asset(rel, digest, _media_type(path), bodies)


def accepted_encodings(header: str) -> list[str]:
    """Codings of an ``Accept-Encoding`` header we can serve, best first (br, gzip)."""
    q: dict[str, float] = {}
    for part in header.split(","):
        name, _, params = part.strip().partition(";")
        name = name.strip().lower()
        if not name:
            continue
        weight = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        q[name] = weight
    star = q.get("*")
    out = []
    for coding in ("br", "gzip"):
        weight = q.get(coding, star if star is not None else 0.0)
        if weight > 0:
            out.append((weight, coding))
    out.sort(key=lambda item: -item[0])  # stable: br before gzip on equal weight
    return [coding for _, coding in out]


class StaticAssets:
    """An ASGI app serving ``directory`` (mount it at ``/static``); ``url(path)`` for templates."""

    def __init__(self, directory: Path = STATIC_DIR, prefix: str = PREFIX) -> None:
        self.directory = directory
        self.prefix = prefix
        self.by_path: dict[str, Asset] = {}
        self.by_fingerprint: dict[str, Asset] = {}
        for path in sorted(directory.rglob("*")):
            if not path.is_file() or path.name.startswith("."):
                continue
            rel = path.relative_to(directory).as_posix()
            asset = _load(path, rel)
            self.by_path[rel] = asset
            self.by_fingerprint[asset.fingerprinted] = asset

    def url(self, path: str) -> str:
        """The fingerprinted URL of ``path`` (relative to the static directory); an unknown
        file keeps its plain URL (it would 404 anyway)."""
        asset = self.by_path.get(path.lstrip("/"))
        return self.prefix + (asset.fingerprinted if asset else path.lstrip("/"))

    def lookup(self, rel: str) -> tuple[Asset | None, bool]:
        """(asset, immutable) for a request path relative to the static directory."""
        asset = self.by_fingerprint.get(rel)
        if asset is not None:
            return asset, True
        asset = self.by_path.get(rel)
        if asset is not None:
            return asset, False
        match = _FINGERPRINT_RE.match(rel)  # an older (or newer) release's fingerprint
        if match:
            return self.by_path.get(match["stem"] + match["suffix"]), False
        return None, False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert scope["type"] == "http"
        path = scope["path"]
        root = scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :]
        rel = path.lstrip("/")
        headers = {k.lower(): v for k, v in scope.get("headers", ())}
        if scope["method"] not in ("GET", "HEAD"):
            await _plain(send, 405, b"Method Not Allowed", [(b"allow", b"GET, HEAD")])
            return
        asset, immutable = self.lookup(rel)
        if asset is None:
            await _plain(send, 404, b"Not Found")
            return
        accept = headers.get(b"accept-encoding", b"").decode("latin-1")
        coding = next((c for c in accepted_encodings(accept) if c in asset.bodies), "identity")
        body = asset.bodies[coding]
        etag = f'"{asset.digest}-{coding}"'
        out = [
            (b"content-type", asset.media_type.encode()),
            (b"cache-control", (IMMUTABLE if immutable else SHORT).encode()),
            (b"etag", etag.encode()),
            (b"vary", b"Accept-Encoding"),
        ]
        if coding != "identity":
            out.append((b"content-encoding", coding.encode()))
        if_none_match = headers.get(b"if-none-match", b"").decode("latin-1")
        if etag in [t.strip() for t in if_none_match.split(",")] or if_none_match.strip() == "*":
            await send({"type": "http.response.start", "status": 304, "headers": out})
            await send({"type": "http.response.body", "body": b""})
            return
        out.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": 200, "headers": out})
        await send(
            {"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body}
        )


async def _plain(
    send: Send, status: int, body: bytes, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                *(extra or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


@lru_cache(maxsize=1)
def get_static_assets() -> StaticAssets:
    """The process's static files (read and compressed once)."""
    return StaticAssets(STATIC_DIR)


def static_url(path: str) -> str:
    """``/static/<name>.<content hash>.<ext>``: cacheable forever, a new URL when it changes."""
    return get_static_assets().url(path)
