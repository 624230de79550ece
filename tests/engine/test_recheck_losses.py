"""``scripts/recheck_losses.py``: the static filter of the deals a cascade of runs can change,
and the re-check of a recorded loss that today's rules win."""

from __future__ import annotations

import json
from pathlib import Path

from app.engine import Game, parse_card, parse_deal
from app.engine.cards import ACE, KING
from app.engine.deals import format_deal
from app.engine.variants import get_variant
from scripts.recheck_losses import cascade_reasons, recheck, root_proof
from tests.support.cards import make_game

RUN_S = "KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S"
RUN_D = "KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D"

# Every card from the Kings down to the Aces: in each column a card lies on a card of the
# same or the next higher rank, never a King on an Ace, and the stock holds three Aces.
DESCENDING = [s * 13 + r for r in range(KING, ACE - 1, -1) for s in range(4)]


def _deal_with(first_column: list[str]) -> tuple[int, ...]:
    """``DESCENDING`` with the named cards moved to the start of column 1 (deepest first)."""
    named = [parse_card(c) for c in first_column]
    return tuple(named + [c for c in DESCENDING if c not in named])


def _reasons(variant: str, deal: tuple[int, ...]) -> list[str]:
    v = get_variant(variant)
    return cascade_reasons(v, Game.new(v, parse_deal(format_deal(deal), v)))


def test_a_king_on_an_ace_of_another_suit_in_the_layout_is_flagged() -> None:
    assert _reasons("scorpion", tuple(DESCENDING)) == []
    assert _reasons("scorpion", _deal_with(["7C", "AS", "KD"])) == ["KD on AS in column 1"]
    # face down (the three deepest cards of column 1) counts too
    assert _reasons("scorpion", _deal_with(["AS", "KD"])) == ["KD on AS in column 1"]
    # an Ace on a King (the other way up) is not
    assert _reasons("scorpion", _deal_with(["KD", "AS", "2H"])) == []


def test_a_king_on_its_own_suits_ace_counts_only_where_another_run_may_end_in_that_ace() -> None:
    # one deck, same suit: the King's run holds the only Ace of spades
    assert _reasons("scorpion", _deal_with(["AS", "KS"])) == []
    assert _reasons("wasp", _deal_with(["AS", "KS"])) == []
    # alternate colours: the King of spades' run may end in the Ace of clubs
    assert _reasons("scorpion-tail", _deal_with(["AS", "KS"])) == ["KS on AS in column 1"]


def test_a_king_in_the_stock_is_flagged() -> None:
    deal = list(DESCENDING)
    deal[3], deal[51] = deal[51], deal[3]  # the King of clubs to the stock, its last card
    assert _reasons("scorpion", tuple(deal)) == ["KC in the stock"]
    # Scorpion Head has no stock: its columns 1-3 hold eight cards, and the King of clubs is
    # the last card of column 7, on the Ace of diamonds
    assert _reasons("scorpion-head", tuple(deal)) == ["KC on AD in column 7"]


def test_two_decks_flag_a_king_on_the_other_copy_of_its_suits_ace() -> None:
    v = get_variant("double-scorpion")
    cards = [c for c in DESCENDING for _ in range(2)]
    cards.remove(parse_card("AS"))
    cards.remove(parse_card("KS"))
    deal = tuple([parse_card("AS"), parse_card("KS"), *cards])
    game = Game.new(v, parse_deal(format_deal(deal), v))
    assert cascade_reasons(v, game) == ["KS on AS in column 1"]


def test_the_recheck_reports_and_writes_a_recorded_loss_the_cascade_wins(tmp_path: Path) -> None:
    # Deal 1: the spade run lies under the diamonds, the diamonds' King on the Ace of spades;
    # the Ace of diamonds completes the diamonds, and the spades go with them: a win today
    # (RULES.md), recorded as a loss. Deal 2, with no King on an Ace and none in the stock, is
    # not searched. (The old rule wins deal 1 too, later: the spades could be moved into an
    # empty column, where they would go. The test is of the re-check, not of the old rule.)
    won = make_game({0: RUN_S, 1: "AS " + RUN_D, 2: "AD"}, completed="H C")
    quiet = make_game({0: RUN_S + " AS", 1: "QD JD", 2: "AD"}, completed="H C")
    assert cascade_reasons(won.variant, won) and not cascade_reasons(quiet.variant, quiet)
    assert not root_proof(won)
    data = tmp_path / "scorpion.jsonl"
    block = {"start": 1, "count": 2, "budget": 2.0, "v": "LL", "ms": [5, 5]}
    data.write_text(json.dumps(block) + "\n")

    games = {1: won, 2: quiet}
    rep = recheck(
        "scorpion", 1, 2, 1, update=True, path=data, quiet=True, game_of=lambda n: games[n]
    )
    assert (rep["recorded"], rep["flagged"], rep["searched"], rep["solved"]) == (2, 1, 1, 1)
    assert [c["number"] for c in rep["L->W"]] == [1] and rep["L->U"] == []
    assert "L->L" not in rep
    assert rep["last"] == 2 and rep["updated"]
    stored = json.loads(data.read_text())
    assert stored["v"] == "WL" and stored["count"] == 2 and stored["budget"] == 2.0


def test_the_wins_recheck_reports_nothing_for_a_recorded_win_that_still_wins(
    tmp_path: Path,
) -> None:
    # ``--wins``: the same flagged position recorded as a win is solved again and still wins,
    # so nothing is reported and the data file is left as it was.
    won = make_game({0: RUN_S, 1: "AS " + RUN_D, 2: "AD"}, completed="H C")
    data = tmp_path / "scorpion.jsonl"
    text = json.dumps({"start": 1, "count": 1, "budget": 2.0, "v": "W", "ms": [5]}) + "\n"
    data.write_text(text)
    rep = recheck(
        "scorpion",
        1,
        1,
        1,
        update=True,
        path=data,
        quiet=True,
        game_of=lambda n: won,
        recorded="W",
    )
    assert (rep["recorded"], rep["flagged"], rep["searched"], rep["solved"]) == (1, 1, 1, 1)
    assert rep["W->L"] == [] and rep["W->U"] == [] and "W->W" not in rep
    assert not rep["updated"]
    assert data.read_text() == text
