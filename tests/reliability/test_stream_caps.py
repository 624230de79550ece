"""Event streams are capped (finding 4): at most ``MAX_STREAMS_PER_PLAYER`` open streams per
player, ``MAX_STREAMS_PER_ADDRESS`` per client address, cookie or none (issue 39), and
``MAX_STREAMS_PER_WORKER`` per worker; one more is a 429 with a JSON ``detail``
(a readable page for the pages' stream) and ``Retry-After``. A slot comes back as soon as its
client goes away. Against a real uvicorn worker (the caps are per worker process)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from tests.support.live import LivePlayer
from tests.support.server import LiveServer, migrate, sqlite_database


@pytest.fixture(scope="module")
def capped_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    tmp = tmp_path_factory.mktemp("stream-caps")
    url = sqlite_database(Path(tmp))
    migrate(url)
    env = {"RATE_LIMITS": "off", "MAX_STREAMS_PER_PLAYER": "2", "MAX_STREAMS_PER_WORKER": "3"}
    with LiveServer(url, workers=1, env=env, log_path=Path(tmp) / "uvicorn.log") as server:
        yield server


def _challenge(server: LiveServer) -> str:
    ann = LivePlayer(server.url)
    game = ann.new_game()
    r = ann.post(f"/api/games/{game['id']}/challenge")
    assert r.status_code in (200, 201), r.text
    token: str = r.json()["token"]
    return token


async def _open(
    client: httpx2.AsyncClient, path: str
) -> tuple[httpx2.Response, asyncio.Task[None]]:
    """Open a stream; returns its response (status known) and the task holding it open."""
    started: asyncio.Future[httpx2.Response] = asyncio.get_running_loop().create_future()

    async def hold() -> None:
        async with client.stream("GET", path) as response:
            if response.status_code == 200:
                async for _ in response.aiter_lines():
                    if not started.done():
                        started.set_result(response)
            else:
                await response.aread()
                started.set_result(response)

    task = asyncio.create_task(hold())
    response = await asyncio.wait_for(started, 30)
    return response, task


async def _caps(server: LiveServer, token: str) -> None:
    a, b, c = (LivePlayer(server.url) for _ in range(3))
    path = f"/api/challenges/{token}/events"
    timeout = httpx2.Timeout(30, read=120)
    clients = [
        httpx2.AsyncClient(base_url=server.url, cookies=p.cookies, timeout=timeout)
        for p in (a, a, a, b, c)
    ]
    tasks: list[asyncio.Task[None]] = []
    try:
        r1, t1 = await _open(clients[0], path)
        r2, t2 = await _open(clients[1], path)
        tasks += [t1, t2]
        assert r1.status_code == r2.status_code == 200
        # A third stream of the same player: refused, clearly, with Retry-After.
        r3, t3 = await _open(clients[2], path)
        tasks.append(t3)
        assert r3.status_code == 429
        assert "at most 2" in r3.json()["detail"]
        assert int(r3.headers["Retry-After"]) > 0
        # The pages' stream counts too, and is refused with a readable answer.
        page = await clients[2].get(f"/challenge/{token}/events", headers={"Accept": "text/html"})
        assert page.status_code == 429 and "at most 2" in page.text
        assert "Traceback" not in page.text
        # Another player still gets one (3 in all: the worker's ceiling) ...
        r4, t4 = await _open(clients[3], path)
        tasks.append(t4)
        assert r4.status_code == 200
        # ... and a fourth stream on the worker is refused, whoever asks.
        r5, t5 = await _open(clients[4], path)
        tasks.append(t5)
        assert r5.status_code == 429
        assert "as many live updates as it can" in r5.json()["detail"]
        assert "Retry-After" in r5.headers
        # A client going away gives its slot back: the first player may open one again.
        t1.cancel()
        await asyncio.gather(t1, return_exceptions=True)
        await clients[0].aclose()
        fresh = httpx2.AsyncClient(base_url=server.url, cookies=a.cookies, timeout=timeout)
        clients.append(fresh)
        assert (await _open_when_free(fresh, path, tasks)).status_code == 200
    finally:
        await _close(tasks, clients)


async def _open_when_free(
    client: httpx2.AsyncClient, path: str, tasks: list[asyncio.Task[None]]
) -> httpx2.Response:
    """Open a stream, trying again while its slot is still taken (the server notices a closed
    connection within moments); its task joins ``tasks``."""
    for _ in range(50):
        response, task = await _open(client, path)
        tasks.append(task)
        if response.status_code == 200:
            break
        await asyncio.sleep(0.2)
    return response


async def _close(tasks: list[asyncio.Task[None]], clients: list[httpx2.AsyncClient]) -> None:
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for client in clients:
        await client.aclose()


def test_streams_are_capped_per_player_and_per_worker(capped_server: LiveServer) -> None:
    token = _challenge(capped_server)
    asyncio.run(_caps(capped_server, token))


@pytest.fixture(scope="module")
def address_capped_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    tmp = tmp_path_factory.mktemp("stream-address-caps")
    url = sqlite_database(Path(tmp))
    migrate(url)
    env = {"RATE_LIMITS": "off", "MAX_STREAMS_PER_ADDRESS": "2", "MAX_STREAMS_PER_WORKER": "10"}
    with LiveServer(url, workers=1, env=env, log_path=Path(tmp) / "uvicorn.log") as server:
        yield server


async def _cookieless(server: LiveServer, token: str) -> None:
    """Streams without a cookie (a new player each) from one address: the address's cap."""
    path = f"/api/challenges/{token}/events"
    timeout = httpx2.Timeout(30, read=120)
    clients = [httpx2.AsyncClient(base_url=server.url, timeout=timeout) for _ in range(4)]
    tasks: list[asyncio.Task[None]] = []
    try:
        for client in clients[:2]:
            r, t = await _open(client, path)
            tasks.append(t)
            assert r.status_code == 200
        r3, t3 = await _open(clients[2], path)
        tasks.append(t3)
        assert r3.status_code == 429
        assert "from your address: at most 2" in r3.json()["detail"]
        assert int(r3.headers["Retry-After"]) > 0
        page = await clients[3].get(f"/challenge/{token}/events", headers={"Accept": "text/html"})
        assert page.status_code == 429 and "from your address" in page.text
        # A stream that ends gives its place back to the address.
        tasks[0].cancel()
        await asyncio.gather(tasks[0], return_exceptions=True)
        await clients[0].aclose()
        assert (await _open_when_free(clients[3], path, tasks)).status_code == 200
    finally:
        await _close(tasks, clients)


def test_streams_without_a_cookie_are_capped_per_address(
    address_capped_server: LiveServer,
) -> None:
    token = _challenge(address_capped_server)
    asyncio.run(_cookieless(address_capped_server, token))
