"""Property-based tests over random deals and random action sequences, in every variant."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine import (
    ALL_VARIANTS,
    MAX_DEAL_NUMBER,
    EngineError,
    Game,
    deal_from_number,
)
from app.engine.cards import code
from tests.support import reference as ref

deal_numbers = st.integers(min_value=1, max_value=MAX_DEAL_NUMBER)
FAMILY = list(ALL_VARIANTS)
# Each step: a kind selector and a free number used to pick among the options.
steps = st.lists(st.tuples(st.integers(0, 99), st.integers(0, 10_000)), min_size=30, max_size=150)


def _key(game: Game) -> tuple[object, ...]:
    return (
        tuple(tuple(c % 52 for c in col) for col in game.cols),
        tuple(game.hidden),
        tuple(c % 52 for c in game.stock),
        tuple(game.completed),
    )


def _full_key(game: Game) -> tuple[object, ...]:
    return (
        *_key(game),
        tuple(None if c < 0 else c % 52 for c in game.reserve),
        tuple(None if c < 0 else c % 52 for c in game.cells),
    )


def _hidden_codes(game: Game) -> set[str]:
    """Codes of cards a player may not see, minus any copy of the same card shown elsewhere."""
    out = {code(c) for c in game.stock}
    for ci, col in enumerate(game.cols):
        out |= {code(c) for c in col[: game.hidden[ci]]}
    return out


def _as_tuple(m: object) -> ref.RefMove:
    return (m.from_pile, m.from_column, m.from_index, m.to_pile, m.to_column)  # type: ignore[attr-defined]


def _play(variant: str, number: int, plan: list[tuple[int, int]], check: object) -> Game:
    game = Game.new(variant, deal_from_number(number, variant))
    ncols = game.variant.columns
    log: list[tuple] = []
    for kind, pick in plan:
        if game.won:
            break
        before = _full_key(game)
        hints = game.hints()
        try:
            if kind < 60 and hints:
                action: tuple = ("move", *hints[pick % len(hints)])
            elif kind < 70:
                action = ("deal",)
            elif kind < 85:
                action = ("undo",)
            elif kind < 92:
                action = ("redo",)
            elif kind < 96:  # an arbitrary, probably illegal move
                action = ("move", pick % ncols, (pick // 7) % 12, (pick // 84) % ncols)
            else:  # an arbitrary pile move, probably illegal (a reserve target always is)
                piles = ("column", "reserve", "cell")
                action = (
                    "move",
                    pick % 4,
                    pick % 3,
                    (pick // 5) % 4,
                    piles[pick % 3],
                    piles[kind % 3],
                )
            game.apply(action)
        except EngineError:
            assert _full_key(game) == before, "a refused action changed the position"
            continue
        log.append(action)
        check(game, before, action, log)  # type: ignore[operator]
    return game


@pytest.mark.parametrize("variant", FAMILY)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(number=deal_numbers, plan=steps)
def test_invariants_hold_through_random_play(
    variant: str, number: int, plan: list[tuple[int, int]]
) -> None:
    deal = deal_from_number(number, variant)
    decks = ALL_VARIANTS[variant].decks

    def check(game: Game, before: tuple, action: tuple, log: list) -> None:
        # Every card exactly ``decks`` times (each physical copy exactly once), always.
        cards = game.all_cards()
        assert sorted(cards) == list(range(52 * decks))
        assert Counter(c % 52 for c in cards) == Counter({c: decks for c in range(52)})
        # Face-down cards are always the deepest ones of their column, and an exposed card
        # is face up.
        for ci, col in enumerate(game.cols):
            assert 0 <= game.hidden[ci] <= len(col)
            if col:
                assert game.hidden[ci] < len(col)
        # Won exactly when every run is removed.
        assert (game.status == "won") == (len(game.completed) == 4 * decks)
        # The snapshot path and a replay of the log from the deal agree.
        assert Game.from_snapshot(game.to_snapshot()).position_key() == game.position_key()
        assert Game.replay(variant, deal, log).position_key() == game.position_key()
        # The public view never holds a hidden card (with one deck: no hidden code at all;
        # with several: never more copies shown than are face up) and shows reserves/cells.
        view = game.public_view()
        shown = [c for col in view.columns for c in col if c is not None]
        shown += [c for c in view.reserves + view.cells if c is not None]
        up = [code(c) for ci, col in enumerate(game.cols) for c in col[game.hidden[ci] :]]
        up += [code(c) for c in game.reserve + game.cells if c >= 0]
        assert Counter(shown) == Counter(up)
        if decks == 1:
            assert not set(shown) & _hidden_codes(game)
        assert sum(c is None for col in view.columns for c in col) == sum(game.hidden)
        assert view.runs_needed == 4 * decks
        assert len(view.reserves) == game.variant.reserves
        assert len(view.cells) == game.variant.cells
        # Undo after a move or deal restores the previous position exactly.
        if action[0] in ("move", "deal") and not game.won:
            probe = Game.from_snapshot(game.to_snapshot())
            probe.undo()
            assert _full_key(probe) == before

    _play(variant, number, plan, check)


@pytest.mark.parametrize("variant", FAMILY)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(number=deal_numbers, plan=steps)
def test_engine_agrees_with_the_plain_reference(
    variant: str, number: int, plan: list[tuple[int, int]]
) -> None:
    game = Game.new(variant, deal_from_number(number, variant))
    pos = ref.from_game(game)
    for kind, pick in plan:
        if game.won:
            break
        legal = ref.all_moves(pos)
        assert set(map(_as_tuple, game.legal_moves())) == legal
        assert len(game.legal_moves()) == len(legal), "a legal move is listed twice"
        useful = {m for m in legal if ref.useful(pos, m)}
        # Every hint is legal and useful; every legal useful move is a hint.
        hints = game.hints()
        assert set(map(_as_tuple, hints)) == useful
        assert len(hints) == len(useful), "a hint is listed twice"
        assert game.stuck == (not useful and not pos.stock)
        if kind < 80 and legal:
            move = sorted(legal)[pick % len(legal)]
            game.move(move[1], move[2], move[4], move[0], move[3])
            pos = ref.apply_move(pos, move)
        elif game.stock:
            game.deal()
            pos = ref.apply_deal(pos)
        else:
            break
        assert ref.full_key(pos) == _full_key(game)


@pytest.mark.parametrize("variant", FAMILY)
@settings(max_examples=15, deadline=None)
@given(number=deal_numbers, plan=steps)
def test_undo_all_the_way_returns_to_the_opening_layout(
    variant: str, number: int, plan: list[tuple[int, int]]
) -> None:
    game = _play(variant, number, plan, lambda *a: None)
    if game.won:
        return
    while game.can_undo:
        game.undo()
    opening = Game.new(variant, deal_from_number(number, variant))
    assert game.position_key() == opening.position_key()
