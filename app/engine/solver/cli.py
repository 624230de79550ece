"""Command line of the solver (offline tools): ``python -m app.engine.solver <command>``.

Commands:

- ``solve``: solve one deal (``--number N`` or ``--deal "52 codes"``) and print the verdict.
- ``build-catalog``: examine deal numbers ``--start .. --start + --count - 1`` and store every
  deal proved winnable with its verified line in the variant's catalog (resumable).
- ``grade``: grade every deal of the variant's catalog easy, medium or hard (``grading.py``,
  docs/difficulty.md), store the grades in the catalog and print the held-out evidence.
- ``odds``: solve consecutive deal numbers, cache the verdicts in ``data/odds/`` (resumable)
  and print the share of winnable deals with its 95% Wilson interval; ``--write-json`` also
  stores the figures in ``app/engine/solver/odds.json`` for the rules page.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ..deals import deal_from_number, parse_deal
from ..variants import ALL_VARIANTS
from .api import solve_deal
from .catalogs import (
    catalog_path,
    encode_line,
    is_scanned,
    load_catalog_file,
    merge_ranges,
    save_catalog_file,
)
from .grading import (
    GRADING_METHOD,
    HELD_OUT_SEED,
    OPENING_NODES,
    PLAYERS,
    RUNS,
    Measures,
    grade_all,
    held_out,
    measure,
)
from .odds import SolvePass, retry_unknown, run_odds, summarise, write_odds_json
from .progress import Progress
from .runner import solve_numbers


def _cmd_solve(args: argparse.Namespace) -> int:
    deal = (
        parse_deal(args.deal, args.variant)
        if args.deal
        else deal_from_number(args.number, args.variant)
    )
    a = solve_deal(args.variant, deal, args.budget)
    print(f"{a.verdict} in {a.seconds:.3f} s, {a.nodes} nodes")
    if a.line is not None:
        print(f"line ({len(a.line)} steps): {encode_line(a.line)}")
    return 0


def _cmd_build_catalog(args: argparse.Namespace) -> int:
    path = Path(args.out) if args.out else catalog_path(args.variant)
    data = load_catalog_file(path, args.variant)
    numbers = [
        n for n in range(args.start, args.start + args.count) if not is_scanned(data["scanned"], n)
    ]
    bar = Progress(len(numbers), f"catalog {args.variant}")
    deadline = time.monotonic() + args.time_limit if args.time_limit else None
    pending_from: int | None = None
    last_save = time.monotonic()
    found = 0
    for r in solve_numbers(args.variant, numbers, args.budget, args.jobs):
        if pending_from is None:
            pending_from = r.number
        if r.verdict == "win":
            data["deals"][str(r.number)] = r.line
            found += 1
        # numbers come back in order: everything from pending_from to r.number is scanned
        data["scanned"] = merge_ranges([*data["scanned"], [r.number, r.number + 1]])
        bar.update(1, f"winnable {found}")
        now = time.monotonic()
        if now - last_save > 5:
            save_catalog_file(path, data)
            last_save = now
        if deadline is not None and now >= deadline:
            break
    save_catalog_file(path, data)
    bar.close()
    print(f"{path}: {len(data['deals'])} winnable deals catalogued ({found} new)")
    return 0


def _cmd_grade(args: argparse.Namespace) -> int:
    path = Path(args.out) if args.out else catalog_path(args.variant)
    data = load_catalog_file(path, args.variant)
    numbers = sorted(int(k) for k in data["deals"])
    if not numbers:
        print(f"{path}: no catalogued deals to grade")
        return 1
    measures: dict[int, Measures] = {}
    stored = data.get("measures", {})
    old = data.get("grading", {})
    if (
        args.reuse_measures
        and old.get("runs") == args.runs
        and old.get("opening_nodes", OPENING_NODES) == args.opening_nodes
    ):
        # the measures of an earlier run with the same settings: only the grades are redone
        measures = {int(k): Measures(*v) for k, v in stored.items() if int(k) in set(numbers)}
    todo = [n for n in numbers if n not in measures]
    bar = Progress(len(todo), f"grade {args.variant}")
    for n in todo:
        measures[n] = measure(args.variant, n, args.runs, args.opening_nodes)
        bar.update(1)
    bar.close()
    grades, cuts = grade_all(measures)
    data["grades"] = {str(n): grades[n] for n in numbers}
    data["measures"] = {str(n): measures[n].as_list() for n in numbers}
    data["grading"] = {
        "method": GRADING_METHOD,
        "measures": ["greedy win rate", "random win rate", "opening share"],
        "runs": args.runs,
        "opening_nodes": args.opening_nodes,
        "score": "mean of the three percentile ranks (higher is easier)",
        "thresholds": [cuts[0], cuts[1]],
        "held_out_seed": HELD_OUT_SEED,
        "evidence": {},
    }
    save_catalog_file(path, data)  # the grades are kept even if the evidence is cut short
    evidence: dict[str, dict[str, float]] = {}
    if args.held_out:
        sample = numbers[:: args.held_out_every]
        totals: dict[str, dict[str, float]] = {}
        bar = Progress(len(sample), f"held-out {args.variant}")
        for n in sample:
            t = totals.setdefault(grades[n], {"deals": 0.0, **{p: 0.0 for p in PLAYERS}})
            t["deals"] += 1
            for player, rate in held_out(args.variant, n, args.runs).items():
                t[player] += rate
            bar.update(1)
        bar.close()
        for grade in ("easy", "medium", "hard"):
            t = totals.get(grade, {"deals": 0.0})
            k = t["deals"]
            evidence[grade] = {
                "deals": int(k),
                **{p: round(t[p] / k, 4) if k else 0.0 for p in PLAYERS},
            }
    data["grading"]["evidence"] = evidence
    data["grading"]["held_out_every"] = args.held_out_every
    save_catalog_file(path, data)
    counts = {g: sum(1 for x in grades.values() if x == g) for g in ("easy", "medium", "hard")}
    print(f"{path}: {len(grades)} deals graded {counts}, thresholds {cuts}")
    if evidence:
        print(f"held-out win rates (seeds from {HELD_OUT_SEED}):")
        print("| grade | deals | " + " | ".join(PLAYERS) + " |")
        for grade, e in evidence.items():
            rates = " | ".join(f"{100 * e[p]:.1f}%" for p in PLAYERS)
            print(f"| {grade} | {e['deals']} | {rates} |")
    return 0


def _cmd_odds(args: argparse.Namespace) -> int:
    if args.retry_unknown:
        n = retry_unknown(
            args.variant,
            args.retry_unknown,
            SolvePass(args.jobs, args.time_limit),
            path=Path(args.out) if args.out else None,
        )
        print(f"{n} undecided deals decided on the second try")
        summary = summarise(
            args.variant, args.start, args.count, path=Path(args.out) if args.out else None
        )
        print(summary.text())
        if args.write_json:
            write_odds_json(summary)
        return 0
    summary = run_odds(
        args.variant,
        args.start,
        args.count,
        args.budget,
        SolvePass(args.jobs, args.time_limit),
        path=Path(args.out) if args.out else None,
    )
    print(summary.text())
    if args.write_json:
        write_odds_json(summary)
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m app.engine.solver",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="command", required=True)

    def common(sp: argparse.ArgumentParser, budget: float) -> None:
        sp.add_argument("--variant", choices=sorted(ALL_VARIANTS), default="scorpion")
        sp.add_argument("--budget", type=float, default=budget, help="seconds per deal")

    s = sub.add_parser("solve", help="solve one deal")
    common(s, 10.0)
    g = s.add_mutually_exclusive_group(required=True)
    g.add_argument("--number", type=int)
    g.add_argument("--deal", type=str)
    s.set_defaults(func=_cmd_solve)

    gr = sub.add_parser("grade", help="grade the catalogued deals easy, medium or hard")
    gr.add_argument("--variant", choices=sorted(ALL_VARIANTS), default="scorpion")
    gr.add_argument("--runs", type=int, default=RUNS, help="seeded games per player and deal")
    gr.add_argument(
        "--opening-nodes",
        type=int,
        default=OPENING_NODES,
        help="solver nodes per opening action in the opening share",
    )
    gr.add_argument("--out", type=str, default=None, help="catalog file (default: shipped)")
    gr.add_argument(
        "--no-held-out",
        dest="held_out",
        action="store_false",
        help="skip the held-out evidence (win rates per grade on fresh seeds)",
    )
    gr.add_argument(
        "--held-out-every",
        type=int,
        default=1,
        metavar="K",
        help="held-out evidence on every K-th graded deal only (default: all)",
    )
    gr.add_argument(
        "--reuse-measures",
        action="store_true",
        help="keep the stored measures of deals already measured with the same --runs",
    )
    gr.set_defaults(func=_cmd_grade)

    for name, func, budget in (
        ("build-catalog", _cmd_build_catalog, 2.0),
        ("odds", _cmd_odds, 10.0),
    ):
        c = sub.add_parser(name)
        common(c, budget)
        c.add_argument("--start", type=int, default=1)
        c.add_argument("--count", type=int, required=True)
        c.add_argument("--jobs", type=int, default=1, help="worker processes")
        c.add_argument("--out", type=str, default=None)
        c.add_argument(
            "--time-limit",
            type=float,
            default=None,
            help="stop (resumably) after this many seconds",
        )
        if name == "odds":
            c.add_argument(
                "--write-json",
                action="store_true",
                help="store the figures in app/engine/solver/odds.json",
            )
            c.add_argument(
                "--retry-unknown",
                type=float,
                default=0.0,
                metavar="SECONDS",
                help="instead: solve the cached undecided deals again with this budget",
            )
        c.set_defaults(func=func)

    args = p.parse_args(argv)
    result: int = args.func(args)
    return result


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
