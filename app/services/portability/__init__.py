"""Your data: everything kept about a player as one signed JSON file, and its import.

``export_player_data`` (``export.py``) writes the file (version 2, compact: no indentation,
each move log one string): the format name and version, the export time, a keyed tag of the
player it was exported from (``player``), the player's settings, profile, statistics, result
history, games (with their move logs) and race entries, and the devices that reach the player;
``signature`` is HMAC-SHA256 (a key derived from ``SECRET_KEY``) over the canonical
serialisation of everything else (JSON with sorted keys, no spaces, ASCII only). A game's deal
holds face-down cards, which never leave the server: it is *sealed* (encrypted with a key
derived from ``SECRET_KEY``: Fernet, from the ``cryptography`` package), so only a site with
the same secret key reads it back; its position is its move log replayed. The format, the
sealing and the signature: ``file.py`` (version 1 files are still read).

``import_player_data`` (``restore.py``) reads such a file into the current player, in one
transaction, and replaces what the player had (games, results, statistics, settings,
profile; the player's id and devices stay). It refuses (``checks.py``), changing nothing, a
file that is too large, not JSON (or cut short, or nested too deeply), of another format or
version, whose signature does not match, whose fields are not what the format says, or whose
data do not hold together: a game whose move log does not replay through the engine (version
1: to its saved position), a result or race entry naming a game the file lacks. The caller must
confirm the replacement (``confirmed``).

A data file never rewrites a ranked result (issue 39; the rule: docs/api.md, "Devices and your
data"): the player's race entries here, and the games attached to a race or named by one, stay as
they are; a game the player still has here stays as it is here (its assisted mark, moves made
and version only grow); a game of a race still open (a daily deal of a day not over, any
challenge) is left out; every other game gets a fresh id and no race; a race entry comes back
only from the player's own file, for a daily deal whose day is over and on which the player
has no entry here, and never ranked.
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
