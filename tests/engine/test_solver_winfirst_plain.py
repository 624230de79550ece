"""The plain variants' win-first phase (``app/engine/solver/winfirst_plain.py``).

It may only ever answer "win", with a line that wins through the engine; switched on or off it
never turns a verdict around, it is deterministic (seeded noise), and only Wasp II uses it (it
also wins Wasp deals when called directly).
"""

from __future__ import annotations

from functools import cache

import pytest

from app.engine import Game, deal_from_number
from app.engine.solver import verify_line
from app.engine.solver.api import solve_game
from app.engine.solver.search import Position, SearchResult, solve
from app.engine.solver.winfirst_plain import VARIANTS, solve_plain, win_first


@pytest.fixture(autouse=True)
def _pure_python_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests pin the pure-Python reference pipeline (its node counts and budget
    shares); ``test_solver_core.py`` holds the compiled core to it."""
    monkeypatch.setenv("SOLVER_CORE", "py")


WASPS = ["wasp", "wasp-ii"]
NODES = 3_000  # per deal and search: a short budget, counted in nodes to be deterministic


def position(variant: str, number: int) -> Position:
    return Position.from_deal(variant, deal_from_number(number, variant))


@pytest.mark.parametrize("variant", WASPS)
def test_win_first_lines_replay_and_win(variant: str) -> None:
    wins = 0
    for number in range(1, 21):
        pos = position(variant, number)
        line, nodes = win_first(pos, float("inf"), NODES)
        assert nodes <= NODES + 1024  # the node limit is checked every 1,024 nodes
        if line is not None:
            assert verify_line(pos.to_game(), line), (variant, number)
            wins += 1
    assert wins >= 10, wins


@cache
def verdicts(variant: str, share: float) -> list[SearchResult]:
    return [
        solve_plain(position(variant, n), max_seconds=None, max_nodes=NODES, win_first_share=share)
        for n in range(1, 61)
    ]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_verdicts_with_and_without_win_first_never_conflict(variant: str) -> None:
    on, off = verdicts(variant, 0.25), verdicts(variant, 0.0)
    decided = 0
    for number, a, b in zip(range(1, 61), on, off, strict=True):
        assert {a.verdict, b.verdict} != {"win", "loss"}, (variant, number)
        decided += a.verdict != "unknown"
        if a.verdict == "win":
            assert a.line is not None
            assert verify_line(position(variant, number).to_game(), a.line), (variant, number)
    assert decided >= sum(b.verdict != "unknown" for b in off) - 3, variant


def test_win_first_is_deterministic() -> None:
    pos = position("wasp", 6828)
    first = win_first(pos, float("inf"), 20_000)
    assert first[0] is not None
    assert first == win_first(pos, float("inf"), 20_000)


@pytest.mark.parametrize("variant", ["scorpion", "scorpion-ii", "wasp"])
def test_other_plain_variants_do_not_use_the_phase(variant: str) -> None:
    for number in range(1, 6):
        game = Game.new(variant, deal_from_number(number, variant))
        a = solve_game(game, max_seconds=None, max_nodes=5_000)
        b = solve(Position.from_game(game), max_seconds=None, max_nodes=5_000)
        assert (a.verdict, a.line, a.nodes) == (b.verdict, b.line, b.nodes)
