"""``{% cache a, b, ... %}...{% endcache %}``: a template fragment kept rendered by its inputs.

Jinja's own fragment-cache extension (the "Example Extension" of Jinja's documentation), keyed
by the values the tag names, the place of the tag in its template and what
``environment.fragment_cache_varies()`` returns (the request's language): whatever the fragment
draws must follow from those alone. The play page keeps each tableau column this way
(``templates/partials/board.html``): a move changes one to three columns, the others are drawn
once. The cache is the environment's, bounded (emptied when full).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from jinja2 import nodes
from jinja2.environment import Environment
from jinja2.ext import Extension
from jinja2.parser import Parser

MAX_FRAGMENTS = 4096


def _no_variation() -> Hashable:
    return None


class FragmentCache(Extension):
    tags = {"cache"}

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        environment.extend(
            fragment_cache={},
            fragment_cache_max=MAX_FRAGMENTS,
            fragment_cache_varies=_no_variation,
        )

    def parse(self, parser: Parser) -> nodes.Node:
        lineno = next(parser.stream).lineno
        place = nodes.Const(f"{parser.name}:{lineno}")
        values: list[nodes.Expr] = [place]
        while parser.stream.current.type != "block_end":
            if len(values) > 1:
                parser.stream.expect("comma")
            values.append(parser.parse_expression())
        body = parser.parse_statements(("name:endcache",), drop_needle=True)
        key = nodes.Tuple(values, "load")
        call = self.call_method("_fragment", [key])
        return nodes.CallBlock(call, [], [], body).set_lineno(lineno)

    def _fragment(self, key: tuple[Hashable, ...], caller: Callable[[], Any]) -> Any:
        env: Any = self.environment
        full = (env.fragment_cache_varies(), *key)
        cache: dict[tuple[Hashable, ...], Any] = env.fragment_cache
        html = cache.get(full)
        if html is None:
            if len(cache) >= env.fragment_cache_max:
                cache.clear()
            html = cache[full] = caller()
        return html
