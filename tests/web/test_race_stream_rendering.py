"""A race update is rendered once per worker, whatever the number of streams showing it
(finding 4): fifty spectators' streams of one race get the same bytes from one render, for
the first standings and for each change; a player's own view (their entries marked) is a
render of its own."""

from __future__ import annotations

import asyncio

import pytest
from fastapi import FastAPI

from app.services.race import Progress
from app.services.race_hub import hub
from app.services.race_panel import challenge_race_id
from app.web.together.race_streams import race_events, rows_html, sse
from tests.support.api_client import Player

pytestmark = pytest.mark.usefixtures("configured")

STREAMS = 50


def test_fifty_streams_share_one_render_per_update(app: FastAPI) -> None:
    ann = Player(app)
    game = ann.new_game(deal_number=4321)
    r = ann.post(f"/api/games/{game['id']}/challenge")
    assert r.status_code in (200, 201), r.text
    race_id = challenge_race_id(r.json()["token"])
    renders: list[frozenset[int]] = []

    def render_all(state: dict[int, Progress], mine: frozenset[int]) -> str:
        renders.append(mine)
        return sse(rows_html(list(state.values()), mine))

    async def run() -> None:
        spectators = [
            race_events(race_id, f"spectator-{i:016d}", render_all, kind="t-html")
            for i in range(STREAMS)
        ]
        own = race_events(race_id, ann.id, render_all, kind="t-html")
        streams = [*spectators, own]
        try:
            first = [await asyncio.wait_for(anext(s), 10) for s in streams]
            assert len(set(first[:STREAMS])) == 1  # every spectator: the same bytes
            assert len(renders) == 2  # one for the spectators, one for the player's own view
            renders.clear()
            entry = 10**9  # a newcomer's report
            hub.dispatch(race_id, Progress(entry, "Newcomer", 3, 0, "playing", True, 7))
            after = [await asyncio.wait_for(anext(s), 10) for s in streams]
            assert "Newcomer" in after[0]
            assert len(set(after[:STREAMS])) == 1
            assert len(renders) == 2, len(renders)
            assert after[STREAMS] != after[0]  # the player's own view marks their entry
        finally:
            for s in streams:
                await s.aclose()
            await hub.close()

    asyncio.run(run())


def test_a_stream_ends_on_time_and_the_next_one_catches_up(
    app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stream ends after ``STREAM_SECONDS`` (not at the next keep-alive); the browser's next
    stream starts with everyone's standings, so what happened meanwhile is shown at once."""
    from app.config import get_settings

    monkeypatch.setattr(get_settings(), "stream_seconds", 0.5)
    ann = Player(app)
    game = ann.new_game(deal_number=4321)
    r = ann.post(f"/api/games/{game['id']}/challenge")
    race_id = challenge_race_id(r.json()["token"])

    def render_all(state: dict[int, Progress], mine: frozenset[int]) -> str:
        return sse(rows_html(list(state.values()), mine))

    async def whole(player: str) -> list[str]:
        stream = race_events(race_id, player, render_all, kind="t-end")
        return [text async for text in stream]

    async def run() -> tuple[list[str], list[str]]:
        try:
            loop = asyncio.get_running_loop()
            t0 = loop.time()
            first = await asyncio.wait_for(whole("spectator-end-1"), 5)
            assert loop.time() - t0 < 3  # not held up to the 15 s keep-alive
            dealt = await asyncio.to_thread(lambda: ann.post(f"/api/games/{game['id']}/deal"))
            assert dealt.status_code == 200, dealt.text
            return first, await asyncio.wait_for(whole("spectator-end-1"), 5)
        finally:
            await hub.close()

    first, second = asyncio.run(run())
    assert len(first) == 1 and 'data-moves="0"' in first[0]
    assert "keep-alive" not in "".join(first)
    assert 'data-moves="1"' in second[0]
