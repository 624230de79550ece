"""``LanguageMiddleware``: the request's language (``app.i18n.current_locale``): the
player's choice in its cookie (``scorpion_lang``), else ``Accept-Language``, else English.
Both inputs are kept in ``scope["state"]`` for the pages (``locale_cookie``,
``accept_language``)."""

from __future__ import annotations

from starlette.types import Receive, Scope, Send

from app import i18n
from app.web.middleware.asgi import HttpMiddleware, first_headers

_WANTED = (b"cookie", b"accept-language")


class LanguageMiddleware(HttpMiddleware):
    """See the module notes."""

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        found = first_headers(scope, _WANTED)
        cookie, accept = (found.get(name) for name in _WANTED)
        cookie_text = cookie.decode("latin-1") if cookie is not None else None
        accept_text = accept.decode("latin-1") if accept is not None else None
        choice = i18n.cookie_choice(cookie_text)
        state = scope.setdefault("state", {})
        state["locale_cookie"] = choice
        state["accept_language"] = accept_text
        token = i18n.current_locale.set(i18n.choose(choice, accept_text))
        try:
            await self.app(scope, receive, send)
        finally:
            i18n.current_locale.reset(token)
