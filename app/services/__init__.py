"""Services: one database transaction per player action (load -> engine -> persist).

The web layer (JSON API and HTML pages) calls only these functions. They return small
immutable dataclasses (``GameState`` carries a ``PublicView``, never the hidden cards) and
raise ``ServiceError`` subclasses with messages a player understands.
"""

from .common import new_player_id
from .errors import (
    ActionRefused,
    InvalidRequest,
    NotFound,
    ServiceError,
    VersionConflict,
)
from .game_core import clock_seconds
from .games import (
    act,
    action_log,
    create_game,
    deal,
    get_game,
    get_game_and_display,
    hints,
    move,
    race_game_at_stake,
    redo,
    restart,
    resume_game,
    saved_games,
    undo,
)
from .new_deals import check_variant
from .players import (
    delete_games,
    delete_player,
    delete_results,
    get_display,
    get_settings,
    get_stats,
    update_settings,
)
from .types import (
    THEMES,
    DayCount,
    Display,
    GameState,
    PlayerPreferences,
    PlayerStatistics,
    VariantStatistics,
)

__all__ = [
    "ActionRefused",
    "THEMES",
    "DayCount",
    "Display",
    "GameState",
    "InvalidRequest",
    "NotFound",
    "PlayerPreferences",
    "PlayerStatistics",
    "ServiceError",
    "VariantStatistics",
    "VersionConflict",
    "act",
    "action_log",
    "check_variant",
    "create_game",
    "deal",
    "delete_games",
    "delete_player",
    "delete_results",
    "get_display",
    "get_game",
    "get_game_and_display",
    "get_settings",
    "get_stats",
    "hints",
    "move",
    "new_player_id",
    "redo",
    "restart",
    "resume_game",
    "race_game_at_stake",
    "clock_seconds",
    "saved_games",
    "undo",
    "update_settings",
]
