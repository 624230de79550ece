"""Live race panels and the challenge page list each player once, whatever number of games
they played on the deal, and a game given up (a new game started) is reported to its race at
once. Real databases (SQLite and PostgreSQL), never mocked; publishing is only watched."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy.orm import Session

from app import services
from app.engine import DEFAULT_VARIANT
from app.services import challenges, daily, race, race_progress
from app.services.leaderboard import leaderboard
from app.services.race import standings
from app.services.race_panel import panel_rows, race_panel
from app.services.race_progress import Progress, one_progress_per_player
from app.services.types import GameState
from tests.support.deals import WIN_DEAL, WIN_LINE


def new_player() -> str:
    return f"live-{uuid.uuid4().hex}"


def challenged(db: Session, player: str) -> tuple[GameState, challenges.Challenge]:
    """A game of the known winnable deal of ``player``'s, and a challenge made of it."""
    game = services.create_game(db, player, DEFAULT_VARIANT, deal=WIN_DEAL)
    return game, challenges.create_challenge(db, player, game.id)


def bob_joins(db: Session) -> tuple[str, str, challenges.Challenge, GameState]:
    """Ann challenges Bob, who joins and makes one move: (Ann, Bob, challenge, Bob's game)."""
    ann, bob = new_player(), new_player()
    _, challenge = challenged(db, ann)
    game, _ = challenges.play_challenge(db, bob, challenge.token)
    services.act(db, bob, game.id, WIN_LINE[0])
    return ann, bob, challenge, game


@pytest.fixture()
def published(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Progress]]:
    """Every report published from now on (still published as usual)."""
    seen: list[Progress] = []
    real = race_progress.publish

    def watch(db: Session, race_id: str, progress: Progress) -> None:
        seen.append(progress)
        real(db, race_id, progress)

    for module in (race_progress, race, challenges):  # each calls it by its own name
        monkeypatch.setattr(module, "publish", watch)
    yield seen


def test_a_player_with_three_games_on_a_challenge_is_listed_once(
    db: Session, published: list[Progress]
) -> None:
    ann, bob, challenge, first = bob_joins(db)
    second, new = challenges.play_challenge(db, bob, challenge.token, again=True)
    assert new and second.id != first.id
    third, _ = challenges.play_challenge(db, bob, challenge.token, again=True)
    services.act(db, bob, third.id, WIN_LINE[0])
    services.act(db, bob, third.id, WIN_LINE[1])

    rows = standings(db, challenge.race_id)
    assert len(rows) == 4  # every game is an entry (the JSON API lists them all)
    assert len({r.player_key for r in rows}) == 2
    # What the event streams hear groups the same way: Bob's reports all carry his seat.
    bob_seat = rows[1].player_key
    assert {p.player_key for p in published if p.name == rows[1].name} == {bob_seat}
    assert len({p.entry for p in published if p.player_key == bob_seat}) == 3

    # Bob's first game was given up, so he is shown by his newest: two moves, playing.
    for viewer in (ann, bob):
        panel = race_panel(db, challenge.race_id, viewer)
        assert len(panel.rows) == 2 and panel.more == 0
        bob_row = panel.rows[1]
        assert (bob_row.moves, bob_row.status, bob_row.ranked) == (2, "playing", False)

    leaderboard(db, challenge.race_id, bob)
    for viewer in (ann, bob):
        sides = challenges.comparison(db, challenge.token, viewer)
        assert len(sides) == 2, sides
        assert sides[0].challenger and not sides[1].challenger
        assert sides[1].moves == 2 and sides[1].status == "playing"
        assert sides[1].you == (viewer == bob)
    mine = challenges.comparison(db, challenge.token, bob)[1]
    assert mine.game_id == third.id


def test_a_won_first_game_stays_the_players_row_while_they_replay(db: Session) -> None:
    ann, bob = new_player(), new_player()
    start, challenge = challenged(db, ann)
    for action in WIN_LINE:
        services.act(db, ann, start.id, action)
    replay, _ = challenges.play_challenge(db, ann, challenge.token, again=True)
    services.act(db, ann, replay.id, WIN_LINE[0])
    challenges.play_challenge(db, bob, challenge.token)

    panel = race_panel(db, challenge.race_id, bob)
    assert [(p.status, p.ranked) for p in panel.rows] == [("won", True), ("playing", True)]
    leaderboard(db, challenge.race_id, ann)
    sides = challenges.comparison(db, challenge.token, ann)
    assert [(s.status, s.you) for s in sides] == [("won", True), ("playing", False)]


def test_playing_again_reports_the_race_game_given_up(
    db: Session, published: list[Progress]
) -> None:
    _, bob, challenge, _ = bob_joins(db)
    published.clear()

    # A game outside the race leaves Bob's challenge game be (races keep their own slot).
    services.create_game(db, bob, DEFAULT_VARIANT)
    assert published == []
    challenges.play_challenge(db, bob, challenge.token, again=True)  # gives up the first
    gave_up = [p for p in published if p.status == "gave-up"]
    assert [(p.status, p.moves) for p in gave_up] == [("gave-up", 1)]
    report = gave_up[0]
    row = next(p for p in standings(db, challenge.race_id) if p.entry == report.entry)
    assert row.status == "gave-up" and report.version >= row.version


def test_a_replay_on_the_page_stream_replaces_the_given_up_row() -> None:
    """What an event stream holds: reports by entry; the panel groups them by seat."""
    ann = Progress(1, "Ann", 5, 1, "playing", True, 6)
    bob_first = Progress(2, "Bob", 3, 0, "gave-up", True, 4, seat=2)
    bob_again = Progress(5, "Bob", 1, 0, "playing", False, 2, seat=2)
    shown, more = panel_rows([ann, bob_first, bob_again], frozenset({2, 5}))
    assert [p.entry for p in shown] == [1, 5] and more == 0
    # Bob's first game still running: it is his row, whatever he did since.
    bob_first = Progress(2, "Bob", 3, 0, "playing", True, 4, seat=2)
    assert [p.entry for p in one_progress_per_player([bob_again, ann, bob_first])] == [1, 2]
    # Reports cross workers as JSON: the seat goes with them.
    assert Progress.from_dict(json.loads(bob_again.to_json("r"))) == bob_again


def test_a_challenge_of_a_written_out_deal_is_not_the_daily_deal(db: Session) -> None:
    """Both have a race and no deal number; only the daily one is named the daily deal (the
    play page's label, the confirmation before giving it up)."""
    ann = new_player()
    start = services.create_game(db, ann, DEFAULT_VARIANT, deal=WIN_DEAL)
    challenges.create_challenge(db, ann, start.id)
    (mine,) = [g for g in services.saved_games(db, ann) if g.id == start.id]
    assert mine.race_id is not None and mine.deal_number is None
    assert not daily.is_daily_game(mine)
    today_game, _ = daily.play_daily(db, ann, "wasp")
    assert daily.is_daily_game(today_game)
