"""A throwaway PostgreSQL server of our own (initdb into a temporary directory, its own port),
to stop and start under a running app. Run as the ``postgres`` user when we are root
(PostgreSQL refuses to run as root)."""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.support.server import free_port


def postgres_bindir() -> Path | None:
    """Where initdb and pg_ctl live (``PG_BINDIR``, ``pg_config --bindir``, Debian's path)."""
    candidates: list[str] = []
    if os.environ.get("PG_BINDIR"):
        candidates.append(os.environ["PG_BINDIR"])
    if shutil.which("pg_config"):
        try:
            out = subprocess.run(
                ["pg_config", "--bindir"], capture_output=True, text=True, timeout=10
            ).stdout.strip()
            candidates.append(out)
        except (OSError, subprocess.SubprocessError):
            pass
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
    for c in candidates:
        if c and (Path(c) / "initdb").exists() and (Path(c) / "pg_ctl").exists():
            return Path(c)
    return None


def require_postgres_binaries() -> Path:
    bindir = postgres_bindir()
    if bindir is not None:
        return bindir
    if os.environ.get("REQUIRE_POSTGRES") == "1":
        pytest.fail("PostgreSQL server binaries (initdb, pg_ctl) are required", pytrace=False)
    pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) are not installed")


class ThrowawayPostgres:
    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.base = Path(tempfile.mkdtemp(prefix="scorpion-pg-"))
        self.data = self.base / "data"
        self.socket_dir = self.base / "sock"
        self.log = self.base / "postgres.log"
        self.port = free_port()
        self.as_root = os.geteuid() == 0
        if self.as_root:
            self.base.chmod(0o755)
            self.socket_dir.mkdir()
            shutil.chown(self.base, "postgres", "postgres")
            shutil.chown(self.socket_dir, "postgres", "postgres")
        else:
            self.socket_dir.mkdir()

    def _run(self, *args: str, timeout: float = 120) -> None:
        cmd = [str(self.bindir / args[0]), *args[1:]]
        if self.as_root:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        if result.returncode != 0:
            log = self.log.read_text(errors="replace") if self.log.exists() else ""
            raise RuntimeError(f"{args[0]} failed: {result.stdout}\n{result.stderr}\n{log}")

    def init(self) -> ThrowawayPostgres:
        self._run(
            "initdb",
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
            "--no-instructions",
        )
        return self

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.socket_dir} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c max_connections=50"
        )
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(self.log),
            "-w",
            "-t",
            "60",
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()

    def dsn(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def destroy(self) -> None:
        if self.running():
            with contextlib.suppress(RuntimeError, subprocess.SubprocessError):
                self.stop("immediate")
        shutil.rmtree(self.base, ignore_errors=True)
