"""Property-based tests over random deals and random action sequences."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine import (
    MAX_DEAL_NUMBER,
    EngineError,
    Game,
    deal_from_number,
)
from app.engine.cards import code
from tests.support import reference as ref

deal_numbers = st.integers(min_value=1, max_value=MAX_DEAL_NUMBER)
variants = st.sampled_from(["scorpion", "scorpion-ii", "wasp"])
# Each step: a kind selector and a free number used to pick among the options.
steps = st.lists(st.tuples(st.integers(0, 99), st.integers(0, 10_000)), min_size=30, max_size=150)


def _key(game: Game) -> tuple[object, ...]:
    return (
        tuple(tuple(c) for c in game.cols),
        tuple(game.hidden),
        tuple(game.stock),
        tuple(game.completed),
    )


def _hidden_codes(game: Game) -> set[str]:
    out = {code(c) for c in game.stock}
    for ci, col in enumerate(game.cols):
        out |= {code(c) for c in col[: game.hidden[ci]]}
    return out


def _play(variant: str, number: int, plan: list[tuple[int, int]], check: object) -> Game:
    game = Game.new(variant, deal_from_number(number))
    log: list[tuple[str, ...] | tuple[str, int, int, int]] = []
    for kind, pick in plan:
        if game.won:
            break
        before = _key(game)
        hints = game.hints()
        try:
            if kind < 60 and hints:
                m = hints[pick % len(hints)]
                action: tuple = ("move", m.from_column, m.from_index, m.to_column)
            elif kind < 70:
                action = ("deal",)
            elif kind < 85:
                action = ("undo",)
            elif kind < 92:
                action = ("redo",)
            else:  # an arbitrary, probably illegal move
                action = ("move", pick % 7, (pick // 7) % 12, (pick // 84) % 7)
            game.apply(action)
        except EngineError:
            assert _key(game) == before, "a refused action changed the position"
            continue
        log.append(action)
        check(game, before, action, log)  # type: ignore[operator]
    return game


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(number=deal_numbers, variant=variants, plan=steps)
def test_invariants_hold_through_random_play(
    number: int, variant: str, plan: list[tuple[int, int]]
) -> None:
    deal = deal_from_number(number)

    def check(game: Game, before: tuple, action: tuple, log: list) -> None:
        # 52 cards, each exactly once, always.
        assert sorted(game.all_cards()) == list(range(52))
        # Face-down cards are always the deepest ones of their column, and an exposed card
        # is face up.
        for ci, col in enumerate(game.cols):
            assert 0 <= game.hidden[ci] <= len(col)
            if col:
                assert game.hidden[ci] < len(col)
        # Won exactly when four runs are removed.
        assert (game.status == "won") == (len(game.completed) == 4)
        # The snapshot path and a replay of the log from the deal agree.
        assert _key(Game.from_snapshot(game.to_snapshot())) == _key(game)
        assert _key(Game.replay(variant, deal, log)) == _key(game)
        # The public view never holds a hidden card.
        view = game.public_view()
        shown = {c for col in view.columns for c in col if c is not None}
        assert not shown & _hidden_codes(game)
        assert sum(c is None for col in view.columns for c in col) == sum(game.hidden)
        # Undo after a move or deal restores the previous position exactly.
        if action[0] in ("move", "deal") and not game.won:
            probe = Game.from_snapshot(game.to_snapshot())
            probe.undo()
            assert _key(probe) == before

    _play(variant, number, plan, check)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(number=deal_numbers, variant=variants, plan=steps)
def test_engine_agrees_with_the_plain_reference(
    number: int, variant: str, plan: list[tuple[int, int]]
) -> None:
    def check(game: Game, before: tuple, action: tuple, log: list) -> None:
        pass

    game = Game.new(variant, deal_from_number(number))
    pos = ref.from_game(game)
    for kind, pick in plan:
        if game.won:
            break
        legal = ref.legal_moves(pos)
        assert set(map(tuple, game.legal_moves())) == legal
        useful = {m for m in legal if ref.useful(pos, m)}
        # Every hint is legal and useful; every legal useful move is a hint.
        assert set(map(tuple, game.hints())) == useful
        assert len(game.hints()) == len(useful), "a hint is listed twice"
        if kind < 80 and legal:
            move = sorted(legal)[pick % len(legal)]
            game.move(*move)
            pos = ref.apply_move(pos, move)
        elif game.stock:
            game.deal()
            pos = ref.apply_deal(pos)
        else:
            break
        assert ref.key(pos) == _key(game)


@settings(max_examples=60, deadline=None)
@given(number=deal_numbers, variant=variants, plan=steps)
def test_undo_all_the_way_returns_to_the_opening_layout(
    number: int, variant: str, plan: list[tuple[int, int]]
) -> None:
    game = _play(variant, number, plan, lambda *a: None)
    if game.won:
        return
    while game.can_undo:
        game.undo()
    assert _key(game) == _key(Game.new(variant, deal_from_number(number)))
