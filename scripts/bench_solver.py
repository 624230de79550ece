"""Benchmark of the solver (``make bench-solver``).

Runs the solver over Solvitaire's 200 anchor deals (Scorpion only: they are Scorpion deals)
and over a range of our own deal numbers of ``--variant`` (any of the family), and prints the
share decided (WIN or LOSS) within 1 s and within 10 s, the median, 90th and 99th percentile
times, the slowest deal, peak memory, and Solvitaire's figures on the anchors.

    python scripts/bench_solver.py [--count 5000] [--start 1] [--variant scorpion]
                                   [--budget 10] [--retry-budget 60] [--jobs 1]
                                   [--deals "26 115 140" | --deals @file]
                                   [--core py|c|both] [--speed-deals 20]

One process per job; with ``--jobs 1`` (the default) the times are those of a single core.
``--deals`` runs the listed deal numbers instead of the range (``@file``: read them from a
file, separated by white space), e.g. the undecided deals of an earlier run.
``--retry-budget`` re-runs the deals left undecided with a longer budget (the issue's "every
deal within 60 s").

``--core`` picks the complete search (``SOLVER_CORE``, ``app/engine/solver/core.py``): ``py``
the pure-Python searches, ``c`` the compiled core, ``both`` (the default) runs everything
once with each, side by side. First, for each core, the seconds per node of the complete
search alone (no win-first phase, pruning on) on the first ``--speed-deals`` deals of the range,
each with the same node budget (``--speed-nodes``): nodes per second, and the ratio (deals the
proof of loss decides at the start, expanding nothing, are left out).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.engine import ALL_VARIANTS, Game, deal_from_number, parse_deal  # noqa: E402
from app.engine.solver import core  # noqa: E402
from app.engine.solver.api import solve_deal, solve_game, start_proof  # noqa: E402
from app.engine.solver.progress import Progress  # noqa: E402
from app.engine.solver.runner import DealResult, solve_numbers  # noqa: E402
from app.engine.solver.search import CPU_TIME  # noqa: E402

ANCHORS = ROOT / "tests" / "engine" / "test_solver_data" / "solvitaire-scorpion-200.jsonl"


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    k = min(len(s) - 1, max(0, round(q * (len(s) - 1))))
    return s[k]


def fmt_s(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms" if seconds < 1 else f"{seconds:.2f} s"


def report(
    label: str,
    results: list[tuple[str, float]],
    retried: dict[int, tuple[str, float]] | None = None,
) -> dict[str, float]:
    n = len(results)
    times = [t for _, t in results]
    d1 = sum(1 for v, t in results if v != "unknown" and t <= 1.0)
    d10 = sum(1 for v, t in results if v != "unknown" and t <= 10.0)
    wins = sum(1 for v, _ in results if v == "win")
    losses = sum(1 for v, _ in results if v == "loss")
    unknown = n - wins - losses
    print(f"\n== {label}: {n} deals")
    print(f"  win {wins}  loss {losses}  undecided {unknown}")
    print(f"  decided within 1 s : {100 * d1 / n:7.3f}%   within 10 s: {100 * d10 / n:7.3f}%")
    print(
        f"  time median {fmt_s(statistics.median(times))}  p90 {fmt_s(pct(times, 0.9))}  "
        f"p99 {fmt_s(pct(times, 0.99))}  max {fmt_s(max(times))}  total {sum(times):.1f} s"
    )
    if retried is not None:
        decided = sum(1 for v, _ in retried.values() if v != "unknown")
        slowest = max((t for _, t in retried.values()), default=0.0)
        print(
            f"  retried {len(retried)} undecided with a longer budget: {decided} decided "
            f"(slowest {fmt_s(slowest)})"
        )
    return {
        "deals": n,
        "win": wins,
        "loss": losses,
        "unknown": unknown,
        "decided_1s": d1 / n,
        "decided_10s": d10 / n,
        "median_s": statistics.median(times),
        "p90_s": pct(times, 0.9),
        "p99_s": pct(times, 0.99),
        "max_s": max(times),
    }


def anchors(budget: float) -> Iterator[tuple[dict[str, object], str, float]]:
    for raw in ANCHORS.read_text().splitlines():
        row = json.loads(raw)
        a = solve_deal("scorpion", parse_deal(str(row["deal"])), budget, clock=CPU_TIME)
        yield row, a.verdict, a.seconds


def speed_deals(variant: str, start: int, count: int) -> list[int]:
    """The first ``count`` deal numbers from ``start`` that need a search (the proof of loss
    at the start does not decide them): the same for both cores."""
    out: list[int] = []
    n = start
    while len(out) < count and n < start + 50 * count:
        game = Game.new(variant, deal_from_number(n, variant))
        if not start_proof(game):
            out.append(n)
        n += 1
    return out


def node_speed(variant: str, numbers: list[int], nodes: int) -> tuple[int, float]:
    """(nodes, CPU seconds) of the complete search alone on each deal, ``nodes`` at most each,
    with the core ``SOLVER_CORE`` names."""
    total_nodes = 0
    total_s = 0.0
    for n in numbers:
        game = Game.new(variant, deal_from_number(n, variant))
        r = solve_game(game, max_seconds=None, max_nodes=nodes, clock=CPU_TIME, win_first=False)
        total_nodes += r.nodes
        total_s += r.seconds
    return total_nodes, total_s


def main() -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--count", type=int, default=5000)
    p.add_argument("--start", type=int, default=1)
    p.add_argument("--variant", default="scorpion", choices=sorted(ALL_VARIANTS))
    p.add_argument("--budget", type=float, default=10.0)
    p.add_argument("--retry-budget", type=float, default=0.0)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument(
        "--deals", type=str, default="", help="deal numbers (or @file) instead of the range"
    )
    p.add_argument(
        "--core",
        choices=["py", "c", "both"],
        default=os.environ.get("SOLVER_CORE", "both") or "both",
        help="the complete search: pure Python, the compiled core, or both side by side",
    )
    p.add_argument("--speed-deals", type=int, default=20)
    p.add_argument("--speed-nodes", type=int, default=20_000)
    p.add_argument("--skip-anchors", action="store_true")
    p.add_argument("--json", type=str, default="", help="also write the figures here")
    args = p.parse_args()
    cores = ["py", "c"] if args.core == "both" else [args.core]
    if "c" in cores and not core.available():
        print("the compiled core is not built (pip install -e .): pure Python only")
        cores = ["py"]
    if len(cores) == 1:
        os.environ["SOLVER_CORE"] = cores[0]
        run(args, cores[0])
        return 0
    speeds: dict[str, float] = {}
    figures: dict[str, object] = {}
    for which in cores:
        os.environ["SOLVER_CORE"] = which
        print(f"\n######## SOLVER_CORE={which}")
        figures[which] = run(args, which, speeds)
    if len(speeds) == 2 and speeds["py"] > 0:
        print(
            f"\n== side by side: complete search {speeds['py']:,.0f} nodes/s (py), "
            f"{speeds['c']:,.0f} nodes/s (c): {speeds['c'] / speeds['py']:.1f}x fewer "
            "seconds per node"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


def run(
    args: argparse.Namespace, which: str, speeds: dict[str, float] | None = None
) -> dict[str, object]:
    """One core's whole benchmark (``main``); its figures."""
    out: dict[str, object] = {"core": which}
    started = time.monotonic()
    first = speed_deals(args.variant, args.start, args.speed_deals)
    if first:
        nodes, secs = node_speed(args.variant, first, args.speed_nodes)
        rate = nodes / secs if secs > 0 else 0.0
        print(
            f"== {which}: the complete search alone on {len(first)} deals from {first[0]} "
            f"to {first[-1]} not proved lost at the start (at most {args.speed_nodes:,} nodes "
            f"each): {nodes:,} nodes in {secs:.2f} s of CPU, "
            f"{rate:,.0f} nodes/s ({1e6 / rate if rate else float('nan'):.2f} us per node)"
        )
        out["nodes_per_s"] = rate
        if speeds is not None:
            speeds[which] = rate

    if not args.skip_anchors and args.variant == "scorpion":
        rows = []
        bar = Progress(200, "anchors")
        agree = disagree = 0
        for row, verdict, seconds in anchors(args.budget):
            rows.append((row, verdict, seconds))
            theirs = row["verdict"]
            if (theirs, verdict) in {("solved", "loss"), ("unsolvable", "win")}:
                disagree += 1
                print(f"\nDISAGREEMENT seed {row['seed']}: Solvitaire {theirs}, ours {verdict}")
            elif theirs != "timed-out" and verdict != "unknown":
                agree += 1
            bar.update(1)
        bar.close()
        ours = report("Solvitaire's 200 anchor deals (scorpion)", [(v, t) for _, v, t in rows])
        sv_dec = [r for r, _, _ in rows if r["verdict"] != "timed-out"]
        sv_ms = [float(str(r["solver_ms"])) / 1000 for r, _, _ in rows]
        print(
            f"  Solvitaire (C++) on the same deals: decided within 10 s "
            f"{100 * len(sv_dec) / len(rows):.1f}%, median {fmt_s(statistics.median(sv_ms))} "
            f"(its note: 84.8% over 400 deals, median 0.59 s)"
        )
        print(
            f"  verdicts: {agree} agree where both decided, {disagree} disagree; "
            f"{sum(1 for r, v, _ in rows if r['verdict'] == 'timed-out' and v != 'unknown')} "
            f"of its {len(rows) - len(sv_dec)} timed-out deals decided by ours"
        )
        out["anchors"] = {**ours, "agree": agree, "disagree": disagree}

    numbers: list[int] | range = range(args.start, args.start + args.count)
    if args.deals:
        text = Path(args.deals[1:]).read_text() if args.deals.startswith("@") else args.deals
        numbers = [int(x) for x in text.replace(",", " ").split()]
    bar = Progress(len(numbers), f"{args.variant} deals")
    results: list[DealResult] = []
    for r in solve_numbers(args.variant, numbers, args.budget, args.jobs):
        results.append(r)
        bar.update(1, f"undecided {sum(1 for x in results if x.verdict == 'unknown')}")
    bar.close()
    retried: dict[int, tuple[str, float]] | None = None
    if args.retry_budget > 0:
        retried = {}
        todo = [r.number for r in results if r.verdict == "unknown"]
        for r in solve_numbers(args.variant, todo, args.retry_budget, args.jobs):
            retried[r.number] = (r.verdict, r.ms / 1000)
            print(f"  retry deal {r.number}: {r.verdict} in {r.ms / 1000:.1f} s")
    label = (
        f"{args.variant}: {len(numbers)} listed deals"
        if args.deals
        else f"{args.variant} deal numbers {args.start}-{args.start + args.count - 1}"
    )
    out["deals"] = report(label, [(r.verdict, r.ms / 1000) for r in results], retried)
    undecided = [r.number for r in results if r.verdict == "unknown"]
    print(f"  undecided deals: {' '.join(map(str, undecided)) or 'none'}")
    out["undecided"] = undecided
    if retried:
        out["retry"] = {str(k): v for k, v in retried.items()}

    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    worker_peak = max((r.maxrss_kb for r in results), default=0)
    peak = max(own, kids, worker_peak)
    print(f"\npeak memory (max resident set of one process): {peak / 1024:.0f} MiB")
    print(f"wall time {time.monotonic() - started:.0f} s")
    out["peak_mib"] = peak / 1024
    if args.json and speeds is None:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
    return out


if __name__ == "__main__":
    sys.exit(main())
