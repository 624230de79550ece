"""One place for configuration: ``Settings``, read from the environment (pydantic-settings).

Environment variables (all optional in development):

- ``ENVIRONMENT``: ``development`` (default), ``test`` or ``production``.
- ``DATABASE_URL``: a SQLAlchemy URL. Default: the SQLite file ``./scorpion.db``.
  PostgreSQL: ``postgresql+psycopg://user:password@host:5432/dbname``.
- ``SECRET_KEY``: signs the player cookie and derives CSRF tokens. Keep it stable: cookies stay
  valid across restarts only while it does. Production refuses the development default.
- ``RATE_LIMITS``: only the literal value ``off`` switches rate limits off.
- ``RATE_LIMIT_GAMES``, ``RATE_LIMIT_ACTIONS``, ``RATE_LIMIT_WINDOW_SECONDS``: per player, at
  most that many new games / actions (moves, deals, undo, redo, hints) per window
  (default 300 and 3000 per 60 s: no human player comes near them). Counted in the database.
- ``RETENTION_DAYS``: ``python -m app.retention`` removes unfinished games of players unseen
  for this many days (default 180).
- ``TRUSTED_PROXIES``: addresses/networks (comma separated, or ``*``) whose
  ``X-Forwarded-Proto`` is believed when deciding whether a cookie is ``Secure``.
- ``COOKIE_SECURE``: ``auto`` (default: Secure when the request arrived over https),
  ``always`` or ``never``.
- ``COOKIE_NAME``, ``COOKIE_MAX_AGE_DAYS``: the player cookie's name and lifetime.
- ``TRUSTED_ORIGINS``: extra origins (comma separated, e.g. ``https://scorpion.example``)
  accepted on unsafe requests besides the request's own host.
- ``ANALYSIS_BUDGET_SECONDS``: how long the solver may think about one "is this still
  winnable?" or solver-hint question (default 3, at most 10); past it the answer is "could not
  tell in time".
- ``ANALYSIS_WORKERS``: solver processes per web worker process (default 1, at most 8), started
  on the first question (``app/services/analysis.py``).
- ``DAILY_SECRET``: chooses each day's daily deal (HMAC-SHA256 over "variant|YYYY-MM-DD"), so
  nobody can work out a coming day's deal from the public code. Default: derived from
  ``SECRET_KEY``. Changing it changes the deals of the days not yet played.
- ``MAX_BODY_BYTES``: request bodies over this many bytes (default 65536) are refused with
  ``413`` before they are read, on every route (``app/web/body_limit.py``).
- ``RACE_POLL_SECONDS``: on SQLite, how often each worker looks for race progress made by the
  other workers (default 0.25 s; PostgreSQL pushes it with LISTEN/NOTIFY instead).
- ``MAX_STREAMS_PER_PLAYER``, ``MAX_STREAMS_PER_WORKER``: live race event streams one player
  may hold open on one worker (default 4) and one worker holds in all (default 1000); one more
  is refused with ``429`` and ``Retry-After`` (``app/services/race_hub.py``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEV_SECRET_KEY = "dev-only-insecure-secret-key-change-me"  # noqa: S105 - a known dev default


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="", extra="ignore", case_sensitive=False)

    environment: Literal["development", "test", "production"] = "development"
    database_url: str = "sqlite:///./scorpion.db"
    secret_key: str = DEV_SECRET_KEY
    rate_limits: str = "on"
    rate_limit_games: int = Field(default=300, ge=1)
    rate_limit_actions: int = Field(default=3000, ge=1)
    rate_limit_window_seconds: int = Field(default=60, ge=1)
    retention_days: int = Field(default=180, ge=1)
    trusted_proxies: str = "127.0.0.1,::1"
    cookie_name: str = "scorpion_player"
    cookie_secure: Literal["auto", "always", "never"] = "auto"
    cookie_max_age_days: int = 400
    trusted_origins: str = ""
    sqlite_busy_timeout_ms: int = 10_000
    analysis_budget_seconds: float = Field(default=3.0, gt=0, le=10)
    analysis_workers: int = Field(default=1, ge=1, le=8)
    daily_secret: str = ""
    race_poll_seconds: float = Field(default=0.25, gt=0, le=5)
    max_body_bytes: int = Field(default=64 * 1024, ge=1024)
    max_streams_per_player: int = Field(default=4, ge=1)
    max_streams_per_worker: int = Field(default=1000, ge=1)

    @field_validator("database_url")
    @classmethod
    def _normalise_database_url(cls, value: str) -> str:
        # Accept the common short forms and use psycopg 3, the driver we ship.
        for prefix in ("postgres://", "postgresql://"):
            if value.startswith(prefix):
                return "postgresql+psycopg://" + value[len(prefix) :]
        return value

    @model_validator(mode="after")
    def _refuse_dev_secret_in_production(self) -> Settings:
        if self.environment == "production" and (
            self.secret_key == DEV_SECRET_KEY or len(self.secret_key) < 16
        ):
            raise ValueError(
                "SECRET_KEY must be set to a long random value in production "
                "(the development default is refused)."
            )
        return self

    @property
    def rate_limits_enabled(self) -> bool:
        """Rate limits are on unless ``RATE_LIMITS`` is exactly ``off``."""
        return self.rate_limits != "off"

    @property
    def cookie_max_age_seconds(self) -> int:
        return self.cookie_max_age_days * 24 * 3600

    @property
    def trusted_origin_list(self) -> list[str]:
        return [o.strip().rstrip("/") for o in self.trusted_origins.split(",") if o.strip()]


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings (read once)."""
    return Settings()
