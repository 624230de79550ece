"""The solver's offline tools and shipped data: line format, catalogs, odds, command line."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from app.engine import ALL_VARIANTS, Game, deal_from_number
from app.engine.solver import (
    decode_line,
    encode_line,
    load_odds,
    random_winnable_deal,
    wilson,
    winnable_deals,
    winning_line,
)
from app.engine.solver.api import solve_deal
from app.engine.solver.catalogs import (
    CATALOG_DIR,
    catalog_path,
    load_catalog_file,
    merge_ranges,
)
from app.engine.solver.cli import main
from app.engine.solver.odds import SolvePass, read_blocks, retry_unknown, run_odds, summarise


def test_line_text_round_trip() -> None:
    line = [("move", 0, 3, 6), ("deal",), ("move", 6, 45, 2), ("move", 4, 10, 0)]
    text = encode_line(line)
    assert text == "036-6J24a0"
    assert decode_line(text) == line
    with pytest.raises(ValueError):
        decode_line("03")
    with pytest.raises(ValueError):
        encode_line([("undo",)])


def test_merge_ranges() -> None:
    assert merge_ranges([[5, 7], [1, 3], [3, 5], [9, 10]]) == [[1, 7], [9, 10]]


def test_wilson_interval_known_values() -> None:
    lo, hi = wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


CATALOGUED = sorted(p.stem for p in CATALOG_DIR.glob("*.json"))


def test_pile_moves_and_wide_columns_round_trip() -> None:
    line = [
        ("move", 12, 40, 10),
        ("move", 1, 0, 5, "reserve", "column"),
        ("move", 0, 0, 9, "cell", "column"),
        ("move", 3, 17, 2, "column", "cell"),
        ("deal",),
    ]
    text = encode_line(line)
    assert text == "cEa*15+09>3h2-"
    assert decode_line(text) == line
    deep = [("move", 0, 62, 1), ("move", 12, 130, 10), ("move", 3, 70, 2, "column", "cell")]
    assert encode_line(deep) == "0~101c~26a>3~182"  # three decks: an index past 61
    assert decode_line(encode_line(deep)) == deep
    for bad in ("*1", ">12", "0/1", "+", "0~1", "0~!!1", "*~123"):
        with pytest.raises(ValueError):
            decode_line(bad)


def test_every_variant_of_the_family_has_a_catalog() -> None:
    # RULES.md: a catalog of winnable deals exists for every variant (each checked below)
    assert set(CATALOGUED) == set(ALL_VARIANTS)


def test_the_wasp_ii_catalog_is_graded_and_its_lines_win() -> None:
    # Wasp II: 95.6% of its deals are winnable (odds.json); its catalog is shipped and graded
    # like the others (docs/difficulty.md), and a sample of its lines wins through the engine.
    data = load_catalog_file(catalog_path("wasp-ii"), "wasp-ii")
    assert len(data["deals"]) >= 300
    assert set(data["grades"]) == set(data["deals"])
    for difficulty in ("easy", "medium", "hard"):
        assert len(winnable_deals("wasp-ii", difficulty)) >= 100
    sample = sorted(data["deals"], key=int)[::15]
    assert len(sample) >= 20
    for number in sample:
        line = winning_line("wasp-ii", int(number))
        assert line is not None
        game = Game.replay("wasp-ii", deal_from_number(int(number), "wasp-ii"), line[:-1])
        assert not game.won
        game.apply(line[-1])
        assert game.won, number
    wins = {o["variant"]: o for o in load_odds()}["wasp-ii"]
    assert wins["win"] / wins["deals"] > 0.95


@pytest.mark.parametrize("variant", CATALOGUED)
def test_shipped_catalog_lines_all_win(variant: str) -> None:
    data = load_catalog_file(catalog_path(variant), variant)
    assert len(data["deals"]) >= 300
    for number, text in data["deals"].items():
        line = decode_line(text)
        game = Game.replay(variant, deal_from_number(int(number), variant), line[:-1])
        assert not game.won, (variant, number, "won before the line's last step")
        game.apply(line[-1])
        assert game.won, (variant, number)


@pytest.mark.parametrize("variant", CATALOGUED)
def test_random_winnable_deal_comes_from_the_catalog(variant: str) -> None:
    deals = set(winnable_deals(variant))
    picks = [random_winnable_deal(variant, random.Random(s)) for s in range(20)]
    assert set(picks) <= deals and len(set(picks)) > 5
    assert random_winnable_deal(variant, random.Random(3)) == picks[3]  # reproducible
    line = winning_line(variant, picks[0])
    assert line is not None
    assert Game.replay(variant, deal_from_number(picks[0], variant), line).won
    assert winning_line(variant, 10**9 + 7) is None
    with pytest.raises(KeyError):
        random_winnable_deal("no-such-variant", random.Random(1))


def test_published_odds_have_the_fields_the_rules_page_reads() -> None:
    odds = {o["variant"]: o for o in load_odds()}
    assert "scorpion" in odds
    for o in odds.values():
        for key in ("deals", "win", "loss", "unknown", "ci_low", "ci_high"):
            assert key in o
        assert o["win"] + o["loss"] + o["unknown"] == o["deals"]
        assert o["ci_low"] <= o["win"] / o["deals"] <= o["ci_high"]


def test_build_catalog_is_resumable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cat.json"
    args = ["build-catalog", "--variant", "scorpion", "--start", "1", "--budget", "2"]
    assert main([*args, "--count", "30", "--out", str(out)]) == 0
    first = json.loads(out.read_text())
    assert first["scanned"] == [[1, 31]]
    assert first["deals"]  # deals 3, 6, 14, 24 are winnable
    for number, text in first["deals"].items():
        assert Game.replay("scorpion", deal_from_number(int(number)), decode_line(text)).won
    assert main([*args, "--count", "30", "--out", str(out)]) == 0
    assert json.loads(out.read_text()) == first  # nothing left to do
    assert "(0 new)" in capsys.readouterr().out
    assert main([*args, "--count", "40", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["scanned"] == [[1, 41]]


def test_odds_run_is_cached_and_resumable(tmp_path: Path) -> None:
    path = tmp_path / "odds.jsonl"
    quiet = SolvePass(jobs=1, quiet=True)
    s1 = run_odds("scorpion-ii", 1, 20, 2.0, quiet, path=path, block=10)
    assert s1.deals == 20 and s1.win + s1.loss + s1.unknown == 20
    assert len(read_blocks(path)) == 2
    s2 = run_odds("scorpion-ii", 1, 30, 2.0, quiet, path=path, block=10)
    assert len(read_blocks(path)) == 3  # only the new block was solved
    assert s2.deals == 30
    assert summarise("scorpion-ii", 1, 20, path=path) == s1
    # a cached "undecided" gets decided on a second try
    blocks = read_blocks(path)
    blocks[0]["v"] = "U" + blocks[0]["v"][1:]
    path.write_text("".join(json.dumps(b) + "\n" for b in blocks))
    assert summarise("scorpion-ii", 1, 30, path=path).unknown >= 1
    assert retry_unknown("scorpion-ii", 5.0, quiet, path=path) >= 1
    assert summarise("scorpion-ii", 1, 30, path=path).retry_seconds == 5.0


def test_a_retry_counts_only_when_every_undecided_deal_had_it(tmp_path: Path) -> None:
    path = tmp_path / "odds.jsonl"
    retried = {"start": 1, "count": 3, "budget": 10.0, "v": "WUL", "ms": [1, 60001, 2]}
    retried["retry"] = 60.0
    not_retried = {"start": 4, "count": 3, "budget": 10.0, "v": "WWU", "ms": [1, 1, 10001]}
    decided = {"start": 7, "count": 3, "budget": 10.0, "v": "WLW", "ms": [1, 1, 1]}
    path.write_text("".join(json.dumps(b) + "\n" for b in (retried, not_retried, decided)))
    assert summarise("wasp", 1, 3, path=path).retry_seconds == 60.0
    assert summarise("wasp", 1, 9, path=path).retry_seconds == 0.0  # deal 6 had 10 s only
    both = summarise("wasp", 1, 9, path=path)
    assert (both.win, both.loss, both.unknown, both.decided_within_budget) == (5, 2, 2, 7)
    assert "second try" not in both.text()
    assert summarise("wasp", 7, 3, path=path).retry_seconds == 0.0


def test_solve_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "--variant", "scorpion", "--number", "6", "--budget", "5"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("win in")
    assert "line (" in out


def test_a_retry_skips_deals_that_already_had_its_budget(tmp_path: Path) -> None:
    path = tmp_path / "odds.jsonl"
    quiet = SolvePass(jobs=1, quiet=True)
    run_odds("scorpion-ii", 1, 4, 2.0, quiet, path=path, block=2)
    blocks = read_blocks(path)
    # mark deal 1 undecided after a 5 s retry (per-deal record), deal 3 after an older 60 s
    # retry (a block without a per-deal record); deal 2 decided
    blocks[0].update(v="U" + blocks[0]["v"][1:], rs=[5.0, 0.0], retry=5.0)
    blocks[1].update(v="U" + blocks[1]["v"][1:], retry=60.0)
    path.write_text("".join(json.dumps(b) + "\n" for b in blocks))
    assert summarise("scorpion-ii", 1, 4, path=path).retry_seconds == 5.0
    # both already had 5 s: nothing is solved again, the letters stay
    assert retry_unknown("scorpion-ii", 5.0, quiet, path=path) == 0
    assert summarise("scorpion-ii", 1, 4, path=path).unknown == 2
    # a longer budget than deal 1 had, shorter than deal 3's: only deal 1 is tried again
    assert retry_unknown("scorpion-ii", 6.0, quiet, path=path) == 1
    after = summarise("scorpion-ii", 1, 4, path=path)
    assert after.unknown == 1 and after.retry_seconds == 60.0
    assert read_blocks(path)[0]["rs"][0] == 6.0


def test_a_retry_cut_short_inside_a_block_is_not_claimed_for_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "odds.jsonl"
    block = {"start": 1, "count": 3, "budget": 2.0, "v": "UWU", "ms": [2001, 1, 2001]}
    block["rs"] = [10.0, 0.0, 0.0]  # the retry pass stopped after deal 1
    block["retry"] = 10.0
    path.write_text(json.dumps(block) + "\n")
    assert summarise("wasp", 1, 3, path=path).retry_seconds == 0.0  # deal 3 had 2 s only
    assert summarise("wasp", 1, 1, path=path).retry_seconds == 10.0


@pytest.mark.parametrize(("variant", "number"), [("scorpion", 107_851), ("scorpion-tail", 26)])
def test_the_budget_counts_what_its_clock_counts(variant: str, number: int) -> None:
    """The offline commands count CPU time, the app wall time; either way the search stops when
    its own clock says the budget is spent (here a clock that jumps a second per reading)."""
    readings = iter(range(1_000_000))

    def jumpy() -> float:
        return float(next(readings))

    a = solve_deal(variant, deal_from_number(number, variant), 5.0, clock=jumpy)
    assert a.verdict == "unknown"  # both deals take the real clock more than a minute
    assert 5.0 <= a.seconds <= 15.0  # timed by the same clock, a few readings past the budget
    assert 0 < a.nodes < 20_000
