"""The cross-cutting concerns, one small pure-ASGI middleware each (wired in ``app.main``)."""
