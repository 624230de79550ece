"""What other players see of a player: a display name (or "Player 4F2A"), and whether to appear.

The default name is derived from the player id with a keyed hash (``SECRET_KEY``), so it
tells nothing about the id. A chosen name is 1 to 24 characters from a small, safe set
(letters, digits, space and ``- _ . '``); pages escape it like any other text anyway.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.config import get_settings
from app.db.models import PlayerProfile, utcnow

from .common import ensure_player, read_tx
from .errors import InvalidRequest
from .ratelimit import counted_tx

NAME_MAX = 24
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9 _.'-]*")
# A name a player would read as a default "Player 4F2A": compared on its skeleton (lower case,
# no spaces or punctuation, a character that looks like another read as that one: 0/o/q,
# 1/i/l, 2/z, 3/e, 4/a, 5/s, 8/b), so "PIayer_4f2a", "P1ayer 4F2O" or "player4 F 2A"
# imitate one as much as "Player 4F2A" does.
_LOOKALIKE = str.maketrans("oqilzeasb", "001123458")
_SEPARATORS = re.compile(r"[\s_.'-]+")


def _skeleton(text: str) -> str:
    return _SEPARATORS.sub("", text.lower()).translate(_LOOKALIKE)


_DEFAULT_RE = re.compile(
    re.escape(_skeleton("Player")) + "[" + re.escape(_skeleton("0123456789abcdef")) + "]{4}"
)


def imitates_default(name: str) -> bool:
    """Whether ``name`` reads as a default name ("Player 4F2A"), whatever its spacing, case,
    punctuation or lookalike characters."""
    return _DEFAULT_RE.fullmatch(_skeleton(name)) is not None


@dataclass(frozen=True, slots=True)
class Profile:
    display_name: str | None  # None: the default name is shown
    default_name: str
    on_leaderboards: bool

    @property
    def shown_name(self) -> str:
        return self.display_name or self.default_name


def default_name(player_id: str) -> str:
    """``"Player 4F2A"``: four hex digits of a keyed hash of the player id."""
    key = get_settings().secret_key.encode()
    digest = hmac.new(key, b"display-name|" + player_id.encode(), hashlib.sha256).hexdigest()
    return f"Player {digest[:4].upper()}"


def check_display_name(value: object) -> str | None:
    """The cleaned name (``None`` for empty: back to the default); ``InvalidRequest`` if bad."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidRequest("A display name is text.")
    name = " ".join(value.split())
    if not name:
        return None
    if len(name) > NAME_MAX:
        raise InvalidRequest(f"A display name has at most {NAME_MAX} characters.")
    if not _NAME_RE.fullmatch(name):
        raise InvalidRequest(
            "A display name starts with a letter or digit and holds only letters (A-Z), "
            "digits, spaces and the characters - _ . '"
        )
    if imitates_default(name):
        raise InvalidRequest(
            "Names like \u201cPlayer 4F2A\u201d are kept for players without a name: "
            "choose another."
        )
    return name


def get_profile(db: Session, player_id: str) -> Profile:
    with read_tx(db):
        row = db.get(PlayerProfile, player_id)
        return Profile(
            display_name=row.display_name if row else None,
            default_name=default_name(player_id),
            on_leaderboards=row.on_leaderboards if row else True,
        )


def update_profile(
    db: Session,
    player_id: str,
    *,
    display_name: object = ...,
    on_leaderboards: bool | None = None,
) -> Profile:
    """Set the display name (``None`` or blank: the default) and/or the leaderboard setting.

    An argument left out keeps its value. A bad name changes nothing (``InvalidRequest``).
    """
    with counted_tx(db, player_id, "actions"):
        # (a bad name, refused here before anything is written, is counted all the same)
        name = check_display_name(display_name) if display_name is not ... else ...
        ensure_player(db, player_id)
        row = db.execute(
            select(PlayerProfile).where(PlayerProfile.player_id == player_id)
        ).scalar_one_or_none()
        if row is None:
            row = PlayerProfile(player_id=player_id, display_name=None, on_leaderboards=True)
            db.add(row)
        if name is not ...:
            row.display_name = name
        if on_leaderboards is not None:
            row.on_leaderboards = bool(on_leaderboards)
        row.updated_at = utcnow()
        db.flush()
        profile = Profile(row.display_name, default_name(player_id), row.on_leaderboards)
        return profile
