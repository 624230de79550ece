"""Remove the unfinished games of players unseen for N days (then the players left with no
data, and the expired link codes). Fit for cron::

    python -m app.retention                 # N from RETENTION_DAYS (Settings)
    python -m app.retention --days 90
    python -m app.retention --days 90 --dry-run

Uses ``DATABASE_URL`` like the app. Prints one line per removed game and a summary; exits 0
on success (also when there was nothing to remove), 2 on bad arguments, 1 if the database
could not be reached.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from sqlalchemy.exc import SQLAlchemyError

from app.config import get_settings
from app.db.session import get_sessionmaker
from app.services.retention import (
    RemovedGame,
    cutoff_for,
    find_stale_games,
    purge_empty_players,
    purge_expired_link_codes,
    purge_stale_games,
)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of days") from None
    if value < 1:
        raise argparse.ArgumentTypeError("the retention period is at least 1 day")
    return value


def _describe(game: RemovedGame) -> str:
    return (
        f"game {game.id} ({game.variant}, {game.moves} moves, last played "
        f"{game.updated_at:%Y-%m-%d %H:%M} UTC; player last seen "
        f"{game.player_last_seen:%Y-%m-%d %H:%M} UTC)"
    )


def main(argv: Sequence[str] | None = None) -> int:
    settings = get_settings()
    parser = argparse.ArgumentParser(
        prog="python -m app.retention",
        description="Remove unfinished games of players unseen for N days.",
    )
    parser.add_argument(
        "--days",
        type=_positive,
        default=settings.retention_days,
        help=f"players unseen for this many days (default {settings.retention_days}, "
        "RETENTION_DAYS)",
    )
    parser.add_argument("--dry-run", action="store_true", help="only list what would be removed")
    parser.add_argument(
        "--batch-size", type=_positive, default=500, help="games per transaction (default 500)"
    )
    args = parser.parse_args(argv)

    cutoff = cutoff_for(args.days)
    db = get_sessionmaker()()
    emptied = codes = 0
    try:
        if args.dry_run:
            games = find_stale_games(db, args.days)
            db.rollback()
            verb = "would remove"
        else:
            games = purge_stale_games(db, args.days, batch_size=args.batch_size)
            emptied = purge_empty_players(db, args.days, batch_size=args.batch_size)
            codes = purge_expired_link_codes(db)
            verb = "removed"
    except SQLAlchemyError as exc:
        print(
            f"retention: the database could not be used: {exc.__class__.__name__}: "
            f"{str(exc).splitlines()[0]}",
            file=sys.stderr,
        )
        return 1
    finally:
        db.close()

    for game in games:
        print(f"{verb} {_describe(game)}")
    players = len({g.player_id for g in games})
    print(
        f"retention: {verb} {len(games)} unfinished game(s) of {players} player(s) "
        f"unseen for {args.days} days (since {cutoff:%Y-%m-%d %H:%M} UTC)"
    )
    if not args.dry_run:
        print(f"retention: removed {emptied} player(s) with no data left")
        print(f"retention: removed {codes} expired link code(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
