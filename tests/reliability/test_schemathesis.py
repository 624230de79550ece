"""Hostile input: schemathesis generates valid and invalid requests for every operation of
``/openapi.json`` and sends them to a live server (two uvicorn workers, a fresh database of
each kind) as a real player with a valid session cookie and CSRF token. Zero 5xx, and every
response conforms to the schema: documented status code, content type and body.

Half of the game-id paths use a real game of the player (so moves, deals, undos and redos
reach the engine and the database), the other half whatever schemathesis makes up. Bounded:
at most ``MAX_EXAMPLES`` cases per operation.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import Case
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from tests.support.live import LivePlayer
from tests.support.server import LiveServer

MAX_EXAMPLES = 30
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    negative_data_rejection,
]


class Target:
    def __init__(self, server: LiveServer) -> None:
        self.server = server
        self.player = LivePlayer(server.url)
        self.rng = random.Random(1)
        self.games: list[str] = []
        self.refill()

    def renew(self) -> None:
        """A new player: DELETE /api/player deleted this one for good (its id is refused)."""
        self.player = LivePlayer(self.server.url)
        self.refill()

    def refill(self) -> None:
        """A few real games of this player (DELETE /api/games may have removed them)."""
        self.games = [self.player.new_game(500 + i)["id"] for i in range(3)]

    def game_id(self) -> str:
        if not self.games or self.rng.random() < 0.1:
            self.refill()
        return self.rng.choice(self.games)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def target(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Target]:
    from tests.support.postgres import migrate_in_process, require_postgres_or_skip
    from tests.support.server import postgres_database, sqlite_database

    tmp = tmp_path_factory.mktemp("schemathesis")

    def serve(url: str) -> Iterator[Target]:
        migrate_in_process(url)
        server = LiveServer(url, workers=2, env={"RATE_LIMITS": "off"}, log_path=tmp / "u.log")
        with server:
            yield Target(server)

    if request.param == "sqlite":
        yield from serve(sqlite_database(tmp))
        return
    require_postgres_or_skip()
    with postgres_database(prefix="scorpion_fuzz") as url:
        yield from serve(url)


@pytest.fixture(scope="module")
def api_schema(target: Target) -> Any:
    return schemathesis.openapi.from_url(target.server.url + "/openapi.json")


# Live event streams (server-sent events) stay open for minutes by design: a fuzzer cannot
# read them to the end. Their inputs (variant, token) are fuzzed on the neighbouring
# operations that take the same parameters.
schema = schemathesis.pytest.from_fixture("api_schema").exclude(path_regex=r".*/events$")


@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
def test_api_survives_hostile_input(case: Case, target: Target) -> None:
    if "id" in (case.path_parameters or {}) and target.rng.random() < 0.5:
        case.path_parameters = {**case.path_parameters, "id": target.game_id()}
    player = target.player
    headers = {"X-CSRF-Token": player.token}
    response = case.call_and_validate(headers=headers, cookies=dict(player.cookies), checks=CHECKS)
    if (
        case.method.upper() == "DELETE"
        and case.path in ("/api/player", "/api/player/devices/{device}")
        and response.status_code == 204
    ):
        target.renew()  # (a removed device, as a deleted player, is a new player from now on)
