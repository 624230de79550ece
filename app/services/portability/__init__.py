"""Your data: everything kept about a player as one signed JSON file, and its import.

``export_player_data`` (``export.py``) writes the file: the format name and version, the
export time, the player's settings, profile, statistics, result history, games (with their
move logs) and race entries, and the devices that reach the player; ``signature`` is
HMAC-SHA256 (a key derived from ``SECRET_KEY``) over the canonical serialisation of everything
else (JSON with sorted keys, no spaces, ASCII only). A game's deal and position hold face-down
cards, which never leave the server: they are *sealed* (encrypted with a key derived from
``SECRET_KEY``: Fernet, from the ``cryptography`` package), so only a site with the same secret
key reads them back. The format, the sealing and the signature: ``file.py``.

``import_player_data`` (``restore.py``) reads such a file into the current player, in one
transaction, and replaces what the player had (games, results, statistics, settings, profile,
race entries; the player's id and devices stay). It refuses (``checks.py``), changing nothing,
a file that is too large, not JSON (or cut short), of another format or version, whose
signature does not match, whose fields are not what the format says, or whose data do not hold
together: a game whose move log does not replay through the engine to its saved position, a
result or race entry naming a game the file lacks. The caller must confirm the replacement
(``confirmed``). A race entry whose shared deal this site does not have is left out (counted in
the summary); a game id another player holds here gets a new id.
"""

from __future__ import annotations

from .checks import read_document, too_large
from .export import export_player_data
from .file import FORMAT, VERSION, Document, ImportRefused, canonical, seal, signature, unseal
from .restore import ImportSummary, import_player_data

__all__ = [
    "FORMAT",
    "VERSION",
    "Document",
    "ImportRefused",
    "ImportSummary",
    "canonical",
    "export_player_data",
    "import_player_data",
    "read_document",
    "seal",
    "signature",
    "too_large",
    "unseal",
]
