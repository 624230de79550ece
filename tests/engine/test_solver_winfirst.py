"""The family's win-first phase (``app/engine/solver/winfirst.py``).

It may only ever answer "win", with a line that wins through the engine; switched on or off it
never turns a verdict around (a deal is won with it exactly when it is not proved lost
without it), and it is deterministic (seeded noise). Also here: the complete search's proof of
loss tried on fewer positions (``FamilySearch._prove``) changes no verdict.
"""

from __future__ import annotations

import contextlib
import random
from functools import cache

import pytest

from app.engine import ALL_VARIANTS, Game, deal_from_number
from app.engine.solver import verify_line
from app.engine.solver.family import solve_family
from app.engine.solver.family_search import DEAL, TO_CELL, FamilySearch
from app.engine.solver.search import OutOfBudget, SearchResult, run_search
from app.engine.solver.winfirst import (
    DEAL_PRIORITY,
    DIG,
    NOISE,
    SPARE_PROOFS,
    _WinFirst,
    luby,
    win_first,
)
from tests.support.brute import small_position

FAMILY = [v for v in ALL_VARIANTS if not ALL_VARIANTS[v].plain]
NODES = 1_500  # per deal and search: a short budget, counted in nodes to be deterministic


def deals(variant: str) -> range:
    """Deals 1-100 (1-40 of Double and Triple Scorpion, whose nodes cost several times more)."""
    return range(1, 41 if ALL_VARIANTS[variant].decks > 1 else 101)


def test_luby_sequence() -> None:
    assert [luby(k) for k in range(1, 16)] == [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]


@pytest.mark.parametrize("variant", FAMILY)
def test_win_first_lines_replay_and_win(variant: str) -> None:
    wins = 0
    for number in range(1, 21):
        game = Game.new(variant, deal_from_number(number, variant))
        line, nodes = win_first(game, float("inf"), NODES)
        assert nodes <= NODES + 64  # the node limit is checked every 64 nodes
        if line is not None:
            assert verify_line(game, line), (variant, number)
            wins += 1
    assert wins >= 2, wins


@cache
def verdicts(variant: str, share: float) -> list[SearchResult]:
    return [
        solve_family(
            Game.new(variant, deal_from_number(n, variant)),
            max_seconds=None,
            max_nodes=NODES,
            win_first=share,
        )
        for n in deals(variant)
    ]


@pytest.mark.parametrize("variant", FAMILY)
def test_verdicts_with_and_without_win_first_never_conflict(variant: str) -> None:
    on, off = verdicts(variant, 0.5), verdicts(variant, 0.0)
    decided = 0
    for number, a, b in zip(deals(variant), on, off, strict=True):
        assert {a.verdict, b.verdict} != {"win", "loss"}, (variant, number)
        decided += a.verdict != "unknown"
        if a.verdict == "win":
            assert a.line is not None
            game = Game.new(variant, deal_from_number(number, variant))
            assert verify_line(game, a.line), (variant, number)
    assert decided >= sum(b.verdict != "unknown" for b in off) - 5, variant


def test_win_first_is_deterministic() -> None:
    game = Game.new("double-scorpion", deal_from_number(7, "double-scorpion"))
    first = win_first(game, float("inf"), 3_000)
    assert first == win_first(game, float("inf"), 3_000)


def test_prune_off_is_plain_exhaustive_search() -> None:
    # ``prune=False`` keeps the win-first phase off as well: the node count is the plain one
    game = Game.new("scorpion-tail", deal_from_number(3, "scorpion-tail"))
    plain = solve_family(game, max_seconds=None, max_nodes=2_000, prune=False)
    again = solve_family(game, max_seconds=None, max_nodes=2_000, prune=False, win_first=0.0)
    assert (plain.verdict, plain.nodes, plain.line) == (again.verdict, again.nodes, again.line)


@pytest.mark.parametrize("variant", FAMILY)
def test_a_sparser_proof_of_loss_changes_no_verdict(variant: str) -> None:
    # ``FamilySearch._prove`` (its ``ProofSchedule``) skips positions where the proof seldom
    # fires: skipping only misses a proof. Small positions solved with the proof on every
    # position and on every 16th one (and, to judge both, plain exhaustive search) must agree
    # wherever they decide.
    agree = 0
    for seed in range(24):
        game = small_position(variant, 9000 + seed, two=seed % 2 == 1, chain=0.5)
        results = []
        for every in (1, 16):
            s = FamilySearch(game)
            s.proof.every = every
            results.append(
                run_search(
                    s,
                    None,
                    40_000,
                    won=s.done == s.runs_needed,
                    prove=s.prove,
                    stats=dict,
                ).verdict
            )
        plain = solve_family(game, max_seconds=None, max_nodes=40_000, prune=False).verdict
        decided = {v for v in (*results, plain) if v != "unknown"}
        assert len(decided) <= 1, (variant, seed, results, plain)
        agree += len(decided) == 1 and "unknown" not in results
    assert agree >= 10, agree


def test_the_phase_deals_among_its_moves_where_listed() -> None:
    # ``winfirst.DEAL_PRIORITY``: in Double Scorpion the phase's moves include the deal (with
    # its priority and the noise, so that runs deal at different times); elsewhere, and in the
    # complete search, the deal comes after every other move (never in ``gen_moves``)
    deal = (DEAL, 0, 0, 0)
    for variant in ("double-scorpion", "scorpion-tail"):
        game = Game.new(variant, deal_from_number(3, variant))
        assert game.stock
        assert deal not in FamilySearch(game).gen_moves()
        listed = variant == "double-scorpion"  # measured there only (``DEAL_PRIORITY``)
        assert (variant in DEAL_PRIORITY) == listed
        for rng in (None, random.Random(2)):
            moves = _WinFirst(game, rng, NOISE).gen_moves()
            assert (deal in moves) == listed, (variant, rng)
            if listed and rng is None:
                # with no noise: after the moves scored higher than the deal, before the others
                assert moves.index(deal) > 0
    # once the stock is dealt there is nothing to deal
    game = Game.new("double-scorpion", deal_from_number(3, "double-scorpion"))
    game.apply(("deal",))
    assert (DEAL, 0, 0, 0) not in _WinFirst(game, None, NOISE).gen_moves()


def _dig_position(free: int, col0: tuple[int, ...] = (13 + 8, 4, 26 + 8, 39 + 2)) -> _WinFirst:
    """Scorpion Head: column 0 holds ``col0`` (face up; by default 9H 5S 9D 3C, 3C exposed),
    column 1 every other card face down under 4S, the other columns are empty; ``free`` cells
    are free, the others hold Kings (not those of ``col0``). By default, 3C bares 9D, which
    nothing can use; 9D in turn bares 5S, onto which the loose 4S can go."""
    game = Game.new("scorpion-head", deal_from_number(1, "scorpion-head"))
    s = _WinFirst(game, None, NOISE)
    four_s = 3
    kings = [k for k in (12, 25, 38, 51) if k not in col0][: 4 - free]
    rest = [c for c in range(52) if c not in (*col0, four_s, *kings)]
    s.cols = [list(col0), [*rest, four_s], [], [], [], [], []]
    s.hidden = [0, len(rest), 0, 0, 0, 0, 0]
    s.cells = [*kings, *[-1] * (4 - len(kings))]
    return s


def test_the_phase_digs_into_the_cells_where_listed() -> None:
    # ``winfirst.DIG``: the cell rule looks as deep as the free cells reach: 3C goes into a
    # cell when 9D can follow it and bare 5S for 4S, not with one cell free, nor without ``dig``
    assert "scorpion-head" in DIG
    to_cell = (TO_CELL, 0, 3, 4 - 2)
    s = _dig_position(2)
    assert s.dig
    assert to_cell in s.gen_moves()
    s.dig = False
    assert to_cell not in s.gen_moves()
    s = _dig_position(1)
    assert all(m[0] != TO_CELL or m[1] != 0 for m in s.gen_moves())
    # the second card of the dig is then useful by the one-card rule itself
    s = _dig_position(2)
    s.cells[2] = s.cols[0].pop()
    s.dig = False
    assert (TO_CELL, 0, 2, 3) in s.gen_moves()
    # a King bared on a card is useful while a column is empty: 3C off KD lying on 9H
    s = _dig_position(1, (13 + 8, 26 + 12, 39 + 2))
    assert (TO_CELL, 0, 2, 3) in s.gen_moves()
    s.dig = False
    assert (TO_CELL, 0, 2, 3) not in s.gen_moves()
    s.dig = True
    s.cols[2:] = [[c] for c in s.cols[1][:5]]  # no column empty: the King stays
    s.cols[1] = s.cols[1][5:]
    s.hidden = [0, len(s.cols[1]) - 1, 1, 1, 1, 1, 1]
    assert (TO_CELL, 0, 2, 3) not in s.gen_moves()


def _runs(variant: str, number: int, k: int, spare: bool) -> _WinFirst:
    game = Game.new(variant, deal_from_number(number, variant))
    s = _WinFirst(game, random.Random(k) if k > 1 else None, NOISE)
    s.spare_proofs = spare
    s.max_nodes = 2_000
    s.deadline = float("inf")
    s.seen.add(s.key())
    with contextlib.suppress(OutOfBudget):
        s.dfs()
    return s


def test_the_phase_spares_proofs_where_listed() -> None:
    # ``winfirst.SPARE_PROOFS``: in Double Scorpion the phase skips the proof of its game after
    # some steps (``_WinFirst._stays_alive``, a heuristic); elsewhere it never does (the full
    # game's lemma fails in the phase's game)
    assert "double-scorpion" in SPARE_PROOFS and "triple-scorpion" not in SPARE_PROOFS
    for variant in ("double-scorpion", "triple-scorpion", "scorpion-tail"):
        game = Game.new(variant, deal_from_number(5, variant))
        assert _WinFirst(game, None, NOISE).spare_proofs == (variant in SPARE_PROOFS)
    spared = 0
    for number in (63, 456):  # two deals the phase does not win within 2,000 nodes a run
        for k in (1, 2, 3):
            on, off = (
                _runs("double-scorpion", number, k, True),
                _runs("double-scorpion", number, k, False),
            )
            assert off.alive_skips == 0
            spared += on.alive_skips
            # as many positions, fewer proofs
            assert on.dead_checks < off.dead_checks, (number, k)
    assert spared > 100, spared


def test_the_phase_with_spared_proofs_wins_with_lines_that_replay() -> None:
    wins = 0
    for number in range(1, 31):
        game = Game.new("double-scorpion", deal_from_number(number, "double-scorpion"))
        line, _ = win_first(game, float("inf"), NODES)
        if line is not None:
            assert verify_line(game, line), number
            wins += 1
    assert wins >= 25, wins
