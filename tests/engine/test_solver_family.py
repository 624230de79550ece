"""The solver against a brute-force search through the engine, for every variant of the family.

Small positions (most cards already removed in runs; the rest spread at random over the
columns, face-down places, reserves, cells and the stock) are decided twice: by the solver
(``solve_game``: the plain search for the first four variants, ``family.py`` for the others)
and by an exhaustive depth-first search that only calls ``Game`` (``legal_moves``, ``move``,
``deal``, ``undo``). Both verdicts must agree, wins and losses alike, and every winning line
must win when replayed through the engine.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import pytest

from app.engine import ALL_VARIANTS, Game, deal_from_number, get_variant
from app.engine.solver import analyse, decode_line, encode_line, solve_deal, verify_line
from app.engine.solver.api import solve_game
from app.engine.solver.catalogs import winnable_deals, winning_line
from app.engine.solver.family import solve_family, win_first_share
from app.engine.solver.family_search import FamilySearch, ProofSchedule
from app.engine.solver.search import run_search
from tests.support.brute import brute_force, small_position


@pytest.fixture(autouse=True)
def _pure_python_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests pin the pure-Python reference pipeline (its node counts and budget
    shares); ``test_solver_core.py`` holds the compiled core to it."""
    monkeypatch.setenv("SOLVER_CORE", "py")


VARIANT_IDS = list(ALL_VARIANTS)


@cache
def verdicts(variant: str) -> list[tuple[int, bool]]:
    """(seed, brute-force verdict) of the sample positions of ``variant``."""
    seeds = 12 if get_variant(variant).empty_accepts_any else 40
    return [(seed, brute_force(small_position(variant, seed))) for seed in range(seeds)]


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_the_solver_agrees_with_brute_force_on_small_positions(variant: str) -> None:
    wins = losses = 0
    for seed, winnable in verdicts(variant):
        game = small_position(variant, seed)
        result = solve_game(game, max_seconds=None, max_nodes=2_000_000)
        assert result.verdict == ("win" if winnable else "loss"), (variant, seed)
        if winnable:
            assert result.line is not None and verify_line(game, result.line), (variant, seed)
            assert decode_line(encode_line(result.line)) == result.line
            wins += 1
        else:
            losses += 1
    # Wasp's empty columns take any card: thirteen cards of one suit always come home there
    assert wins >= 5 and (losses >= 3 or get_variant(variant).empty_accepts_any), (wins, losses)


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_positions_on_a_winning_line_stay_winnable(variant: str) -> None:
    """Every position a verified winning line passes through is called winnable again."""
    seed = next(s for s, w in verdicts(variant) if w)
    game = small_position(variant, seed)
    line = solve_game(game, max_seconds=None).line
    assert line is not None
    for action in line[:-1]:
        game.apply(action)
        again = analyse(game, budget_seconds=60.0)
        assert again.verdict == "win" and again.line is not None


# Deals the solver wins within a few thousand nodes (found with it; the lines verify).
KNOWN_WINS = {
    "scorpion-tail": (3, 4, 6),
    "scorpion-head": (2, 3, 4),
    "three-blind-mice": (3, 7, 17),
    "farmers-wife": (1, 3, 4),
    "how-they-run": (2, 3, 7),
    "double-scorpion": (4, 5, 6),
    "triple-scorpion": (1, 2, 7),
}


@pytest.mark.parametrize("variant", sorted(KNOWN_WINS))
def test_known_winnable_deals_are_won_with_engine_lines(variant: str) -> None:
    """Every line is verified (in ``solve_deal``) and uses the engine's own actions, pile
    moves included where the variant has reserves or cells."""
    pile_moves = 0
    for number in KNOWN_WINS[variant]:
        a = solve_deal(variant, deal_from_number(number, variant), None, max_nodes=10_000)
        assert a.verdict == "win" and a.line is not None, number
        game = Game.new(variant, deal_from_number(number, variant))
        assert verify_line(game, decode_line(encode_line(a.line)))
        pile_moves += sum(1 for step in a.line if len(step) == 6)
    v = get_variant(variant)
    assert (pile_moves > 0) == bool(v.reserves or v.cells)


@pytest.mark.parametrize(
    "variant", [v for v in VARIANT_IDS if winnable_deals(v) and not get_variant(v).plain]
)
def test_catalogued_deals_are_found_winnable_again(variant: str) -> None:
    for number in winnable_deals(variant)[:3]:
        line = winning_line(variant, number)
        game = Game.new(variant, deal_from_number(number, variant))
        assert line is not None and verify_line(game, line)
        a = solve_deal(variant, deal_from_number(number, variant), None, max_nodes=500_000)
        assert a.verdict == "win"


def test_symmetric_moves_are_merged_not_lost() -> None:
    """Scorpion Head: only the first empty cell and column are tried, yet a position that
    needs a particular cell arrangement is still won (cells are interchangeable)."""
    for seed in range(40):
        game = small_position("scorpion-head", seed)
        if any(c >= 0 for c in game.cells) and brute_force(game):
            assert solve_game(game, max_seconds=None).verdict == "win"


def test_three_blind_mice_loss_proof_never_fires_on_a_winning_line() -> None:
    """The "must leave first" proof (on in Three Blind Mice) stays silent on every position
    that a line found by plain exhaustive search (no proof) passes through, and the pruned
    and plain searches agree wherever both decide."""
    variant = "three-blind-mice"
    checked = agreed = 0
    for number in range(1, 80):
        deal = deal_from_number(number, variant)
        plain = solve_deal(variant, deal, None, max_nodes=5_000, prune=False)
        pruned = solve_deal(variant, deal, None, max_nodes=5_000)
        if "unknown" not in (plain.verdict, pruned.verdict):
            assert plain.verdict == pruned.verdict, number
            agreed += 1
        if plain.verdict != "win":
            continue
        assert plain.line is not None
        game = Game.new(variant, deal)
        for action in plain.line[:-1]:
            game.apply(action)
            assert FamilySearch(game).dead_reason() == "", (number, action)
            checked += 1
    assert checked > 100 and agreed > 10


def test_three_blind_mice_budget_goes_mostly_to_the_complete_search() -> None:
    """Three Blind Mice's win-first phase gets 5% of a budget (``family.win_first_share``):
    within 44,000 positions, deal 1571 (lost; its proof takes ~23,400 positions of the
    complete search, more than half the budget) is proved lost, and deal 4467 (won; the
    complete search alone had not found it after 140,000 positions) is won by the phase."""
    assert win_first_share(get_variant("three-blind-mice")) == 0.05
    assert win_first_share(get_variant("scorpion-head")) == 0.5
    lost = solve_deal(
        "three-blind-mice", deal_from_number(1571, "three-blind-mice"), None, max_nodes=44_000
    )
    assert lost.verdict == "loss"
    won = solve_deal(
        "three-blind-mice", deal_from_number(4467, "three-blind-mice"), None, max_nodes=44_000
    )
    assert won.verdict == "win" and won.line is not None  # solve_deal replayed the line


@pytest.mark.parametrize(
    ("variant", "number", "nodes"),
    [
        ("double-scorpion", 3788, 16_000),
        ("triple-scorpion", 1861, 7_000),
        ("scorpion-tail", 2692, 16_000),
    ],
)
def test_budget_goes_mostly_to_the_win_first_phase(variant: str, number: int, nodes: int) -> None:
    """Double and Triple Scorpion's and Scorpion Tail's win-first phase gets 90% of a budget:
    within ``nodes`` positions the deal (undecided after 10 s with half the budget to the
    phase) is won by the phase, which finds its line after ~14,300 (Double deal 3788), ~6,100
    (Triple deal 1861) or ~13,800 (Tail deal 2692) positions; with half the budget to the
    phase it stays undecided."""
    assert win_first_share(get_variant(variant)) == 0.9
    deal = deal_from_number(number, variant)
    won = solve_deal(variant, deal, None, max_nodes=nodes)
    assert won.verdict == "win" and won.line is not None  # solve_deal replayed the line
    half = solve_family(Game.new(variant, deal), max_seconds=None, max_nodes=nodes, win_first=0.5)
    assert half.verdict == "unknown"


RULES = ("sure_joins", "run_joins", "cell_joins")


def _complete_search(game: Game, **rules: bool) -> tuple[str, FamilySearch]:
    """The complete search alone (no proof of loss, no win-first phase) with the sure joins
    ``rules`` switches on (of ``RULES``, where the variant has them) and the others off: its
    verdict, and the search (what it counted)."""
    s = FamilySearch(game)
    s.prove = False
    for rule in RULES:
        setattr(s, rule, getattr(s, rule) and rules.get(rule, False))
    result = run_search(s, None, None, won=s.done == s.runs_needed, prove=False, stats=dict)
    return result.verdict, s


def _where_it_fires(
    variant: str,
    chain: float,
    seeds: int,
    on: dict[str, bool],
    off: dict[str, bool],
    fired: Callable[[FamilySearch], bool],
) -> list[tuple[str, FamilySearch]]:
    """On small positions of ``variant`` where a rule fires (``fired`` by the search with the
    rules ``on``), the verdict with them agrees with the verdict with the rules ``off`` and,
    where one run is in play, with brute force through the engine: each one's (verdict,
    search with the rules on)."""
    out = []
    for seed in range(seeds):
        for two in (False, True):
            game = small_position(variant, seed, two=two, chain=chain)
            verdict, s = _complete_search(game, **on)
            if not fired(s):
                continue
            assert verdict == _complete_search(game, **off)[0], (seed, two)
            if not two:
                assert (verdict == "win") == brute_force(game), seed
            out.append((verdict, s))
    return out


@pytest.mark.parametrize("chain", [0.3, 0.7])
def test_how_they_run_cell_joins_keep_every_verdict(chain: float) -> None:
    """A cell card onto its successor lying at a column's open end on its own successor
    (``cell_join``), taken as the only move, changes no verdict: on small positions of How
    They Run where it fires, the complete search with the rule agrees with the search without
    it and, where one run is in play, with brute force through the engine; losses and wins
    alike."""
    found = _where_it_fires(
        "how-they-run", chain, 200, {"cell_joins": True}, {}, lambda s: s.cell_joins_taken > 0
    )
    wins = sum(v == "win" for v, _ in found)
    losses = sum(v == "loss" for v, _ in found)
    assert wins >= 30 and losses >= 10 and len(found) >= 80, (wins, losses, len(found))


@pytest.mark.parametrize(("variant", "chain"), [("how-they-run", 0.8), ("scorpion-head", 0.9)])
def test_king_run_joins_with_cells_keep_every_verdict(variant: str, chain: float) -> None:
    """With free cells (How They Run, Scorpion Head) a card joins its successor at the open
    end of a King run longer than the cells can hold as the only move (``king_run_join``):
    on small positions where it fires, the complete search with it agrees with the search
    without it and, where one run is in play, with brute force through the engine."""
    found = _where_it_fires(
        variant,
        chain,
        150,
        {"cell_joins": True, "run_joins": True},
        {"cell_joins": True},
        lambda s: s.run_joins_taken > 0,
    )
    wins = sum(v == "win" for v, _ in found)
    losses = sum(v == "loss" for v, _ in found)
    assert len(found) >= 30 and wins >= 10, (len(found), wins, losses)


def test_the_cell_join_is_only_taken_where_its_lemma_holds() -> None:
    """With three cells or more (Scorpion Head), a stock, reserves, alternate colours or several
    decks the cell join's lemma fails: the rule is on in How They Run only; the King-run
    join's needs one deck, same-suit building and no stock."""
    searches = {
        name: FamilySearch(Game.new(name, deal_from_number(1, name)))
        for name, v in ALL_VARIANTS.items()
        if not v.plain
    }
    assert {name for name, s in searches.items() if s.cell_joins} == {"how-they-run"}
    # the King-run join: one deck, same suit, no stock (with cells: a run they cannot hold)
    runs = {name for name, s in searches.items() if s.run_joins}
    assert runs == {"three-blind-mice", "how-they-run", "scorpion-head"}


@pytest.mark.parametrize("chain", [0.0, 0.6])
def test_three_blind_mice_sure_joins_keep_every_verdict(chain: float) -> None:
    """A reserve card onto its exposed successor (``reserve_join``) and a card onto its
    successor at the open end of a King-down run (``king_run_join``), each taken as the only
    move, change no verdict: on small positions where a rule fires, the complete search with
    the rules agrees with the search without them and, where one run is in play, with brute
    force through the engine; losses and wins alike, each rule many times."""
    found = _where_it_fires(
        "three-blind-mice",
        chain,
        150,
        {"sure_joins": True, "run_joins": True},
        {},
        lambda s: s.reserve_joins_taken + s.run_joins_taken > 0,
    )
    wins = sum(v == "win" for v, _ in found)
    losses = sum(v == "loss" for v, _ in found)
    by_reserve = sum(s.reserve_joins_taken > 0 for _, s in found)
    by_run = sum(s.run_joins_taken > 0 for _, s in found)
    assert wins >= 50 and losses >= 50 and by_reserve >= 100 and by_run >= 100, (
        wins,
        losses,
        by_reserve,
        by_run,
    )


def test_the_sure_joins_are_only_taken_where_their_lemmas_hold() -> None:
    """Cells (Scorpion Head, How They Run), alternate colours (Scorpion Tail, Farmer's Wife),
    several decks or a stock break the lemmas: the rules are on in Three Blind Mice only
    (the plain variants have ``search.py``'s own)."""
    family = [name for name, v in ALL_VARIANTS.items() if not v.plain]
    on = {
        name
        for name in family
        if FamilySearch(Game.new(name, deal_from_number(1, name))).sure_joins
    }
    assert on == {"three-blind-mice"}


def test_a_proof_that_seldom_fires_is_tried_less_often_until_it_fires_again() -> None:
    schedule = ProofSchedule()

    def run(tries: int, fires: int) -> int:
        """Offer positions until ``tries`` proofs were tried (``fires`` of them firing);
        returns how many positions were offered."""
        offered = done = 0
        while done < tries:
            offered += 1
            if schedule.due():
                schedule.record(done < fires)
                done += 1
        return offered

    assert run(256, 0) == 256  # at first on every position
    assert schedule.every == 2  # none of 256 fired: every 2nd from now on
    assert run(256, 7) == 512 and schedule.every == 4  # 7 of 256 is under 1 in 32
    run(256, 0)
    run(256, 0)
    assert schedule.every == 16
    run(256, 0)
    assert schedule.every == 16  # never sparser than every 16th
    assert run(256, 8) == 16 * 256 and schedule.every == 1  # 8 of 256 fired: every one again
