"""Engine benchmark (``make bench``): hint+move steps per second and log replay time.

Figures printed:
- engine: a "step" is computing every hint and then applying one of them (or the deal),
  on random games, measured over many steps;
- family: the same step in every variant of the Scorpion family (CPU time of this process,
  so other work on the machine disturbs it less), with its ratio to the base game's step
  (the target: no variant above 3x);
- reference: the same with the plain implementation of ``tests/engine/reference.py``,
  which copies the whole position and tries every column pair;
- replay: rebuilding a 300-step game from its deal and action log;
- server path: snapshot load + one action + snapshot dump, early and late in a game.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from app.engine import ALL_VARIANTS, Action, Game, deal_from_number
from tests.support import reference as ref


def _engine_steps(
    n_steps: int,
    seed: int,
    variant: str = "scorpion",
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    rng = random.Random(seed)
    number = 1
    game = Game.new(variant, deal_from_number(number, variant))
    done = 0
    t0 = clock()
    while done < n_steps:
        hints = game.hints()
        if hints:
            game.move(*hints[rng.randrange(len(hints))])
        elif game.can_deal:
            game.deal()
        else:
            number += 1
            game = Game.new(variant, deal_from_number(number, variant))
            continue
        done += 1
    return (clock() - t0) / n_steps


def family_steps(n_steps: int, seeds: tuple[int, ...] = (1, 2, 3)) -> dict[str, float]:
    """Each variant's hint+move step time (CPU seconds, best of ``seeds``), in table order."""
    best = {name: float("inf") for name in ALL_VARIANTS}
    for seed in seeds:  # interleaved, so a busy moment does not hit one variant only
        for name in ALL_VARIANTS:
            t = _engine_steps(n_steps, seed, name, time.process_time)
            best[name] = min(best[name], t)
    return best


def _reference_steps(n_steps: int, seed: int) -> float:
    rng = random.Random(seed)
    number = 1
    pos = ref.from_game(Game.new("scorpion", deal_from_number(number)))
    done = 0
    t0 = time.perf_counter()
    while done < n_steps:
        useful = sorted(m for m in ref.legal_moves(pos) if ref.useful(pos, m))
        if useful:
            pos = ref.apply_move(pos, useful[rng.randrange(len(useful))])
        elif pos.stock:
            pos = ref.apply_deal(pos)
        else:
            number += 1
            pos = ref.from_game(Game.new("scorpion", deal_from_number(number)))
            continue
        done += 1
    return (time.perf_counter() - t0) / n_steps


def long_log(length: int, seed: int = 11) -> tuple[int, list[Action]]:
    """A deal number and a log of ``length`` legal actions (moves, deal, undo, redo)."""
    rng = random.Random(seed)
    number = 7
    while True:
        game = Game.new("scorpion", deal_from_number(number))
        log: list[Action] = []
        while len(log) < length:
            hints = game.hints()
            roll = rng.random()
            if roll < 0.1 and game.can_undo:
                action: Action = ("undo",)
            elif roll < 0.15 and game.can_redo:
                action = ("redo",)
            elif hints:
                action = ("move", *hints[rng.randrange(len(hints))])
            elif game.can_deal:
                action = ("deal",)
            else:
                break
            game.apply(action)
            log.append(action)
        if len(log) == length:
            return number, log
        number += 1


def _median_time(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=200_000)
    parser.add_argument("--reference-steps", type=int, default=5_000)
    parser.add_argument("--family-steps", type=int, default=20_000)
    args = parser.parse_args()

    eng = min(_engine_steps(args.steps, seed) for seed in (1, 2, 3))
    plain = _reference_steps(args.reference_steps, 1)
    print(f"engine    hint+move step: {eng * 1e6:8.2f} us   ({1 / eng:,.0f} steps/s)")
    print(f"reference hint+move step: {plain * 1e6:8.2f} us   ({1 / plain:,.0f} steps/s)")
    print(f"speed-up over the plain reference: {plain / eng:.1f}x (target: >= 20x, < 20 us)")

    family = family_steps(args.family_steps)
    base = family["scorpion"]
    print("family hint+move step (CPU time; target: every variant <= 3x the base game):")
    for name, t in family.items():
        flag = "" if t <= 3 * base else "   OVER 3x"
        print(f"  {name:18s} {t * 1e6:8.2f} us   {t / base:5.2f}x{flag}")

    number, log = long_log(300)
    deal = deal_from_number(number)
    replay = _median_time(lambda: Game.replay("scorpion", deal, log), 50)
    print(f"rebuild a 300-step game from its log: {replay * 1e3:.3f} ms")

    for at in (10, 300):
        game = Game.replay("scorpion", deal, log[:at])
        snap = game.to_snapshot()

        def server_step(snap: str = snap) -> None:
            g = Game.from_snapshot(snap)
            hints = g.hints()
            if hints:
                g.move(*hints[0])
            else:
                g.undo()
            g.to_snapshot()

        t = _median_time(server_step, 2000)
        print(f"snapshot load + action + dump at step {at:3d}: {t * 1e6:8.2f} us")


if __name__ == "__main__":
    main()
