"""Deployment files: docker-compose.yml validated by `docker-compose config` (no Docker engine
runs here), the Dockerfile, the Makefile targets and .ci/run."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


def _compose_config(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("docker-compose")
    assert exe, "docker-compose is not installed (.ci/run installs Debian's package)"
    return subprocess.run(
        [exe, "-f", "docker-compose.yml", "config"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    env = {**os.environ, "SECRET_KEY": "compose-test-secret-key-0123456789"}
    result = _compose_config(env)
    assert result.returncode == 0, result.stderr
    return dict(yaml.safe_load(result.stdout))


def test_compose_runs_postgres_a_one_shot_migration_and_the_app(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert set(services) == {"db", "migrate", "app", "proxy"}
    assert services["db"]["image"].startswith("postgres")
    migrate, app = services["migrate"], services["app"]
    assert migrate["command"] == ["alembic", "upgrade", "head"]
    assert migrate["depends_on"]["db"]["condition"] == "service_healthy"
    assert app["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    for service in (migrate, app):
        env = service["environment"]
        assert env["DATABASE_URL"].startswith("postgresql+psycopg://")
        assert env["ENVIRONMENT"] == "production"
        assert env["SECRET_KEY"] == "compose-test-secret-key-0123456789"
    assert int(app["environment"]["WEB_CONCURRENCY"]) >= 2


def test_compose_puts_caddy_in_front_and_checks_health(compose: dict[str, Any]) -> None:
    services = compose["services"]
    app, proxy = services["app"], services["proxy"]
    assert not app.get("ports"), "the app is reached through the proxy only"
    assert "/readyz" in " ".join(app["healthcheck"]["test"])
    assert proxy["image"].startswith("caddy:")
    assert proxy["depends_on"]["app"]["condition"] == "service_healthy"
    mounts = [v if isinstance(v, str) else f"{v['source']}:{v['target']}" for v in proxy["volumes"]]
    assert any("deploy/Caddyfile:/etc/caddy/Caddyfile" in m for m in mounts), mounts
    assert {int(p["target"]) for p in proxy["ports"]} >= {80, 443}
    # The app believes forwarded headers from the proxy's fixed address only.
    address = proxy["networks"]["internal"]["ipv4_address"]
    assert app["environment"]["FORWARDED_ALLOW_IPS"] == address
    assert app["environment"]["TRUSTED_PROXIES"] == address
    caddyfile = (ROOT / "deploy" / "Caddyfile").read_text()
    assert "flush_interval -1" in caddyfile and "{$SITE_ADDRESS" in caddyfile


def test_compose_refuses_to_run_without_a_secret_key() -> None:
    env = {k: v for k, v in os.environ.items() if k != "SECRET_KEY"}
    result = _compose_config(env)
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_the_dockerfile_serves_with_several_workers_and_ships_the_migrations() -> None:
    text = (ROOT / "Dockerfile").read_text()
    for needed in ("COPY migrations", "COPY alembic.ini", "COPY templates", "COPY static"):
        assert needed in text
    assert "uvicorn app.main:app" in text and "--workers" in text
    assert "PROMETHEUS_MULTIPROC_DIR=" in text and 'rm -rf \\"$PROMETHEUS_MULTIPROC_DIR' in text


def test_makefile_and_ci_script() -> None:
    makefile = (ROOT / "Makefile").read_text()
    for target in ("run:", "test:", "lint:", "bench:"):
        assert target in makefile
    assert "alembic upgrade head" in makefile
    assert "uvicorn app.main:app --host 127.0.0.1 --port 8000" in makefile
    assert "pytest tests/e2e" in makefile and "--ignore=tests/e2e" in makefile
    assert "scripts.bench_engine" in makefile and "scripts.bench_api" in makefile
    ci = ROOT / ".ci" / "run"
    assert os.access(ci, os.X_OK)
    script = ci.read_text()
    assert "set -euo pipefail" in script and "REQUIRE_POSTGRES=1 make test" in script
    # make test installs the system packages itself (tests/reliability/test_proxy.py runs
    # Debian's caddy): .ci/run only starts PostgreSQL.
    deps = (ROOT / "scripts" / "ensure-system-deps.sh").read_text()
    assert "ensure-system-deps.sh test" in makefile
    assert all(name in deps for name in ("chromium", "docker-compose", "caddy"))
