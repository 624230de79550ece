"""The compiled core (``app/engine/solver/_core.pyx``) against the pure-Python searches.

Both are complete searches, written apart: the pure-Python ones (``search.py``,
``family_search.py``, with their proofs of loss) are the reference. On positions of every
variant (along catalogued winning lines, and the same positions after a few random moves,
which are often lost), each with a small node budget, wherever both decide they must give the
same verdict, and every win either claims must replay through the engine. A position where
only one of them decides is counted, never compared; each variant must have at least 500
positions decided by both, wins and losses among them.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

import pytest

from app.engine import ALL_VARIANTS, Game
from app.engine.deals import deal_from_number
from app.engine.game import Action
from app.engine.solver import api, core
from app.engine.solver.catalogs import winnable_deals, winning_line
from app.engine.solver.proof import CHILDREN, PARENTS, family_dead_reason
from tests.engine.test_solver_soundness import PINS
from tests.support.brute import brute_force, small_position

NODES = 250  # each search's node budget on one position
WANTED = 500  # positions decided by both, per variant


def _positions(variant: str, rng: random.Random) -> Iterator[Game]:
    """Positions along catalogued winning lines (later steps first: smaller trees), each
    also after one to four random legal moves."""
    v = ALL_VARIANTS[variant]
    for number in winnable_deals(variant)[:60]:
        line = winning_line(variant, number)
        assert line is not None
        game = Game.new(v, deal_from_number(number, v))
        along = []
        for action in line:
            game.apply(action)
            if not game.won:
                along.append(game.copy())
        for g in reversed(along[len(along) // 3 :]):
            yield g
            h = g.copy()
            for _ in range(rng.randint(1, 4)):
                moves = h.legal_moves()
                if not moves or h.won:
                    break
                h.move(*rng.choice(moves))
            if not h.won:
                yield h


def _check_win(game: Game, line: list[tuple[object, ...]] | None, who: str) -> None:
    assert line is not None
    assert api.verify_line(game, line), f"{who}'s winning line does not replay"  # type: ignore[arg-type]


@pytest.mark.parametrize("variant", list(ALL_VARIANTS))
def test_compiled_core_agrees_with_the_python_search(variant: str) -> None:
    rng = random.Random(35)
    both = wins = losses = 0
    for game in _positions(variant, rng):
        c = core.compiled_search(game, max_seconds=None, max_nodes=NODES)
        py = api.solve_game(
            game, max_seconds=None, max_nodes=NODES, win_first=False, compiled=False
        )
        if c.verdict == "win":
            _check_win(game, c.line, "the compiled core")
        if py.verdict == "win":
            _check_win(game, py.line, "the Python search")
        if "unknown" in (c.verdict, py.verdict):
            continue
        assert c.verdict == py.verdict, (variant, game.to_snapshot())
        both += 1
        wins += c.verdict == "win"
        losses += c.verdict == "loss"
        if both >= WANTED and wins >= 50 and losses >= 5:
            break
    assert both >= WANTED, f"only {both} positions decided by both"
    assert wins and losses, (wins, losses)


@pytest.mark.parametrize("variant", ["scorpion", "three-blind-mice", "how-they-run"])
def test_sure_joins_keep_the_verdict(variant: str) -> None:
    """The core's sure joins (taken as the only move) against its own plain exhaustive
    search (``prune=False``) on positions both decide."""
    rng = random.Random(7)
    both = 0
    for game in _positions(variant, rng):
        a = core.compiled_search(game, max_seconds=None, max_nodes=2_000)
        b = core.compiled_search(game, max_seconds=None, max_nodes=2_000, prune=False)
        if "unknown" in (a.verdict, b.verdict):
            continue
        assert a.verdict == b.verdict
        both += 1
        if both >= 200:
            break
    assert both >= 200


def test_the_compiled_core_is_built() -> None:
    """``pip install -e .`` builds it (``setup.py``); the app falls back to Python without."""
    assert core.available()
    assert core.use_compiled()


@pytest.mark.parametrize("variant", ["scorpion", "wasp", "farmers-wife", "double-scorpion"])
def test_a_deal_is_decided_the_same_by_both_cores(variant: str) -> None:
    """Whole deals at a small node budget: the verdicts of ``solve_deal`` (the app's whole
    pipeline) with either core agree where both decide, and each line replays."""
    decided = {"py": 0, "c": 0}
    for number in range(1, 21):
        verdicts = {}
        for which in ("py", "c"):
            with pytest.MonkeyPatch.context() as mp:
                mp.setenv("SOLVER_CORE", which)
                r = api.solve_deal(
                    variant, deal_from_number(number, variant), None, max_nodes=3_000
                )
            verdicts[which] = r.verdict
            decided[which] += r.verdict != "unknown"
        if "unknown" not in verdicts.values():
            assert verdicts["py"] == verdicts["c"], number
    assert decided["c"] and decided["py"]


def _search(game: Game, cols: list[list[int]], hidden: list[int], stock: list[int]) -> object:
    v = game.variant
    return core._core.Search(  # type: ignore[union-attr]
        cols, hidden, stock, [], [], 0, v.stock, v.empty_accepts_any, v.alternate, v.decks, 4
    )


def test_the_key_merges_exactly_the_interchangeable_columns() -> None:
    """Before the deal the columns it reaches are told apart and the others are not; after
    it every column is interchangeable; a face-down count or a card changes the key."""
    game = Game.new("scorpion", deal_from_number(5))
    cols = [list(c) for c in game.cols]
    hidden = list(game.hidden)
    stock = list(game.stock)

    def key(order: list[int], st: list[int], hid: list[int] | None = None) -> object:
        h = hid if hid is not None else hidden
        return _search(game, [cols[i] for i in order], [h[i] for i in order], st).key()  # type: ignore[attr-defined]

    same = key(list(range(7)), stock)
    assert key([0, 1, 2, 3, 4, 6, 5], stock) == same  # columns 4-7 are alike before the deal
    assert key([1, 0, 2, 3, 4, 5, 6], stock) != same  # the deal reaches columns 1-3
    assert key([1, 0, 2, 3, 4, 5, 6], []) == key(list(range(7)), [])  # after it all are alike
    assert key(list(range(7)), []) != same  # the stock counts
    assert key(list(range(7)), stock, [2, 3, 3, 3, 0, 0, 0]) != same  # a face-down card


def test_without_the_extension_the_python_search_answers(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A checkout whose extension is not built still answers (pure Python), says so once in
    the log, and ``SOLVER_CORE=c`` refuses clearly."""
    game = Game.new("scorpion-ii", deal_from_number(13, "scorpion-ii"))
    built = api.analyse(game, max_nodes=50_000)
    monkeypatch.setattr(core, "_core", None)
    monkeypatch.setattr(core, "_warned", False)
    monkeypatch.delenv("SOLVER_CORE", raising=False)
    with caplog.at_level("WARNING"):
        fallback = api.analyse(game, max_nodes=50_000)
    assert fallback.verdict == built.verdict != "unknown"
    assert "not built" in caplog.text
    monkeypatch.setenv("SOLVER_CORE", "c")
    with pytest.raises(RuntimeError, match="not built"):
        api.analyse(game, max_nodes=1_000)


# -- the proof of loss at every node (``_core.Search._dead``, ``proof.py``'s) --------------------

PROVED = [v for v, var in ALL_VARIANTS.items() if not var.empty_accepts_any and not var.cells]


def _python_dead(game: Game) -> bool:
    """``proof.py``'s verdict on ``game``'s position (logical cards, as the searches pass)."""
    v = game.variant
    return bool(
        family_dead_reason(
            [[c % 52 for c in col] for col in game.cols],
            list(game.hidden),
            [c % 52 if c >= 0 else -1 for c in [*game.reserve, *game.cells]],
            [c % 52 for c in game.stock],
            PARENTS[v.alternate],
            CHILDREN[v.alternate],
            len(game.cells),
        )
    )


def _compiled_dead(game: Game) -> bool:
    return bool(core._new_search(game, True, 1 << 16).dead())


def _play_outs(variant: str, rng: random.Random, deals: int, steps: int) -> Iterator[Game]:
    """Every position of a random play-out (legal moves and deals) from each of ``deals``
    deals, at most ``steps`` steps each."""
    v = ALL_VARIANTS[variant]
    for number in range(1, deals + 1):
        game = Game.new(v, deal_from_number(number, v))
        for _ in range(steps):
            yield game
            steps_now: list[Action] = [("move", *m) for m in game.legal_moves()]
            if game.can_deal:
                steps_now.append(("deal",))
            if not steps_now:
                break
            game.apply(rng.choice(steps_now))
            if game.won:
                break


@pytest.mark.parametrize("variant", PROVED)
def test_the_compiled_proof_agrees_with_proof_py(variant: str) -> None:
    """On random play-outs from deals (mostly lost soon) and on positions along catalogued
    winning lines and a few random moves off them (mostly not proved lost), the compiled
    proof fires exactly where ``proof.py``'s does."""
    rng = random.Random(11)
    fired = silent = 0
    # Triple Scorpion's 156 cards: a random play-out takes longer to be proved lost
    steps = 250 if ALL_VARIANTS[variant].decks == 3 else 60
    for game in _play_outs(variant, rng, 12, steps):
        dead = _python_dead(game)
        assert _compiled_dead(game) == dead, (variant, game.to_snapshot())
        fired += dead
        silent += not dead
    for k, game in enumerate(_positions(variant, rng)):
        dead = _python_dead(game)
        assert _compiled_dead(game) == dead, (variant, game.to_snapshot())
        fired += dead
        silent += not dead
        if k >= 400:
            break
    assert fired >= 100 and silent >= 100, (fired, silent)


@pytest.mark.parametrize("variant", [v for v in ALL_VARIANTS if v not in PROVED])
def test_the_compiled_proof_stays_off_where_its_premises_fail(variant: str) -> None:
    """Wasp and Wasp II (an empty column takes any card) and the variants with cells (the port
    is the proof without cells) never run it, even on positions ``proof.py`` proves lost."""
    rng = random.Random(3)
    for game in _play_outs(variant, rng, 3, 60):
        assert not _compiled_dead(game)


@pytest.mark.parametrize("variant", PROVED)
def test_the_proof_at_every_node_keeps_the_verdict(variant: str) -> None:
    """The search with the proof at every node against the same search without it
    (``prove=False``), on positions along winning lines and off them and on whole deals:
    the same verdict wherever both decide, every win's line replays, and the proof decides
    at least as many positions within the same node budget."""
    rng = random.Random(5)
    both = cuts = 0
    decided = {True: 0, False: 0}
    games = list(itertools.islice(_positions(variant, rng), 150))
    v = ALL_VARIANTS[variant]
    games += [Game.new(v, deal_from_number(n, v)) for n in range(1, 16)]
    for game in games:
        r = {
            prove: core.compiled_search(game, max_seconds=None, max_nodes=20_000, prove=prove)
            for prove in (True, False)
        }
        for prove, res in r.items():
            decided[prove] += res.verdict != "unknown"
            if res.verdict == "win":
                _check_win(game, res.line, f"the compiled core (prove={prove})")
        cuts += r[True].stats["dead_cuts"]
        if "unknown" in (r[True].verdict, r[False].verdict):
            continue
        assert r[True].verdict == r[False].verdict, (variant, game.to_snapshot())
        both += 1
    assert both >= 100, both
    assert cuts and decided[True] >= decided[False], (cuts, decided)


@pytest.mark.parametrize("variant", PROVED)
def test_the_compiled_proof_never_calls_a_winnable_small_position_lost(variant: str) -> None:
    """Small positions (one or two runs' cards, ``tests/support/brute.py``) decided by brute
    force through the engine: wherever the compiled proof fires, no line wins; the search
    with it answers what brute force does."""
    judged = fired = 0
    shapes = [(False, 0.0), (True, 0.6), (False, 0.4)]
    for seed in range(30):
        two, chain = shapes[seed % 3]
        game = small_position(variant, 5100 + seed, two=two, chain=chain)
        try:
            winnable = brute_force(game, 6_000)
        except AssertionError:
            continue  # too large for the brute force
        dead = _compiled_dead(game)
        assert not (dead and winnable), (variant, seed)
        r = core.compiled_search(game, max_seconds=None, max_nodes=None)
        assert r.verdict == ("win" if winnable else "loss"), (variant, seed)
        if winnable:
            _check_win(game, r.line, "the compiled core")
        judged += 1
        fired += dead
    assert judged >= 15 and fired >= 3, (judged, fired)


@pytest.mark.parametrize(("rule", "variant", "seed", "two", "chain"), PINS)
def test_the_compiled_proof_keeps_each_weakening_it_needs(
    rule: str, variant: str, seed: int, two: bool, chain: float
) -> None:
    """``test_solver_soundness.PINS``: winnable positions a weaker proof would call lost."""
    game = small_position(variant, seed, two=two, chain=chain)
    assert not _compiled_dead(game), rule
