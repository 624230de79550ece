"""Every rule that declares a position lost must be sound.

Winning lines found with all pruning switched off (``prune=False``: plain exhaustive search)
pass only through winnable positions, so the loss proof must stay silent on every one of them.
The pruned solver must also agree with the exhaustive one wherever both decide.
"""

from __future__ import annotations

import json
import random
from functools import cache

import pytest

from app.engine import ALL_VARIANTS, Game, deal_from_number, get_variant
from app.engine.game import Action
from app.engine.solver import Position, dead_reason, solve, solve_deal
from app.engine.solver.family import solve_family
from app.engine.solver.family_search import FamilySearch
from app.engine.solver.search import PlainSearch, run_search
from tests.support.brute import brute_force, small_position

VARIANTS = ["scorpion", "scorpion-ii", "wasp"]


@cache
def unpruned_wins(variant: str) -> list[tuple[int, list[Action]]]:
    """(deal number, line) for deals the exhaustive search wins within a node budget.

    The pruned solver only picks the candidates (cheaply); the lines come from plain search.
    """
    out: list[tuple[int, list[Action]]] = []
    for number in range(1, 400):
        deal = deal_from_number(number)
        quick = solve(Position.from_deal(variant, deal), max_seconds=None, max_nodes=30_000)
        if quick.verdict != "win":
            continue
        plain = solve(
            Position.from_deal(variant, deal), prune=False, max_seconds=None, max_nodes=15_000
        )
        if plain.verdict == "win":
            assert plain.line is not None
            out.append((number, plain.line))
        if len(out) >= 8:
            break
    return out


def positions_on(variant: str, number: int, line: list[Action]) -> list[Position]:
    game = Game.new(variant, deal_from_number(number))
    out = [Position.from_game(game)]
    for action in line:
        game.apply(action)
        if not game.won:
            out.append(Position.from_game(game))
    assert game.won
    return out


@pytest.mark.parametrize("variant", VARIANTS)
def test_no_position_on_an_unpruned_winning_line_is_declared_lost(variant: str) -> None:
    wins = unpruned_wins(variant)
    assert len(wins) >= 5, "too few lines to test with"
    checked = 0
    for number, line in wins:
        for pos in positions_on(variant, number, line):
            assert dead_reason(pos) == "", (number, dead_reason(pos))
            assert not PlainSearch(pos, prune=True).is_dead(), number
            checked += 1
    assert checked > 200


@pytest.mark.parametrize("variant", VARIANTS)
def test_pruned_solver_never_calls_a_winnable_position_lost(variant: str) -> None:
    for number, line in unpruned_wins(variant):
        positions = positions_on(variant, number, line)
        for pos in positions[:: max(1, len(positions) // 6)]:
            r = solve(pos, max_seconds=None, max_nodes=100_000)
            assert r.verdict != "loss", (number, r.reason)


@pytest.mark.parametrize("variant", VARIANTS)
def test_pruned_lines_never_cross_a_position_the_full_check_calls_lost(variant: str) -> None:
    # The search skips the full check after moves that cannot add a constraint; the full check
    # on every position of its winning lines shows that the skipping lost nothing.
    found = 0
    for number in range(1, 200 if variant != "wasp" else 25):
        r = solve(
            Position.from_deal(variant, deal_from_number(number)),
            max_seconds=None,
            max_nodes=20_000,
        )
        if r.verdict != "win":
            continue
        assert r.line is not None
        found += 1
        for pos in positions_on(variant, number, r.line):
            assert dead_reason(pos) == ""
    assert found >= 5


def test_exhaustive_and_pruned_verdicts_agree() -> None:
    agree = 0
    for number in range(1, 60):
        pos = Position.from_deal("scorpion-ii", deal_from_number(number))
        plain = solve(pos, prune=False, max_seconds=None, max_nodes=15_000)
        if plain.verdict == "unknown":
            continue
        pruned = solve(pos, max_seconds=None, max_nodes=200_000)
        assert pruned.verdict == plain.verdict, number
        agree += 1
    assert agree >= 5


@pytest.mark.parametrize("variant", ["scorpion", "scorpion-ii", "wasp", "wasp-ii"])
def test_fast_check_equals_the_general_one(variant: str) -> None:
    # Random play reaches all sorts of positions, most of them lost: the two implementations
    # of the rule must give the same answer on every one.
    rng = random.Random(11)
    dead = alive = 0
    for number in range(1, 61):
        game = Game.new(variant, deal_from_number(number))
        for _ in range(40):
            s = PlainSearch(Position.from_game(game), prune=True)
            general = bool(s.dead_reason())
            assert s.is_dead() == general, (number, game.position_key())
            dead += general
            alive += not general
            options: list[Action] = [("move", *m) for m in game.legal_moves()]
            if game.stock:
                options.append(("deal",))
            if not options or game.won:
                break
            game.apply(rng.choice(options))
    assert dead > 50 and alive > 50


def _small_position(rng: random.Random, variant: str, suits: int) -> Position:
    """A random position with the stock dealt: ``suits`` suits left, in seven columns."""
    kept = rng.sample(range(4), suits)
    cards = [s * 13 + r for s in kept for r in range(13)]
    rng.shuffle(cards)
    cols: list[list[int]] = [[] for _ in range(7)]
    for card in cards:
        cols[rng.randrange(7)].append(card)
    hidden = [rng.randrange(0, len(c)) if c else 0 for c in cols]
    game = Game.from_snapshot(
        json.dumps(
            {
                "v": 1,
                "variant": variant,
                "cols": cols,
                "hidden": hidden,
                "stock": [],
                "done": [s for s in range(4) if s not in kept],
                "hist": [],
                "fut": [],
            }
        )
    )
    return Position.from_game(game)


def _verdict(pos: Position, *, prune: bool, new_rules: bool, nodes: int) -> str:
    s = PlainSearch(pos, prune)
    if not new_rules:
        s.merge_first = s.wasp_joins = False
    return run_search(s, None, nodes, won=s.done == 4, prove=prune, stats=dict).verdict


@pytest.mark.parametrize("variant", ["wasp"])
def test_forced_joins_and_merge_first_agree_with_search_without_them(variant: str) -> None:
    # ``PlainSearch.forced_join`` and ``PlainSearch.joins_instead`` (Wasp, stock dealt) never
    # change a verdict: compared with the same search without them and with plain exhaustive search,
    # on small random positions and on positions of winning lines.
    rng = random.Random(5)
    positions = [_small_position(rng, variant, 1 + k % 2) for k in range(400)]
    for number in range(1, 40):
        r = solve(Position.from_deal(variant, deal_from_number(number)), max_nodes=20_000)
        if r.verdict == "win" and r.line is not None:
            ps = [p for p in positions_on(variant, number, r.line) if not p.stock]
            positions += ps[-60::6]
    counts = {"win": 0, "loss": 0}
    for pos in positions:
        with_rules = _verdict(pos, prune=True, new_rules=True, nodes=40_000)
        without = _verdict(pos, prune=True, new_rules=False, nodes=40_000)
        plain = _verdict(pos, prune=False, new_rules=False, nodes=40_000)
        decided = {v for v in (with_rules, without, plain) if v != "unknown"}
        assert len(decided) <= 1, (pos, with_rules, without, plain)
        if with_rules != "unknown" and (without != "unknown" or plain != "unknown"):
            counts[with_rules] += 1
    assert counts["win"] >= 100 and counts["loss"] >= 20, counts


# -- the family's proof of loss (``app/engine/solver/proof.py``) --------------------------------

FAMILY = [v for v in ALL_VARIANTS if not ALL_VARIANTS[v].plain]


def _family_dead(game: Game) -> str:
    return FamilySearch(game).dead_reason()


@pytest.mark.parametrize("variant", FAMILY)
def test_family_proof_never_calls_a_winnable_small_position_lost(variant: str) -> None:
    # Random small positions (one run's cards, or two runs' cards where a card has two parents
    # in play: alternate colours, two or three decks), decided by brute force through the
    # engine: wherever the proof fires, no line wins. Without cells it must fire often.
    fired = judged = 0
    shapes = [(False, 0.0), (True, 0.6), (False, 0.4)]
    for seed in range(30):
        two, chain = shapes[seed % 3]
        game = small_position(variant, 7000 + seed, two=two, chain=chain)
        dead = _family_dead(game)
        try:
            winnable = brute_force(game, 6_000)
        except AssertionError:
            continue  # too large for the brute force
        judged += 1
        assert not (dead and winnable), (variant, seed, dead)
        fired += bool(dead)
    assert judged >= 15, judged
    assert fired >= (0 if get_variant(variant).cells else 5), (judged, fired)


# Positions a weaker rule would wrongly call lost (found by weakening each rule in turn and
# keeping the positions brute force wins): the proof must stay silent on every one.
#   (rule pinned, variant, generator seed, two runs, chain)
PINS = [
    # alternate colours: a joined card may still leave for its other parent
    ("joined card leaves for another parent", "scorpion-tail", 1, True, 0.6),
    ("joined card leaves for another parent", "scorpion-tail", 11, True, 0.6),
    # several decks: a card may join any copy of its parent
    ("every copy of a parent", "double-scorpion", 0, True, 0.6),
    # a reserve card can be joined once it left the reserve
    ("a reserve parent after it leaves", "three-blind-mice", 0, False, 0.3),
    ("a reserve parent after it leaves", "three-blind-mice", 1, False, 0.3),
    # free cells: any exposed card may leave for a cell
    ("a card leaves for a cell", "scorpion-head", 0, False, 0.3),
    ("a card leaves for a cell", "scorpion-head", 2, False, 0.3),
    # every cell full: a cell frees when one of its cards leaves
    ("a cell frees when its card leaves", "how-they-run", 12, False, 0.3),
    ("a cell frees when its card leaves", "how-they-run", 16, False, 0.3),
    # a parent still in the stock is of unknown place
    ("a parent in the stock", "scorpion-tail", 1, False, 0.3),
    ("a parent in the stock", "scorpion-tail", 5, False, 0.3),
]


@pytest.mark.parametrize(("rule", "variant", "seed", "two", "chain"), PINS)
def test_family_proof_keeps_each_weakening_it_needs(
    rule: str, variant: str, seed: int, two: bool, chain: float
) -> None:
    game = small_position(variant, seed, two=two, chain=chain)
    assert brute_force(game, 200_000), rule
    assert _family_dead(game) == "", rule


@pytest.mark.parametrize(
    "variant", ["scorpion-tail", "farmers-wife", "double-scorpion", "triple-scorpion"]
)
def test_family_proof_never_fires_on_an_unpruned_winning_line(variant: str) -> None:
    # Lines found by plain exhaustive search (no proof) pass only through winnable positions.
    checked = lines = 0
    for number in range(1, 60):
        deal = deal_from_number(number, variant)
        plain = solve_deal(variant, deal, None, max_nodes=3_000, prune=False)
        if plain.verdict != "win":
            continue
        assert plain.line is not None
        lines += 1
        game = Game.new(variant, deal)
        for action in plain.line[:-1]:
            game.apply(action)
            assert _family_dead(game) == "", (number, action)
            checked += 1
        if lines >= 5:
            break
    assert lines >= 3 and checked > 100, (lines, checked)


@pytest.mark.parametrize("variant", FAMILY)
def test_family_pruned_and_exhaustive_verdicts_agree(variant: str) -> None:
    # Small positions the plain exhaustive search decides: the proof may only make it faster.
    agree = 0
    for seed in range(24):
        game = small_position(variant, 9000 + seed, two=seed % 2 == 1, chain=0.5)
        plain = solve_family(game, max_seconds=None, max_nodes=4_000, prune=False)
        if plain.verdict == "unknown":
            continue
        pruned = solve_family(game, max_seconds=None, max_nodes=40_000)
        assert pruned.verdict == plain.verdict, (variant, seed)
        agree += 1
    assert agree >= 10, agree


def _random_layout(rng: random.Random, variant: str) -> Position:
    """A random position of all 52 cards (some suits joined in runs, a stock of three or none,
    now and then an empty column): the layouts random play seldom reaches."""
    cards = list(range(52))
    rng.shuffle(cards)
    stock = [cards.pop() for _ in range(3)] if rng.random() < 0.4 else []
    cols: list[list[int]] = [[] for _ in range(7)]
    used = list(range(7)) if rng.random() < 0.8 else rng.sample(range(7), 6)
    for card in cards:
        fits = [c for c in used if cols[c] and cols[c][-1] == card + 1]
        if fits and rng.random() < 0.6:
            cols[fits[0]].append(card)
        else:
            cols[rng.choice(used)].append(card)
    hidden = [rng.randrange(0, min(4, len(c))) if c else 0 for c in cols]
    game = Game.from_snapshot(
        json.dumps(
            {
                "v": 1,
                "variant": variant,
                "cols": cols,
                "hidden": hidden,
                "stock": stock,
                "done": [],
                "hist": [],
                "fut": [],
            }
        )
    )
    return Position.from_game(game)


@pytest.mark.parametrize("variant", ["wasp", "wasp-ii"])
def test_fast_wasp_check_equals_the_general_one_on_random_layouts(variant: str) -> None:
    # ``PlainSearch.is_dead`` in Wasp (no empty column: Scorpion's propagation, alive once a
    # deepest card can leave) against the clause proof ``dead_reason_of``, on layouts with
    # and without a stock and an empty column.
    rng = random.Random(23)
    dead = alive = 0
    for _ in range(3000):
        pos = _random_layout(rng, variant)
        s = PlainSearch(pos, prune=True)
        general = bool(s.dead_reason())
        assert s.is_dead() == general, pos
        dead += general
        alive += not general
    assert dead > 300 and alive > 300, (dead, alive)


def _fills_agree(s: PlainSearch) -> tuple[int, int]:
    """With one column empty: ``fills_stay_alive`` / ``fill_is_dead`` against ``is_dead`` after
    each move they answer for. Returns (dead, alive) of the positions compared."""
    cols = s.cols
    empty = [t for t in range(7) if not cols[t]]
    assert len(empty) == 1
    state = s.fills_stay_alive()
    dead = alive = 0
    for a in range(7):
        col = cols[a]
        for i in range(max(1, s.hidden[a]), len(col)):
            fast = s._fill(state, a, i)
            rec = s.make_move(a, i, empty[0])
            full = s.is_dead()
            removed = rec[5] & 1
            s.unmake_move(rec)
            if removed:
                continue  # a run removed: ``dfs`` asks the proof itself
            assert fast == full, (a, i, cols, s.hidden, s.stock)
            dead += full
            alive += not full
    return dead, alive


@pytest.mark.parametrize("variant", ["wasp", "wasp-ii"])
def test_fill_checks_from_the_parent_equal_the_check_after_the_move(variant: str) -> None:
    # ``PlainSearch.fill_is_dead`` resumes the parent's propagation (empty column left out)
    # with the clauses the move relaxes: it must answer what ``is_dead`` answers after the
    # move, on random layouts with one empty column and on positions the search reaches.
    rng = random.Random(31)
    dead = alive = 0
    for _ in range(1500):
        pos = _random_layout(rng, variant)
        if sum(not c for c in pos.cols) != 1:
            continue
        d, a = _fills_agree(PlainSearch(pos, prune=True))
        dead += d
        alive += a
    assert dead > 200 and alive > 200, (dead, alive)
    searched = [0, 0]
    for number in range(1, 16):
        s = _ComparingFills(Position.from_deal(variant, deal_from_number(number, variant)))
        run_search(s, None, 3000, won=False, prove=True, stats=dict)
        searched[0] += s.compared[0]
        searched[1] += s.compared[1]
    assert searched[0] > 200 and searched[1] > 200, searched


class _ComparingFills(PlainSearch):
    """The search, comparing every answer of ``fill_is_dead`` where it asks for them."""

    def __init__(self, pos: Position) -> None:
        super().__init__(pos, True)
        self.inside = False
        self.compared = [0, 0]

    def fills_stay_alive(self):  # type: ignore[no-untyped-def]
        state = super().fills_stay_alive()
        if not self.inside:
            self.inside = True
            d, a = _fills_agree(self)
            self.compared[0] += d
            self.compared[1] += a
            self.inside = False
        return state


class _CountingLifts(PlainSearch):
    """The search with or without ``idle_lift``, counting the lifts it skips; ``reveals``: a
    mutant that skips lifts off a face-down successor too (which turn it face up)."""

    def __init__(self, pos: Position, lift_rule: bool, reveals: bool = False) -> None:
        super().__init__(pos, True)
        self.lift_rule = lift_rule
        self.reveals = reveals
        self.skipped = 0

    def idle_lift(self, c: int, i: int) -> bool:
        skip = super().idle_lift(c, i)
        if self.reveals and i == self.hidden[c]:
            hidden, self.hidden[c] = self.hidden[c], i - 1
            skip = super().idle_lift(c, i)
            self.hidden[c] = hidden
        self.skipped += skip
        return skip


def _full_layout(rng: random.Random, suits: int, chain: float, hide: float) -> Position:
    """A random position with the stock dealt: ``suits`` suits left, in all seven columns, a
    card laid on its successor with chance ``chain``, face-down cards in some columns."""
    kept = rng.sample(range(4), suits)
    cards = [s * 13 + r for s in kept for r in range(13)]
    rng.shuffle(cards)
    cols: list[list[int]] = [[] for _ in range(7)]
    for card in cards:
        fits = [c for c in range(7) if cols[c] and cols[c][-1] == card + 1]
        if fits and rng.random() < chain:
            cols[fits[0]].append(card)
        else:
            cols[rng.randrange(7)].append(card)
    hidden = [
        rng.randrange(0, max(1, len(c) - 1)) if c and rng.random() < hide else 0 for c in cols
    ]
    done = [s for s in range(4) if s not in kept]
    snap = {"v": 1, "variant": "wasp", "cols": cols, "hidden": hidden, "stock": [], "done": done}
    return Position.from_game(Game.from_snapshot(json.dumps({**snap, "hist": [], "fut": []})))


def _lift_positions() -> list[Position]:
    rng = random.Random(41)
    out = [_small_position(rng, "wasp", 1 + k % 3) for k in range(150)]
    for k in range(600):
        out.append(_full_layout(rng, 1 + k % 3, (0.3, 0.5, 0.7)[k % 3], (0.5, 0.8)[k % 2]))
    for _ in range(300):  # more lost ones
        out.append(_full_layout(rng, 3, 0.3, 0.8))
    return [p for p in out if len(p.completed) < 4]


def _lift_verdicts(pos: Position, reveals: bool = False) -> tuple[str, str, int]:
    with_rule = _CountingLifts(pos, True, reveals)
    a = run_search(with_rule, None, 5_000, won=False, prove=True, stats=dict).verdict
    without = _CountingLifts(pos, False)
    b = run_search(without, None, 5_000, won=False, prove=True, stats=dict).verdict
    return a, b, with_rule.skipped


def test_idle_lifts_skipped_keep_every_verdict() -> None:
    # ``PlainSearch.idle_lift`` (Wasp, stock dealt): the search with the rule and without it
    # agree wherever both decide, on small random positions (one to three suits in play),
    # lost and won ones where the rule skipped moves.
    counts = {"win": 0, "loss": 0}
    for pos in _lift_positions():
        a, b, skipped = _lift_verdicts(pos)
        assert "unknown" in (a, b) or a == b, (pos, a, b)
        if skipped and a != "unknown" and b != "unknown":
            counts[a] += 1
    assert counts["win"] >= 200 and counts["loss"] >= 15, counts


def test_a_lift_rule_skipping_reveals_too_is_caught() -> None:
    # The same comparison catches a looser rule: lifts off a face-down successor skipped too.
    wrong = 0
    for pos in _lift_positions()[:300]:
        a, b, _ = _lift_verdicts(pos, reveals=True)
        wrong += a == "loss" and b == "win"
    assert wrong >= 5, wrong
