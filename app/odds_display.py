"""The published odds (``app.engine.solver.load_odds()``) as text: rows for the rules page and
the table in the README.

The README's block between ``<!-- odds:start -->`` and ``<!-- odds:end -->`` is generated from
whatever ``odds.json`` holds; refresh it after the odds change::

    python -m app.odds_display          # rewrite the README block
    python -m app.odds_display --check  # exit 1 if the README is not up to date
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.engine import ALL_VARIANTS
from app.engine.solver import load_odds

log = logging.getLogger("app.analysis")

README = Path(__file__).resolve().parents[1] / "README.md"
START = "<!-- odds:start -->"
END = "<!-- odds:end -->"


def _pct(value: Any, digits: int = 2) -> str:
    return f"{100.0 * float(value):.{digits}f}%"


def odds_rows(entries: Sequence[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """One row of display text per variant (entries that cannot be read are left out)."""
    if entries is None:
        try:
            entries = load_odds()
        except (OSError, ValueError):
            log.exception("the odds file could not be read")
            return []
    rows: list[dict[str, Any]] = []
    for e in entries:
        try:
            name = str(e["variant"])
            deals = int(e["deals"])
            if deals <= 0:
                continue
            half = (float(e["ci_high"]) - float(e["ci_low"])) / 2
            retry = float(e.get("retry_seconds") or 0.0)
            rows.append(
                {
                    "variant": name,
                    "title": ALL_VARIANTS[name].title if name in ALL_VARIANTS else name,
                    "deals": f"{deals:,}",
                    "range": f"{int(e['first_deal']):,} to {int(e['last_deal']):,}",
                    "win": _pct(e["win_share"]),
                    "ci": f"{_pct(e['ci_low'])} to {_pct(e['ci_high'])}",
                    "half": f"{100.0 * half:.2f}",
                    "undecided": _pct(e["unknown_share"], 3),
                    "undecided_n": f"{int(e['unknown']):,}",
                    # Undecided deals had the longer retry budget, when there was one.
                    "budget": f"{max(float(e['budget_seconds']), retry):g}",
                    # The same as numbers, for the rules page to write in its language.
                    "deals_n": deals,
                    "first_n": int(e["first_deal"]),
                    "last_n": int(e["last_deal"]),
                    "ci_low": _pct(e["ci_low"]),
                    "ci_high": _pct(e["ci_high"]),
                    "undecided_count": int(e["unknown"]),
                }
            )
        except (KeyError, TypeError, ValueError):
            log.warning("skipping an unreadable odds entry: %r", e)
    return rows


def readme_block(rows: list[dict[str, Any]]) -> str:
    """The Markdown between the README's markers (markers included)."""
    if not rows:
        body = "The solver is still working through the deals: no odds are published yet."
    else:
        lines = [
            "| variant | deals examined | winnable | 95% confidence interval | undecided |",
            "|---|---|---|---|---|",
        ]
        for r in rows:
            lines.append(
                f"| {r['title']} | {r['deals']} (deal numbers {r['range']}) | {r['win']} | "
                f"{r['ci']} (±{r['half']} points) | {r['undecided']} ({r['undecided_n']} not "
                f"settled within {r['budget']} s) |"
            )
        body = "\n".join(lines)
    return f"{START}\n{body}\n{END}"


def render_readme(text: str, rows: list[dict[str, Any]]) -> str:
    """``text`` with its odds block replaced (``ValueError`` if the markers are missing)."""
    start, end = text.find(START), text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"the README has no {START} ... {END} block")
    return text[:start] + readme_block(rows) + text[end + len(END) :]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write the published odds into the README.")
    parser.add_argument("--check", action="store_true", help="only check; exit 1 if stale")
    parser.add_argument("--readme", type=Path, default=README)
    args = parser.parse_args(argv)
    text = args.readme.read_text()
    new = render_readme(text, odds_rows())
    if args.check:
        if new != text:
            print(f"{args.readme} does not show the current odds: run python -m app.odds_display")
            return 1
        print(f"{args.readme} shows the current odds")
        return 0
    if new != text:
        args.readme.write_text(new)
        print(f"updated the odds in {args.readme}")
    else:
        print(f"{args.readme} already shows the current odds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
