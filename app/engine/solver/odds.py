"""The odds of winning: the share of winnable deals over consecutive deal numbers.

Results are cached in ``data/odds/<variant>.jsonl``, one JSON object per block of consecutive
deal numbers: ``{"start", "count", "budget", "v", "ms"}`` where ``v`` holds one letter per
deal (``W`` win, ``L`` loss, ``U`` undecided within the budget) and ``ms`` the solver's time
per deal in milliseconds. Re-running skips blocks already stored (resumable). A second try of
the undecided deals with a longer budget (``retry_unknown``) updates their letters and times in
place and records, per deal, the budget of that try in ``rs`` (0: not retried); ``retry`` keeps
the longest. Older blocks have ``retry`` without ``rs``: every deal of theirs still undecided
had that retry.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .progress import Progress
from .runner import solve_numbers

ODDS_DIR = Path(__file__).resolve().parents[3] / "data" / "odds"
ODDS_JSON = Path(__file__).with_name("odds.json")
BLOCK = 500
# A verdict's letter in the data files.
LETTER = {"win": "W", "loss": "L", "unknown": "U"}


def wilson(successes: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95% by default)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True, slots=True)
class OddsSummary:
    variant: str
    first_deal: int
    last_deal: int
    deals: int
    win: int
    loss: int
    unknown: int
    win_share: float
    ci_low: float
    ci_high: float
    unknown_share: float
    budget_seconds: float
    retry_seconds: float  # the longer budget given to deals undecided at first (0: none)
    decided_within_budget: int  # deals decided within budget_seconds

    def text(self) -> str:
        pct = 100.0
        return (
            f"{self.variant}: deals {self.first_deal}-{self.last_deal} ({self.deals} deals, "
            f"{self.budget_seconds:g} s each at most)\n"
            f"  winnable   {self.win:7d}  {pct * self.win_share:6.2f}%  "
            f"95% CI [{pct * self.ci_low:.2f}%, {pct * self.ci_high:.2f}%] "
            f"(+/-{pct * (self.ci_high - self.ci_low) / 2:.2f} points)\n"
            f"  lost       {self.loss:7d}  {pct * self.loss / max(self.deals, 1):6.2f}%\n"
            f"  undecided  {self.unknown:7d}  {pct * self.unknown_share:6.3f}%"
            + (
                f" (after a second try of {self.retry_seconds:g} s each)"
                if self.retry_seconds
                else ""
            )
            + f"\n  decided within {self.budget_seconds:g} s: "
            f"{pct * self.decided_within_budget / max(self.deals, 1):.3f}%"
        )


def odds_file(variant: str, directory: Path = ODDS_DIR) -> Path:
    return directory / f"{variant}.jsonl"


def read_blocks(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    out = []
    for raw in path.read_text().splitlines():
        if raw.strip():
            out.append(json.loads(raw))
    return out


@dataclass(frozen=True, slots=True)
class SolvePass:
    """How a pass of the solver over many deals runs: ``jobs`` processes; at most
    ``time_limit`` seconds (None: no limit); a progress bar on stderr unless ``quiet``."""

    jobs: int = 2
    time_limit: float | None = None
    quiet: bool = False

    def progress(self, total: int, label: str) -> Progress | None:
        return None if self.quiet else Progress(total, label)

    def stop_at(self) -> float | None:
        """The ``time.monotonic()`` after which the pass stops, counted from now."""
        return time.monotonic() + self.time_limit if self.time_limit else None


def run_odds(
    variant: str,
    start: int,
    count: int,
    budget: float,
    run: SolvePass = SolvePass(),
    *,
    path: Path | None = None,
    block: int = BLOCK,
) -> OddsSummary:
    """Solve the deals ``start .. start + count - 1`` not yet cached, then summarise them."""
    path = path or odds_file(variant)
    path.parent.mkdir(parents=True, exist_ok=True)
    done = {b["start"] for b in read_blocks(path)}
    first_block = start - (start - 1) % block
    todo_blocks = [b for b in range(first_block, start + count, block) if b not in done]
    numbers = [n for b in todo_blocks for n in range(b, b + block)]
    bar = run.progress(len(numbers), f"odds {variant}")
    stop_at = run.stop_at()
    counts = {"W": 0, "L": 0, "U": 0}
    letters: list[str] = []
    times: list[int] = []
    with path.open("a") as out:
        for r in solve_numbers(variant, numbers, budget, run.jobs):
            letter = LETTER[r.verdict]
            counts[letter] += 1
            letters.append(letter)
            times.append(math.ceil(r.ms))
            if len(letters) == block:
                rec = {
                    "start": r.number - block + 1,
                    "count": block,
                    "budget": budget,
                    "v": "".join(letters),
                    "ms": times,
                }
                out.write(json.dumps(rec, separators=(",", ":")) + "\n")
                out.flush()
                letters, times = [], []
            if bar:
                bar.update(1, f"W{counts['W']} L{counts['L']} U{counts['U']}")
            if stop_at is not None and time.monotonic() >= stop_at and not letters:
                break
    if bar:
        bar.close()
    return summarise(variant, start, count, path=path)


def retried_with(block: dict[str, Any]) -> list[float]:
    """The retry budget each deal of ``block`` had, in seconds (0: none)."""
    if "rs" in block:
        return [float(x) for x in block["rs"]]
    legacy = float(block.get("retry", 0.0))
    return [legacy if letter == "U" else 0.0 for letter in block["v"]]


def retry_unknown(
    variant: str, budget: float, run: SolvePass = SolvePass(), *, path: Path | None = None
) -> int:
    """Solve again, with ``budget`` seconds, the cached deals left undecided that have not had
    that budget yet (a second run does not repeat the first's work); returns how many got
    decided. Their letters and times are updated in place, the budget each had in ``rs``."""
    path = path or odds_file(variant)
    blocks = read_blocks(path)
    todo = [
        b["start"] + k
        for b in blocks
        for k, (v, had) in enumerate(zip(b["v"], retried_with(b), strict=True))
        if v == "U" and had < budget
    ]
    where = block_of(blocks)
    bar = run.progress(len(todo), f"retry {variant}")
    stop_at = run.stop_at()
    decided = 0
    for r in solve_numbers(variant, todo, budget, run.jobs):
        letter = LETTER[r.verdict]
        record_verdict(where[r.number], r.number, letter, r.ms, retried=budget)
        decided += letter != "U"
        write_blocks(path, blocks)
        if bar:
            bar.update(1, f"decided {decided}")
        if stop_at is not None and time.monotonic() >= stop_at:
            break
    if bar:
        bar.close()
    return decided


def block_of(blocks: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """The block that holds each deal number of ``blocks``."""
    return {b["start"] + k: b for b in blocks for k in range(len(b["v"]))}


def record_verdict(
    block: dict[str, Any], number: int, letter: str, ms: float, *, retried: float | None = None
) -> None:
    """Record in ``block`` (in memory) deal ``number``'s new verdict ``letter`` and the CPU time
    it took (``ms``); ``retried``: the retry budget it was given (``rs``, and the block's
    ``retry``), None for a re-solve that is not a retry of an undecided deal."""
    k = number - block["start"]
    block["v"] = block["v"][:k] + letter + block["v"][k + 1 :]
    block["ms"][k] = math.ceil(ms)
    if retried is not None:
        block["rs"] = retried_with(block)  # a block gets its per-deal record when first retried
        block["rs"][k] = retried
        block["retry"] = max(float(block.get("retry", 0.0)), retried)


def write_blocks(path: Path, blocks: list[dict[str, Any]]) -> None:
    """Write ``blocks`` to the data file ``path`` (through a temporary file, so a run stopped
    halfway leaves the old file whole)."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text("".join(json.dumps(b, separators=(",", ":")) + "\n" for b in blocks))
    tmp.replace(path)


def summarise(variant: str, start: int, count: int, *, path: Path | None = None) -> OddsSummary:
    """Summarise the cached results for deals ``start .. start + count - 1``.

    ``retry_seconds`` is the shortest retry budget an undecided deal of the range had, and 0
    if some undecided deal had none, so "not settled within" never claims a longer budget for
    a deal than it had; with no deal left undecided, the longest retry any deal had."""
    path = path or odds_file(variant)
    verdict: dict[int, str] = {}
    budget = 0.0
    undecided_retries: list[float] = []
    longest_retry = 0.0
    quick = 0
    for b in read_blocks(path):
        rs = retried_with(b)
        for k, letter in enumerate(b["v"]):
            n = b["start"] + k
            if start <= n < start + count:
                budget = max(budget, float(b["budget"]))
                verdict[n] = letter
                quick += letter != "U" and b["ms"][k] <= 1000 * float(b["budget"])
                longest_retry = max(longest_retry, float(b.get("retry", 0.0)))
                if letter == "U":
                    undecided_retries.append(rs[k])
    retry = min(undecided_retries) if undecided_retries else longest_retry
    win = sum(1 for v in verdict.values() if v == "W")
    loss = sum(1 for v in verdict.values() if v == "L")
    unknown = sum(1 for v in verdict.values() if v == "U")
    n = len(verdict)
    lo, hi = wilson(win, n)
    return OddsSummary(
        variant=variant,
        first_deal=min(verdict) if verdict else start,
        last_deal=max(verdict) if verdict else start - 1,
        deals=n,
        win=win,
        loss=loss,
        unknown=unknown,
        win_share=win / n if n else 0.0,
        ci_low=lo,
        ci_high=hi,
        unknown_share=unknown / n if n else 0.0,
        budget_seconds=budget,
        retry_seconds=retry,
        decided_within_budget=quick,
    )


def write_odds_json(summary: OddsSummary, path: Path = ODDS_JSON) -> None:
    """Store the summary for ``summary.variant`` in ``odds.json`` (other variants kept)."""
    data: list[dict[str, Any]] = json.loads(path.read_text()) if path.exists() else []
    data = [d for d in data if d.get("variant") != summary.variant]
    data.append(asdict(summary))
    data.sort(key=lambda d: str(d["variant"]))
    path.write_text(json.dumps(data, indent=2) + "\n")


def load_odds() -> list[dict[str, Any]]:
    """The published odds (``odds.json``), one entry per variant; [] if none yet."""
    if not ODDS_JSON.exists():
        return []
    data: list[dict[str, Any]] = json.loads(ODDS_JSON.read_text())
    return data
