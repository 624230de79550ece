"""The one-tap destinations rendered into the play page (``data-targets``) are the engine's
legal, useful moves, and name only face-up cards."""

from __future__ import annotations

import random
import re
from html import unescape

import pytest
from fastapi import FastAPI

from app.engine import Game, deal_from_number
from tests.support.api_client import Player

TARGETS = re.compile(r'data-targets="([^"]*)"')


def _page_targets(p: Player, game_id: str) -> dict[tuple[int, int], set[int]]:
    html = p.get(f"/games/{game_id}").text
    found = TARGETS.search(html)
    assert found, "the play page carries no data-targets"
    out: dict[tuple[int, int], set[int]] = {}
    for item in unescape(found.group(1)).split():
        card, _, dests = item.partition(":")
        c, i = (int(x) for x in card.split("."))
        out[(c, i)] = {int(t) for t in dests.split(",")}
    return out


def _engine_targets(game: Game) -> dict[tuple[int, int], set[int]]:
    out: dict[tuple[int, int], set[int]] = {}
    for m in game.hints():
        out.setdefault((m.from_column, m.from_index), set()).add(m.to_column)
    return out


@pytest.mark.parametrize("variant", ["scorpion", "wasp"])
def test_page_targets_are_the_engines_moves_along_a_random_game(app: FastAPI, variant: str) -> None:
    rng = random.Random(11)
    p = Player(app)
    g = p.new_game(variant=variant, deal_number=5)
    mirror = Game.new(variant, deal_from_number(5))
    for _ in range(25):
        targets = _page_targets(p, g["id"])
        assert targets == _engine_targets(mirror)
        view = mirror.public_view()
        for c, i in targets:
            assert view.columns[c][i] is not None, "a target names a face-down card"
        moves = mirror.hints()
        if not moves:
            break
        m = rng.choice(moves)
        assert p.move(g["id"], m.from_column, m.from_index, m.to_column).status_code == 200
        mirror.move(m.from_column, m.from_index, m.to_column)
