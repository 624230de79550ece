"""Which complete search runs: the compiled core (``_core.pyx``) or the pure-Python reference.

``pip install -e .`` builds ``app.engine.solver._core`` (Cython 3, see ``setup.py``). When it is
built, the complete search of every variant runs there, one to two orders of magnitude faster
per position than the pure-Python searches (``search.py``, ``family_search.py``), which stay as
the reference (``tests/engine/test_solver_core.py`` holds the two to the same verdicts). When it
is missing (a checkout never installed, a failed build) the pure-Python search runs, and the
first question logs a line saying so.

The environment variable ``SOLVER_CORE`` picks: ``c`` the compiled core (an error if missing),
``py`` the pure-Python search, unset or ``auto`` the compiled core when built.
"""

from __future__ import annotations

import logging
import os
from types import ModuleType
from typing import Any

from ..game import Action, Game
from .search import WALL_TIME, Clock, SearchResult
from .winfirst import DEAL_PRIORITY, DIG, luby

log = logging.getLogger(__name__)

_core: ModuleType | None
try:
    from . import _core
except ImportError:  # depends on the build: the app falls back to the pure-Python search
    _core = None

_warned = False

# The most slots the complete search's transposition table may grow to (16 bytes each): 2^25,
# 512 MiB, holds ~30 million positions (Scorpion's hardest deal of 1-400,000, 119,787, took 19
# million). The app's solver processes lower it (``app/solver_worker.py``).
MAX_TABLE_ENTRIES = 1 << 25


# The complete search tries ``proof.py``'s proof of loss at every position it expands
# (``_core.Search._dead``), in the variants its premises serve; False: the sure joins only.
PROVE = True
# The win-first phase's runs too (a position lost in the full game is lost in their restricted
# game, whose moves are some of the full game's).
WIN_FIRST_PROVE = True


def available() -> bool:
    """True when the compiled core is built."""
    return _core is not None


def use_compiled() -> bool:
    """Should the complete search run in the compiled core? (``SOLVER_CORE``, see above.)"""
    global _warned
    choice = os.environ.get("SOLVER_CORE", "auto").strip().lower()
    if choice == "py":
        return False
    if choice == "c":
        if _core is None:
            raise RuntimeError(
                "SOLVER_CORE=c but the compiled solver core is not built: pip install -e ."
            )
        return True
    if _core is None and not _warned:
        _warned = True
        log.warning(
            "the compiled solver core (app.engine.solver._core) is not built: "
            "the pure-Python search answers, slower (pip install -e . builds it)"
        )
    return _core is not None


def _new_search(
    game: Game,
    prune: bool,
    max_entries: int,
    keep_joined: bool = False,
    noise: int = 0,
    seed: int = 0,
    deal_priority: int | None = None,
    dig: bool = False,
    prove: bool = True,
) -> Any:
    """The compiled core's ``Search`` on ``game``'s position (``_core.pyx``)."""
    assert _core is not None
    v = game.variant
    return _core.Search(
        [list(c) for c in game.cols],
        list(game.hidden),
        list(game.stock),
        list(game.reserve),
        list(game.cells),
        len(game.completed),
        v.stock,
        v.empty_accepts_any,
        v.alternate,
        v.decks,
        v.runs_needed,
        prune,
        max_entries,
        keep_joined,
        noise,
        seed,
        deal_priority,
        dig,
        prove,
    )


def compiled_search(
    game: Game,
    *,
    max_seconds: float | None,
    max_nodes: int | None,
    prune: bool = True,
    clock: Clock = WALL_TIME,
    max_entries: int | None = None,
    prove: bool | None = None,
) -> SearchResult:
    """The complete search of ``game``'s position in the compiled core (NOT verified: the
    caller replays a win's line). ``prune=False``: no sure joins and no proof of loss (plain
    exhaustive search). ``prove=False``: the sure joins without the proof of loss at each node
    (``_core.Search._dead``, ``proof.py``'s, where its premises hold).
    ``prove=None``: as ``PROVE``. ``max_entries``: the slots its transposition table may grow
    to (16 bytes each; ``None``: ``MAX_TABLE_ENTRIES``); when 90% are taken the answer is
    ``"unknown"``."""
    start = clock()
    s = _new_search(
        game,
        prune,
        MAX_TABLE_ENTRIES if max_entries is None else max_entries,
        prove=PROVE if prove is None else prove,
    )
    deadline = start + (max_seconds if max_seconds is not None else 1e12)
    verdict, line, nodes = s.run(deadline, clock, max_nodes if max_nodes is not None else 1 << 62)
    elapsed = clock() - start
    reason = "search" if verdict == "loss" else ""
    return SearchResult(
        verdict,
        line,
        nodes,
        elapsed,
        reason,
        stats={
            "forced_joins": s.joins_taken,
            "dead_checks": s.dead_checks,
            "dead_cuts": s.dead_cuts,
        },
    )


# The compiled win-first phase: the first run's node limit (run k gets luby(k) times it) and
# the largest random bonus added to a move's priority (priorities span ~200). Measured at 3 s
# of CPU time on deals 2001-2060 of Double Scorpion, Scorpion Tail, Farmer's Wife, How They
# Run, Triple Scorpion and Scorpion Head: 7 undecided with 500, 9 with 2,000 (Double deals
# 1022 and 1031: won in 1.3 s and 1.8 s with 500, undecided at 3 s with 2,000 or 10,000).
WIN_FIRST_BASE = 500
WIN_FIRST_NOISE = 300
USE_DEAL_PRIORITY = True
USE_DIG = True


def compiled_win_first(
    game: Game, deadline: float, max_nodes: int | None, clock: Clock = WALL_TIME
) -> tuple[list[Action] | None, int]:
    """The win-first phase in the compiled core (``winfirst.py``'s idea): restarted runs of
    its depth-first search, each with a node limit of ``WIN_FIRST_BASE`` times luby(k), that
    never pick a face-up card off a face-up card it fits on and put a card into a free cell
    only where ``winfirst._WinFirst._cell_useful`` would (digging in the ``DIG`` variants),
    the deal among the moves where ``DEAL_PRIORITY`` says, every run after the first with its
    priorities shaken by seeded noise; until one wins, ``clock`` passes ``deadline`` or
    ``max_nodes`` nodes are spent: (the winning line or None, nodes). It may only answer a
    win (its pruning is unsound for a loss); a run that exhausts its pruned tree ends it."""
    total = 0
    run = 0
    while clock() < deadline and (max_nodes is None or total < max_nodes):
        run += 1
        limit = WIN_FIRST_BASE * luby(run)
        if max_nodes is not None:
            limit = min(limit, max_nodes - total)
        s = _new_search(
            game,
            True,
            1 << 22,
            True,
            WIN_FIRST_NOISE if run > 1 else 0,
            run,
            DEAL_PRIORITY.get(game.variant.name) if USE_DEAL_PRIORITY else None,
            game.variant.name in DIG and USE_DIG,
            WIN_FIRST_PROVE,
        )
        verdict, line, nodes = s.run(deadline, clock, limit)
        total += nodes
        if verdict == "win":
            return line, total
        if verdict == "loss":
            return None, total  # the pruned tree exhausted: no later run can win
    return None, total
