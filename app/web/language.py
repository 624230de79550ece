"""``LanguageMiddleware``: the request's language (``app.i18n.current_locale``): the
player's choice in its cookie (``scorpion_lang``), else ``Accept-Language``, else English.
Both inputs are kept in ``scope["state"]`` for the pages (``locale_cookie``,
``accept_language``)."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from app import i18n


class LanguageMiddleware:
    """See the module notes."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        cookie = accept = None
        for name, value in scope.get("headers", ()):
            if name == b"cookie" and cookie is None:
                cookie = value.decode("latin-1")
            elif name == b"accept-language" and accept is None:
                accept = value.decode("latin-1")
        choice = i18n.cookie_choice(cookie)
        state = scope.setdefault("state", {})
        state["locale_cookie"] = choice
        state["accept_language"] = accept
        token = i18n.current_locale.set(i18n.choose(choice, accept))
        try:
            await self.app(scope, receive, send)
        finally:
            i18n.current_locale.reset(token)
