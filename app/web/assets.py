"""Static files, served by servestatic: fingerprinted names, precompressed bodies, long caching.

At start-up the files of ``static/`` are processed once by servestatic's own tool (what its
``servestatic`` command does: ``--hash --manifest --compress --copy-original``) into a
directory named by their content (``<temp>/scorpion-static-<uid>-<digest>``: made once per
release and machine, shared by the workers, made again only when a file changes). Then:

- the fingerprinted name, ``/static/css/app.<12 hex>.css``, is what the templates use
  (``static_url``, read from servestatic's manifest ``staticfiles.json``): servestatic caches
  it for good (ten years, never revalidated); a changed file gets a new name;
- the plain name, ``/static/css/app.css``: the current content, ``max-age=300``;
- ``Accept-Encoding`` picks the brotli, zstd or gzip body made beforehand (``Vary:
  Accept-Encoding``); a conditional request gets a 304; anything else is a 404, any method but
  GET and HEAD a 405.

``app.web.front`` hands ``/static/...`` to ``static_files().app`` (never a cookie there).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
from functools import lru_cache
from pathlib import Path

from servestatic import ServeStaticASGI
from servestatic.cli import main as servestatic_tool

ROOT = Path(__file__).resolve().parents[2]
STATIC_DIR = ROOT / "static"
PREFIX = "/static/"
SHORT_MAX_AGE = 300  # a plain name (and a page of the previous release): five minutes
MANIFEST = "staticfiles.json"

log = logging.getLogger(__name__)


def source_digest(source: Path) -> str:
    """A digest of every file under ``source`` (its path and content)."""
    digest = hashlib.sha256()
    for path in sorted(source.rglob("*")):
        if path.is_file() and not path.name.startswith("."):
            digest.update(path.relative_to(source).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def collect(source: Path = STATIC_DIR, parent: Path | None = None) -> Path:
    """The processed copy of ``source`` (hashed names, compressed bodies, the manifest), made
    by servestatic's tool when it is not there yet. Several workers may start at once: each
    makes its own and renames it into place; the first one stays."""
    parent = parent or Path(tempfile.gettempdir())
    built = parent / f"scorpion-static-{os.getuid()}-{source_digest(source)}"
    if (built / MANIFEST).is_file():
        return built
    work = Path(tempfile.mkdtemp(prefix=built.name + ".", dir=parent))
    args = ["--hash", "--manifest", "--compress", "--copy-original", "--quiet"]
    if servestatic_tool([*args, "--exclude", ".*", str(source), str(work)]) != 0:
        raise RuntimeError(f"servestatic could not process {source}")
    try:
        work.rename(built)
    except OSError:  # another worker was first
        shutil.rmtree(work, ignore_errors=True)
    log.info("static files processed into %s", built)
    return built


class StaticFiles:
    """The processed static files: ``app`` serves them (an ASGI app, 404 for anything else),
    ``url(path)`` names them for the templates."""

    def __init__(self, source: Path = STATIC_DIR, parent: Path | None = None) -> None:
        self.root = collect(source, parent)
        manifest = json.loads((self.root / MANIFEST).read_text())
        # "css/app.css" -> "css/app.<hash>.css"
        self.paths: dict[str, str] = {
            name: hashed for name, hashed in manifest["paths"].items() if not name.startswith(".")
        }
        self.app = ServeStaticASGI(
            None, root=self.root, prefix=PREFIX, max_age=SHORT_MAX_AGE, allow_all_origins=False
        )

    def url(self, path: str) -> str:
        """The fingerprinted URL of ``path`` (relative to ``static/``); an unknown file keeps
        its plain URL (it would 404 anyway)."""
        path = path.lstrip("/")
        return PREFIX + self.paths.get(path, path)


@lru_cache(maxsize=1)
def static_files() -> StaticFiles:
    """The process's static files (processed once per release and machine)."""
    return StaticFiles()


def static_url(path: str) -> str:
    """``/static/<name>.<content hash>.<ext>``: cacheable forever, a new URL when it changes."""
    return static_files().url(path)
