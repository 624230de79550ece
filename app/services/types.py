"""The small, immutable results the services return. They never hold a hidden card."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime

from app.engine import Move, PublicView


@dataclass(frozen=True, slots=True)
class GameState:
    """A game as its player may see it, plus its bookkeeping."""

    id: str
    variant: str
    deal_number: int | None  # None for a game created from a deal string
    version: int
    status: str  # "playing" | "won"
    view: PublicView
    stuck: bool  # no useful move left and the stock is empty
    can_deal: bool
    saved: bool  # the player's saved game of this variant ("resume" opens it)
    assisted: bool  # the solver was asked ("is this still winnable?", solver hint)
    moves_made: int  # every move and deal performed, undone ones included
    abandoned: bool  # superseded by a newer game of the variant (counted as a loss)
    restarted_from: str | None
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None
    race_id: str | None = None  # set when the game plays a shared deal (daily, challenge)
    difficulty: str | None = None  # the grade of a winnable deal asked for by difficulty
    # The game's clock start: its first move (or deal) or solver question; None while nobody
    # touched the dealt layout (not a game yet: ``app/services/game_core.py``).
    started_at: datetime | None = None
    # The legal, useful moves now (the engine's hints: public, they name no hidden card), for
    # the page's one-tap moves. Empty for a won game.
    moves: tuple[Move, ...] = ()
    # The view just before the action that returned this state, when the caller asked for it
    # (the play page sends only what changed); None otherwise.
    previous: PublicView | None = None

    @property
    def started(self) -> bool:
        """Whether the game started (a move, a deal or a solver question): a dealt layout
        nobody touched is not a game yet, and replacing it gives nothing up."""
        return self.started_at is not None

    @property
    def at_stake(self) -> bool:
        """Whether starting a new game of the variant (not a shared deal) gives this one up:
        the player's own game, started (races keep their own slot)."""
        return self.started and self.race_id is None


@dataclass(frozen=True, slots=True)
class Hints:
    moves: list[Move]
    can_deal: bool
    stuck: bool


@dataclass(frozen=True, slots=True)
class VariantStatistics:
    variant: str
    started: int = 0
    won: int = 0
    abandoned: int = 0
    current_streak: int = 0
    best_streak: int = 0
    best_time_seconds: int | None = None
    fewest_moves: int | None = None
    last_played: datetime | None = None
    # Wins (counted in ``won``) of assisted games (the solver was asked). Best time and fewest
    # moves (moves made) come from the other, unassisted wins only.
    assisted_won: int = 0

    @property
    def win_rate(self) -> float | None:
        """Wins per started game (0.0 to 1.0); None before the first start."""
        return self.won / self.started if self.started else None


@dataclass(frozen=True, slots=True)
class ResultEntry:
    """One line of the result history: a start, a win or an abandonment."""

    kind: str  # "start" | "win" | "abandon"
    variant: str
    game_id: str | None  # None once the game itself was deleted
    deal_number: int | None
    moves: int | None
    seconds: int | None
    at: datetime


@dataclass(frozen=True, slots=True)
class DayCount:
    day: date
    variant: str
    started: int
    won: int


@dataclass(frozen=True, slots=True)
class PlayerStatistics:
    variants: dict[str, VariantStatistics]
    recent: list[ResultEntry] = field(default_factory=list)  # newest first
    per_day: list[DayCount] = field(default_factory=list)  # oldest first


THEMES = ("auto", "light", "dark")  # "auto" follows the system (prefers-color-scheme)


@dataclass(frozen=True, slots=True)
class Display:
    """How the player's pages look (issue 33, "your deck"): applied on every page."""

    four_colour: bool = False  # diamonds blue, clubs green (spades black, hearts red)
    theme: str = "auto"  # one of THEMES
    large_cards: bool = False


@dataclass(frozen=True, slots=True)
class PlayerPreferences:
    save_games: bool = True
    record_stats: bool = True
    locale: str | None = None  # the site's language; None: follow the browser (issue 33)
    four_colour: bool = False
    theme: str = "auto"
    large_cards: bool = False

    @property
    def display(self) -> Display:
        return Display(self.four_colour, self.theme, self.large_cards)
