"""Crash safety: SIGKILL the server (supervisor and both workers) in the middle of a stream of
moves, start it again on the same database, and check that every action answered 200 is in
the move log at its place, and that the stored snapshot is the replay of the log."""

from __future__ import annotations

import random
import threading
from typing import Any

import httpx2

from app.engine import Action
from tests.support.live import LivePlayer, assert_log_consistent, stored_game
from tests.support.server import ServerFactory

ACKS_BEFORE_KILL = 25
MAX_ACTIONS = 400  # bound: the stream stops by itself even if the kill never came


def _stream(
    player: LivePlayer,
    game: dict[str, Any],
    acked: list[tuple[int, Action]],
    enough: threading.Event,
    stopped: threading.Event,
) -> None:
    """Play on one keep-alive connection until the server dies; record every 200."""
    rng = random.Random(7)
    gid = game["id"]
    headers = {"X-CSRF-Token": player.token}
    try:
        with player.client() as client:
            for n in range(MAX_ACTIONS):
                hints = client.get(f"/api/games/{gid}/hints")
                if hints.status_code != 200:
                    return
                h = hints.json()
                action: Action
                if n % 6 == 5 and game["can_undo"]:
                    action, path, body = ("undo",), "undo", None
                elif h["moves"]:
                    m = rng.choice(h["moves"])
                    action = ("move", m["from_column"], m["from_index"], m["to_column"])
                    path, body = "moves", m
                elif h["can_deal"]:
                    action, path, body = ("deal",), "deal", None
                elif game["can_undo"]:
                    action, path, body = ("undo",), "undo", None
                else:
                    return
                response = client.post(f"/api/games/{gid}/{path}", json=body, headers=headers)
                if response.status_code != 200:
                    return
                game = response.json()
                acked.append((game["version"], action))
                if len(acked) >= ACKS_BEFORE_KILL:
                    enough.set()
                if game["status"] == "won":
                    return
    except httpx2.HTTPError:
        pass  # the server was killed under us: expected
    finally:
        enough.set()
        stopped.set()


def test_sigkill_mid_stream_loses_no_acknowledged_move(
    fresh_db_url: str, start_server: ServerFactory
) -> None:
    server = start_server(fresh_db_url, workers=2, RATE_LIMITS="off")
    player = LivePlayer(server.url)
    game = player.new_game(4242)

    acked: list[tuple[int, Action]] = []
    enough, stopped = threading.Event(), threading.Event()
    thread = threading.Thread(
        target=_stream, args=(player, game, acked, enough, stopped), daemon=True
    )
    thread.start()
    assert enough.wait(timeout=60)
    server.kill()  # SIGKILL to the whole process group, requests in flight
    assert stopped.wait(timeout=30)
    thread.join(timeout=30)
    assert len(acked) >= ACKS_BEFORE_KILL, "the stream ended before the kill"

    # Nothing of the answered actions is lost: each is in the log at seq = version - 1.
    stored = stored_game(fresh_db_url, game["id"])
    logged = dict(stored.log)
    for version, action in acked:
        assert logged.get(version - 1) == action, (version, action, logged.get(version - 1))
    # At most the one request in flight at the kill was committed without an answer.
    assert len(acked) <= len(stored.log) <= len(acked) + 1
    replayed = assert_log_consistent(stored)

    # Start again on the same database: same cookie, same game, same state; play on.
    server.start()
    after = player.get(f"/api/games/{game['id']}")
    assert after.status_code == 200, after.text
    state = after.json()
    view = replayed.public_view()
    assert state["version"] == stored.version
    assert (state["columns"], state["stock"], state["moves"]) == (
        view.columns,
        view.stock,
        view.moves,
    )
    hints = player.get(f"/api/games/{game['id']}/hints").json()
    if hints["moves"]:
        response = player.post(
            f"/api/games/{game['id']}/moves", {**hints["moves"][0], "version": state["version"]}
        )
    else:
        response = player.post(f"/api/games/{game['id']}/undo", {"version": state["version"]})
    assert response.status_code == 200, response.text
    assert_log_consistent(stored_game(fresh_db_url, game["id"]))
