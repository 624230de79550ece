"""Difficulty grades of the catalogued deals (app/engine/solver/grading.py, docs/difficulty.md)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from app.engine import Game, deal_from_number
from app.engine.solver import (
    DIFFICULTIES,
    deal_difficulty,
    random_winnable_deal,
    winnable_deals,
)
from app.engine.solver.catalogs import CATALOG_DIR, catalog_path, load_catalog_file
from app.engine.solver.cli import main as cli_main
from app.engine.solver.grading import (
    HELD_OUT_SEED,
    MAX_STEPS,
    PLAYERS,
    Measures,
    grade_all,
    opening_share,
    play,
    play_log,
)

VARIANTS = ["scorpion", "scorpion-ii", "wasp", "wasp-ii"]
# Every variant whose shipped catalog is graded (the family's catalogs included).
GRADED = sorted(p.stem for p in CATALOG_DIR.glob("*.json") if "grades" in json.loads(p.read_text()))


@pytest.mark.parametrize("player", sorted(PLAYERS))
@pytest.mark.parametrize("variant", GRADED)
def test_scripted_players_only_play_hints_and_the_deal(variant: str, player: str) -> None:
    for number in winnable_deals(variant)[:3]:
        deal = deal_from_number(number, variant)
        for seed in (0, 1):
            won, log = play_log(variant, deal, PLAYERS[player], seed)
            game = Game.new(variant, deal)
            for action in log:
                if action[0] == "deal":
                    assert game.can_deal
                else:  # a column move, or a move of a reserve or cell (six fields)
                    assert tuple(action[1:]) in game.hints(), (variant, number, seed, action)
                game.apply(action)  # the engine refuses an illegal step
            assert game.won == won
            if not won:
                # a game is given up only after the deal, or at the step limit (long
                # two-deck games reach it)
                assert not game.can_deal or len(log) >= MAX_STEPS


@pytest.mark.parametrize("player", sorted(PLAYERS))
def test_scripted_players_are_deterministic_per_seed(player: str) -> None:
    deal = deal_from_number(winnable_deals("scorpion")[1])
    logs = {seed: play_log("scorpion", deal, PLAYERS[player], seed) for seed in range(4)}
    for seed, result in logs.items():
        assert play_log("scorpion", deal, PLAYERS[player], seed) == result
    if player != "cautious":  # the cautious player's ties are rare: its lines may coincide
        assert len({tuple(log) for _, log in logs.values()}) > 1


def test_a_winning_script_wins_through_the_engine() -> None:
    for number in winnable_deals("scorpion")[:20]:
        deal = deal_from_number(number)
        won, log = play_log("scorpion", deal, PLAYERS["greedy"], 0)
        if won:
            assert Game.replay("scorpion", deal, log).won
            return
    pytest.fail("the greedy player won none of 20 catalogued deals")


def test_opening_share_is_a_share() -> None:
    share = opening_share("scorpion", deal_from_number(winnable_deals("scorpion")[0]))
    assert 0.0 < share <= 1.0  # a catalogued deal: some opening action keeps it winnable


def test_grades_follow_the_combined_score() -> None:
    measures = {n: Measures(n / 9, n / 9, n / 9) for n in range(9)}
    grades, (low, high) = grade_all(measures)
    assert [grades[n] for n in range(9)] == ["hard"] * 3 + ["medium"] * 3 + ["easy"] * 3
    assert low < high
    # one measure high, two lowest: the mean of the ranks, not one measure, decides
    measures[9] = Measures(1.0, 0.0, 0.0)
    grades, _ = grade_all(measures)
    assert grades[9] != "easy"


def test_the_family_catalogs_are_graded() -> None:
    assert set(VARIANTS) | {"scorpion-head"} <= set(GRADED)


@pytest.mark.parametrize("variant", GRADED)
def test_every_catalogued_deal_has_a_grade_and_grades_are_balanced(variant: str) -> None:
    data = load_catalog_file(catalog_path(variant), variant)
    assert set(data["grades"]) == set(data["deals"])
    assert set(data["measures"]) == set(data["deals"])
    assert set(data["grades"].values()) == set(DIFFICULTIES)
    n = len(data["deals"])
    for difficulty in DIFFICULTIES:
        share = len(winnable_deals(variant, difficulty)) / n
        assert 0.25 <= share <= 0.42, (variant, difficulty, share)
    assert sum(len(winnable_deals(variant, d)) for d in DIFFICULTIES) == n
    grading = data["grading"]
    assert grading["thresholds"][0] < grading["thresholds"][1]
    evidence = grading["evidence"]
    separating = 0
    for player in PLAYERS:  # the stored held-out evidence separates the grades ...
        rates = [evidence[d][player] for d in DIFFICULTIES]
        if rates[0] < 0.05:
            continue  # ... for every player that wins at all (Wasp: random, cautious do not)
        assert rates[2] < rates[0], (variant, player, rates)
        if variant in VARIANTS:
            assert rates[0] > rates[1] > rates[2], (variant, player, rates)
        separating += rates[0] > rates[1] > rates[2]
    # The family's catalogs: hard below easy for every player that wins, and at least one
    # player falls strictly from easy to medium to hard (Three Blind Mice: easy and medium are
    # close; Double Scorpion: medium and hard, on small samples; docs/difficulty.md).
    assert separating >= 1


def _held_out_rate(variant: str, numbers: tuple[int, ...], player: str, seeds: int) -> float:
    games = [
        play(variant, deal_from_number(n, variant), PLAYERS[player], HELD_OUT_SEED + 7919 * s, 150)
        for n in numbers
        for s in range(seeds)
    ]
    return sum(games) / len(games)


@pytest.mark.parametrize("variant", VARIANTS)
def test_held_out_win_rate_falls_from_easy_to_hard(variant: str) -> None:
    # A sample of each grade, the rule-based player kept out of the measure, unseen seeds
    # (and a shorter step limit, to keep the test fast).
    wasp = variant in ("wasp", "wasp-ii")
    size = 20  # every 5th deal of a grade: with fewer, two games a deal are too few to tell
    # medium from hard in Wasp (12 a grade did not, after the regrade of 3 December)
    sample = {d: winnable_deals(variant, d)[::5][:size] for d in DIFFICULTIES}
    # The cautious player almost never wins Wasp or Wasp II (it does not use the free empty
    # columns), so there the greedy player stands in, on seeds the measure never used.
    player = "greedy" if wasp else "cautious"
    rates = [_held_out_rate(variant, sample[d], player, 2) for d in DIFFICULTIES]
    assert rates[0] > rates[1] > rates[2], (variant, rates)


@pytest.mark.parametrize("variant", GRADED)
def test_graded_lookups(variant: str) -> None:
    for difficulty in DIFFICULTIES:
        deals = winnable_deals(variant, difficulty)
        assert set(deals) <= set(winnable_deals(variant))
        picks = {random_winnable_deal(variant, random.Random(s), difficulty) for s in range(10)}
        assert picks <= set(deals)
        assert all(deal_difficulty(variant, n) == difficulty for n in picks)
    assert deal_difficulty(variant, 10**9 + 7) is None
    with pytest.raises(ValueError, match="difficulty"):
        winnable_deals(variant, "impossible")


def test_grade_command_writes_a_catalog_the_loader_reads(tmp_path: Path) -> None:
    shipped = load_catalog_file(catalog_path("scorpion"), "scorpion")
    numbers = sorted(shipped["deals"], key=int)[:6]
    small = {
        "variant": "scorpion",
        "format": 1,
        "scanned": shipped["scanned"],
        "deals": {k: shipped["deals"][k] for k in numbers},
    }
    out = tmp_path / "scorpion.json"
    out.write_text(json.dumps(small))
    assert cli_main(["grade", "--variant", "scorpion", "--out", str(out), "--runs", "2"]) == 0
    data = load_catalog_file(out, "scorpion")
    assert data["deals"] == small["deals"]
    assert set(data["grades"]) == set(numbers)
    assert set(data["grades"].values()) <= set(DIFFICULTIES)
    assert data["grading"]["runs"] == 2
    assert set(data["grading"]["evidence"]) == set(DIFFICULTIES)
