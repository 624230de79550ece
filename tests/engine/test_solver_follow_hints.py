"""Hints you can follow to the end (issue 40): from a position the solver calls winnable,
following its hints wins without ever coming back to a position.

The hints follow the line the solver proved (``app/engine/solver/lines.py``, as
``app/services/analysis.py`` does with the line it keeps per game): here 50 catalogued deals of
each of the eleven variants, the first ones the solver proves winnable from the opening
(quickly: most in milliseconds). Asking a fresh search at every position instead loops for
ever (a move, then its exact inverse) in 76 of these 550 deals, Scorpion Head most of all.
"""

from __future__ import annotations

import pytest

from app.engine import Game
from app.engine.deals import deal_from_number
from app.engine.solver import analyse, winnable_deals
from app.engine.solver.lines import ProvedLine, next_on_line
from app.engine.variants import ALL_VARIANTS

DEALS_PER_VARIANT = 50
BUDGET_SECONDS = 10.0


def _follow_hints(variant: str, number: int) -> int:
    """Follow the hints from the opening of the deal to the win; the number of steps. Fails
    on a repeated position (or a position the solver no longer calls winnable)."""
    game = Game.new(variant, deal_from_number(number, variant))
    seen = {game.position_key()}
    proved: ProvedLine | None = None
    while not game.won:
        hit = next_on_line(proved, game)
        if hit is None:  # off the line (here: only at the start): search again
            answer = analyse(game, BUDGET_SECONDS)
            assert answer.verdict == "win" and answer.line, (variant, number, len(seen))
            proved = ProvedLine.of(game, answer.line)
            hit = next_on_line(proved, game)
            assert hit is not None and hit[0] == answer.line[0]
        action, proved = hit
        game.apply(action)
        key = game.position_key()
        assert key not in seen, f"{variant} deal {number}: position repeated at step {len(seen)}"
        seen.add(key)
    return len(seen) - 1


@pytest.mark.parametrize("variant", sorted(ALL_VARIANTS))
def test_following_the_hints_wins_without_repeating_a_position(variant: str) -> None:
    deals = winnable_deals(variant)[:DEALS_PER_VARIANT]
    assert len(deals) == DEALS_PER_VARIANT
    steps = [_follow_hints(variant, n) for n in deals]
    assert all(s > 0 for s in steps)


def test_a_player_back_on_the_line_gets_its_next_action_and_off_it_none() -> None:
    """On the line by other means (an undo, then the same move again): its next action; a
    position the line never passes through: no hint from it (the service searches again)."""
    variant, number = "scorpion-head", winnable_deals("scorpion-head")[0]
    game = Game.new(variant, deal_from_number(number, variant))
    answer = analyse(game, BUDGET_SECONDS)
    assert answer.line is not None and len(answer.line) > 3
    proved = ProvedLine.of(game, answer.line)
    game.apply(answer.line[0])
    game.apply(answer.line[1])
    hit = next_on_line(proved, game)
    assert hit is not None and hit[0] == answer.line[2]
    game.apply(("undo",))
    game.apply(("undo",))
    hit = next_on_line(proved, game)  # back at the start
    assert hit is not None and hit[0] == answer.line[0]
    other = Game.new(variant, deal_from_number(winnable_deals(variant)[1], variant))
    assert next_on_line(proved, other) is None  # never on this line: searched again
    assert next_on_line(None, game) is None
