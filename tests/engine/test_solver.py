"""The solver on hand-made positions with known answers, and its verified public API."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from app.engine import Game, IllegalMove, deal_from_number, parse_card, parse_deal
from app.engine.solver import (
    Position,
    analyse,
    dead_reason,
    decode_line,
    encode_line,
    solve,
    solve_deal,
    verify_line,
)
from app.engine.solver.search import PlainSearch

KNOWN = json.loads((Path(__file__).parents[1] / "data" / "known_wins.json").read_text())


def position(
    columns: list[str],
    *,
    hidden: list[int] | None = None,
    stock: str = "",
    done: str = "",
    variant: str = "scorpion",
) -> Game:
    """A game holding exactly these columns (card codes, deepest first)."""
    cols = [[parse_card(t) for t in c.split()] for c in columns]
    cols += [[] for _ in range(7 - len(cols))]
    snap = {
        "v": 1,
        "variant": variant,
        "cols": cols,
        "hidden": hidden or [0] * 7,
        "stock": [parse_card(t) for t in stock.split()],
        "done": ["SHDC".index(s) for s in done],
        "hist": [],
        "fut": [],
    }
    return Game.from_snapshot(json.dumps(snap))


CLUBS_K_TO_2 = "KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C"


def test_one_move_from_a_win() -> None:
    game = position([CLUBS_K_TO_2, "AC"], done="SHD")
    result = solve(Position.from_game(game))
    assert result.verdict == "win"
    assert result.line == [("move", 1, 0, 0)]
    a = analyse(game, 1.0)
    assert a.verdict == "win"
    assert a.first_action == ("move", 1, 0, 0)
    assert verify_line(game, a.line or [])
    assert game.status == "playing"  # analyse never touches the game itself


def test_win_needs_the_deal_onto_an_empty_column() -> None:
    # The deal puts 3C on 4C (column 1), 2C into the empty column 2 and AC onto KD.
    game = position(
        ["KC QC JC TC 9C 8C 7C 6C 5C 4C", "", "KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D AD"],
        stock="3C 2C AC",
        done="SH",
    )
    a = analyse(game, 2.0)
    assert a.verdict == "win"
    assert a.line is not None and ("deal",) in a.line
    g = game.copy()
    for action in a.line:
        g.apply(action)
    assert g.won


def test_a_won_game_is_a_win_with_an_empty_line() -> None:
    game = position([CLUBS_K_TO_2, "AC"], done="SHD")
    game.move(1, 0, 0)
    assert game.won
    a = analyse(game, 1.0)
    assert (a.verdict, a.line) == ("win", [])


# A dead end: the Queen of clubs lies under its own King, and no column can ever be emptied
# for the King to move away. Found by a random search, confirmed by exhaustive search.
QUEEN_UNDER_KING = [
    "JC 6D",
    "QC KC 9D 4D",
    "QD JD 3C",
    "TC 7D 5D",
    "3D AC KD 2C 7C 9C 8C 8D TD 4C 5C 6C",
    "AD",
    "2D",
]


def test_dead_end_queen_buried_under_its_king() -> None:
    game = position(QUEEN_UNDER_KING, done="SH")
    pos = Position.from_game(game)
    assert game.legal_moves()  # not stuck: there are moves, none of them helps
    assert dead_reason(pos) == "QC can never join KC"
    pruned = solve(pos)
    assert pruned.verdict == "loss" and pruned.nodes == 0
    exhaustive = solve(pos, prune=False, max_seconds=None, max_nodes=200_000)
    assert exhaustive.verdict == "loss" and exhaustive.reason == "search"
    assert analyse(game, 1.0).verdict == "loss"


def test_wasp_empty_column_takes_any_card() -> None:
    # Only Wasp can park the Queen's group in the empty column, then put the Ace on the Two.
    cols = ["KC AC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C"]
    wasp = solve(Position.from_game(position(cols, done="SHD", variant="wasp")))
    assert wasp.verdict == "win"
    assert wasp.line is not None and wasp.line[0][0] == "move"
    assert verify_line(position(cols, done="SHD", variant="wasp"), wasp.line)
    for v in ("scorpion", "scorpion-ii"):
        assert solve(Position.from_game(position(cols, done="SHD", variant=v))).verdict == "loss"


def test_wasp_a_join_is_not_always_safe() -> None:
    # AC could join 2C, carrying 3C; but the winning line lays 2C on 3C first. A rule forcing
    # every join (without the King run under the successor, see ``PlainSearch.forced_join``)
    # called this winnable position lost.
    cols = [
        "4C TD 9D",
        "JD 4D QD 6D JC",
        "5D 2C",
        "8D KD AD",
        "QC 9C AC 3C",
        "6C 3D 7D 7C",
        "TC KC 2D 8C 5C",
    ]
    game = position(cols, hidden=[1, 1, 0, 1, 0, 2, 2], done="SH", variant="wasp")
    pos = Position.from_game(game)
    for prune in (True, False):
        r = solve(pos, prune=prune, max_seconds=None, max_nodes=200_000)
        assert r.verdict == "win" and r.line is not None
        assert verify_line(game, r.line)


def _join(game: Game, card_code: str) -> None:
    """Lay the card (with everything on it) on its successor, wherever the two lie."""
    x = parse_card(card_code)
    ((a, i),) = [(c, k) for c, col in enumerate(game.cols) for k, y in enumerate(col) if y == x]
    (b,) = [c for c, col in enumerate(game.cols) if col and col[-1] == x + 1]
    game.move(a, i, b)


def test_wasp_two_legal_joins_can_exclude_each_other() -> None:
    # With no column empty every move is a join, but joins do not commute: 5C may join 6C
    # (carrying 4D) and 3D may join 4D (carrying 6C); either one lays the other card's
    # successor above it in one column, so the other join is no longer legal (docs/odds.md,
    # "Macro joins ... tried").
    cols = [
        "AD 5C 4D",
        "AC 3D 6C",
        "KC QC JC",
        "TC 9C 8C 7C",
        "2C 3C 4C",
        "KD QD JD TD 9D 8D 7D 6D 5D",
        "2D",
    ]
    first = position(cols, done="SH", variant="wasp")
    first.check_move(0, 1, 1)  # 5C onto 6C
    first.check_move(1, 1, 0)  # 3D onto 4D
    _join(first, "5C")
    with pytest.raises(IllegalMove):
        _join(first, "3D")  # 4D now lies above 3D in its column
    other = position(cols, done="SH", variant="wasp")
    _join(other, "3D")
    with pytest.raises(IllegalMove):
        _join(other, "5C")


def test_wasp_a_column_may_need_more_joins_than_it_requires() -> None:
    # Emptying column 1 needs 6D on 7D, hence 8D off 7D onto 9D, hence 8C off 9D onto 9C,
    # hence QC off 9C onto KC: in that (forced) order, 8C carries 7D above 6D and 6D can no
    # longer join it. The winning line empties the column with three more joins (TC, 9C, 5C)
    # taken first. A rule expanding a position with no empty column only into "the position
    # after the joins its columns' emptying requires" called this winnable position lost.
    cols = [
        "6D 9C QC QD",
        "5D 4D 3D 7C AD 4C",
        "AC KD TD 2C",
        "JC",
        "6C",
        "3C 2D KC",
        "JD 9D 8C 5C 7D 8D TC",
    ]
    hidden = [0, 4, 1, 0, 0, 2, 1]
    forced = position(cols, hidden=hidden, done="SH", variant="wasp")
    for card in ("QC", "8C", "8D"):
        _join(forced, card)
    with pytest.raises(IllegalMove):
        _join(forced, "6D")
    line = position(cols, hidden=hidden, done="SH", variant="wasp")
    for card in ("TC", "9C", "5C", "QC", "8C", "8D", "6D"):
        _join(line, card)
    assert not line.cols[0]
    game = position(cols, hidden=hidden, done="SH", variant="wasp")
    for prune in (True, False):
        r = solve(Position.from_game(game), prune=prune, max_seconds=None, max_nodes=200_000)
        assert r.verdict == "win" and r.line is not None
        assert verify_line(game, r.line)


def test_kings_only_into_empty_columns() -> None:
    # The Queen's group cannot go into the empty column in Scorpion: the King must go first.
    game = position(["2C KC QC JC TC 9C 8C 7C 6C 5C 4C 3C", "AC"], done="SHD")
    a = analyse(game, 1.0)
    assert a.verdict == "win"
    assert a.line is not None
    for action in a.line:
        if action[0] == "move" and not game.cols[action[3]]:
            assert game.cols[action[1]][action[2]] % 13 == 12
        game.apply(action)
    assert game.won


def test_budget_runs_out_to_unknown() -> None:
    a = solve_deal("scorpion", deal_from_number(903), None, max_nodes=2_000)
    assert a.verdict == "unknown" and a.line is None
    assert 2_000 <= a.nodes < 4_000


@pytest.mark.parametrize("case", KNOWN, ids=lambda c: c["deal"][:11])
def test_known_winning_deals_are_never_called_lost(case: dict) -> None:
    a = solve_deal(case["variant"], parse_deal(case["deal"]), None, max_nodes=3_000_000)
    assert a.verdict == "win"
    assert Game.replay(case["variant"], parse_deal(case["deal"]), a.line or []).won


@pytest.mark.parametrize("variant", ["scorpion", "scorpion-ii", "wasp"])
def test_every_win_line_replays_to_a_won_game(variant: str) -> None:
    wins = 0
    for number in range(1, 41 if variant == "wasp" else 161):
        deal = deal_from_number(number)
        a = solve_deal(variant, deal, None, max_nodes=20_000)
        if a.verdict == "win":
            wins += 1
            game = Game.replay(variant, deal, a.line or [])
            assert game.won
            assert encode_line(a.line or []) and decode_line(encode_line(a.line or [])) == a.line
    assert wins >= 5


def test_analysis_of_a_game_in_progress_plays_on_from_where_it_is() -> None:
    deal = deal_from_number(3)
    full = solve_deal("scorpion", deal, None, max_nodes=200_000)
    assert full.verdict == "win" and full.line
    game = Game.new("scorpion", deal)
    for action in full.line[:10]:
        game.apply(action)
    a = analyse(game, 60.0, max_nodes=500_000)
    assert a.verdict == "win"
    hint = a.first_action
    assert hint is not None
    game.apply(hint)  # the hint is a legal step that keeps the game winnable
    assert analyse(game, 60.0, max_nodes=500_000).verdict == "win"


def test_solver_state_make_unmake_restores_everything() -> None:
    rng = random.Random(7)
    for number in range(1, 40):
        for variant in ("scorpion", "wasp"):
            pos = Position.from_deal(variant, deal_from_number(number))
            s = PlainSearch(pos, prune=True)
            before = (s.key(), [list(c) for c in s.cols], list(s.hidden), s.done)
            moves = s.gen_moves()
            legal = {tuple(m) for m in pos.to_game().legal_moves()}
            assert set(moves) <= legal
            for m in rng.sample(moves, min(3, len(moves))):
                rec = s.make_move(*m)
                s.unmake_move(rec)
                assert (s.key(), s.cols, s.hidden, s.done) == before
            rec2 = s.make_deal()
            s.unmake_deal(rec2)
            assert (s.key(), s.cols, s.hidden, s.done) == before


RUN_S = "KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S"
RUN_D = "KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D"


def test_the_searches_remove_a_run_left_at_the_open_end_by_a_removal_as_the_engine() -> None:
    # The spades run is complete under the diamonds; the Ace of diamonds completes them, and
    # both runs go (RULES.md: a completed run at the open end is removed). Both searches make
    # and undo that step as the engine does, and find the win it gives.
    from app.engine.solver.family_search import COL, FamilySearch

    cols = [RUN_S + " AS " + RUN_D, "AD"]
    game = position(cols, done="HC")
    after = position(cols, done="HC")
    after.move(1, 0, 0)
    assert after.public_view().completed == ["H", "C", "D", "S"]
    plain = PlainSearch(Position.from_game(game), prune=True)
    before = (plain.key(), [list(c) for c in plain.cols], list(plain.hidden), plain.done)
    rec = plain.make_move(1, 0, 0)
    assert plain.done == 4 and plain.cols[0] == [] and plain.cols[1] == []
    plain.unmake_move(rec)
    assert (plain.key(), plain.cols, plain.hidden, plain.done) == before

    family = FamilySearch(position(cols, done="HC"))
    saved = family.make(COL, 1, 0, 0)
    assert family.done == 4 and family.cols[0] == [] and family.cols[1] == []
    family._restore(saved)
    assert family.cols == plain.cols

    result = solve(Position.from_game(game))
    assert result.verdict == "win"
    assert verify_line(game, result.line)

    # With a face-down card under both runs: it turns up, and comes back down on undo.
    clubs = "QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C AC"
    under = position(["KC " + cols[0], "AD", clubs], hidden=[1] + [0] * 6, done="H")
    plain = PlainSearch(Position.from_game(under), prune=True)
    before = (plain.key(), [list(c) for c in plain.cols], list(plain.hidden), plain.done)
    rec = plain.make_move(1, 0, 0)
    assert plain.done == 3 and plain.cols[0] == [parse_card("KC")] and plain.hidden[0] == 0
    plain.unmake_move(rec)
    assert (plain.key(), plain.cols, plain.hidden, plain.done) == before
