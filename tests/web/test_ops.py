"""Operations: /healthz, /readyz, /metrics (who may read it, what it counts, no tokens or
game ids in it), the request id and the access log."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from alembic import command
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from app.db.session import make_engine
from app.observability import PLAIN_FORMAT, JsonFormatter, PlainFormatter
from app.web.middleware.ops import address_allowed
from tests.conftest import alembic_config
from tests.support.api_client import KNOWN_WIN, Player
from tests.support.metrics import LOOPBACK, metrics_text, sample

ROOT = Path(__file__).resolve().parents[2]


def test_healthz_answers_without_cookie_or_database(app: FastAPI) -> None:
    r = TestClient(app).get("/healthz")
    assert r.status_code == 200 and r.json() == {"status": "ok"}
    assert "set-cookie" not in r.headers
    assert r.headers["cache-control"] == "no-store"


def test_healthz_stays_up_when_the_database_is_down(
    app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = metrics_text(app)
    dead = make_engine("postgresql+psycopg://nobody@127.0.0.1:9/none?connect_timeout=2")
    monkeypatch.setattr("app.db.session._engine", dead)
    client = TestClient(app)
    assert client.get("/healthz").status_code == 200
    r = client.get("/readyz")
    assert r.status_code == 503, r.text
    assert r.json()["status"] == "unavailable"
    assert r.json()["reason"].startswith("database unreachable")
    assert "set-cookie" not in r.headers
    # The driver's error is counted (a refused connection: a disconnect).
    assert sample(metrics_text(app), "scorpion_database_errors_total") > sample(
        before, "scorpion_database_errors_total"
    )


def test_readyz_on_a_migrated_database(app: FastAPI) -> None:
    r = TestClient(app).get("/readyz")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["status"] == "ready" and body["migration"]
    assert "set-cookie" not in r.headers


def test_readyz_refuses_a_database_behind_the_migrations(
    app: FastAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    command.upgrade(alembic_config(url), "head")
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = 'older'"))
    monkeypatch.setattr("app.db.session._engine", engine)
    r = TestClient(app).get("/readyz")
    assert r.status_code == 503
    assert "not at head" in r.json()["reason"] and r.json()["database"] == ["older"]
    empty = create_engine(f"sqlite:///{tmp_path / 'empty.db'}")
    monkeypatch.setattr("app.db.session._engine", empty)
    r = TestClient(app).get("/readyz")
    assert r.status_code == 503 and "not migrated" in r.json()["reason"]


def test_metrics_only_for_allowed_addresses(app: FastAPI) -> None:
    r = TestClient(app, client=("203.0.113.9", 40000)).get("/metrics")
    assert r.status_code == 404 and "scorpion_" not in r.text
    assert "set-cookie" not in r.headers
    r = TestClient(app, client=LOOPBACK).get("/metrics")
    assert r.status_code == 200 and "scorpion_http_request_duration_seconds" in r.text
    assert "set-cookie" not in r.headers


def test_metrics_allow_list_takes_cidrs() -> None:
    allow = "127.0.0.1/8,::1,10.1.0.0/16"
    assert address_allowed("127.9.9.9", allow)
    assert address_allowed("::1", allow)
    assert address_allowed("::ffff:127.0.0.1", allow)
    assert address_allowed("10.1.200.3", allow)
    assert not address_allowed("10.2.0.1", allow)
    assert not address_allowed("203.0.113.9", allow)
    assert not address_allowed("testclient", allow)
    assert not address_allowed(None, allow)
    assert not address_allowed("127.0.0.1", "")
    assert address_allowed("203.0.113.9", "*")


def test_metrics_count_actions_games_and_routes_without_ids(
    app: FastAPI, caplog: pytest.LogCaptureFixture
) -> None:
    before = metrics_text(app)
    p = Player(app)
    g = p.new_game(deal=KNOWN_WIN["deal"])
    gid = g["id"]
    assert p.get(f"/api/games/{gid}/hints").status_code == 200
    refused = p.post(f"/api/games/{gid}/moves", {"from_column": 0, "from_index": 0, "to_column": 0})
    assert refused.status_code in (409, 422), refused.text
    with caplog.at_level(logging.INFO, logger="scorpion.access"):
        for kind, *args in KNOWN_WIN["line"]:
            if kind == "move":
                a, i, b = args
                body = {"from_column": a, "from_index": i, "to_column": b}
                r = p.post(f"/api/games/{gid}/moves", body)
            else:
                r = p.post(f"/api/games/{gid}/{kind}")
            assert r.status_code == 200, r.text
        assert r.json()["status"] == "won"
        token = p.post(f"/api/games/{gid}/challenge").json()["token"]
        assert p.get(f"/api/challenges/{token}").status_code == 200
        assert p.get(f"/challenge/{token}", headers={"Accept": "text/html"}).status_code == 200
    after = metrics_text(app)

    def delta(name: str, **labels: str) -> float:
        return sample(after, name, **labels) - sample(before, name, **labels)

    moves = sum(1 for a in KNOWN_WIN["line"] if a[0] == "move")
    assert delta("scorpion_games_started_total", variant="scorpion") == 1
    assert delta("scorpion_games_won_total", variant="scorpion") == 1
    assert delta("scorpion_actions_total", kind="move", outcome="ok") == moves
    assert delta("scorpion_actions_total", kind="hint", outcome="ok") == 1
    assert delta("scorpion_actions_total", kind="move", outcome="refused") == 1
    route = "/api/games/{id}/moves"
    assert delta("scorpion_http_request_duration_seconds_count", route=route, status="200") == moves
    assert sample(after, "scorpion_http_request_duration_seconds_count", route="/challenge/{token}")
    # Neither the game id nor the challenge token appears in metrics or the access log.
    logged = "\n".join(r.getMessage() + json.dumps(r.__dict__, default=str) for r in caplog.records)
    for secret in (gid, token):
        assert secret not in after
        assert secret not in logged
    assert "/challenge/{token}" in logged and route in logged


# Seed 1: the solver proves it lost at once (tests/api/test_analysis.py).
LOST_DEAL = (
    "JS TC QH TD 3C KH 7D QC TH 6C 4H KS 5S 3D JD 8S 9S 9D 2S AS KC QS 7H 8D KD AH 9H JC "
    "8H 4C 6D 2D 5D 6S AC 2H 4S 2C 7S 7C AD QD 3S 5H 3H 6H 8C 4D 5C TS JH 9C"
)


def test_solver_questions_are_counted_with_verdict_and_duration(app: FastAPI) -> None:
    before = metrics_text(app)
    p = Player(app)
    g = p.new_game(deal=LOST_DEAL)
    r = p.post(f"/api/games/{g['id']}/analysis", {})
    assert r.status_code == 200 and r.json()["verdict"] == "loss", r.text
    after = metrics_text(app)
    name = "scorpion_solver_questions_total"
    assert sample(after, name, verdict="loss") - sample(before, name, verdict="loss") == 1
    count = "scorpion_solver_duration_seconds_count"
    assert sample(after, count, verdict="loss") - sample(before, count, verdict="loss") == 1


def test_request_id_is_echoed_or_made() -> None:
    from app.main import create_app

    client = TestClient(create_app())
    r = client.get("/healthz", headers={"X-Request-ID": "abc-123.def"})
    assert r.headers["x-request-id"] == "abc-123.def"
    made = client.get("/healthz", headers={"X-Request-ID": "bad id\twith spaces"})
    assert made.headers["x-request-id"] != "bad id\twith spaces"
    assert len(made.headers["x-request-id"]) == 32
    page = client.get("/rules", headers={"X-Request-ID": "rid-42"})
    assert page.status_code == 200 and page.headers["x-request-id"] == "rid-42"


def test_json_log_lines_carry_the_request_id() -> None:
    record = logging.makeLogRecord(
        {"name": "scorpion.access", "levelno": 20, "levelname": "INFO", "msg": "GET %s 200"}
    )
    record.args = ("/challenge/{token}",)
    record.request_id = "rid-7"
    record.route = "/challenge/{token}"
    record.status = 200
    line = json.loads(JsonFormatter().format(record))
    assert line["request_id"] == "rid-7" and line["level"] == "info"
    assert line["message"] == "GET /challenge/{token} 200"
    assert line["route"] == "/challenge/{token}" and line["status"] == 200


def _run(code: str, env: dict[str, str]) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout + result.stderr


def test_workers_add_up_in_multiprocess_mode(tmp_path: Path) -> None:
    directory = tmp_path / "not-there-yet" / "metrics"  # a missing directory is created
    env = {"PROMETHEUS_MULTIPROC_DIR": str(directory)}
    bump = "import app.observability as o; o.GAMES_STARTED.labels('wasp').inc(); "
    bump += "o.EVENT_STREAMS.inc()"
    _run(bump, env)
    _run(bump, env)
    out = _run("import app.observability as o; print(o.render_metrics()[0].decode())", env)
    assert sample(out, "scorpion_games_started_total", variant="wasp") == 2
    # Open streams are a live gauge: the processes that held them have exited.
    assert sample(out, "scorpion_event_streams_open") == 0


def test_an_unusable_multiprocess_dir_falls_back_to_this_process(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    env = {"PROMETHEUS_MULTIPROC_DIR": str(blocker / "metrics")}
    code = "import app.observability as o; o.GAMES_WON.labels('wasp').inc(); "
    code += "print(o.MULTIPROC_DIR); print(o.render_metrics()[0].decode())"
    out = _run(code, env)
    assert "not a writable directory" in out and "None" in out
    assert 'scorpion_games_won_total{variant="wasp"} 1.0' in out


def test_plain_log_lines_read_as_the_standard_format_writes_them() -> None:
    """The plain format keeps its time for a second: lines in the same second, in the next one
    and hours apart read as ``logging.Formatter`` writes them (milliseconds included)."""
    fast, standard = PlainFormatter(PLAIN_FORMAT), logging.Formatter(PLAIN_FORMAT)
    base = 1_800_000_000.0
    for created in (base + 0.001, base + 0.999, base + 1.5, base + 1.5, base + 7200.25, base):
        record = logging.makeLogRecord(
            {"name": "scorpion.access", "msg": "GET %s", "args": ("/",), "request_id": "r1"}
        )
        record.created, record.msecs = created, (created - int(created)) * 1000
        assert fast.format(record) == standard.format(record)
