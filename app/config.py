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
- ``DAILY_SECRET``: keys the records of ranked attempts (HMAC-SHA256 of player and race, kept
  without the player's identity) and the ids of the daily races. Default: derived from
  ``SECRET_KEY``. The daily deals themselves are fresh random deals kept in the database
  (``python -m app.daily_pool fill``), never deal numbers.
- ``DAILY_PROOF_TRIES``, ``DAILY_PROOF_BUDGET_SECONDS``: when the private pool has no deal for
  a day, how many fresh random deals the solver pool may try to prove winnable, and how long
  each (default 60 and 1 s; most random deals are decided at once, and all the tries together
  stop after 10 s); none proved: an unverified random deal is used (logged).
- ``RANKED_MIN_SECONDS_PER_MOVE``: a win faster than this many seconds per move (default 0.75)
  is not humanly plausible: it is listed apart as "unverified", not ranked.
- ``RANKED_ENTRIES_PER_ADDRESS``: new ranked entries one client address may make on one shared
  deal (default 10); later entries are unranked.
- ``NEW_PLAYERS_PER_MINUTE``: new players (the first write of a new cookie) one client address
  may make per minute (default 30); past it: ``429`` with ``Retry-After``. Client addresses
  are kept only as keyed hashes; behind a ``TRUSTED_PROXIES`` proxy the right-most untrusted
  ``X-Forwarded-For`` address counts. These two are off with ``RATE_LIMITS=off``.
- ``MAX_BODY_BYTES``: request bodies over this many bytes (default 65536) are refused with
  ``413`` before they are read, on every route (``app/web/body_limit.py``).
- ``LINK_CODES_PER_WINDOW``, ``LINK_TRIES_PER_WINDOW``: link codes one player may make
  (default 5) and link codes one client address may enter, right or wrong (default 10), per
  10 minutes (``app/services/devices.py``); off with ``RATE_LIMITS=off``.
- ``MAX_IMPORT_BYTES``: the largest data file the import accepts (default 8000000 bytes, at
  most 30000000: an export of 1,000 finished games of ~90 actions is about 1.6 MB); the two
  import routes are the ones with a cap above ``MAX_BODY_BYTES``, and the body is streamed
  (the CSRF check reads a multipart form only up to its ``csrf_token`` field).
- ``RACE_POLL_SECONDS``: on SQLite, how often each worker looks for race progress made by the
  other workers (default 0.25 s; PostgreSQL pushes it with LISTEN/NOTIFY instead).
- ``METRICS_ALLOW``: client addresses/networks (comma separated CIDRs, or ``*``) that may read
  ``GET /metrics`` (default loopback ``127.0.0.1/8,::1``); everyone else gets 404.
- ``LOG_FORMAT``: ``plain`` (default) or ``json`` (one object per line, with the request id);
  ``LOG_LEVEL``: ``info`` (default), ``debug``, ``warning`` or ``error``.
- ``PROMETHEUS_MULTIPROC_DIR`` (read by ``app/observability.py``, not here): where the workers
  of one server add up their metrics; see that module.
- ``MAX_STREAMS_PER_PLAYER``, ``MAX_STREAMS_PER_WORKER``, ``MAX_STREAMS_PER_ADDRESS``: live
  race event streams one player may hold open on one worker (default 4), one worker holds in
  all (default 1000) and one client address (an IPv6 client by its /64) may hold open on one
  worker, with or without a cookie (default 16); one more is refused with ``429`` and
  ``Retry-After`` (``app/services/race_hub.py``).
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
    daily_proof_tries: int = Field(default=60, ge=0, le=500)
    daily_proof_budget_seconds: float = Field(default=1.0, gt=0, le=10)
    ranked_min_seconds_per_move: float = Field(default=0.75, ge=0, le=60)
    ranked_entries_per_address: int = Field(default=10, ge=1)
    new_players_per_minute: int = Field(default=30, ge=1)
    race_poll_seconds: float = Field(default=0.25, gt=0, le=5)
    max_body_bytes: int = Field(default=64 * 1024, ge=1024)
    # Linking devices (app/services/devices.py): codes made per player and codes entered per
    # client address, per 10 minutes; the import of a data file (app/services/portability/).
    link_codes_per_window: int = Field(default=5, ge=1)
    link_tries_per_window: int = Field(default=10, ge=1)
    max_import_bytes: int = Field(default=8_000_000, ge=1024, le=30_000_000)
    # Operations (app/observability.py, app/web/ops.py): who may read /metrics, log format.
    metrics_allow: str = "127.0.0.1/8,::1"
    log_format: Literal["plain", "json"] = "plain"
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    max_streams_per_player: int = Field(default=4, ge=1)
    max_streams_per_worker: int = Field(default=1000, ge=1)
    max_streams_per_address: int = Field(default=16, ge=1)
    stream_seconds: float = Field(default=600.0, gt=0, le=3600)

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
