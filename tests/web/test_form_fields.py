"""The urlencoded form reader shared by the CSRF check and the routes (``app.web.site.deps``):
the standard library's pairs, read once per request."""

from __future__ import annotations

import random
from urllib.parse import parse_qsl

from app.web.site.deps import FORM_PAIRS, body_pairs, urlencoded_pairs

TRICKY = [
    "",
    "&",
    "&&a=1&&",
    "a",
    "a=",
    "=a",
    "a=b=c",
    "a=1&a=2",
    "a=1;b=2",
    "csrf_token=x&from_column=1&from_index=2&to_column=3&version=7",
    "a=%41&b=c+d",
    "a+b=%zz&%=1",
    "é=ü&ß",
]


def test_the_pairs_are_the_standard_librarys() -> None:
    rng = random.Random(12)
    alphabet = "ab=&;%+ 1é"
    cases = TRICKY + [
        "".join(rng.choice(alphabet) for _ in range(rng.randrange(12))) for _ in range(3000)
    ]
    for text in cases:
        assert urlencoded_pairs(text) == parse_qsl(text, keep_blank_values=True), text


def test_a_body_the_csrf_check_read_is_not_read_again() -> None:
    body = b"csrf_token=t&to_column=3"
    kept = [("to_column", "kept")]
    scope = {"state": {FORM_PAIRS: (body, kept)}}
    assert body_pairs(scope, body) == kept  # the check's pairs, of this very body
    assert body_pairs(scope, b"to_column=4") == [("to_column", "4")]  # another body: read
    assert body_pairs({}, body) == [("csrf_token", "t"), ("to_column", "3")]
