"""Hints you can follow to the end (issue 40): continue a proved winning line.

A fresh search from every position may answer a move, then from the next position its exact
inverse, and so on for ever: each answer is a winning line, but not the same one. So the line
the solver proved is kept (server side: it holds hidden cards implicitly) with the position it
starts from, and while the player follows it, the next hint is its next action; only a position
off the line is searched again. Pure computation: the service stores a ``ProvedLine`` per game.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..game import Action, Game
from .catalogs import decode_line, encode_line


@dataclass(frozen=True, slots=True)
class ProvedLine:
    """A winning line (compact text, ``encode_line``) from the position of ``start`` (a game
    snapshot, hidden cards included: never sent to a client)."""

    start: str
    line: str

    @classmethod
    def of(cls, game: Game, line: list[Action]) -> ProvedLine:
        return cls(game.to_snapshot(), encode_line(line))


def next_on_line(proved: ProvedLine | None, game: Game) -> tuple[Action, ProvedLine] | None:
    """When ``game``'s position is one the proved line passes through (before its end), the
    line's next action there and the rest of the line from that position; else ``None``.

    Positions are compared with ``Game.position_key`` (the cards, not the history), so a
    player who reached a position of the line by undo, redo or other moves is on it too.
    """
    if proved is None or game.won:
        return None
    try:
        here = Game.from_snapshot(proved.start)
        actions = decode_line(proved.line)
    except ValueError:  # an unreadable stored line is no line (searched again)
        return None
    target = game.position_key()
    for i, action in enumerate(actions):
        if here.position_key() == target:
            return action, ProvedLine(here.to_snapshot(), encode_line(actions[i:]))
        try:
            here.apply(action)
        except Exception:  # noqa: BLE001 - a line the engine refuses is no line
            return None
    return None
