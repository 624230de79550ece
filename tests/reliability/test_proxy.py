"""A real proxy in front: Debian's Caddy with the repository's ``deploy/Caddyfile`` (HTTPS on a
loopback port, its internal CA) load-balancing two uvicorn app processes that share one fresh
database, as docker-compose runs it.

- cookies are ``Secure`` through the trusted proxy (https at the proxy), not over plain http,
  and a client that merely *claims* https (``X-Forwarded-Proto``) is not believed;
- the client address is the proxy's ``X-Forwarded-For`` only when the proxy is trusted, and a
  client cannot smuggle in an address of its choosing;
- a live race event crosses the proxy within 0.5 s (no buffering of event streams);
- requests spread over both processes (each process's own ``/metrics``);
- ``/metrics`` is not reachable through the proxy; static files keep their encoding and
  immutable caching through it.

Without ``caddy`` the module is skipped, unless ``CI`` or ``REQUIRE_POSTGRES=1`` is set: then it
fails (the Makefile and CI install Caddy).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest

from app.web.assets import static_url
from tests.support.live import LivePlayer
from tests.support.server import LiveServer, free_port

ROOT = Path(__file__).resolve().parents[2]
CADDYFILE = ROOT / "deploy" / "Caddyfile"
CLIENT_ADDRESS = "127.0.0.5"  # loopback, but not the proxy's address (127.0.0.1)
EVENT_DEADLINE_SECONDS = 0.5


def caddy_binary() -> str:
    found = shutil.which("caddy") or ("/usr/bin/caddy" if Path("/usr/bin/caddy").exists() else None)
    if found:
        return found
    if os.environ.get("CI") or os.environ.get("REQUIRE_POSTGRES") == "1":
        pytest.fail("caddy is required here (CI / REQUIRE_POSTGRES=1) but not installed")
    pytest.skip("caddy is not installed")


@dataclass
class Stack:
    proxy_url: str
    apps: list[LiveServer]
    logs: list[Path]


def _wait_for(url: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx2.get(url, verify=False, timeout=2).status_code == 200:
                return
        except httpx2.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer within {timeout} s")


@pytest.fixture(scope="module")
def stack(shared_db_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    caddy = caddy_binary()
    work = tmp_path_factory.mktemp("proxy")
    env = {
        "RATE_LIMITS": "off",
        "LOG_FORMAT": "json",
        "FORWARDED_ALLOW_IPS": "127.0.0.1",  # uvicorn believes X-Forwarded-* from the proxy
        "TRUSTED_PROXIES": "127.0.0.1",
        "METRICS_ALLOW": "127.0.0.1/32",
        "RACE_POLL_SECONDS": "0.05",  # SQLite: each worker polls; PostgreSQL pushes
    }
    logs = [work / "app-a.log", work / "app-b.log"]
    apps = [LiveServer(shared_db_url, workers=1, env=env, log_path=log) for log in logs]
    caddy_process: subprocess.Popen[bytes] | None = None
    try:
        for app in apps:
            app.start()
        https_port = free_port()
        caddy_env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(work),
            "XDG_DATA_HOME": str(work / "data"),
            "XDG_CONFIG_HOME": str(work / "config"),
            "SITE_ADDRESS": f"https://127.0.0.1:{https_port}",
            "HTTPS_PORT": str(https_port),
            "HTTP_PORT": str(free_port()),
            "CADDY_ADMIN": "off",
            "UPSTREAMS_MODE": "list",
            "APP_UPSTREAMS": " ".join(f"127.0.0.1:{app.port}" for app in apps),
        }
        caddy_log = open(work / "caddy.log", "wb")  # noqa: SIM115 - closed below
        caddy_process = subprocess.Popen(
            [caddy, "run", "--config", str(CADDYFILE), "--adapter", "caddyfile"],
            env=caddy_env,
            stdout=caddy_log,
            stderr=subprocess.STDOUT,
        )
        proxy_url = f"https://127.0.0.1:{https_port}"
        try:
            _wait_for(proxy_url + "/healthz")
        except RuntimeError:
            raise RuntimeError((work / "caddy.log").read_text(errors="replace")) from None
        yield Stack(proxy_url, apps, logs)
    finally:
        if caddy_process is not None:
            caddy_process.terminate()
            try:
                caddy_process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                caddy_process.kill()
        for app in apps:
            app.stop()


def client(base_url: str, **kw: Any) -> httpx2.Client:
    """A client connecting from CLIENT_ADDRESS (not the proxy's own loopback address)."""
    transport = httpx2.HTTPTransport(local_address=CLIENT_ADDRESS, verify=False)
    return httpx2.Client(base_url=base_url, transport=transport, timeout=30, **kw)


class ProxyPlayer(LivePlayer):
    """A player through the proxy (its certificate comes from Caddy's own test CA)."""

    verify_tls = False


def access_lines(stack: Stack, request_id: str) -> list[dict[str, Any]]:
    out = []
    for log in stack.logs:
        for line in log.read_text(errors="replace").splitlines():
            if request_id in line and line.startswith("{"):
                entry = json.loads(line)
                if entry.get("logger") == "scorpion.access":
                    out.append(entry)
    return out


def wait_access_line(stack: Stack, request_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        lines = access_lines(stack, request_id)
        if lines:
            assert len(lines) == 1, lines
            return lines[0]
        time.sleep(0.05)
    raise AssertionError(f"no access log line for {request_id}")


def test_cookies_are_secure_only_through_the_trusted_proxy(stack: Stack) -> None:
    with client(stack.proxy_url) as c:
        r = c.get("/api/session")
    assert r.status_code == 200 and r.url.scheme == "https"
    assert "Secure" in r.headers["set-cookie"].split("; "), r.headers["set-cookie"]
    direct = stack.apps[0].url
    with client(direct) as c:
        plain = c.get("/api/session")
    with client(direct) as c:
        claimed = c.get("/api/session", headers={"X-Forwarded-Proto": "https"})
    assert "Secure" not in plain.headers["set-cookie"].split("; ")
    # 127.0.0.5 is no trusted proxy: its X-Forwarded-Proto is not believed.
    assert "Secure" not in claimed.headers["set-cookie"].split("; ")


def test_client_address_comes_from_the_trusted_proxy_only(stack: Stack) -> None:
    spoof = {"X-Forwarded-For": "203.0.113.66"}
    through = f"via-proxy-{uuid.uuid4().hex}"
    with client(stack.proxy_url) as c:
        r = c.get("/rules", headers={"X-Request-ID": through, **spoof})
    assert r.status_code == 200 and r.headers["x-request-id"] == through
    line = wait_access_line(stack, through)
    # The proxy (trusted) told the app who connected to it; the client's claim was dropped.
    assert line["client"] == CLIENT_ADDRESS, line
    assert line["route"] == "/rules" and line["status"] == 200

    direct = f"direct-{uuid.uuid4().hex}"
    with client(stack.apps[1].url) as c:
        c.get("/rules", headers={"X-Request-ID": direct, **spoof})
    assert wait_access_line(stack, direct)["client"] == CLIENT_ADDRESS  # untrusted: ignored

    # The same address decides who may read /metrics (METRICS_ALLOW=127.0.0.1/32).
    with client(stack.apps[0].url) as c:
        assert c.get("/metrics").status_code == 404
    assert httpx2.get(stack.apps[0].url + "/metrics").status_code == 200
    with httpx2.Client(base_url=stack.proxy_url, verify=False) as c:  # from 127.0.0.1 ...
        assert c.get("/metrics").status_code == 404  # ... but never through the proxy


def _route_count(body: str, route: str) -> float:
    total = 0.0
    for line in body.splitlines():
        if line.startswith("scorpion_http_request_duration_seconds_count{") and (
            f'route="{route}"' in line
        ):
            total += float(line.rsplit(" ", 1)[1])
    return total


def _gauge(body: str, name: str) -> float:
    for line in body.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_requests_spread_over_both_processes(stack: Stack) -> None:
    def counts() -> list[float]:
        return [
            _route_count(httpx2.get(app.url + "/metrics").text, "/api/stats") for app in stack.apps
        ]

    before = counts()
    with client(stack.proxy_url) as c:
        for _ in range(20):
            assert c.get("/api/stats").status_code == 200
    after = counts()
    served = [a - b for a, b in zip(after, before, strict=True)]
    assert sum(served) == 20 and all(n >= 5 for n in served), served


def test_a_live_race_event_crosses_the_proxy_within_half_a_second(stack: Stack) -> None:
    ann = ProxyPlayer(stack.proxy_url)
    game = ann.new_game(4242)
    token = ann.post(f"/api/games/{game['id']}/challenge").json()["token"]
    hints = ann.get(f"/api/games/{game['id']}/hints").json()

    received: list[tuple[str, float]] = []
    first = threading.Event()
    got = threading.Event()

    def listen() -> None:
        with (
            httpx2.Client(base_url=stack.proxy_url, verify=False, timeout=30) as c,
            c.stream("GET", f"/api/challenges/{token}/events") as stream,
        ):
            assert stream.status_code == 200
            assert stream.headers["content-type"].startswith("text/event-stream")
            for line in stream.iter_lines():
                if line.startswith("event:"):
                    received.append((line.split(":", 1)[1].strip(), time.monotonic()))
                    if len(received) == 1:
                        first.set()
                    elif received[-1][0] == "progress":
                        got.set()
                        return

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    assert first.wait(10), "no standings event through the proxy"
    open_streams = sum(
        _gauge(httpx2.get(app.url + "/metrics").text, "scorpion_event_streams_open")
        for app in stack.apps
    )
    assert open_streams == 1
    if hints["moves"]:
        body = {**hints["moves"][0], "version": game["version"]}
        sent = time.monotonic()
        r = ann.post(f"/api/games/{game['id']}/moves", body)
    else:
        sent = time.monotonic()
        r = ann.post(f"/api/games/{game['id']}/deal", {"version": game["version"]})
    assert r.status_code == 200, r.text
    assert got.wait(5), f"no progress event through the proxy: {received}"
    latency = received[-1][1] - sent
    assert latency < EVENT_DEADLINE_SECONDS, latency


def test_static_files_keep_encoding_and_caching_through_the_proxy(stack: Stack) -> None:
    url = static_url("vendor/htmx-4.0.1.min.js")
    with client(stack.proxy_url) as c:
        r = c.get(url, headers={"Accept-Encoding": "br, gzip"})
        page = c.get("/rules", headers={"Accept-Encoding": "gzip"})
    assert r.status_code == 200 and r.headers["content-encoding"] == "br"
    assert "immutable" in r.headers["cache-control"]
    assert r.content == (ROOT / "static" / "vendor" / "htmx-4.0.1.min.js").read_bytes()
    assert page.headers.get("content-encoding") == "gzip"  # pages compressed by the proxy
