"""Solve many deal numbers, on several processes, for the offline commands (catalog, odds)."""

from __future__ import annotations

import multiprocessing as mp
import resource
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ..deals import deal_from_number
from .api import solve_deal
from .catalogs import encode_line
from .search import CPU_TIME


@dataclass(frozen=True, slots=True)
class DealResult:
    number: int
    verdict: str  # "win", "loss" or "unknown"
    ms: float  # the solver's CPU time (its budget counts CPU time: a busy machine is slower,
    # never less decided)
    nodes: int
    line: str  # the compact verified line of a win, else ""
    maxrss_kb: int  # the worker's peak resident memory so far


def solve_number(args: tuple[str, int, float]) -> DealResult:
    variant, number, budget = args
    a = solve_deal(variant, deal_from_number(number, variant), budget, clock=CPU_TIME)
    line = encode_line(a.line) if a.verdict == "win" and a.line is not None else ""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return DealResult(number, a.verdict, a.seconds * 1000.0, a.nodes, line, rss)


def solve_numbers(
    variant: str, numbers: Iterable[int], budget: float, jobs: int = 1
) -> Iterator[DealResult]:
    """Results in the order of ``numbers``; ``jobs`` > 1 uses that many worker processes."""
    tasks = ((variant, n, budget) for n in numbers)
    if jobs <= 1:
        for t in tasks:
            yield solve_number(t)
        return
    ctx = mp.get_context("fork")
    with ctx.Pool(jobs, maxtasksperchild=500) as pool:
        yield from pool.imap(solve_number, tasks, chunksize=2)
