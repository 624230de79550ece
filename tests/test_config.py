"""Settings: the production guard on SECRET_KEY, RATE_LIMITS, database URLs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from app.config import DEV_SECRET_KEY, Settings

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Other tests point DATABASE_URL etc. at their databases: start from the defaults."""
    for name in ("DATABASE_URL", "SECRET_KEY", "RATE_LIMITS", "ENVIRONMENT"):
        monkeypatch.delenv(name, raising=False)


def test_production_refuses_the_development_secret_key() -> None:
    with pytest.raises(ValidationError, match="SECRET_KEY"):
        Settings(environment="production")
    with pytest.raises(ValidationError, match="SECRET_KEY"):
        Settings(environment="production", secret_key=DEV_SECRET_KEY)
    with pytest.raises(ValidationError, match="SECRET_KEY"):
        Settings(environment="production", secret_key="short")
    ok = Settings(environment="production", secret_key="a-long-random-production-secret-key")
    assert ok.secret_key.startswith("a-long")
    assert Settings().secret_key == DEV_SECRET_KEY  # development keeps its default


def test_the_server_does_not_start_in_production_with_the_dev_key() -> None:
    env = {k: v for k, v in os.environ.items() if k != "SECRET_KEY"}
    env["ENVIRONMENT"] = "production"
    result = subprocess.run(
        [sys.executable, "-c", "import app.main"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


@pytest.mark.parametrize(
    "value,enabled", [("off", False), ("OFF", True), ("on", True), ("", True), ("no", True)]
)
def test_only_the_literal_off_switches_rate_limits_off(value: str, enabled: bool) -> None:
    assert Settings(rate_limits=value).rate_limits_enabled is enabled
    assert Settings().rate_limits_enabled is True


def test_database_url_default_and_short_postgres_forms() -> None:
    assert Settings().database_url == "sqlite:///./scorpion.db"
    assert Settings(database_url="postgres://u@h/d").database_url == "postgresql+psycopg://u@h/d"
    assert Settings(database_url="postgresql://u@h/d").database_url == "postgresql+psycopg://u@h/d"


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "sqlite:////tmp/elsewhere.db")
    monkeypatch.setenv("SECRET_KEY", "from-the-environment-0123456789")
    monkeypatch.setenv("RATE_LIMITS", "off")
    s = Settings()
    assert s.database_url == "sqlite:////tmp/elsewhere.db"
    assert s.secret_key == "from-the-environment-0123456789"
    assert s.rate_limits_enabled is False
