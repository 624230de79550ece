"""Re-check the recorded losses of ``data/odds/<variant>.jsonl`` after the cascade fix.

``python -m scripts.recheck_losses --variant wasp [--jobs 1] [--start N --count M] [--update]``

The data files were computed by a solver that, like the engine then, removed one completed run
per column and step: when a removed run R1 had lain on the Ace of another completed run R2 (R2
completed under R1, when R2's Ace joined its Two carrying R1's King), R2 stayed on the table,
completed, at the open end. RULES.md ("a completed run ... is removed automatically as part of
the move or deal that completed it") removes R2 in the same step; the engine and both searches
do so since commit f0fc4ac. The new rule can make a deal winnable that the old one lost, so the
recorded losses ('L') are re-solved here with the current solver, but only those it can touch.

Which deals can be affected (the static filter, ``cascade_reasons``)
--------------------------------------------------------------------

The two rules give different games only from a position where a cascade happens: a completed
run R1 leaves (from a column's open end, in a move or deal that completed it or uncovered it)
and the card directly under R1's King is the Ace of a completed run R2. A line that never
makes a cascade is played step for step alike under both rules (every position along it is
the same), so if no reachable position ever has one, the deal's game tree is the same under
both rules and the old proof of loss (search or proof) still stands.

A cascade needs R1's King to lie *directly* on an Ace. What a card lies directly on changes
only when that card is laid somewhere: as the leading card of a moved group (a card carried
along keeps what it lies on), as a reserve or cell card played to a column, or as a card the
deal lays on a column's open end; a run's removal lays nothing on anything, and undo only goes
back. In every variant of RULES.md a King is never laid on a card by a move: "a King can never
land on another card" (it goes only into an empty column, in Wasp and Wasp II as any card does,
from a column, a reserve or a free cell, and alone into a free cell; nothing is ever laid on a
reserve or a cell card). So a King lies directly on an Ace only if

- the opening layout put it there: an Ace and, next nearer the open end of the same column, a
  King (face down or face up: a face-down pair may turn up and move later; the Ace may later be
  picked up with the King on it and join its Two, completing R2 under R1); or
- the deal lays a King from the stock on a column whose open end is then an Ace: statically,
  the stock holds a King (the Ace there is not known without playing).

Refinement: in a one-deck game with same-suit building (Scorpion, Scorpion II, Wasp, Wasp II,
Scorpion Head, Three Blind Mice, How They Run) a King of suit s on the Ace of s cannot start a
cascade: R1 (the King's run) holds that deck's only Ace of s, so R2's Ace is not it. With
alternate colours (Scorpion Tail, Farmer's Wife: runs of mixed suits, K to A in alternate
colours) and with two or three decks (Double, Triple Scorpion: the Ace may be the other copy of
the King's suit) every King on every Ace counts. Three cascades at once (Wasp deal 33) need
two such pairs; one is enough for the filter. Scorpion Head, Three Blind Mice, Farmer's Wife,
How They Run and Triple Scorpion have no stock; their filter is the layout pairs alone.

Losses proved at the root (``root_proof``)
------------------------------------------

A suspect deal whose opening layout the current solver's own proof of loss proves lost is not
searched (the solver would answer the same at once): ``search.py``'s ``dead_reason`` for the
four plain variants, ``proof.py``'s ``family_dead_reason`` (through ``FamilySearch``) for the
others. Both are sound under the new rule: each of their events is a necessary condition
("every card must join its parent, and what lies on the parent or on a face-down card must
leave first"), and the cascade adds no way for a card to leave but the removal of a completed
run, whose cards are all joined already (thirteen face-up cards on their parents, the King's
run-leaving needing a child laid on it): ``R[s]`` in ``dead_reason_of`` still needs every join
of suit s, ``proof.py``'s ``R[x]`` a child laid on the King x, and a non-King leaving with its run
takes the card under it along (no place uncovered, as there). Neither proof ever assumed that
a completed run stays on the table, and both only look at the one position they are given.
(The losses of the old solver's search are the suspect ones; the current search has the same
proofs inside it, and the pruning lemmas of ``search.py`` and ``family_search.py``, revised
with the fix, are not re-examined here.)

Do the recorded wins stay wins? (``--wins``)
--------------------------------------------

Not every one is proved to. Under the old rule a completed run R that stayed on the table (a
"stale" run) could still be played with. Take P' = P without its stale runs. With one deck and
same-suit building the cards that may land on a card of R are cards of R, so no other card is
ever laid on one by a move, and the moves of R's cards (its King, with R, into an empty column;
in Wasp any of its cards, with those on it, there; in the cell variants the exposed card alone
into a cell) only split R up among themselves. Copying an old winning line step for step from
P' and leaving out the steps that move R's cards (a step where another card carries cards of R
along moves the rest), every step stays legal (P' has every empty column and empty cell of P,
the same top cards but for R's, and no more face-down cards) and every run removed in the old
game is removed in the new one, no later (a run the new game removes sooner, in a cascade,
becomes one more stale run of the old game): so P' wins. That proves the claim for Scorpion Head,
Three Blind Mice and How They Run (no stock). It fails where the deal can lay a card d on a
stale run's Ace: in Scorpion and Scorpion II the old game could then carry d into an empty
column on R's King, a move no non-King may make alone, and in Wasp a card of R carrying d could
join its successor in another column, moving d off a column it covers in the new game. With
alternate colours (Tail, Farmer's Wife) and two or three decks the cards of R fit on other
cards (a Five of hearts of R on the other black Six, a Five of spades on the other deck's Six)
and other cards fit on them: the old game could build with R. There the claim rests on the
re-solve: ``--wins`` re-solves the recorded wins the filter flags (the same filter: a win
changes only through a cascade too) and reports those now lost; a win the current solver does
not find again within the budget ("U") disproves nothing. (Run over every data file on
3 December 2026: no recorded win changed; docs/odds.md has the figures.)

Re-solving
----------

Each suspect loss not proved at the root is solved again by ``app.engine.solver.api``'s
``solve_deal`` (CPU time, as the ``odds`` command does; a win's line is replayed through the
engine before it is believed) with a budget of at least the block's own (and at least the
retry budget the deal had, and three times the time it took then: this machine is slower).
``--update`` writes the changed letters and times back into the data file (the format of
``app/engine/solver/odds.py``); ``python -m app.engine.solver odds --write-json`` then
regenerates the published figures.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.engine.cards import ACE, KING, code
from app.engine.deals import deal_from_number
from app.engine.game import Game
from app.engine.solver.api import analyse
from app.engine.solver.family_search import FamilySearch
from app.engine.solver.odds import (
    LETTER,
    block_of,
    odds_file,
    read_blocks,
    record_verdict,
    retried_with,
    write_blocks,
)
from app.engine.solver.progress import Progress
from app.engine.solver.runner import DealResult, solve_number
from app.engine.solver.search import CPU_TIME, Position, dead_reason
from app.engine.variants import ALL_VARIANTS, Variant, get_variant

GameOf = Callable[[int], Game]

# A re-solve gets at least this many times the CPU time the recorded solve took (the data
# were recorded on a machine about 2.5 times faster).
SLOWER = 3.0


def cascade_reasons(variant: Variant, game: Game) -> list[str]:
    """Why a cascade may happen in a game from ``game``'s opening layout ([] if it cannot):
    the layout's Kings lying directly on an Ace (``"KD on AS in column 2"``), and a King in the
    stock (``"KH in the stock"``). See the module docstring."""
    same_suit_counts = variant.decks > 1 or variant.alternate
    out: list[str] = []
    for ci, col in enumerate(game.cols):
        for k in range(len(col) - 1):
            ace, king = col[k], col[k + 1]
            if ace % 13 != ACE or king % 13 != KING:
                continue
            if same_suit_counts or ace // 13 % 4 != king // 13 % 4:
                out.append(f"{code(king)} on {code(ace)} in column {ci + 1}")
    out += [f"{code(c)} in the stock" for c in game.stock if c % 13 == KING]
    return out


def root_proof(game: Game) -> str:
    """The current solver's proof of loss on ``game``'s position ("" if none fires)."""
    if game.variant.plain:
        return dead_reason(Position.from_game(game))
    return FamilySearch(game).dead_reason()


@dataclass(slots=True)
class Suspect:
    number: int
    budget: float  # seconds of CPU time for the re-solve
    old_ms: int


def suspects(
    variant: Variant,
    blocks: list[dict[str, Any]],
    first: int,
    last: int,
    min_budget: float = 0.0,
    game_of: GameOf | None = None,
    recorded: str = "L",
) -> tuple[list[Suspect], dict[str, int], list[int]]:
    """The deals of ``first .. last`` recorded ``recorded`` ("L", or "W" to check the wins)
    that the cascade may change and no proof at the root settles, with their budgets; the
    counts (``recorded``, ``flagged``, ``proved_at_root``); and the flagged deals the root
    proof proves lost (for recorded wins: each one a win that is a loss today)."""
    out: list[Suspect] = []
    counts = {"recorded": 0, "flagged": 0, "proved_at_root": 0}
    proved: list[int] = []
    for b in blocks:
        rs = retried_with(b)
        for k, letter in enumerate(b["v"]):
            n = b["start"] + k
            if letter != recorded or not first <= n <= last:
                continue
            counts["recorded"] += 1
            game = game_of(n) if game_of else Game.new(variant, deal_from_number(n, variant))
            if not cascade_reasons(variant, game):
                continue
            counts["flagged"] += 1
            if root_proof(game):
                counts["proved_at_root"] += 1
                proved.append(n)
                continue
            ms = int(b["ms"][k])
            budget = max(float(b["budget"]), rs[k], min_budget, SLOWER * ms / 1000.0)
            out.append(Suspect(n, budget, ms))
    return out, counts, proved


def _solve_each(
    name: str, todo: list[Suspect], jobs: int, game_of: GameOf | None
) -> Iterator[tuple[int, str, float]]:
    """(number, verdict, ms) for each suspect with its own budget, in order: the data file's
    deals through ``runner.solve_number`` as the ``odds`` command solves them (``jobs`` worker
    processes if more than one), or ``game_of``'s positions in this process."""
    if game_of is not None:
        for s in todo:
            a = analyse(game_of(s.number), s.budget, clock=CPU_TIME)
            yield s.number, a.verdict, a.seconds * 1000.0
        return
    tasks = [(name, s.number, s.budget) for s in todo]
    if jobs <= 1:
        results: Iterable[DealResult] = map(solve_number, tasks)
        for r in results:
            yield r.number, r.verdict, r.ms
        return
    ctx = mp.get_context("fork")
    with ctx.Pool(jobs, maxtasksperchild=500) as pool:
        for r in pool.imap(solve_number, tasks, chunksize=1):
            yield r.number, r.verdict, r.ms


def _tally(changed: list[dict[str, Any]], recorded: str) -> list[tuple[str, int]]:
    return [(x, sum(c["new"] == x for c in changed)) for x in "WLU" if x != recorded]


def recheck(
    name: str,
    first: int,
    last: int,
    jobs: int,
    *,
    min_budget: float = 0.0,
    update: bool = False,
    path: Path | None = None,
    time_limit: float | None = None,
    quiet: bool = False,
    game_of: GameOf | None = None,
    recorded: str = "L",
) -> dict[str, Any]:
    """Re-solve the suspect losses (``recorded="W"``: wins) of ``name``'s data file among
    deals ``first .. last``; with
    ``update`` write changed verdicts back. Returns the report (counts, changes, the range
    actually re-checked: a ``time_limit`` may stop it early, in deal order). ``game_of``: the
    opening position of a deal number (default: the variant's deal of that number; given,
    the deals are solved in this process)."""
    variant = get_variant(name)
    path = path or odds_file(name)
    blocks = read_blocks(path)
    last = min(last, max((b["start"] + len(b["v"]) - 1 for b in blocks), default=first - 1))
    todo, counts, proved = suspects(variant, blocks, first, last, min_budget, game_of, recorded)
    where = block_of(blocks)

    def store(number: int, letter: str, ms: float) -> None:
        record_verdict(where[number], number, letter, ms)
        write_blocks(path, blocks)

    bar = None if quiet else Progress(len(todo), f"recheck {name}")
    stop_at = time.monotonic() + time_limit if time_limit else None
    changed: list[dict[str, Any]] = []
    if recorded != "L":  # a recorded win the root proof proves lost: a loss today
        for n in proved:
            changed.append({"number": n, "new": "L", "ms": 0, "budget": 0.0})
            if update:
                store(n, "L", 0.0)
    solved = 0
    cpu_ms = 0.0
    checked_to = first - 1  # the deals up to here were re-checked
    for s, (number, verdict, ms) in zip(todo, _solve_each(name, todo, jobs, game_of), strict=False):
        assert number == s.number
        solved += 1
        cpu_ms += ms
        letter = LETTER[verdict]
        if letter != recorded:
            changed.append(
                {"number": number, "new": letter, "ms": math.ceil(ms), "budget": s.budget}
            )
            if update:
                store(number, letter, ms)
        checked_to = number
        if bar:
            bar.update(1, " ".join(f"{recorded}->{x} {n}" for x, n in _tally(changed, recorded)))
        if stop_at is not None and time.monotonic() >= stop_at:
            break
    if bar:
        bar.close()
    if solved == len(todo):
        checked_to = last
    return {
        "variant": name,
        "first": first,
        "last": checked_to,
        "range_asked": [first, last],
        **counts,
        "searched": len(todo),
        "solved": solved,
        "cpu_seconds": round(cpu_ms / 1000.0, 1),
        "old_seconds": round(sum(s.old_ms for s in todo) / 1000.0, 1),
        **{
            f"{recorded}->{x}": [c for c in changed if c["new"] == x]
            for x in "WLU"
            if x != recorded
        },
        "updated": update and bool(changed),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m scripts.recheck_losses",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--variant", choices=sorted(ALL_VARIANTS), required=True)
    p.add_argument("--jobs", type=int, default=1, help="worker processes")
    p.add_argument("--start", type=int, default=1)
    p.add_argument("--count", type=int, default=None, help="default: every deal of the file")
    p.add_argument("--budget", type=float, default=0.0, help="at least this many s per deal")
    p.add_argument("--time-limit", type=float, default=None, help="stop after this many s")
    p.add_argument("--update", action="store_true", help="write changed verdicts to the file")
    p.add_argument("--out", type=str, default=None, help="data file (default: the shipped one)")
    p.add_argument("--report", type=str, default=None, help="append the JSON report here")
    p.add_argument("--list", action="store_true", help="only list the suspects, solve none")
    p.add_argument(
        "--wins",
        action="store_true",
        help="check the recorded wins instead (the claim that they stay wins, module docstring)",
    )
    args = p.parse_args(argv)
    path = Path(args.out) if args.out else odds_file(args.variant)
    last = args.start + args.count - 1 if args.count is not None else 1 << 32
    if args.list:
        todo, counts, proved = suspects(
            get_variant(args.variant),
            read_blocks(path),
            args.start,
            last,
            recorded="W" if args.wins else "L",
        )
        print(json.dumps(counts))
        if args.wins:
            print("recorded wins the root proof proves lost:", proved)
        old = sum(s.old_ms for s in todo) / 1000.0
        print(f"{len(todo)} to search ({old:.0f} s recorded)")
        for s in todo:
            print(s.number, s.budget, s.old_ms)
        return 0
    rep = recheck(
        args.variant,
        args.start,
        last,
        args.jobs,
        min_budget=args.budget,
        update=args.update,
        path=path,
        time_limit=args.time_limit,
        recorded="W" if args.wins else "L",
    )
    text = json.dumps(rep)
    print(text)
    if args.report:
        with open(args.report, "a") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
