"""Database models and sessions."""

from .models import (
    Base,
    GameRow,
    MoveLog,
    Player,
    PlayerSettings,
    StatEvent,
    VariantStats,
)
from .session import SessionDep, begin_write, get_db, get_engine, get_sessionmaker, make_engine

__all__ = [
    "Base",
    "GameRow",
    "MoveLog",
    "Player",
    "PlayerSettings",
    "SessionDep",
    "StatEvent",
    "VariantStats",
    "begin_write",
    "get_db",
    "get_engine",
    "get_sessionmaker",
    "make_engine",
]
