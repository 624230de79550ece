"""The bare FastAPI baseline of ``make bench-floor`` (issue 12, "the stack's floor").

Two endpoints with nothing of the app around them: no middleware, no cookie, no CSRF, no
ORM, no metrics, no logging. ``scripts/bench_floor.py`` serves this app and the real one side
by side (one uvicorn worker each, SQLite, one keep-alive connection) and prints the ratios.

- ``POST /move``: one SQLite write transaction of the same shape as a move: ``BEGIN
  IMMEDIATE``, read the game row, insert one move-log row, update the game row (a snapshot of
  a real game's size), ``COMMIT``; answers a small JSON body. The connection is set up as the
  app's (WAL, ``synchronous=NORMAL``, ``foreign_keys``, ``busy_timeout``).
- ``GET /board``: a 52-card board (seven columns) rendered with Jinja2: the same card
  picture markup as the play page's (a sprite of card symbols, then per card a link with its
  name and an ``<svg><use href="#c-7H"/></svg>``).
- ``GET /api/session``: a constant JSON body (the launcher's readiness probe).

Serve with ``BASELINE_DB=/path/to/file.db uvicorn scripts.floor_baseline:app``.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from typing import Any

from fastapi import FastAPI
from fastapi.responses import HTMLResponse, Response
from jinja2 import Environment
from markupsafe import Markup

SNAPSHOT_BYTES = 260  # a Scorpion game's engine snapshot is about this long
RANKS = "A23456789TJQK"
SUITS = "SHDC"
RANK_WORDS = "ace two three four five six seven eight nine ten jack queen king".split()  # noqa: SIM905

# The play page's card markup (templates/partials/sprite.html and board.html): one sprite of
# 52 card symbols, rendered once at start-up as the app does, and per card a link with its
# name and an <svg><use href="#c-7H"/></svg>.
SPRITE = (
    Environment(autoescape=True)
    .from_string(
        """<svg class="sprite" aria-hidden="true" focusable="false" width="0" height="0"><defs>
<rect id="f" x=".75" y=".75" width="58.5" height="82.5" rx="5"/>
{%- for s in suits %}<symbol id="s-{{ s }}" viewBox="0 0 100 100">\
<path d="M50 2l39 48-39 48-39-48z"/></symbol>
<symbol id="p-{{ s }}" viewBox="0 0 60 84"><use href="#s-{{ s }}" x="44" y="2.5" width="13" \
height="13"/><use href="#s-{{ s }}" x="13" y="32" width="34" height="34"/></symbol>{% endfor %}
{%- for s in suits %}{% for r in ranks %}
<symbol id="c-{{ r }}{{ s }}" viewBox="0 0 60 84"><use class="cf" href="#f"/><text class="rk" \
x="3.5" y="15">{{ r }}</text><use href="#p-{{ s }}"/></symbol>{% endfor %}{% endfor %}
</defs></svg>"""
    )
    .render(suits=SUITS, ranks=RANKS)
)
RANK_NAMES = dict(zip(RANKS, RANK_WORDS, strict=True))
SUIT_NAMES = dict(zip(SUITS, ("spades", "hearts", "diamonds", "clubs"), strict=True))

BOARD = Environment(autoescape=True).from_string(
    """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Board</title></head>
<body>{{ sprite }}<main>
<form id="board" method="post" action="/move">
{% for col in columns %}{% set c = loop.index0 %}
<div class="col" id="col-{{ c }}" data-col="{{ c }}" role="group" aria-label="Column {{ c + 1 }}" \
style="--n:{{ col|length }}">
{%- for code in col %}
<a class="card {{ code[1] }}{% if loop.last %} top{% endif %}" href="?select={{ c }}-\
{{ loop.index0 }}" aria-label="{{ names[code] }}"><svg role=none><use href="#c-{{ code }}"/>\
</svg></a>
{%- endfor %}
</div>
{% endfor %}
</form>
</main></body></html>
"""
)
DECK = [r + s for s in SUITS for r in RANKS]
NAMES = {code: f"{RANK_NAMES[code[0]]} of {SUIT_NAMES[code[1]]}" for code in DECK}
COLUMNS = [DECK[i::7] for i in range(7)]  # 8, 8, 8, 7, 7, 7, 7 cards

app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
_local = threading.local()
_init_lock = threading.Lock()


def _connect() -> sqlite3.Connection:
    conn: sqlite3.Connection | None = getattr(_local, "conn", None)
    if conn is not None:
        return conn
    conn = sqlite3.connect(os.environ["BASELINE_DB"], isolation_level=None, timeout=10)
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA busy_timeout=10000")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    with _init_lock:
        conn.executescript(
            """
            CREATE TABLE IF NOT EXISTS games (
                id VARCHAR(32) PRIMARY KEY, player_id VARCHAR(64) NOT NULL,
                version INTEGER NOT NULL, snapshot TEXT NOT NULL, moves_made INTEGER NOT NULL,
                updated_at VARCHAR(32) NOT NULL);
            CREATE TABLE IF NOT EXISTS move_log (
                game_id VARCHAR(32) NOT NULL REFERENCES games (id) ON DELETE CASCADE,
                seq INTEGER NOT NULL, kind VARCHAR(8) NOT NULL, from_column INTEGER,
                from_index INTEGER, to_column INTEGER, created_at VARCHAR(32) NOT NULL,
                PRIMARY KEY (game_id, seq));
            INSERT OR IGNORE INTO games VALUES ('g1', 'p1', 1, '', 0, '');
            """
        )
    _local.conn = conn
    return conn


@app.get("/api/session")
def session() -> dict[str, Any]:
    return {"player": "baseline", "csrf_token": "-"}


@app.post("/move")
def move() -> Response:
    conn = _connect()
    now = time.strftime("%Y-%m-%d %H:%M:%S")
    conn.execute("BEGIN IMMEDIATE")
    try:
        row = conn.execute(
            "SELECT id, player_id, version, snapshot, moves_made FROM games "
            "WHERE id = ? AND player_id = ?",
            ("g1", "p1"),
        ).fetchone()
        version = int(row[2])
        conn.execute(
            "INSERT INTO move_log (game_id, seq, kind, from_column, from_index, to_column, "
            "created_at) VALUES (?, ?, 'move', 1, 2, 3, ?)",
            (row[0], version, now),
        )
        conn.execute(
            "UPDATE games SET version = ?, snapshot = ?, moves_made = ?, updated_at = ? "
            "WHERE id = ?",
            (version + 1, str(version).rjust(SNAPSHOT_BYTES, "x"), row[4] + 1, now, row[0]),
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    body = json.dumps({"id": row[0], "version": version + 1}).encode()
    return Response(body, media_type="application/json")


@app.get("/board", response_class=HTMLResponse)
def board() -> HTMLResponse:
    return HTMLResponse(BOARD.render(columns=COLUMNS, names=NAMES, sprite=Markup(SPRITE)))
