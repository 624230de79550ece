"""The solver's public entry points: verified answers for deals and games in progress."""

from __future__ import annotations

from dataclasses import dataclass

from ..deals import Deal
from ..game import Action, Game
from ..variants import Variant, get_variant
from . import core
from .family import solve_family
from .family import win_first_share as family_win_first_share
from .family_search import FamilySearch
from .search import (
    WALL_TIME,
    Clock,
    Position,
    SearchResult,
    Verdict,
    check_solvable,
    dead_reason,
)
from .winfirst import phase_then_complete
from .winfirst_plain import WIN_FIRST_SHARE as PLAIN_WIN_FIRST_SHARE
from .winfirst_plain import solve_plain


class SolverError(RuntimeError):
    """The search claimed a win whose line does not win through the engine (a bug)."""


@dataclass(frozen=True, slots=True)
class Analysis:
    """The solver's answer about a position.

    ``verdict``: ``"win"`` (``line`` wins from the position; it was replayed through the
    engine), ``"loss"`` (no continuation wins: proved), ``"unknown"`` (the budget ran out).
    ``line`` is ``None`` unless the verdict is ``"win"``; it may hold face-down and stock card
    positions implicitly (its moves), so the web layer shows at most its first action.
    """

    verdict: Verdict
    line: list[Action] | None
    nodes: int
    seconds: float

    @property
    def first_action(self) -> Action | None:
        """The first step of the winning line (a "solver hint"), if there is one."""
        return self.line[0] if self.line else None


def verify_line(game: Game, line: list[Action]) -> bool:
    """True when ``line`` played from ``game``'s position (on a copy) wins."""
    g = game.copy()
    try:
        for action in line:
            g.apply(action)
    except Exception:  # noqa: BLE001 - any engine refusal means the line is wrong
        return False
    return g.won


def _checked(result: SearchResult, start: Game) -> Analysis:
    if result.verdict == "win":
        assert result.line is not None
        if not verify_line(start, result.line):
            raise SolverError("the solver's winning line does not win through the engine")
    return Analysis(result.verdict, result.line, result.nodes, result.seconds)


def solve_game(
    game: Game,
    *,
    max_seconds: float | None = 10.0,
    max_nodes: int | None = None,
    prune: bool = True,
    clock: Clock = WALL_TIME,
    win_first: bool = True,
    compiled: bool | None = None,
) -> SearchResult:
    """Search ``game``'s position with the search that covers its variant (NOT verified).

    ``compiled``: run the compiled core (``core.py``; ``None``: as ``SOLVER_CORE`` says, the
    compiled core when built) or the pure-Python pipeline described below (``False``).

    The four plain variants use the fast search of ``search.py`` (in Wasp II after the
    win-first phase of ``winfirst_plain.py``), every other variant the
    generic search of ``family.py`` (``prune=False`` switches their proofs of loss off: plain
    exhaustive search). ``clock`` counts the budget (``search.py``: wall or CPU time).
    ``win_first=False`` gives the whole budget to the complete search (no win-first phase:
    ``family.py``, ``winfirst_plain.py``), as the difficulty measure was defined
    (``grading.py``).
    """
    check_solvable(game.variant)
    if core.use_compiled() if compiled is None else compiled:
        return _with_compiled_core(
            game,
            max_seconds=max_seconds,
            max_nodes=max_nodes,
            prune=prune,
            clock=clock,
            win_first=win_first,
        )
    # the pure-Python pipeline (the reference: ``SOLVER_CORE=py``)
    if game.variant.plain:
        return solve_plain(
            Position.from_game(game),
            max_seconds=max_seconds,
            max_nodes=max_nodes,
            prune=prune,
            clock=clock,
            win_first_share=PLAIN_WIN_FIRST_SHARE if win_first else 0.0,
        )
    return solve_family(
        game,
        max_seconds=max_seconds,
        max_nodes=max_nodes,
        prune=prune,
        clock=clock,
        win_first=None if win_first else 0.0,  # None: the variant's own share
    )


# The plain variants' share of a bounded budget that the compiled core's win-first phase
# (``core.compiled_win_first``) gets before its complete search: none in Scorpion, Scorpion II
# and Wasp, whose complete search decides nearly every deal; a quarter in Wasp II.
COMPILED_PLAIN_WIN_FIRST_SHARES: dict[str, float] = {
    "scorpion": 0.0,
    "scorpion-ii": 0.0,
    "wasp": 0.0,
    "wasp-ii": 0.25,
}


def compiled_win_first_share(variant: Variant) -> float:
    """The compiled core's win-first share for ``variant``: a plain variant's above, else the
    pure-Python family pipeline's (``family.win_first_share``: little in Three Blind Mice,
    where most deals are lost; 90% in the multi-deck games; half elsewhere)."""
    if variant.name in COMPILED_PLAIN_WIN_FIRST_SHARES:
        return COMPILED_PLAIN_WIN_FIRST_SHARES[variant.name]
    return family_win_first_share(variant)


def start_proof(game: Game) -> str:
    """The proof of loss of the position itself (the pure-Python searches' first step)."""
    if game.variant.plain:
        return dead_reason(Position.from_game(game))
    s = FamilySearch(game)
    return s.dead_reason() if s.prove else ""


def _with_compiled_core(
    game: Game,
    *,
    max_seconds: float | None,
    max_nodes: int | None,
    prune: bool,
    clock: Clock,
    win_first: bool,
) -> SearchResult:
    """The proof of loss at the start (pure Python, once), then, in a bounded budget, the
    compiled win-first phase with ``compiled_win_first_share`` of it (it may only answer a
    win), then the compiled core's complete search (``core.py``) with the rest: only the
    proof or the exhaustive search answers "loss"."""
    start = clock()
    if game.won:
        return SearchResult("win", [], 0, 0.0)
    if prune:
        reason = start_proof(game)
        if reason:
            return SearchResult("loss", None, 0, clock() - start, reason)
    share = compiled_win_first_share(game.variant) if win_first and prune else 0.0

    def complete(seconds: float | None, nodes: int | None) -> SearchResult:
        return core.compiled_search(
            game, max_seconds=seconds, max_nodes=nodes, prune=prune, clock=clock
        )

    if share > 0 and (max_seconds or max_nodes):
        return phase_then_complete(
            lambda end, cap: core.compiled_win_first(game, end, cap, clock),
            complete,
            start,
            max_seconds,
            max_nodes,
            share,
            clock,
        )
    r = complete(
        None if max_seconds is None else max(0.0, max_seconds - (clock() - start)), max_nodes
    )
    r.seconds = clock() - start
    return r


def analyse(
    game: Game,
    budget_seconds: float = 3.0,
    *,
    max_nodes: int | None = None,
    clock: Clock = WALL_TIME,
) -> Analysis:
    """Is ``game`` (a game in progress, hidden cards known) still winnable?

    Answers within about ``budget_seconds`` (the search checks the clock every 1,024 nodes;
    ``clock``: what the budget counts, the offline commands pass ``CPU_TIME``).
    A ``"win"`` carries a line from the current position, already replayed through the engine;
    its first action is a move that keeps the game winnable. Pure computation, no I/O: the web
    layer runs it in a worker process with its own time budget.
    """
    if game.won:
        return Analysis("win", [], 0, 0.0)
    result = solve_game(game, max_seconds=budget_seconds, max_nodes=max_nodes, clock=clock)
    return _checked(result, game)


def solve_deal(
    variant: str | Variant,
    deal: Deal,
    budget_seconds: float | None = 10.0,
    *,
    max_nodes: int | None = None,
    prune: bool = True,
    clock: Clock = WALL_TIME,
) -> Analysis:
    """Solve a deal from its opening layout (a ``"win"`` line is verified through the engine).
    ``clock``: what the budget counts; the offline commands pass ``CPU_TIME``."""
    v = get_variant(variant) if isinstance(variant, str) else variant
    game = Game.new(v, deal)
    result = solve_game(
        game, max_seconds=budget_seconds, max_nodes=max_nodes, prune=prune, clock=clock
    )
    return _checked(result, game)
