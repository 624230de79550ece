"""RULES.md "Deals": deal numbers are forever, deal strings parse and print exactly."""

from __future__ import annotations

import pytest

from app.engine import (
    DealError,
    Game,
    deal_from_number,
    format_deal,
    parse_deal,
)
from app.engine.deals import SplitMix64

# Golden deals: these strings are the contract for these numbers, on every machine and in
# every future version. Never change them.
GOLDEN = {
    1: "7H 9S 4H 8D 8H 5C JH 6H 9C JS 5H KH 3S 2H JD 5D 7D 4D 2S AH 6C KS KD TD TC JC TH 8C "
    "QS 4C 6S 7S AC 5S AD KC 6D QC QD QH 9H 3H 3C AS 4S 2D 8S TS 3D 2C 9D 7C",
    2: "QD 3C 4S 5D 7D 2H KD TH AS 6S 7C 3S QS 7H 6D JD TS 9C JH 8S 4H 5C 2C 4D AH QH 6C 8D "
    "3D 9H 6H JC AC 5S JS AD KS 2D 7S 4C 9S TD 5H TC QC KC 8C KH 3H 2S 8H 9D",
    42: "7S 3D KS AC 2C AS AD KH TH 5S 8C JD 2D 4C 6D 5H 2H 5C 6H AH 7H 2S 8D 8S 4H 7D KC TC "
    "4D 3H TD JC 4S 6C 7C 3C 8H QH 9C KD 5D 6S QC 9H JH QS 3S 9D QD 9S JS TS",
    1000000: "3H 3D 6D KC QS TS JC JH 3S 5D 5H 6H AS 9H 8H QC 7S JS TH 2H 8D KS 4H 2D 2S 6C QD "
    "9D 9S 4C 9C 4D 4S KH AC TD TC 6S 5S QH 8S 2C AD 5C 3C AH KD JD 7D 8C 7C 7H",
    4294967295: "6D 2H 8D 3C TS 5C 4D QS 3S JS 8S 5D JC KH 7C 9D 4H 5H 3H AH JH KC AS 4C 7S 8H "
    "9S 2S 9H 2D 2C JD QC 6S 6H 9C KD AC 4S 6C 7D 8C 5S QH TC TD 7H AD TH QD KS 3D",
}


@pytest.mark.parametrize("number", sorted(GOLDEN))
def test_deal_number_gives_the_same_layout_forever(number: int) -> None:
    assert format_deal(deal_from_number(number)) == GOLDEN[number]


def test_shuffle_generator_is_standard_splitmix64() -> None:
    # Reference outputs of SplitMix64 for seed 1234567 (Vigna's reference implementation).
    rng = SplitMix64(1234567)
    assert [rng.next() for _ in range(3)] == [
        6457827717110365317,
        3203168211198807973,
        9817491932198370423,
    ]


def test_different_numbers_give_different_deals() -> None:
    deals = {deal_from_number(n) for n in range(1, 200)}
    assert len(deals) == 199


def test_every_deal_holds_each_card_once() -> None:
    for n in (1, 7, 99, 123456, 4294967295):
        assert sorted(deal_from_number(n)) == list(range(52))


@pytest.mark.parametrize("bad", [0, -1, 4294967296, 2**70])
def test_deal_numbers_out_of_range_are_refused(bad: int) -> None:
    with pytest.raises(DealError, match="Deal numbers run from 1 to 4294967295"):
        deal_from_number(bad)


def test_deal_string_order_columns_then_stock() -> None:
    text = GOLDEN[1]
    game = Game.new("scorpion", parse_deal(text))
    tokens = text.split()
    # Column 1 from deepest to open end is the first seven codes; its first three face down.
    view = game.public_view()
    assert view.columns[0] == [None, None, None] + tokens[3:7]
    assert view.columns[6] == tokens[42:49]
    # The three stock cards go to columns 1, 2, 3 in order.
    game.deal()
    view = game.public_view()
    assert [view.columns[c][-1] for c in range(3)] == tokens[49:52]


def test_deal_string_round_trip() -> None:
    for number in GOLDEN:
        deal = deal_from_number(number)
        assert parse_deal(format_deal(deal)) == deal


def test_deal_string_with_wrong_count_is_refused() -> None:
    short = " ".join(GOLDEN[1].split()[:51])
    with pytest.raises(DealError, match="exactly 52 cards; this one has 51"):
        parse_deal(short)


def test_deal_string_with_duplicate_names_position() -> None:
    tokens = GOLDEN[1].split()
    tokens[10] = tokens[3]
    with pytest.raises(DealError) as err:
        parse_deal(" ".join(tokens))
    assert err.value.position == 11
    assert "appears twice (first as card 4)" in str(err.value)


def test_deal_string_with_unknown_code_names_position() -> None:
    tokens = GOLDEN[1].split()
    tokens[4] = "1X"
    with pytest.raises(DealError) as err:
        parse_deal(" ".join(tokens))
    assert err.value.position == 5
    assert "'1X'" in str(err.value) and "is not a card code" in str(err.value)


def test_deal_string_ten_written_as_10_gets_a_tip() -> None:
    tokens = GOLDEN[1].split()
    tokens[0] = "10H"
    with pytest.raises(DealError, match="a ten is written T"):
        parse_deal(" ".join(tokens))
