"""Playing together over the API and pages, on SQLite and PostgreSQL: the daily deal (the same
for everyone on a day, another the next day, chosen with a secret, its number hidden until the
day ends), leaderboards (order, ties, assisted wins and losses apart, forged results
rejected), challenges (a link, a new game on the same deal, the comparison), display names
and privacy deletions."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import Engine, text

from app.config import Settings
from app.engine import Action, Game, deal_from_number, parse_deal
from app.services import daily, days
from tests.support.api_client import Player, assert_error, assert_no_hidden_card, count_rows
from tests.support.deals import WIN_DEAL, WIN_LINE, set_daily_deal

pytestmark = pytest.mark.usefixtures("configured")


@pytest.fixture()
def on_day(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Set the daily deal's clock: ``on_day(date)`` makes it noon UTC on that day."""

    def set_day(day: date) -> None:
        noon = datetime(day.year, day.month, day.day, 12, tzinfo=UTC)
        monkeypatch.setattr(days, "clock", lambda: noon)

    yield set_day


def stored_deal(engine: Engine, game_id: str) -> tuple[str, int | None]:
    with engine.connect() as conn:
        deal, number = conn.execute(
            text("SELECT deal, deal_number FROM games WHERE id = :id"), {"id": game_id}
        ).one()
    return str(deal), number


def play_line(p: Player, gid: str, line: list[Action]) -> dict[str, Any]:
    body: dict[str, Any] = {}
    for action in line:
        r = p.apply(gid, action)
        assert r.status_code == 200, (action, r.text)
        body = r.json()
    return body


def number_shown(page: str, n: int) -> bool:
    """Whether a page or JSON shows deal number ``n`` the ways the app writes one."""
    patterns = [rf"/deal/{n}\b", rf"#{n}\b", rf"deal {n}\b", rf'"deal_number":\s*{n}\b']
    return any(re.search(p, page) for p in patterns)


# -- the daily deal --------------------------------------------------------------------------


def test_three_players_get_the_same_daily_deal_and_another_the_next_day(
    app: FastAPI, engine: Engine, on_day: Any
) -> None:
    day = date(2031, 3, 14)
    on_day(day)
    players = [Player(app) for _ in range(3)]
    before = players[0].get("/api/daily/scorpion").json()
    assert before["started"] is False and before["deal"] is None and before["winnable"] is None
    games = []
    for p in players:
        r = p.post("/api/daily/scorpion")
        assert r.status_code == 201, r.text
        game = r.json()
        assert "deal_number" not in game or game["deal_number"] is None
        games.append(game)
    stored = {stored_deal(engine, g["id"]) for g in games}
    assert len(stored) == 1
    expected, number = stored.pop()
    assert number is None  # a daily deal is a random deal, never a deal number
    assert games[0]["columns"] == games[1]["columns"] == games[2]["columns"]
    mirror = Game.new("scorpion", parse_deal(expected))
    for p, g in zip(players, games, strict=True):
        for path in (f"/api/games/{g['id']}", f"/games/{g['id']}", "/daily/scorpion"):
            page = p.get(path).text
            assert expected not in page, path  # the deal string stays on the server
            assert_no_hidden_card(page, mirror)
        info = p.get("/api/daily/scorpion").json()
        assert info["deal_number"] is None and info["deal"] is None and info["over"] is False
        assert info["started"] is True and isinstance(info["winnable"], bool)
        assert info["game_id"] == g["id"] and info["status"] == "playing"

    on_day(day + timedelta(days=1))
    tomorrow = [p.post("/api/daily/scorpion") for p in players[:2]]
    assert all(r.status_code == 201 for r in tomorrow)
    deals = {stored_deal(engine, r.json()["id"])[0] for r in tomorrow}
    assert len(deals) == 1 and expected not in deals
    assert tomorrow[0].json()["columns"] != games[0]["columns"]
    # Yesterday is over: its deal string is published, on the API and the page; no number.
    past = players[0].get(f"/api/daily/scorpion/{day.isoformat()}").json()
    assert past["over"] is True and past["deal"] == expected and past["deal_number"] is None
    # (starting today's deal leaves yesterday's games as they were: each race its own slot)
    statuses = sorted(e["status"] for e in past["leaderboard"]["others"])
    assert statuses == ["unfinished", "unfinished", "unfinished"]
    page = players[0].get(f"/daily/scorpion/{day.isoformat()}").text
    assert expected in page and 'id="daily-deal-string"' in page and "/deal/" not in page
    # A day that has not come yet is refused, and nothing is made for it.
    future = (day + timedelta(days=2)).isoformat()
    assert_error(players[0].get(f"/api/daily/scorpion/{future}"), 422)
    assert count_rows(engine, "races", "day = :d", d=day + timedelta(days=2)) == 0
    # A past day nobody played is a 404 with a clear word, on the API and the page.
    empty = (day - timedelta(days=30)).isoformat()
    detail = assert_error(players[0].get(f"/api/daily/scorpion/{empty}"), 404)
    assert detail == daily.NOT_PLAYED
    r = players[0].get(f"/daily/scorpion/{empty}")
    assert r.status_code == 404 and daily.NOT_PLAYED in r.text


def test_one_ranked_attempt_a_day_replays_allowed(
    app: FastAPI, engine: Engine, on_day: Any
) -> None:
    on_day(date(2031, 4, 1))
    p = Player(app)
    first = p.post("/api/daily/scorpion")
    assert first.status_code == 201
    again = p.post("/api/daily/scorpion")  # the running game is resumed
    assert again.status_code == 200 and again.json()["id"] == first.json()["id"]
    replay = p.post("/api/daily/scorpion", {"again": True})
    assert replay.status_code == 201 and replay.json()["id"] != first.json()["id"]
    board = p.get("/api/daily/scorpion").json()["leaderboard"]
    mine = [e for e in board["others"] + board["wins"] + board["assisted"] if e["you"]]
    assert len(mine) == 1  # only the first game is ranked (here: given up, not won)
    assert mine[0]["status"] == "gave-up"
    assert_error(p.post("/api/daily/nonsense"), 422)
    assert_error(p.post("/api/daily/scorpion", {"again": "yes"}), 422)
    assert_error(p.get("/api/daily/scorpion/29-02-2031"), 422)


def test_the_daily_secret_keys_the_race_ids_and_the_attempt_records() -> None:
    from app.services.race import attempt_key

    day = date(2032, 1, 1)
    key = daily.daily_race_key("scorpion", day)
    assert len(key) == 32 and key == daily.daily_race_key("scorpion", day)  # stable
    assert key != daily.daily_race_key("wasp", day)
    assert key != daily.daily_race_key("scorpion", day + timedelta(days=1))
    assert attempt_key("player-one-xxxxxxxxxx", key) != attempt_key("player-two-xxxxxxxxxx", key)
    # DAILY_SECRET, when set, is the key; without it the key is derived from SECRET_KEY.
    explicit = Settings(daily_secret="operator-chosen-secret")
    assert daily.daily_secret(explicit) == b"operator-chosen-secret"
    derived = daily.daily_secret(Settings(secret_key="k" * 32))
    assert derived != b"k" * 32 and derived != daily.daily_secret(Settings(secret_key="j" * 32))


def test_daily_leaderboard_with_real_wins(app: FastAPI, engine: Engine, on_day: Any) -> None:
    day = date(2031, 5, 2)
    on_day(day)
    set_daily_deal("scorpion", day, WIN_DEAL)
    line = WIN_LINE
    a, b, c = Player(app), Player(app), Player(app)
    assert (
        a.http.put("/api/profile", json={"display_name": "Ada"}, headers=a.headers).status_code
        == 200
    )
    for p in (a, b):
        g = p.post("/api/daily/scorpion").json()
        assert play_line(p, g["id"], line)["status"] == "won"
    c.post("/api/daily/scorpion")
    board = c.get("/api/daily/scorpion").json()["leaderboard"]
    assert [e["moves"] for e in board["wins"]] == [len(line), len(line)]
    assert "Ada" in [e["name"] for e in board["wins"]]
    assert [e["you"] for e in board["others"]] == [True]
    # A won replay does not enter the leaderboard.
    replay = a.post("/api/daily/scorpion", {"again": True}).json()
    play_line(a, replay["id"], line)
    assert len(a.get("/api/daily/scorpion").json()["leaderboard"]["wins"]) == 2


# -- challenges and leaderboards ---------------------------------------------------------------

# The won line of WIN_DEAL with a detour: the King of clubs' group goes into the empty column
# 1, on to the empty column 2, and the clubs are finished there (one step more).
DETOUR_LINE: list[Action] = [
    *WIN_LINE[:13],
    ("move", 3, 3, 0),
    ("move", 0, 0, 1),
    ("move", 3, 2, 1),
    ("move", 3, 1, 1),
    ("move", 3, 0, 1),
]


def set_game_time(engine: Engine, game_id: str, seconds: int) -> None:
    """Make a finished game have taken ``seconds`` (start = finish - seconds)."""
    with engine.begin() as conn:
        (finished,) = conn.execute(
            text("SELECT finished_at FROM games WHERE id = :id"), {"id": game_id}
        ).one()
        if isinstance(finished, str):  # SQLite hands back text
            finished = datetime.fromisoformat(finished)
        conn.execute(
            text("UPDATE games SET started_at = :t WHERE id = :id"),  # the clock
            {"t": finished - timedelta(seconds=seconds), "id": game_id},
        )


def test_challenge_leaderboard_order_ties_assisted_and_unfinished(
    app: FastAPI, engine: Engine
) -> None:
    assert Game.replay("scorpion", parse_deal(WIN_DEAL), DETOUR_LINE).won
    names = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo"]
    players = [Player(app) for _ in names]
    for p, name in zip(players, names, strict=True):
        r = p.http.put("/api/profile", json={"display_name": name}, headers=p.headers)
        assert r.status_code == 200, r.text
    ann, bob, cy, di, ed, flo = players
    g_ann = ann.new_game(deal=WIN_DEAL)
    r = ann.post(f"/api/games/{g_ann['id']}/challenge")
    assert r.status_code == 201, r.text
    token = r.json()["token"]
    assert ann.post(f"/api/games/{g_ann['id']}/challenge").json()["token"] == token  # same link
    games = {"Ann": g_ann["id"]}
    for p, name in zip(players[1:], names[1:], strict=True):
        r = p.post(f"/api/challenges/{token}/games")
        assert r.status_code == 201, r.text
        assert r.json()["columns"] == g_ann["columns"]
        games[name] = r.json()["id"]
    for p, name in ((ann, "Ann"), (bob, "Bob"), (cy, "Cy")):
        assert play_line(p, games[name], WIN_LINE)["status"] == "won"
    assert play_line(di, games["Di"], DETOUR_LINE)["status"] == "won"
    assert ed.post(f"/api/games/{games['Ed']}/analysis").status_code == 200  # assisted
    play_line(ed, games["Ed"], WIN_LINE)
    play_line(flo, games["Flo"], WIN_LINE[:5])  # not finished
    for name, seconds in (("Ann", 100), ("Bob", 100), ("Cy", 90), ("Di", 10), ("Ed", 5)):
        set_game_time(engine, games[name], seconds)

    body = flo.get(f"/api/challenges/{token}").json()
    wins = [(e["rank"], e["name"], e["moves"], e["seconds"]) for e in body["leaderboard"]["wins"]]
    n = len(WIN_LINE)
    assert wins == [
        (1, "Cy", n, 90),
        (2, "Ann", n, 100),  # a tie: the same rank, the earlier finish listed first
        (2, "Bob", n, 100),
        (4, "Di", n + 1, 10),  # more moves rank below, however fast
    ]
    assert [(e["name"], e["assisted"]) for e in body["leaderboard"]["assisted"]] == [("Ed", True)]
    others = body["leaderboard"]["others"]
    assert [(e["name"], e["you"], e["status"], e["moves"]) for e in others] == [
        ("Flo", True, "playing", 5)
    ]
    assert body["leaderboard"]["rejected"] == 0
    # The side-by-side comparison: every game, the challenger first; your own game id only.
    sides = {s["name"]: s for s in body["sides"]}
    assert list(sides)[0] == "Ann" and sides["Ann"]["challenger"] is True
    assert sides["Cy"]["seconds"] == 90 and sides["Cy"]["suits"] == 4
    assert sides["Flo"]["status"] == "playing" and sides["Flo"]["moves"] == 5
    assert sides["Flo"]["game_id"] == games["Flo"]
    assert all(s["game_id"] is None for name, s in sides.items() if name != "Flo")
    # The page shows the same comparison, names escaped.
    page = flo.get(f"/challenge/{token}").text
    assert 'id="compare"' in page and "Cy" in page and "0:01:30" not in page and "1:30" in page


def test_challenge_link_and_refusals(app: FastAPI, engine: Engine) -> None:
    a, b = Player(app), Player(app)
    g = a.new_game(deal_number=4321)
    a.move(g["id"], *next_legal_move(g))
    r = a.post(f"/api/games/{g['id']}/challenge")
    assert r.status_code == 201
    c = r.json()
    token = c["token"]
    assert len(token) >= 20 and "4321" not in token and g["id"] not in token
    assert c["url"].endswith(f"/challenge/{token}") and c["deal_number"] == 4321
    # Another player's game cannot be challenged (404, as if missing), nor a missing one.
    assert_error(b.post(f"/api/games/{g['id']}/challenge"), 404)
    assert_error(b.post("/api/games/nope/challenge"), 404)
    assert_error(b.get("/api/challenges/not-a-real-token-at-all"), 404)
    assert_error(b.post("/api/challenges/not-a-real-token-at-all/games"), 404)
    assert b.get("/challenge/not-a-real-token-at-all").status_code == 404
    races = count_rows(engine, "races")
    assert_error(b.post(f"/api/games/{g['id']}/challenge"), 404)
    assert count_rows(engine, "races") == races
    # Whoever opens the link plays the same deal in a new game of their own.
    page = b.get(f"/challenge/{token}")
    assert page.status_code == 200 and 'id="challenge-play"' in page.text
    r = b.http.post(
        f"/challenge/{token}/play", data={"csrf_token": b.token}, follow_redirects=False
    )
    assert r.status_code == 303
    gid = r.headers["location"].rsplit("/", 1)[1]
    game_b = b.get(f"/api/games/{gid}").json()
    assert game_b["deal_number"] == 4321 and game_b["moves"] == 0
    assert stored_deal(engine, gid)[0] == stored_deal(engine, g["id"])[0]
    # The play page of a challenge game has the live race panel.
    play_page = b.get(f"/games/{gid}").text
    assert f'hx-sse:connect="/challenge/{token}/events"' in play_page


def next_legal_move(game: dict[str, Any]) -> tuple[int, int, int]:
    mirror = Game.new("scorpion", deal_from_number(int(game["deal_number"])))
    m = mirror.hints()[0]
    return m.from_column, m.from_index, m.to_column


def test_a_forged_result_is_not_ranked(app: FastAPI, engine: Engine) -> None:
    a, b = Player(app), Player(app)
    g = a.new_game(deal=WIN_DEAL)
    token = a.post(f"/api/games/{g['id']}/challenge").json()["token"]
    gid = b.post(f"/api/challenges/{token}/games").json()["id"]
    play_line(b, gid, WIN_LINE[:3])
    # Forge a win in the database: a bogus log row, the game and the entry claiming a win.
    now = datetime.now(UTC)
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO game_actions (game_id, player_id, seq, kind, from_column, "
                "from_index, to_column, created_at) VALUES (:g, :p, 4, 'move', 6, 0, 0, :t)"
            ),
            {"g": gid, "p": b.id, "t": now},
        )
        conn.execute(
            text(
                "UPDATE games SET status = 'won', moves = 4, version = 5, finished_at = :t "
                "WHERE id = :g"
            ),
            {"g": gid, "t": now},
        )
        conn.execute(
            text("UPDATE race_entries SET status = 'won', moves = 4, suits = 4 WHERE game_id = :g"),
            {"g": gid},
        )
    body = a.get(f"/api/challenges/{token}").json()
    assert body["leaderboard"]["wins"] == [] and body["leaderboard"]["rejected"] == 1
    assert [s["status"] for s in body["sides"] if not s["challenger"]] == ["rejected"]
    with engine.connect() as conn:
        verdict = conn.execute(
            text("SELECT verified FROM race_entries WHERE game_id = :g"), {"g": gid}
        ).scalar_one()
    assert verdict is None  # reading a board never writes: the check is made on each read
    # A real win of the same deal is ranked; the forged one stays out.
    play_line(a, g["id"], WIN_LINE)
    board = b.get(f"/api/challenges/{token}").json()["leaderboard"]
    assert [e["moves"] for e in board["wins"]] == [len(WIN_LINE)] and board["rejected"] == 1
    # A claimed win over an honest but unfinished log is rejected as well.
    c = Player(app)
    gc = c.post(f"/api/challenges/{token}/games").json()["id"]
    play_line(c, gc, WIN_LINE[:2])
    with engine.begin() as conn:
        conn.execute(
            text("UPDATE games SET status = 'won', finished_at = :t WHERE id = :g"),
            {"g": gc, "t": now},
        )
    assert c.get(f"/api/challenges/{token}").json()["leaderboard"]["rejected"] == 2


# -- names and privacy ---------------------------------------------------------------------------


def test_display_names_are_checked_and_escaped(app: FastAPI) -> None:
    p = Player(app)
    profile = p.get("/api/profile").json()
    assert re.fullmatch(r"Player [0-9A-F]{4}", profile["default_name"])
    assert profile["display_name"] is None and profile["shown_name"] == profile["default_name"]
    assert p.id not in profile["default_name"]
    for bad in ("x" * 25, "<script>", "a\u0000b", "-dash", "Player 1A2B", 7):
        r = p.http.put("/api/profile", json={"display_name": bad}, headers=p.headers)
        assert_error(r, 422)
    assert p.get("/api/profile").json()["display_name"] is None  # nothing changed
    r = p.http.put("/api/profile", json={"display_name": "  Zoë  "}, headers=p.headers)
    assert_error(r, 422)  # letters A-Z only
    r = p.http.put("/api/profile", json={"display_name": "  O'Brien   the 2nd "}, headers=p.headers)
    assert r.status_code == 200 and r.json()["display_name"] == "O'Brien the 2nd"
    r = p.http.put("/api/profile", json={"display_name": "x"}, headers={})
    assert r.status_code == 403  # CSRF as everywhere
    g = p.new_game(deal=WIN_DEAL)
    token = p.post(f"/api/games/{g['id']}/challenge").json()["token"]
    page = p.get(f"/challenge/{token}").text
    assert "O&#39;Brien the 2nd" in page and "O'Brien the 2nd" not in page
    # The settings form: a bad name re-shows the form with the reason, and changes nothing.
    r = p.http.post(
        "/settings/profile",
        data={"csrf_token": p.token, "display_name": "<b>bold</b>", "on_leaderboards": "on"},
    )
    assert r.status_code == 422 and 'id="profile-error"' in r.text
    assert "<b>bold</b>" not in r.text
    assert p.get("/api/profile").json()["display_name"] == "O'Brien the 2nd"
    r = p.http.post(
        "/settings/profile",
        data={"csrf_token": p.token, "display_name": ""},
        follow_redirects=False,
    )
    assert r.status_code == 303
    after = p.get("/api/profile").json()
    assert after["display_name"] is None and after["on_leaderboards"] is False
    privacy = p.get("/privacy").text
    assert "What other players can see" in privacy and after["default_name"] in privacy


def test_staying_off_leaderboards(app: FastAPI) -> None:
    a, b = Player(app), Player(app)
    a.http.put("/api/profile", json={"display_name": "Hidden"}, headers=a.headers)
    g = a.new_game(deal=WIN_DEAL)
    token = a.post(f"/api/games/{g['id']}/challenge").json()["token"]
    gid = b.post(f"/api/challenges/{token}/games").json()["id"]
    play_line(a, g["id"], WIN_LINE)
    play_line(b, gid, WIN_LINE)
    assert len(b.get(f"/api/challenges/{token}").json()["leaderboard"]["wins"]) == 2
    r = a.http.put("/api/profile", json={"on_leaderboards": False}, headers=a.headers)
    assert r.status_code == 200 and r.json()["display_name"] == "Hidden"  # name kept
    seen_by_b = b.get(f"/api/challenges/{token}").json()
    assert len(seen_by_b["leaderboard"]["wins"]) == 1
    assert "Hidden" not in str(seen_by_b) and "Hidden" not in b.get(f"/challenge/{token}").text
    seen_by_a = a.get(f"/api/challenges/{token}").json()
    assert [s["name"] for s in seen_by_a["sides"] if s["you"]] == ["Hidden"]


def test_privacy_deletes_remove_entries_and_name(app: FastAPI, engine: Engine) -> None:
    a, b = Player(app), Player(app)
    a.http.put("/api/profile", json={"display_name": "Gone Soon"}, headers=a.headers)
    g = a.new_game(deal=WIN_DEAL)
    token = a.post(f"/api/games/{g['id']}/challenge").json()["token"]
    play_line(a, g["id"], WIN_LINE)
    gid = b.post(f"/api/challenges/{token}/games").json()["id"]
    play_line(b, gid, WIN_LINE[:4])
    assert count_rows(engine, "race_entries", "player_id = :p", p=a.id) == 1
    assert "Gone Soon" in str(b.get(f"/api/challenges/{token}").json())
    # Deleting results removes the leaderboard entries (the name stays, results go).
    assert a.delete("/api/stats").status_code == 204
    assert count_rows(engine, "race_entries", "player_id = :p", p=a.id) == 0
    body = b.get(f"/api/challenges/{token}").json()
    assert "Gone Soon" not in str(body) and "Gone Soon" not in b.get(f"/challenge/{token}").text
    assert [s["you"] for s in body["sides"]] == [True]
    assert count_rows(engine, "player_profiles", "player_id = :p", p=a.id) == 1
    # Deleting everything removes the name too.
    b2 = Player(app)
    b2.http.put("/api/profile", json={"display_name": "Also Gone"}, headers=b2.headers)
    gid2 = b2.post(f"/api/challenges/{token}/games").json()["id"]
    play_line(b2, gid2, WIN_LINE[:2])
    assert b2.delete("/api/player").status_code == 204
    assert count_rows(engine, "player_profiles", "player_id = :p", p=b2.id) == 0
    assert count_rows(engine, "race_entries", "player_id = :p", p=b2.id) == 0
    assert "Also Gone" not in str(b.get(f"/api/challenges/{token}").json())
    # The challenge itself stays for the others.
    assert b.get(f"/challenge/{token}").status_code == 200


def test_a_challenge_lists_each_player_once_however_often_they_play(app: FastAPI) -> None:
    """Replays are entries of their own (the event stream reports each), but the challenge's
    sides list a player once: their first game, or their newest once the first is given up."""
    a, b = Player(app), Player(app)
    g = a.new_game(deal=WIN_DEAL)
    token = a.post(f"/api/games/{g['id']}/challenge").json()["token"]
    first = b.post(f"/api/challenges/{token}/games").json()["id"]
    play_line(b, first, WIN_LINE[:1])
    for _ in range(2):
        r = b.post(f"/api/challenges/{token}/games", json={"again": True})
        assert r.status_code == 201, r.text
    newest = r.json()["id"]
    play_line(b, newest, WIN_LINE[:2])
    for viewer in (a, b):
        sides = viewer.get(f"/api/challenges/{token}").json()["sides"]
        assert [s["challenger"] for s in sides] == [True, False]
        assert (sides[1]["moves"], sides[1]["status"], sides[1]["ranked"]) == (2, "playing", False)
    assert b.get(f"/api/challenges/{token}").json()["sides"][1]["game_id"] == newest


def test_every_variant_of_the_family_has_its_daily_deal(
    app: FastAPI, engine: Engine, on_day: Any
) -> None:
    """``/api/daily/{variant}`` takes every id of ``GET /api/variants`` (API.md: every endpoint
    that takes a variant accepts each of them), and each day's page links to all of them."""
    on_day(date(2041, 3, 14))
    p = Player(app)
    variants = p.get("/api/variants").json()["variants"]
    assert len(variants) == 11
    for v in variants:
        info = p.get(f"/api/daily/{v['id']}")
        assert info.status_code == 200, (v["id"], info.text)
        assert info.json()["started"] is False
        game = p.post(f"/api/daily/{v['id']}")
        assert game.status_code == 201, (v["id"], game.text)
        g = game.json()
        assert g["variant"] == v["id"] and len(g["columns"]) == v["columns"]
        assert len(g["reserves"]) + len(g["cells"]) == v["reserves"] + v["cells"]
        assert g.get("deal_number") is None
        deal, number = stored_deal(engine, g["id"])
        assert number is None
        assert_no_hidden_card(game.text, Game.new(v["id"], parse_deal(deal, v["id"])))
        assert p.get(f"/api/daily/{v['id']}").json()["started"] is True
    page = p.http.get("/daily/triple-scorpion")
    assert page.status_code == 200 and "Triple Scorpion daily deal" in page.text
    for v in variants:
        assert f'href="/daily/{v["id"]}"' in page.text or v["id"] == "triple-scorpion"
