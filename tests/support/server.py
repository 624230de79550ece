"""A real server for tests and benchmarks: fresh databases and ``uvicorn`` worker processes.

- ``postgres_database()``: a uniquely named PostgreSQL database, dropped afterwards.
- ``sqlite_database(dir)``: a fresh SQLite file URL.
- ``migrate(url)``: ``alembic upgrade head`` against ``url`` (a subprocess, as an operator runs it).
- ``fresh_server(dir, env)``: a ``LiveServer`` on a fresh migrated SQLite database, stopped after.
- ``LiveServer``: ``uvicorn app.main:app --workers N`` in its own process group, so ``kill()``
  (SIGKILL) takes down the supervisor and every worker at once, like a crash.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path

import psycopg
from psycopg import sql

REPO = Path(__file__).resolve().parents[2]

# The PostgreSQL server the tests use (DEVELOPERS.md): trust auth, admin database ``test``.
PG_ADMIN_DSN = os.environ.get("SCORPION_PG_ADMIN_DSN", "postgresql://postgres@127.0.0.1:5432/test")

# A fixed, test-only key: cookies stay valid across a restart of the server.
TEST_SECRET_KEY = "reliability-tests-secret-key-0123456789abcdef"

GRACEFUL_SHUTDOWN_SECONDS = 3  # as the Dockerfile: then open streams are cancelled


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _with_database(dsn: str, name: str) -> str:
    """``dsn`` (postgresql://...) pointed at database ``name``, as a SQLAlchemy psycopg URL."""
    base, _, _ = dsn.rpartition("/")
    if base.startswith("postgresql://"):
        base = "postgresql+psycopg://" + base[len("postgresql://") :]
    return f"{base}/{name}"


@contextmanager
def postgres_database(prefix: str = "scorpion_rel", admin_dsn: str = PG_ADMIN_DSN) -> Iterator[str]:
    """Create a uniquely named database, yield its SQLAlchemy URL, drop it afterwards."""
    name = f"{prefix}_{os.getpid()}_{secrets.token_hex(4)}"
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield _with_database(admin_dsn, name)
    finally:
        with psycopg.connect(admin_dsn, autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


def sqlite_database(directory: Path, name: str = "scorpion.db") -> str:
    return f"sqlite:///{(directory / name).resolve()}"


def server_env(database_url: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "DATABASE_URL": database_url,
            "SECRET_KEY": TEST_SECRET_KEY,
            "ENVIRONMENT": "test",
            "PYTHONPATH": str(REPO),
            "PYTHONUNBUFFERED": "1",
        }
    )
    if extra:
        env.update(extra)
    return env


def migrate(database_url: str, *, timeout: float = 120) -> None:
    """``alembic upgrade head`` for ``database_url``."""
    result = subprocess.run(
        [sys.executable, "-m", "alembic", "upgrade", "head"],
        cwd=REPO,
        env=server_env(database_url),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if result.returncode != 0:
        raise RuntimeError(f"alembic upgrade head failed:\n{result.stdout}\n{result.stderr}")


class LiveServer:
    """``uvicorn app.main:app`` (or ``app``, an ASGI app that answers ``GET /api/session``)
    with ``workers`` processes on a free loopback port."""

    def __init__(
        self,
        database_url: str,
        *,
        workers: int = 2,
        env: Mapping[str, str] | None = None,
        port: int | None = None,
        log_path: Path | None = None,
        app: str = "app.main:app",
    ) -> None:
        self.database_url = database_url
        self.app = app
        self.workers = workers
        self.extra_env = dict(env or {})
        self.port = port or free_port()
        self.log_path = log_path
        self.process: subprocess.Popen[bytes] | None = None
        self._log_file: object | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, *, ready_timeout: float = 60) -> LiveServer:
        if self.process is not None and self.process.poll() is None:
            raise RuntimeError("the server is already running")
        cmd = [
            sys.executable,
            "-m",
            "uvicorn",
            self.app,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--workers",
            str(self.workers),
            "--timeout-graceful-shutdown",  # open event streams must not hold a shutdown up
            str(GRACEFUL_SHUTDOWN_SECONDS),
            "--no-access-log",
            "--log-level",
            "warning",
        ]
        out = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL  # noqa: SIM115
        self._log_file = out
        self.process = subprocess.Popen(
            cmd,
            cwd=REPO,
            env=server_env(self.database_url, self.extra_env),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.wait_ready(ready_timeout)
        return self

    def wait_ready(self, timeout: float) -> None:
        """Wait until every worker can answer (several requests in a row answer 200)."""
        import httpx2

        deadline = time.monotonic() + timeout
        ok_in_a_row = 0
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(
                    f"uvicorn exited with {self.process.returncode}; see {self.log_path}"
                )
            try:
                # A fresh connection each time, so that different workers get to answer.
                response = httpx2.get(self.url + "/api/session", timeout=5)
                ok_in_a_row = ok_in_a_row + 1 if response.status_code == 200 else 0
            except httpx2.HTTPError:
                ok_in_a_row = 0
            if ok_in_a_row >= 2 * self.workers:
                return
            time.sleep(0.1)
        raise RuntimeError(f"the server did not get ready within {timeout} s")

    def _signal_group(self, sig: int) -> None:
        if self.process is None:
            return
        with suppress(ProcessLookupError):
            os.killpg(self.process.pid, sig)

    def kill(self) -> None:
        """SIGKILL the supervisor and all its workers at once (a crash)."""
        self._signal_group(signal.SIGKILL)
        if self.process is not None:
            self.process.wait(timeout=30)
        self._close_log()

    def stop(self, timeout: float = 20) -> None:
        """Graceful shutdown (SIGTERM), then SIGKILL if it takes too long."""
        if self.process is None or self.process.poll() is not None:
            self._signal_group(signal.SIGKILL)  # orphaned workers, if any
            self._close_log()
            return
        self._signal_group(signal.SIGTERM)
        with suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=timeout)
        self._signal_group(signal.SIGKILL)
        if self.process.poll() is None:
            self.process.wait(timeout=30)
        self._close_log()

    def _close_log(self) -> None:
        if self._log_file is not None and hasattr(self._log_file, "close"):
            self._log_file.close()
        self._log_file = None

    def __enter__(self) -> LiveServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# What the ``start_server`` fixture yields: start a server on a database URL.
ServerFactory = Callable[..., LiveServer]


@contextmanager
def fresh_server(
    directory: Path, env: Mapping[str, str], *, workers: int = 1
) -> Iterator[LiveServer]:
    """A ``LiveServer`` on a fresh, migrated SQLite database in ``directory`` (its log there
    too), stopped afterwards."""
    url = sqlite_database(directory)
    migrate(url)
    live = LiveServer(url, workers=workers, env=env, log_path=directory / "uvicorn.log")
    live.start()
    try:
        yield live
    finally:
        live.stop()
