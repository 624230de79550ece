"""The family's pages without JavaScript: the home page's variant picker, a rules section with a
pictured example per variant, statistics per variant, the play page of every layout (columns,
run slots, reserves and cells, never a hidden card) and reserve and cell moves by form post."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from fastapi import FastAPI

from app.engine import ALL_VARIANTS, Game, code, deal_from_number, get_variant, name
from tests.support.deals import deal_with_pile_move
from tests.support.html_client import HTMX, Browser, shown_cards, version_of, without_sprite


@pytest.fixture()
def browser(app: FastAPI) -> Browser:
    return Browser(app)


def _assert_board(html: str, game: Game) -> None:
    """Exactly the face-up cards (columns, reserves, cells) are drawn; a hidden card appears
    neither by code nor by name unless another copy of it is face up (two or three decks)
    (the page's sprite draws every face of the deck, the same on every page: not counted)."""
    html = without_sprite(html)
    view = game.public_view()
    visible = [c for col in view.columns for c in col if c]
    visible += [c for c in view.reserves + view.cells if c]
    assert Counter(shown_cards(html)) == Counter(visible)
    down = [col[k] for col, h in zip(game.cols, game.hidden, strict=True) for k in range(h)]
    for c in down + list(game.stock):
        if code(c) in visible:
            continue
        assert not re.search(rf"\b{code(c)}\b", html), f"hidden card {code(c)} in the page"
        assert name(c) not in html, f"hidden card {name(c)} in the page"


def test_home_page_picks_every_variant_with_a_one_line_description(browser: Browser) -> None:
    html = browser.get("/").text
    ids = re.findall(r'<li class="variant-pick" id="pick-([\w-]+)"', html)
    assert ids == list(ALL_VARIANTS)
    for v in ALL_VARIANTS.values():
        assert v.description.replace("'", "&#39;") in html
        assert f'<option value="{v.name}"' in html


def test_rules_page_has_a_section_and_a_pictured_example_per_variant(browser: Browser) -> None:
    html = browser.get("/rules").text
    for v in ALL_VARIANTS.values():
        m = re.search(
            rf'<section class="variant-rules" id="variant-{v.name}".*?</section>', html, re.S
        )
        assert m, v.name
        section = m.group(0)
        assert v.title.replace("'", "&#39;") in section
        assert f'id="example-{v.name}"' in section
        assert section.count('class="card ') >= 3  # cards are drawn
        assert "<figcaption>" in section
    assert "free cell" in html and "reserve card" in html and "alternate colours" in html


def test_stats_page_lists_every_variant(browser: Browser) -> None:
    browser.new_game("triple-scorpion", deal_number=4)
    html = browser.get("/stats").text
    for v in ALL_VARIANTS.values():
        assert f'<th scope="row">{v.title}' in html.replace("&#39;", "'"), v.name


@pytest.mark.parametrize("variant", list(ALL_VARIANTS))
def test_the_play_page_of_every_layout(browser: Browser, variant: str) -> None:
    v = get_variant(variant)
    gid = browser.new_game(variant, deal_number=21)
    html = browser.get(f"/games/{gid}").text
    game = Game.new(variant, deal_from_number(21, variant))
    _assert_board(html, game)
    assert len(re.findall(r'id="col-\d+"', html)) == v.columns
    assert f'data-ncols="{v.columns}"' in html
    assert html.count('class="fslot') == v.runs_needed
    assert len(re.findall(r'<a class="card [SHDC][^"]*"[^>]*data-pile="reserve"', html)) == (
        v.reserves
    )
    cells = len(re.findall(r'data-pile="cell" data-idx="\d+" role="group"', html))
    assert cells == v.cells
    if v.cells and not v.cells_start_full:
        assert html.count('name="to_cell"') == v.cells


def test_a_reserve_card_moves_by_form_post_and_htmx_redraws_the_piles(browser: Browser) -> None:
    n, m = deal_with_pile_move("three-blind-mice", "reserve")
    gid = browser.new_game("three-blind-mice", deal_number=n)
    page = browser.get(f"/games/{gid}?select=r{m.from_column}").text  # type: ignore[attr-defined]
    assert 'class="card' in page and " sel" in page
    assert 'name="from_pile" value="reserve"' in page
    assert "Move here" in page
    data = {
        "from_column": m.from_column,  # type: ignore[attr-defined]
        "from_index": 0,
        "to_column": m.to_column,  # type: ignore[attr-defined]
        "from_pile": "reserve",
        "version": version_of(page),
    }
    r = browser.post(f"/games/{gid}/move", data, headers=HTMX)
    assert r.status_code == 200, r.text
    assert 'hx-target="#piles"' in r.text
    assert "from reserve card" in r.text
    game = Game.new("three-blind-mice", deal_from_number(n, "three-blind-mice"))
    game.move(*m)  # type: ignore[misc]
    _assert_board(browser.get(f"/games/{gid}").text, game)


def test_cells_by_form_post_in_and_out_and_a_refusal_changes_nothing(browser: Browser) -> None:
    n, m = deal_with_pile_move("how-they-run", "cell")
    gid = browser.new_game("how-they-run", deal_number=n)
    game = Game.new("how-they-run", deal_from_number(n, "how-they-run"))
    page = browser.get(f"/games/{gid}").text
    data = {
        "from_column": m.from_column,  # type: ignore[attr-defined]
        "from_index": 0,
        "to_column": m.to_column,  # type: ignore[attr-defined]
        "from_pile": "cell",
        "version": version_of(page),
    }
    assert browser.post(f"/games/{gid}/move", data).status_code == 303
    game.move(*m)  # type: ignore[misc]
    page = browser.get(f"/games/{gid}").text
    _assert_board(page, game)
    # The exposed card of a column into the emptied cell.
    src = next(c for c, col in enumerate(game.cols) if col and c != m.to_column)  # type: ignore[attr-defined]
    into = {
        "from_column": src,
        "from_index": len(game.cols[src]) - 1,
        "to_cell": m.from_column,  # type: ignore[attr-defined]
        "version": version_of(page),
    }
    r = browser.post(f"/games/{gid}/move", into, headers=HTMX)
    assert r.status_code == 200, r.text
    assert "into free cell" in r.text
    game.move(src, len(game.cols[src]) - 1, m.from_column, "column", "cell")  # type: ignore[attr-defined]
    page = browser.get(f"/games/{gid}").text
    _assert_board(page, game)
    # A card with another on it cannot go into a cell: refused, nothing changes.
    full = next(c for c, col in enumerate(game.cols) if len(col) > 1 and game.hidden[c] == 0)
    other = 1 - m.from_column  # type: ignore[attr-defined]
    bad = {"from_column": full, "from_index": 0, "to_cell": other, "version": version_of(page)}
    r = browser.post(f"/games/{gid}/move", bad)
    assert r.status_code == 422
    assert "cell" in r.text
    assert version_of(browser.get(f"/games/{gid}").text) == version_of(page)


def test_a_challenge_on_a_three_deck_deal_is_stored_whole_and_played(app: FastAPI) -> None:
    me, friend = Browser(app), Browser(app)
    gid = me.new_game("triple-scorpion", deal_number=8)
    r = me.post(f"/games/{gid}/challenge")
    assert r.status_code == 303, r.text
    link = r.headers["location"]
    assert friend.get(link).status_code == 200
    r = friend.post(link + "/play")
    assert r.status_code == 303, r.text
    html = friend.get(r.headers["location"]).text
    _assert_board(html, Game.new("triple-scorpion", deal_from_number(8, "triple-scorpion")))


def test_one_tap_targets_name_reserves_and_cells(browser: Browser) -> None:
    """The page lists each movable card's destinations, reserve and cell cards included."""
    n, m = deal_with_pile_move("three-blind-mice", "reserve")
    gid = browser.new_game("three-blind-mice", deal_number=n)
    html = browser.get(f"/games/{gid}").text
    targets = re.search(r'data-targets="([^"]*)"', html)
    assert targets
    items = dict(item.split(":") for item in targets.group(1).split())
    assert str(m.to_column) in items[f"r{m.from_column}"].split(",")  # type: ignore[attr-defined]
    head = browser.new_game("scorpion-head", deal_number=5)
    html = browser.get(f"/games/{head}").text
    targets = re.search(r'data-targets="([^"]*)"', html)
    assert targets
    items = dict(item.split(":") for item in targets.group(1).split())
    assert "f0,f1,f2,f3" in items["0.7"]
