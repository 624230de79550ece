"""Scorpion solver: decides deals and games in progress (server side: hidden cards known).

Public interface:

- ``analyse(game, budget_seconds) -> Analysis``: "is this still winnable?" for a game in
  progress; ``Analysis.verdict`` is ``"win"`` | ``"loss"`` | ``"unknown"``, ``line`` the winning
  line (verified through the engine) and ``first_action`` a solver hint.
- ``solve_deal(variant, deal, budget_seconds)``: the same from a deal's opening layout.
- ``random_winnable_deal(variant, rng, difficulty=None) -> int``: a deal number from the
  shipped catalog, of the given grade (``"easy"`` | ``"medium"`` | ``"hard"``) if asked.
- ``winnable_deals(variant, difficulty=None)``, ``deal_difficulty(variant, number)``: the
  catalog and its difficulty grades (docs/difficulty.md, ``grading.py``).
- ``winning_line(variant, number)``: a catalogued deal's verified line.
- ``load_odds()``: the published odds (``odds.json``).
- ``Position``, ``solve``, ``dead_reason``: the fast search of the four plain variants (tests,
  tools); ``solve_game(game)``: the search that covers the game's variant (``search.py`` for
  the plain ones, ``family.py`` for the other seven), unverified.
- ``check_solvable(variant)``: raises ``SolverUnsupported`` (a ``ValueError``) for a variant
  the solver does not cover: every variant of the family is covered, so only a variant
  unknown to the engine is refused; ``analyse`` and ``solve_deal`` raise it too.

Offline commands: ``python -m app.engine.solver {solve,build-catalog,odds,grade} --help``.
"""

from .api import Analysis, SolverError, analyse, solve_deal, solve_game, verify_line
from .catalogs import (
    DIFFICULTIES,
    deal_difficulty,
    decode_line,
    encode_line,
    random_winnable_deal,
    winnable_deals,
    winning_line,
)
from .odds import load_odds, wilson
from .search import (
    Position,
    SearchResult,
    SolverUnsupported,
    Verdict,
    check_solvable,
    dead_reason,
    solve,
)

__all__ = [
    "DIFFICULTIES",
    "Analysis",
    "Position",
    "SearchResult",
    "SolverError",
    "SolverUnsupported",
    "Verdict",
    "analyse",
    "check_solvable",
    "dead_reason",
    "deal_difficulty",
    "decode_line",
    "encode_line",
    "load_odds",
    "random_winnable_deal",
    "solve",
    "solve_deal",
    "solve_game",
    "verify_line",
    "wilson",
    "winnable_deals",
    "winning_line",
]
