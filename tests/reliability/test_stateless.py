"""Workers share nothing in process memory: two separate app servers (separate processes,
like two app containers) on one database serve one player interchangeably, request by
request; and docker-compose runs several app containers with several workers each."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import yaml

from tests.support.live import LivePlayer, assert_log_consistent, stored_game
from tests.support.server import ServerFactory

ROOT = Path(__file__).resolve().parents[2]
HTML = {"Accept": "text/html"}


def test_one_player_across_two_servers(fresh_db_url: str, start_server: ServerFactory) -> None:
    a = start_server(fresh_db_url, workers=1, RATE_LIMITS="off")
    b = start_server(fresh_db_url, workers=2, RATE_LIMITS="off")
    servers = [a.url, b.url]
    player = LivePlayer(a.url)  # identity made by server A ...
    session_b = player.get("/api/session", base_url=b.url).json()
    assert session_b == {"player": player.id, "csrf_token": player.token}  # ... known to B

    game: dict[str, Any] = player.new_game(2024, base_url=b.url)
    gid = game["id"]
    for i in range(10):  # alternate servers on every request
        hints = player.get(f"/api/games/{gid}/hints", base_url=servers[i % 2]).json()
        if hints["moves"]:
            r = player.post(
                f"/api/games/{gid}/moves",
                {**hints["moves"][0], "version": game["version"]},
                base_url=servers[(i + 1) % 2],
            )
        else:
            r = player.post(
                f"/api/games/{gid}/deal", {"version": game["version"]}, base_url=servers[i % 2]
            )
        assert r.status_code == 200, r.text
        game = r.json()
        # Each server sees the other's write at once: no cached copy of the game anywhere.
        for url in servers:
            seen = player.get(f"/api/games/{gid}", base_url=url).json()
            assert seen["version"] == game["version"] and seen["columns"] == game["columns"]
    assert player.get(f"/games/{gid}", headers=HTML, base_url=a.url).status_code == 200
    assert player.get(f"/games/{gid}", headers=HTML, base_url=b.url).status_code == 200
    stats = [player.get("/api/stats", base_url=url).json() for url in servers]
    assert stats[0] == stats[1] and stats[0]["variants"]["scorpion"]["started"] == 1
    assert_log_consistent(stored_game(fresh_db_url, gid))

    # Deleted on one server: gone on the other.
    assert player.request("DELETE", "/api/games", base_url=a.url).status_code == 204
    assert player.get(f"/api/games/{gid}", base_url=b.url).status_code == 404


def test_compose_runs_several_app_containers_on_postgres() -> None:
    exe = shutil.which("docker-compose")
    assert exe, "docker-compose is not installed (.ci/run installs Debian's package)"
    env = {**os.environ, "SECRET_KEY": "compose-test-secret-key-0123456789"}
    result = subprocess.run(
        [exe, "-f", "docker-compose.yml", "config"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    app = yaml.safe_load(result.stdout)["services"]["app"]
    assert int(app["deploy"]["replicas"]) >= 2
    assert int(app["environment"]["WEB_CONCURRENCY"]) >= 2
    assert app["environment"]["DATABASE_URL"].startswith("postgresql+psycopg://")
    assert "RATE_LIMITS" not in app["environment"]  # limits stay on in production
