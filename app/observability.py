"""Metrics, structured logs and request ids: what an operator sees of the running app.

Metrics (Prometheus text format, ``GET /metrics``, see ``app.web.middleware.ops``):

- ``scorpion_http_request_duration_seconds{method,route,status}``: time to the response's
  first byte, labelled by the *route template* (``/challenge/{token}``), never the raw path,
  so challenge tokens and game ids appear neither in metrics nor in the access log;
- ``scorpion_actions_total{kind,outcome}``: moves, deals, undos, redos and hints by outcome
  (``ok``, ``refused``, ``conflict``, ``not_found``, ``invalid``, ``rate_limited``, ``error``);
- ``scorpion_games_started_total{variant}``, ``scorpion_games_won_total{variant}``;
- ``scorpion_event_streams_open``: live race event streams held open now;
- ``scorpion_solver_questions_total{verdict}``, ``scorpion_solver_duration_seconds{verdict}``;
- ``scorpion_database_errors_total{kind}``: every error the database driver raised (the
  exception class; ``disconnect`` when the connection was lost);

Several workers add up through prometheus-client's multiprocess mode: set
``PROMETHEUS_MULTIPROC_DIR`` to a directory private to this server, emptied before the server
starts (the Dockerfile does). A missing directory is created; one that cannot be created or
written is logged and the process falls back to its own, per-process metrics (as when the
variable is unset: fine for one worker, partial with several).

Services report with one-line calls or decorators (``count_action``, ``count_game_start``,
``observe_solver``); database errors are counted by a SQLAlchemy ``handle_error`` listener.

Logs: ``LOG_FORMAT=json`` writes one JSON object per line (``time``, ``level``, ``logger``,
``message``, ``request_id`` and the access log's fields); the default is plain lines. The
access log (logger ``scorpion.access``) replaces uvicorn's, naming the route template instead
of the path.
"""

from __future__ import annotations

import atexit
import contextvars
import functools
import json
import logging
import os
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

log = logging.getLogger("scorpion.observability")

_MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def _prepare_multiproc_dir() -> str | None:
    """The usable multiprocess directory, or None (per-process metrics). Runs before
    prometheus_client is imported: it picks its storage from the environment at import."""
    directory = os.environ.get(_MULTIPROC_ENV) or os.environ.get(_MULTIPROC_ENV.lower())
    if not directory:
        return None
    try:
        Path(directory).mkdir(parents=True, exist_ok=True)
        probe = Path(directory) / f".probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        print(  # logging is not configured yet at import time
            f"scorpion: {_MULTIPROC_ENV}={directory!r} is not a writable directory ({exc}); "
            "metrics fall back to this process only",
            file=sys.stderr,
        )
        os.environ.pop(_MULTIPROC_ENV, None)
        os.environ.pop(_MULTIPROC_ENV.lower(), None)
        return None
    os.environ[_MULTIPROC_ENV] = directory
    return directory


MULTIPROC_DIR = _prepare_multiproc_dir()

from prometheus_client import (  # noqa: E402 - after the multiprocess directory is settled
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

LATENCY_BUCKETS = (0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
SOLVER_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 7.5, 10.0, 15.0)

REQUEST_SECONDS = Histogram(
    "scorpion_http_request_duration_seconds",
    "Time to the first byte of the response, by route template.",
    ["method", "route", "status"],
    buckets=LATENCY_BUCKETS,
)
ACTIONS = Counter(
    "scorpion_actions_total", "Player actions by kind and outcome.", ["kind", "outcome"]
)
GAMES_STARTED = Counter("scorpion_games_started_total", "Games started.", ["variant"])
GAMES_WON = Counter("scorpion_games_won_total", "Games won.", ["variant"])
EVENT_STREAMS = Gauge(
    "scorpion_event_streams_open",
    "Live race event streams open now.",
    multiprocess_mode="livesum",
)
SOLVER_QUESTIONS = Counter(
    "scorpion_solver_questions_total", "Questions asked of the solver.", ["verdict"]
)
SOLVER_SECONDS = Histogram(
    "scorpion_solver_duration_seconds",
    "Time to the solver's answer.",
    ["verdict"],
    buckets=SOLVER_BUCKETS,
)
DB_ERRORS = Counter(
    "scorpion_database_errors_total", "Errors raised by the database driver.", ["kind"]
)

if MULTIPROC_DIR is not None:
    _pid = os.getpid()

    @atexit.register
    def _forget_this_process() -> None:
        # The live gauge (open streams) must not count a worker that is gone.
        if os.getpid() == _pid:
            multiprocess.mark_process_dead(_pid)


def render_metrics() -> tuple[bytes, str]:
    """The metrics of every worker (multiprocess mode) or of this process; body and type."""
    if MULTIPROC_DIR is not None:
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST


# -- hooks for the services --------------------------------------------------------------------

ACTION_KINDS = frozenset({"move", "deal", "undo", "redo", "hint"})
_OUTCOMES = {
    "ActionRefused": "refused",
    "VersionConflict": "conflict",
    "NotFound": "not_found",
    "InvalidRequest": "invalid",
    "RateLimited": "rate_limited",
}

F = TypeVar("F", bound=Callable[..., Any])


def _outcome(exc: BaseException) -> str:
    return _OUTCOMES.get(type(exc).__name__, "error")


def _action_kind(args: tuple[Any, ...], kwargs: dict[str, Any], fixed: str | None) -> str:
    if fixed is not None:
        return fixed
    action = kwargs.get("action", args[3] if len(args) > 3 else None)
    kind = action[0] if isinstance(action, list | tuple) and action else None
    return kind if isinstance(kind, str) and kind in ACTION_KINDS else "invalid"


_ACTION_COUNTERS: dict[tuple[str, str], Any] = {}  # a few kinds times a few outcomes


def _action_counter(kind: str, outcome: str) -> Any:
    """``ACTIONS.labels(kind, outcome)``, looked up once."""
    counter = _ACTION_COUNTERS.get((kind, outcome))
    if counter is None:
        counter = _ACTION_COUNTERS[(kind, outcome)] = ACTIONS.labels(kind, outcome)
    return counter


def count_action(kind: str | None = None) -> Callable[[F], F]:
    """Decorator for a service applying a player action: counts it by kind and outcome, and a
    win (the returned state's ``status`` is ``won``). Without ``kind``, the kind is the first
    element of the ``action`` argument (``act(db, player, game_id, action)``)."""

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            name = _action_kind(args, kwargs, kind)
            try:
                result = func(*args, **kwargs)
            except BaseException as exc:
                _action_counter(name, _outcome(exc)).inc()
                raise
            _action_counter(name, "ok").inc()
            if getattr(result, "status", None) == "won" and name != "hint":
                GAMES_WON.labels(str(getattr(result, "variant", "unknown"))).inc()
            return result

        return wrapper  # type: ignore[return-value]

    return decorate


def count_game_start(func: F) -> F:
    """Decorator for the function that starts a game and returns ``(row, game)``."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        result = func(*args, **kwargs)
        row = result[0] if isinstance(result, tuple) else result
        GAMES_STARTED.labels(str(getattr(row, "variant", "unknown"))).inc()
        return result

    return wrapper  # type: ignore[return-value]


def observe_solver(func: F) -> F:
    """Decorator for the coroutine asking the solver; its answer has ``verdict``."""

    @functools.wraps(func)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.monotonic()
        answer = await func(*args, **kwargs)
        verdict = str(getattr(answer, "verdict", "unknown"))
        SOLVER_QUESTIONS.labels(verdict).inc()
        SOLVER_SECONDS.labels(verdict).observe(time.monotonic() - started)
        return answer

    return wrapper  # type: ignore[return-value]


def database_error(kind: str) -> None:
    DB_ERRORS.labels(kind).inc()


def _on_database_error(context: Any) -> None:
    exc = context.original_exception
    kind = "disconnect" if context.is_disconnect else type(exc).__name__
    database_error(kind[:60])


_db_listener_installed = False


def install_database_listener() -> None:
    """Count every driver error of every engine (SQLAlchemy ``handle_error``), once."""
    global _db_listener_installed
    if _db_listener_installed:
        return
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    event.listen(Engine, "handle_error", _on_database_error)
    _db_listener_installed = True


# -- logs ------------------------------------------------------------------------------------

REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "scorpion_request_id", default=None
)
_STANDARD_ATTRS = frozenset(vars(logging.makeLogRecord({})).keys()) | {"message", "asctime"}


class _RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = REQUEST_ID.get() or "-"
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line; ``extra=`` fields become keys."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        rid = getattr(record, "request_id", None) or REQUEST_ID.get()
        if rid and rid != "-":
            out["request_id"] = rid
        for key, value in vars(record).items():
            if key not in _STANDARD_ATTRS and key not in out and key != "request_id":
                out[key] = value if isinstance(value, str | int | float | bool) else str(value)
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is at the time (a test's capture may replace it)."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property  # type: ignore[override]
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        pass


PLAIN_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"


class PlainFormatter(logging.Formatter):
    """``PLAIN_FORMAT``, its time written once per second (``time.strftime`` on every line
    was a tenth of an access log line's cost; the milliseconds are added to it)."""

    _second: int = -1
    _stamp: str = ""

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802
        second = int(record.created)
        if second != self._second:
            self._stamp = super().formatTime(record, datefmt).rsplit(",", 1)[0]
            self._second = second
        return f"{self._stamp},{int(record.msecs):03d}"


_configured_handler: logging.Handler | None = None


def configure_logging(log_format: str = "plain", level: str = "info") -> None:
    """Install one stderr handler on the root logger (idempotent) in the chosen format, give
    uvicorn's own loggers the same format and switch uvicorn's access log off (ours names the
    route template, not the path)."""
    global _configured_handler
    formatter: logging.Formatter = (
        JsonFormatter() if log_format == "json" else PlainFormatter(PLAIN_FORMAT)
    )
    # No format of the site shows a record's thread or process: not looked up for every record.
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    root = logging.getLogger()
    if _configured_handler is not None:
        root.removeHandler(_configured_handler)
    handler = _StderrHandler()
    handler.setFormatter(formatter)
    handler.addFilter(_RequestIdFilter())
    root.addHandler(handler)
    # Our loggers at the chosen level; libraries (httpx, alembic, ...) only from warnings up.
    for name in ("scorpion", "app"):
        logging.getLogger(name).setLevel(level.upper())
    _configured_handler = handler
    for name in ("uvicorn", "uvicorn.error"):
        for h in logging.getLogger(name).handlers:
            h.setFormatter(formatter)
            h.addFilter(_RequestIdFilter())
    logging.getLogger("uvicorn.access").disabled = True
