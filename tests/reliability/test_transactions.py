"""One database transaction per player action, the rate-limit count included, on the JSON and
the HTML paths, on SQLite and PostgreSQL (issue 12).

Every transaction the app's engine begins is counted (SQLAlchemy's ``begin``, ``commit`` and
``rollback`` events, which fire for reads and writes alike). With the rate limits on, each
action (a move, the deal, undo, redo, a JSON hint, a new game, a restart; through the API,
through htmx, through a plain form post) begins exactly one transaction and commits it, and the
player's counter went up by one in it. A refused or invalid action is one transaction too,
which commits the count alone; a rate-limited one is one transaction, rolled back: nothing
changes, the counter included.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import Engine, event, text

from app.config import Settings, get_settings
from app.db.session import loop_engine
from app.services import devices, ratelimit
from app.web import inline
from tests.support.api_client import Player, mirror, unclocked

DEAL = 5  # a deal whose opening has a legal move


@dataclass
class Transactions:
    begun: int = 0
    committed: int = 0
    rolled_back: int = 0
    log: list[str] = field(default_factory=list)

    def reset(self) -> None:
        self.begun = self.committed = self.rolled_back = 0
        self.log.clear()


def _limits(**limits: int) -> Settings:
    """The rate limits on, with a window that does not end while a test runs (a window
    starts at a multiple of its length: the current one of 10^9 s ends in 2033)."""
    update = {"rate_limits": "on", "rate_limit_window_seconds": 10**9, **limits}
    return get_settings().model_copy(update=update)


@pytest.fixture()
def counted(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> Iterator[Transactions]:
    """Transactions on the app's engines (on SQLite, actions run on the event loop's engine,
    ``app.web.inline``), with the rate limits on."""
    limits = _limits(rate_limit_actions=1000, rate_limit_games=1000)
    monkeypatch.setattr(ratelimit, "get_settings", lambda: limits)
    # The identity check (is the cookie's device still linked?) is a read of its own, outside
    # the action's transaction, at most once per ``CONFIRM_SECONDS`` per device: kept out of
    # the count here (a cookie just made is confirmed at once, and stays so for the test).
    monkeypatch.setattr(devices, "CONFIRM_SECONDS", 3600.0)
    # The loop's periodic WAL checkpoint (every ``CHECKPOINT_EVERY`` actions, a read of the
    # engine in a worker thread) is no part of an action either: where it fell depended on how
    # many actions the tests before this one made.
    monkeypatch.setattr(inline, "CHECKPOINT_EVERY", 10**9)
    seen = Transactions()

    def on(kind: str) -> Callable[..., None]:
        def listener(*_: Any) -> None:
            setattr(seen, kind, getattr(seen, kind) + 1)
            seen.log.append(kind)

        return listener

    listeners = [("begin", on("begun")), ("commit", on("committed"))]
    listeners.append(("rollback", on("rolled_back")))
    engines = [e for e in (engine, loop_engine()) if e is not None]
    for e in engines:
        for name, fn in listeners:
            event.listen(e, name, fn)
    try:
        yield seen
    finally:
        for e in engines:
            for name, fn in listeners:
                event.remove(e, name, fn)


def _actions_counted(engine: Engine, player: str, scope: str = "actions") -> int:
    with engine.connect() as conn:
        found = conn.execute(
            text("SELECT count FROM rate_limits WHERE player_id = :p AND scope = :s"),
            {"p": player, "s": scope},
        ).scalar_one_or_none()
    return int(found or 0)


def _one(seen: Transactions, step: str = "", *, committed: bool = True) -> None:
    assert seen.begun == 1, (step, seen.log)
    if committed:
        assert (seen.committed, seen.rolled_back) == (1, 0), (step, seen.log)
    else:
        assert (seen.committed, seen.rolled_back) == (0, 1), (step, seen.log)


def _legal_move(gid_state: dict[str, Any]) -> tuple[int, int, int]:
    game = mirror(deal_number=DEAL)
    move = game.hints()[0]
    assert gid_state["columns"] == [list(c) for c in game.public_view().columns]
    return move.from_column, move.from_index, move.to_column


def test_each_json_action_is_one_transaction(
    app: FastAPI, engine: Engine, counted: Transactions
) -> None:
    player = Player(app)
    counted.reset()
    game = player.new_game(deal_number=DEAL)
    _one(counted)
    gid = game["id"]
    assert _actions_counted(engine, player.id, "games") == 1
    a, i, b = _legal_move(game)

    steps: list[tuple[str, Callable[[], Any], int]] = [
        ("move", lambda: player.move(gid, a, i, b), 200),
        ("undo", lambda: player.post(f"/api/games/{gid}/undo"), 200),
        ("redo", lambda: player.post(f"/api/games/{gid}/redo"), 200),
        ("hints", lambda: player.get(f"/api/games/{gid}/hints"), 200),
        ("deal", lambda: player.post(f"/api/games/{gid}/deal"), 200),
        ("refused move", lambda: player.move(gid, 0, 0, 0), 422),
        ("stale version", lambda: player.move(gid, a, i, b, version=1), 409),
        ("missing game", lambda: player.post("/api/games/nope/undo"), 404),
    ]
    for n, (name, step, status) in enumerate(steps, start=1):
        counted.reset()
        response = step()
        assert response.status_code == status, (name, response.text)
        _one(counted)
        assert _actions_counted(engine, player.id) == n, name  # counted in that transaction

    counted.reset()
    restarted = player.post(f"/api/games/{gid}/restart")
    assert restarted.status_code == 201
    _one(counted)
    assert _actions_counted(engine, player.id, "games") == 2


def test_each_html_action_is_one_transaction(
    app: FastAPI, engine: Engine, counted: Transactions
) -> None:
    player = Player(app)
    created = player.http.post(
        "/games",
        data={"variant": "scorpion", "deal_number": str(DEAL), "csrf_token": player.token},
        follow_redirects=False,
    )
    assert created.status_code == 303
    gid = created.headers["location"].rsplit("/", 1)[-1]
    state = player.get(f"/api/games/{gid}").json()
    a, i, b = _legal_move(state)
    htmx = {"HX-Request": "true"}

    def form(path: str, headers: dict[str, str] | None = None, **fields: Any) -> Any:
        data = {"csrf_token": player.token, **{k: str(v) for k, v in fields.items()}}
        return player.http.post(path, data=data, headers=headers or {}, follow_redirects=False)

    move = {"from_column": a, "from_index": i, "to_column": b}
    steps: list[tuple[str, Callable[[], Any], int]] = [
        ("htmx move", lambda: form(f"/games/{gid}/move", htmx, **move), 200),
        ("htmx undo", lambda: form(f"/games/{gid}/undo", htmx), 200),
        ("form redo", lambda: form(f"/games/{gid}/redo"), 303),
        ("form undo", lambda: form(f"/games/{gid}/undo"), 303),
        ("form move", lambda: form(f"/games/{gid}/move", **move), 303),
        ("htmx deal", lambda: form(f"/games/{gid}/deal", htmx), 200),
        ("htmx refused", lambda: form(f"/games/{gid}/move", htmx, **{**move, "to_column": a}), 200),
        ("form refused", lambda: form(f"/games/{gid}/deal"), 422),
        ("htmx stale", lambda: form(f"/games/{gid}/undo", htmx, version=1), 200),
        ("form stale", lambda: form(f"/games/{gid}/undo", version=1), 409),
    ]
    for n, (name, step, status) in enumerate(steps, start=1):
        counted.reset()
        response = step()
        assert response.status_code == status, (name, response.text[:300])
        _one(counted, name)
        assert _actions_counted(engine, player.id) == n, name
    # The refusals and conflicts came with the board or the reason, read in that transaction.
    counted.reset()
    assert "This game changed" in form(f"/games/{gid}/undo", htmx, version=1).text
    _one(counted)

    counted.reset()
    restarted = form(f"/games/{gid}/restart")
    assert restarted.status_code == 303
    _one(counted)
    counted.reset()
    assert form("/games", variant="scorpion").status_code == 303
    _one(counted)
    assert _actions_counted(engine, player.id, "games") == 3

    # The play page and its plain hint: one read, nothing written. On SQLite it is one
    # statement on the event loop's connection (atomic by itself: no BEGIN of its own); on
    # PostgreSQL a read transaction, rolled back.
    counted.reset()
    page = player.get(f"/games/{gid}?hint=1")
    assert page.status_code == 200 and "useful move" in page.text
    reads = 0 if engine.dialect.name == "sqlite" else 1
    assert counted.begun == reads and counted.committed == 0, counted.log


def test_a_rate_limited_action_is_one_transaction_that_changes_nothing(
    app: FastAPI, engine: Engine, counted: Transactions, monkeypatch: pytest.MonkeyPatch
) -> None:
    player = Player(app)
    game = player.new_game(deal_number=DEAL)
    gid = game["id"]
    a, i, b = _legal_move(game)
    tight = _limits(rate_limit_actions=2)
    monkeypatch.setattr(ratelimit, "get_settings", lambda: tight)
    assert player.post(f"/api/games/{gid}/deal").status_code == 200
    assert player.move(gid, 0, 0, 0).status_code == 422  # refused: counted all the same
    before = player.get(f"/api/games/{gid}").json()
    for request in (
        lambda: player.move(gid, a, i, b),
        lambda: player.http.post(
            f"/games/{gid}/move",
            data={"csrf_token": player.token, "from_column": a, "from_index": i, "to_column": b},
            headers={"HX-Request": "true"},
        ),
    ):
        counted.reset()
        refused = request()
        assert refused.status_code == 429 and "Too many actions" in refused.text
        _one(counted, committed=False)
    assert unclocked(player.get(f"/api/games/{gid}").json()) == unclocked(before)
    assert _actions_counted(engine, player.id) == 2


def test_each_settings_form_is_one_transaction(
    app: FastAPI, engine: Engine, counted: Transactions
) -> None:
    """The settings form (its language included), the deck's, the language switch, the
    profile and the privacy page's deletions: each is one transaction, counted once in it."""
    player = Player(app)
    player.new_game(deal_number=DEAL)  # a player with a row (a first request is not counted)

    def form(path: str, **fields: str) -> Any:
        data = {"csrf_token": player.token, **fields}
        return player.http.post(path, data=data, follow_redirects=False)

    steps: list[tuple[str, Callable[[], Any]]] = [
        ("settings", lambda: form("/settings", save_games="on", locale="zh-CN")),
        ("settings, language kept", lambda: form("/settings", record_stats="on")),
        ("deck", lambda: form("/settings/deck", four_colour="on", theme="dark")),
        ("language", lambda: form("/settings/language", locale="en", next="/privacy")),
        ("profile", lambda: form("/settings/profile", display_name="Ann", on_leaderboards="on")),
        ("delete games", lambda: form("/privacy/delete-games")),
        ("delete results", lambda: form("/privacy/delete-results")),
    ]
    for n, (name, step) in enumerate(steps, start=1):
        counted.reset()
        response = step()
        assert response.status_code == 303, (name, response.text[:300])
        _one(counted, name)
        assert _actions_counted(engine, player.id) == n, name
        if name == "settings":
            with engine.connect() as conn:
                saved = conn.execute(
                    text("SELECT locale, save_games FROM player_settings WHERE player_id = :p"),
                    {"p": player.id},
                ).one()
            assert tuple(saved) == ("zh-CN", True)
    with engine.connect() as conn:
        saved = conn.execute(
            text(
                "SELECT locale, record_stats, save_games, four_colour, theme "
                "FROM player_settings WHERE player_id = :p"
            ),
            {"p": player.id},
        ).one()
    # the second form left the language as the first saved it, the switch then changed it
    assert tuple(saved) == ("en", True, False, True, "dark")
