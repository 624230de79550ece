"""Server-rendered pictures for the statistics page: a plain SVG bar chart, no script."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from app.i18n import format_day, format_short_day, gettext, ngettext
from app.services import DayCount, PlayerStatistics

short_day = format_short_day


@dataclass(frozen=True, slots=True)
class Totals:
    started: int
    won: int
    win_rate: float | None
    current_streak: int
    best_streak: int
    best_time_seconds: int | None
    fewest_moves: int | None


def totals(data: PlayerStatistics) -> Totals:
    """Figures over every variant together (the per-variant table shows each one)."""
    v = list(data.variants.values())
    started = sum(x.started for x in v)
    won = sum(x.won for x in v)
    times = [x.best_time_seconds for x in v if x.best_time_seconds is not None]
    moves = [x.fewest_moves for x in v if x.fewest_moves is not None]
    return Totals(
        started=started,
        won=won,
        win_rate=won / started if started else None,
        current_streak=max((x.current_streak for x in v), default=0),
        best_streak=max((x.best_streak for x in v), default=0),
        best_time_seconds=min(times) if times else None,
        fewest_moves=min(moves) if moves else None,
    )


def _nice_max(value: int) -> int:
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000):
        if value <= step * 4:
            return step * 4
    return ((value // 1000) + 1) * 1000


@dataclass(frozen=True, slots=True)
class Bar:
    kind: str  # "bar-s" (started) | "bar-w" (won) | "day" (a day's name under the axis)
    x: float
    y: float
    height: float
    label: str


@dataclass(frozen=True, slots=True)
class BarChart:
    """A bar chart's geometry and words, drawn by templates/partials/chart.html."""

    width: int
    height: int
    left: int
    right: int
    bar: float
    title: str
    desc: str
    grid: list[tuple[float, int]]  # (y, value) of each horizontal line
    bars: list[Bar]  # day by day


def starts_wins_chart(per_day: list[DayCount], *, days: int, today: date) -> BarChart:
    """Bars of games started and won on each of the last ``days`` days (all variants)."""
    first = today - timedelta(days=days - 1)
    starts = [0] * days
    wins = [0] * days
    for d in per_day:
        k = (d.day - first).days
        if 0 <= k < days:
            starts[k] += d.started
            wins[k] += d.won
    top = _nice_max(max([*starts, *wins, 1]))
    w, h = 480, 210
    left, right, top_pad, bottom = 30, 22, 10, 26
    plot_w, plot_h = w - left - right, h - top_pad - bottom
    slot = plot_w / days
    bar = max(2.0, slot * 0.38)
    total_s, total_w = sum(starts), sum(wins)
    desc = ngettext(
        "From %(first)s to %(last)s: %(n)d game started and %(won)d won.",
        "From %(first)s to %(last)s: %(n)d games started and %(won)d won.",
        total_s,
    ) % {
        "first": format_day(first, "long"),
        "last": format_day(today, "long"),
        "n": total_s,
        "won": total_w,
    }
    grid = [(top_pad + plot_h - plot_h * i / 4, top * i // 4) for i in range(5)]
    bars: list[Bar] = []
    for k in range(days):
        x = left + slot * k + slot / 2
        day = first + timedelta(days=k)
        for kind, values, dx in (("bar-s", starts, -bar), ("bar-w", wins, 0.0)):
            v = values[k]
            if v:
                bh = plot_h * v / top
                if kind == "bar-s":
                    label = gettext("{day}: {n} started").format(day=short_day(day), n=v)
                else:
                    label = gettext("{day}: {n} won").format(day=short_day(day), n=v)
                bars.append(Bar(kind, x + dx, top_pad + plot_h - bh, bh, label))
        if k % 7 == (days - 1) % 7:
            bars.append(Bar("day", x, h - 8, 0.0, short_day(day)))
    return BarChart(
        width=w,
        height=h,
        left=left,
        right=right,
        bar=bar,
        title=gettext("Games started and won, last {n} days").format(n=days),
        desc=desc,
        grid=grid,
        bars=bars,
    )
