"""Challenge link tokens stay out of uvicorn's access log (finding 9): the filter the
application installs prints the route's template instead of the token."""

from __future__ import annotations

import logging

import pytest

import app.main  # noqa: F401 - making the application installs the filter
from app.web.access_log import ChallengeTokenFilter, redact

TOKEN = "Zq3kX9_secret-Token42"


def test_the_filter_is_installed_on_uvicorns_access_logger() -> None:
    logger = logging.getLogger("uvicorn.access")
    assert any(isinstance(f, ChallengeTokenFilter) for f in logger.filters)


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        (f"/challenge/{TOKEN}", "/challenge/{token}"),
        (f"/challenge/{TOKEN}/events", "/challenge/{token}/events"),
        (f"/challenge/{TOKEN}/play?again=1", "/challenge/{token}/play"),
        (f"/api/challenges/{TOKEN}", "/api/challenges/{token}"),
        (f"/api/challenges/{TOKEN}/games", "/api/challenges/{token}/games"),
        ("/games/abc/move", "/games/abc/move"),
    ],
)
def test_access_log_lines_show_the_template(
    caplog: pytest.LogCaptureFixture, path: str, shown: str
) -> None:
    assert redact(path) == shown
    with caplog.at_level(logging.INFO, logger="uvicorn.access"):
        logging.getLogger("uvicorn.access").info(
            '%s - "%s %s HTTP/%s" %d', "127.0.0.1:5000", "GET", path, "1.1", 200
        )
    line = caplog.records[-1].getMessage()
    assert TOKEN not in line and shown in line
