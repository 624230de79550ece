"""The daily deal, challenges, leaderboards and race standings at the service level, on SQLite
and PostgreSQL (real databases, never mocked)."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy.orm import Session

from app import services
from app.engine import DEFAULT_VARIANT
from app.services import NotFound, analysis, challenges, daily, days, profiles
from app.services.leaderboard import leaderboard
from app.services.race import Progress, standings
from app.services.race_panel import PANEL_ROWS, panel_rows, race_panel, race_panel_for_game
from tests.support.deals import WIN_DEAL, WIN_LINE


def new_player() -> str:
    return f"svc-{uuid.uuid4().hex}"


@pytest.fixture()
def day(monkeypatch: pytest.MonkeyPatch) -> Iterator[date]:
    """A day of its own for each test (so the daily races of the tests never meet)."""
    when = date(2035, 1, 1 + uuid.uuid4().int % 28)
    noon = datetime(when.year, when.month, when.day, 12, tzinfo=UTC)
    monkeypatch.setattr(days, "clock", lambda: noon)
    yield when


def play(db: Session, player: str, game_id: str) -> None:
    for action in WIN_LINE:
        services.act(db, player, game_id, action)


# -- the daily deal ----------------------------------------------------------------------------


def test_the_daily_race_is_made_once_and_is_the_same_for_everyone(db: Session, day: date) -> None:
    race = daily.daily_race(db, DEFAULT_VARIANT, day)
    assert daily.daily_race(db, DEFAULT_VARIANT, day).id == race.id
    a, b = new_player(), new_player()
    game_a, new_a = daily.play_daily(db, a, DEFAULT_VARIANT)
    game_b, new_b = daily.play_daily(db, b, DEFAULT_VARIANT)
    assert new_a and new_b and game_a.id != game_b.id
    assert game_a.view == game_b.view and game_a.race_id == race.id == game_b.race_id
    assert game_a.deal_number is None  # the number stays secret while the day runs


def test_a_daily_game_left_overnight_is_named_by_its_day(
    db: Session, day: date, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The home page calls an unfinished daily game of a past day by its day, not "today"."""
    game, _ = daily.play_daily(db, new_player(), DEFAULT_VARIANT)
    noon = datetime(day.year, day.month, day.day, 12, tzinfo=UTC)
    game = dataclasses.replace(game, created_at=noon)  # the row's clock is the real one
    assert daily.daily_label(game) == "Today's daily deal"
    next_noon = noon + timedelta(days=1)
    monkeypatch.setattr(days, "clock", lambda: next_noon)
    assert daily.is_daily_game(game)
    assert daily.daily_label(game) == f"The daily deal of {day:%A %-d %B %Y}"


def test_playing_the_daily_deal_again_returns_the_running_game(db: Session, day: date) -> None:
    player = new_player()
    first, new = daily.play_daily(db, player, DEFAULT_VARIANT)
    again, again_new = daily.play_daily(db, player, DEFAULT_VARIANT)
    assert new and not again_new and again.id == first.id
    replay, replay_new = daily.play_daily(db, player, DEFAULT_VARIANT, again=True)
    assert replay_new and replay.id != first.id
    info = daily.daily_info(db, player, DEFAULT_VARIANT)
    assert info.played and info.my_ranked_game_id == first.id and not info.over


# -- challenges and leaderboards ---------------------------------------------------------------


def test_leaderboard_ranks_unassisted_wins_and_lists_the_rest(db: Session) -> None:
    ann, bob, cy = new_player(), new_player(), new_player()
    profiles.update_profile(db, ann, display_name="Ann", on_leaderboards=True)
    start = services.create_game(db, ann, DEFAULT_VARIANT, deal=WIN_DEAL)
    challenge = challenges.create_challenge(db, ann, start.id)
    play(db, ann, start.id)
    bob_game, _ = challenges.play_challenge(db, bob, challenge.token)
    analysis.prepare(db, bob, bob_game.id)  # a solver question: an assisted game
    analysis.mark_assisted(db, bob, bob_game.id)
    play(db, bob, bob_game.id)
    challenges.play_challenge(db, cy, challenge.token)  # joined, not finished

    board = leaderboard(db, challenge.race_id, ann)
    assert [(e.name, e.rank, e.moves, e.you) for e in board.wins] == [
        ("Ann", 1, len(WIN_LINE), True)
    ]
    assert [e.assisted for e in board.assisted] == [True] and len(board.others) == 1
    assert board.others[0].status == "playing" and board.rejected == 0
    sides = challenges.comparison(db, challenge.token, bob)
    assert [s.challenger for s in sides] == [True, False, False]
    assert [s.game_id is not None for s in sides] == [False, True, False]  # only your own


def test_a_missing_challenge_is_not_found(db: Session) -> None:
    with pytest.raises(NotFound):
        challenges.get_challenge(db, "no-such-token")


# -- races ------------------------------------------------------------------------------------


def test_standings_follow_every_action_of_a_race_game(db: Session) -> None:
    ann, bob = new_player(), new_player()
    start = services.create_game(db, ann, DEFAULT_VARIANT, deal=WIN_DEAL)
    challenge = challenges.create_challenge(db, ann, start.id)
    bob_game, _ = challenges.play_challenge(db, bob, challenge.token)
    services.act(db, bob, bob_game.id, WIN_LINE[0])

    rows = standings(db, challenge.race_id)
    assert [(r.moves, r.status) for r in rows] == [(0, "playing"), (1, "playing")]
    play(db, ann, start.id)
    rows = standings(db, challenge.race_id)
    assert rows[0].status == "won" and rows[0].suits == 4

    panel = race_panel_for_game(db, bob, bob_game.id)
    assert panel is not None and panel.kind == "challenge"
    assert panel.page_url == f"/challenge/{challenge.token}" and len(panel.mine) == 1
    assert race_panel(db, challenge.race_id, bob) == panel
    assert race_panel_for_game(db, ann, services.create_game(db, ann, "wasp").id) is None


def test_the_panel_shows_winners_first_and_always_the_viewer() -> None:
    def row(entry: int, moves: int, suits: int, status: str) -> Progress:
        return Progress(entry, f"P{entry}", moves, suits, status, True, moves + 1)

    rows = [row(k, 10 + k, k % 4, "playing") for k in range(1, 30)]
    rows += [row(40, 120, 4, "won"), row(41, 100, 4, "won")]
    shown, more = panel_rows(rows, frozenset({1}))
    assert [p.entry for p in shown[:2]] == [41, 40]  # winners first, fewest moves first
    assert len(shown) == PANEL_ROWS + 1 and shown[-1].entry == 1
    assert more == len(rows) - len(shown)
