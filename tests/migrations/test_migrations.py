"""The Alembic migrations, on a fresh database of each backend: upgrade from empty,
``alembic check`` clean, downgrade to base and upgrade again; plus the CLI as documented."""

from __future__ import annotations

import os
import subprocess
import sys

from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import inspect

from app.db.models import Base
from app.db.session import make_engine
from tests.support.postgres import (
    ROOT,
    alembic_config,
)


def _tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(inspect(engine).get_table_names()) - {"alembic_version"}
    finally:
        engine.dispose()


def _current(url: str) -> str | None:
    from alembic.runtime.migration import MigrationContext

    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()


def test_upgrade_check_downgrade_upgrade(fresh_url: str) -> None:
    cfg = alembic_config(fresh_url)
    head = ScriptDirectory.from_config(cfg).get_current_head()
    model_tables = set(Base.metadata.tables)
    assert _tables(fresh_url) == set()

    command.upgrade(cfg, "head")
    assert _current(fresh_url) == head
    assert _tables(fresh_url) == model_tables
    command.check(cfg)  # raises if the models and the migrated schema differ

    command.downgrade(cfg, "base")
    assert _current(fresh_url) is None
    assert _tables(fresh_url) == set()

    command.upgrade(cfg, "head")
    assert _tables(fresh_url) == model_tables
    command.check(cfg)


def test_every_revision_steps_down_and_up(fresh_url: str) -> None:
    cfg = alembic_config(fresh_url)
    revisions = list(ScriptDirectory.from_config(cfg).walk_revisions("base", "heads"))
    assert revisions, "no migrations"
    command.upgrade(cfg, "head")
    for _ in revisions:
        command.downgrade(cfg, "-1")
    assert _tables(fresh_url) == set()
    for _ in revisions:
        command.upgrade(cfg, "+1")
    assert _tables(fresh_url) == set(Base.metadata.tables)


def test_the_alembic_cli_reads_database_url(fresh_url: str) -> None:
    env = {**os.environ, "DATABASE_URL": fresh_url}
    alembic = [sys.executable, "-m", "alembic"]
    for args in (["upgrade", "head"], ["check"], ["downgrade", "base"], ["upgrade", "head"]):
        result = subprocess.run(
            alembic + args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
        )
        assert result.returncode == 0, result.stderr
    assert _tables(fresh_url) == set(Base.metadata.tables)


def test_foreign_keys_cascade_from_players(fresh_url: str) -> None:
    command.upgrade(alembic_config(fresh_url), "head")
    engine = make_engine(fresh_url)
    try:
        inspector = inspect(engine)
        for table in inspector.get_table_names():
            for fk in inspector.get_foreign_keys(table):
                ondelete = (fk.get("options") or {}).get("ondelete", "").upper()
                if fk["referred_table"] == "players":
                    assert ondelete == "CASCADE", (table, fk)
                else:
                    assert ondelete in ("CASCADE", "SET NULL"), (table, fk)
    finally:
        engine.dispose()
