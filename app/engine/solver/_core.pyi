"""Type stub of the compiled core (``_core.pyx``, built by ``pip install -e .``)."""

from typing import Any

from app.engine.game import Action

class Search:
    nodes: int
    joins_taken: int
    dead_checks: int
    dead_cuts: int
    def __init__(
        self,
        cols: list[list[int]],
        hidden: list[int],
        stock: list[int],
        reserve: list[int],
        cells: list[int],
        done: int,
        nstock: int,
        any_empty: bool,
        alternate: bool,
        decks: int,
        runs_needed: int,
        prune: bool = True,
        max_entries: int = ...,
        keep_joined: bool = False,
        noise: int = 0,
        seed: int = 0,
        deal_priority: int | None = None,
        dig: bool = False,
        prove: bool = True,
    ) -> None: ...
    def dead(self) -> bool: ...
    def key(self) -> tuple[int, int]: ...
    def run(
        self, deadline: float, clock: Any, max_nodes: int
    ) -> tuple[str, list[Action] | None, int]: ...
