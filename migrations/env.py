"""Alembic environment: the URL comes from app.config.Settings (env DATABASE_URL).

A caller may pass an open connection in ``config.attributes["connection"]`` (tests do), or a
URL in ``config.attributes["database_url"]``.
"""

from __future__ import annotations

from typing import Any

from alembic import context
from sqlalchemy import Connection

from app.config import get_settings
from app.db.models import Base, UTCDateTime
from app.db.session import make_engine

config = context.config
target_metadata = Base.metadata


def _url() -> str:
    url = config.attributes.get("database_url")
    return str(url) if url else get_settings().database_url


def _render_item(type_: str, obj: Any, autogen_context: Any) -> str | bool:
    """Autogenerate writes our UTC timestamp type as the plain SQLAlchemy type it stores."""
    if type_ == "type" and isinstance(obj, UTCDateTime):
        return "sa.DateTime(timezone=True)"
    return False


def _configure(connection: Connection | None = None, url: str | None = None) -> None:
    context.configure(
        connection=connection,
        url=url,
        target_metadata=target_metadata,
        render_as_batch=True,
        render_item=_render_item,
        compare_type=True,
        compare_server_default=True,
        literal_binds=connection is None,
    )


def run_migrations_offline() -> None:
    _configure(url=_url())
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _configure(connection=connection)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = make_engine(_url())
    try:
        with engine.connect() as conn:
            _configure(connection=conn)
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
