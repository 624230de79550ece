"""``make bench-instr`` (scripts/bench_instr.py): its in-process runs drive every path without
an error (an action the app refused would stop the run), and the full benchmark counts what
a request does: more requests, more instructions, the same per request."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.server import REPO, migrate, sqlite_database


@pytest.mark.parametrize(
    "path", ["base_move", "api_move", "htmx_move", "api_fresh", "htmx_fresh", "base_page", "page"]
)
def test_each_path_runs_in_process(tmp_path: Path, path: str) -> None:
    url = sqlite_database(tmp_path, "app.db")
    migrate(url)
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "BASELINE_DB": str(tmp_path / "baseline.db"),
        "ENVIRONMENT": "test",
        "RATE_LIMIT_ACTIONS": "100000000",
        "RATE_LIMIT_GAMES": "100000000",
    }
    cmd = [sys.executable, "-m", "scripts.bench_instr", "--inner", path, "--count", "1"]
    done = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]


def test_counts_the_baseline_move() -> None:
    cmd = [sys.executable, "-m", "scripts.bench_instr", "--paths", "base_move"]
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    m = re.search(r"baseline POST /move\s+([\d,]+)", done.stdout)
    assert m, done.stdout
    # a bare FastAPI endpoint with one SQLite transaction: some hundreds of thousands
    assert 100_000 < int(m.group(1).replace(",", "")) < 5_000_000, done.stdout
