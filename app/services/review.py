"""A review of your game (issue 40): the solver's verdict on every position of its move log.

Position ``k`` is the game after ``k`` steps of its log (0: the opening). ``start_review`` (one
transaction, like an action: rate limit, ownership) makes or takes up the game's row of
``game_reviews`` and says whether this process must work on it; ``run_review`` (in a
background thread of the web process: ``submit_review``) asks the solver processes of
``app/services/analysis.py`` about each position in turn with a short budget, writing every
verdict as it comes (the progress any worker reads: ``review_status``). A review whose
worker stopped (no progress for ``STALE_SECONDS``) is taken up again by the next request.

What is decided without a search: the last position of a won game, and (going back) every
position a forward step (a move, the deal, a redo) led from into a winnable one is winnable;
every position a forward step leads to from a lost one is lost (no move undoes a loss; only
an undo may come back to a winnable position).

Secrets: a review never reveals a card the player could not otherwise know. A deal still
secret (today's daily deal of the variant, or a challenge on it: any game dealt the same cards)
is refused with ``ActionRefused`` ("secret") until the day is over. Reviewing a game in progress
marks it assisted, as any solver answer does. The winning line kept for "Show a way to win"
(from the last winnable position) is only ever shown as the public views it passes through,
for a finished game (won or given up) of a public deal.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import GameReview, GameRow, MoveLog, Race, utcnow
from app.db.session import get_sessionmaker
from app.engine import Action, Game, PublicView
from app.engine.solver import decode_line

from . import analysis
from .common import read_tx, write_tx
from .days import today
from .errors import ActionRefused, NotFound
from .game_core import load_game, logged_action
from .ratelimit import consume as count_request
from .replay import replay_positions

log = logging.getLogger("app.review")

REVIEW_BUDGET_SECONDS = 1.0  # the solver's budget for one position of a review
STALE_SECONDS = 30  # a working review without progress for this long is taken up again
BUSY_WAIT_SECONDS = 1.0  # the solver's queue is full: try again after this long

SECRET_MESSAGE = (
    "This deal is still secret (today's daily deal): its review waits until the day is over."
)
NO_REVIEW_MESSAGE = "This game has no review yet: ask for one first."

VERDICT_OF = {"w": "win", "l": "loss", "u": "unknown"}
FORWARD = {"move", "deal", "redo"}


@dataclass(frozen=True, slots=True)
class ReviewStatus:
    state: str  # "working" | "done"
    verdicts: list[str | None]  # a position's verdict, None while not decided yet
    first_losing_step: int | None
    line_step: int | None  # the last winnable position (a line from it is kept), or None
    finished: bool  # the game is won or given up (a way to win may be shown)

    @property
    def decided(self) -> int:
        return sum(v is not None for v in self.verdicts)


def first_losing_step(verdicts: list[str | None]) -> int | None:
    """The first ``k`` whose position is lost while position ``k-1`` was winnable."""
    for k in range(1, len(verdicts)):
        if verdicts[k] == "loss" and verdicts[k - 1] == "win":
            return k
    return None


def _status(row: GameReview, game: GameRow) -> ReviewStatus:
    verdicts = [VERDICT_OF.get(c) for c in row.verdicts]
    return ReviewStatus(
        state=row.state,
        verdicts=verdicts,
        first_losing_step=first_losing_step(verdicts),
        line_step=row.line_step if row.state == "done" and row.line else None,
        finished=game.status == "won" or game.abandoned_at is not None,
    )


def _is_secret(db: Session, game: GameRow) -> bool:
    """Is the game's deal today's (or a later day's) daily deal of its variant?"""
    hit = db.execute(
        select(Race.id)
        .where(
            Race.kind == "daily",
            Race.variant == game.variant,
            Race.day >= today(),
            Race.deal == game.deal,
        )
        .limit(1)
    ).scalar_one_or_none()
    return hit is not None


def _log(db: Session, game_id: str) -> list[Action]:
    rows = db.execute(select(MoveLog).where(MoveLog.game_id == game_id).order_by(MoveLog.seq))
    return [logged_action(r) for r in rows.scalars()]


def _positions(game: GameRow, actions: list[Action]) -> tuple[list[Game], list[Action]]:
    """The positions 0..n of the log (a won game's log stops at its win)."""
    return replay_positions(game.variant, game.deal, actions, Game.copy)


def _stale(row: GameReview) -> bool:
    return row.heartbeat < utcnow() - timedelta(seconds=STALE_SECONDS)


def start_review(db: Session, player_id: str, game_id: str) -> tuple[ReviewStatus, bool]:
    """Ask for the review of the player's game (one transaction). Returns its status and
    whether the caller must run it (``run_review``): a new review, one of a log that grew
    since, or one whose worker stopped. ``NotFound``, ``ActionRefused`` ("secret")."""
    count_request(db, player_id, "actions")
    with write_tx(db):
        game = load_game(db, player_id, game_id, lock=True)
        if _is_secret(db, game):
            raise ActionRefused(SECRET_MESSAGE, "secret")
        steps = len(_positions(game, _log(db, game_id))[1])
        if game.status != "won" and game.abandoned_at is None and not game.assisted:
            game.assisted = True  # a game in progress: the review is the solver's help
        row = db.get(GameReview, game_id)
        run = True
        if row is None:
            row = GameReview(game_id=game_id, steps=steps, verdicts="." * (steps + 1))
            row.state = "working"
            db.add(row)
        elif row.steps != steps:  # the game went on since: review the new positions
            # (the log only grows: the positions reviewed before are the same ones)
            kept = row.verdicts[: steps + 1] if row.steps < steps else "." * (steps + 1)
            kept = kept + "." * (steps + 1 - len(kept))
            row.steps, row.verdicts, row.state = steps, kept, "working"
            row.line, row.line_step, row.heartbeat = None, None, utcnow()
        elif row.state == "working" and _stale(row):
            row.heartbeat = utcnow()  # taken up here (its worker stopped)
        else:
            run = False
        db.flush()
        return _status(row, game), run


def review_status(db: Session, player_id: str, game_id: str) -> tuple[ReviewStatus, bool]:
    """The review of the player's game as far as it went, and whether the caller should take
    it up (its worker stopped: the work's first write renews its heartbeat). ``NotFound`` (no
    such game, or no review asked for)."""
    with read_tx(db):
        game = load_game(db, player_id, game_id)
        row = db.get(GameReview, game_id)
        if row is None:
            raise NotFound(NO_REVIEW_MESSAGE)
        status = _status(row, game)
        stale = row.state == "working" and _stale(row)
    return status, stale  # (taken up without a write: a GET never writes itself)


def find_review(db: Session, player_id: str, game_id: str) -> tuple[ReviewStatus | None, bool]:
    """``review_status`` for a page: ``None`` when no review was asked for (no 404)."""
    try:
        return review_status(db, player_id, game_id)
    except NotFound:
        return None, False


def winning_frames(
    db: Session, player_id: str, game_id: str
) -> tuple[int, list[PublicView], list[Action]]:
    """Show a way to win: the public views along the kept winning line from the last
    winnable position of a finished game's review. ``NotFound`` when there is none."""
    with read_tx(db):
        game = load_game(db, player_id, game_id)
        row = db.get(GameReview, game_id)
        if row is None or row.state != "done" or not row.line or row.line_step is None:
            raise NotFound()
        if game.status != "won" and game.abandoned_at is None:
            raise NotFound()  # a game in progress: no line is shown
        if _is_secret(db, game):
            raise NotFound()
        positions, _ = _positions(game, _log(db, game_id))
    g = positions[row.line_step]
    frames = [g.public_view()]
    line = decode_line(row.line)
    for action in line:
        g.apply(action)
        frames.append(g.public_view())
    return row.line_step, frames, line


# -- the work (in the background of a web process) ----------------------------------------------


def _load_work(game_id: str) -> tuple[list[str], list[Action], str] | None:
    with get_sessionmaker()() as db, read_tx(db):
        row = db.get(GameReview, game_id)
        game = db.get(GameRow, game_id)
        if row is None or game is None or row.state != "working":
            return None
        positions, actions = _positions(game, _log(db, game_id))
        if len(actions) != row.steps:
            return None  # asked again for a longer log: that request runs it
        return [p.to_snapshot() for p in positions], actions, row.verdicts


def _save(game_id: str, verdicts: str, line: tuple[int, str] | None, done: bool) -> bool:
    """Write the progress; False when the review was reset or removed meanwhile."""
    with get_sessionmaker()() as db, write_tx(db):
        row = db.get(GameReview, game_id)
        if row is None or len(row.verdicts) != len(verdicts) or row.state != "working":
            return False
        row.verdicts, row.heartbeat = verdicts, utcnow()
        if line is not None:
            row.line_step, row.line = line
        if done:
            row.state = "done"
        return True


_runner_lock = threading.Lock()
_runner: ThreadPoolExecutor | None = None
REVIEW_THREADS = 2  # reviews worked on at once per web process (each asks one position at a time)


def submit_review(game_id: str) -> None:
    """Run the review in this process's background threads (the request does not wait)."""
    global _runner
    with _runner_lock:
        if _runner is None:
            _runner = ThreadPoolExecutor(REVIEW_THREADS, thread_name_prefix="review")
        _runner.submit(run_review, game_id)


def run_review(game_id: str) -> None:
    """Decide every position of the review (see the module notes); never raises."""
    try:
        _run(game_id)
    except Exception:  # noqa: BLE001 - a failed review is taken up again later (logged)
        log.exception("review of game %s failed", game_id)


def _run(game_id: str) -> None:
    work = _load_work(game_id)
    if work is None:
        return
    snapshots, actions, text = work
    verdicts = list(text)
    n = len(snapshots) - 1
    if Game.from_snapshot(snapshots[n]).won:
        verdicts[n] = "w"
        for k in range(n - 1, -1, -1):  # back along forward steps into a winnable position
            if actions[k][0] in FORWARD and verdicts[k + 1] == "w":
                verdicts[k] = "w"
    lines: dict[int, str] = {}  # the winning lines found, by position
    for k in range(n + 1):
        if verdicts[k] != ".":
            continue
        if k > 0 and verdicts[k - 1] == "l" and actions[k - 1][0] in FORWARD:
            verdicts[k] = "l"  # a forward step from a lost position
        else:
            while True:
                try:
                    answer = analysis.ask_solver_sync(snapshots[k], REVIEW_BUDGET_SECONDS)
                    break
                except analysis.SolverBusy:
                    time.sleep(BUSY_WAIT_SECONDS)
            verdicts[k] = answer.verdict[0]
            if answer.verdict == "win" and answer.line:
                lines[k] = answer.line
        if not _save(game_id, "".join(verdicts), None, False):
            return
    _save(game_id, "".join(verdicts), _way_to_win(verdicts, lines), True)


def _way_to_win(verdicts: list[str], lines: dict[int, str]) -> tuple[int, str] | None:
    """The line kept for "Show a way to win": from the position before the first losing step,
    else (a game not won) from the last winnable position, when the search gave one there."""
    losing = first_losing_step([VERDICT_OF.get(c) for c in verdicts])
    if losing is not None:
        k: int | None = losing - 1
    else:
        k = max((j for j, c in enumerate(verdicts) if c == "w"), default=None)
    if k is None or k not in lines:
        return None
    return k, lines[k]
