"""The engine's and the services' messages (refusals, bad deals, errors) on the HTML pages,
in the request's language.

The engine and the services speak English (the JSON API's ``detail`` stays English); a page
shows their message through ``translate``: a message of the catalog as it is, else one of
``PATTERNS`` (an English message with values in it: columns, cards, variants) rebuilt from its
translated template, the card names in the page's language. A message matched by nothing is
shown as it came (English), never dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from app.engine import ALL_VARIANTS
from app.engine.cards import RANK_NAMES, SUIT_NAMES
from app.i18n import N_, current_locale, gettext
from app.web.words import card_name

_CARD_CODES = {
    f"{rank} of {suit}": "A23456789TJQK"[r] + "SHDC"[s]
    for r, rank in enumerate(RANK_NAMES)
    for s, suit in enumerate(SUIT_NAMES)
}
_TITLES = {v.title: v.title for v in ALL_VARIANTS.values()}
_COLOURS = {"red": N_("red"), "black": N_("black")}
_PILES = {"reserve": N_("reserve card"), "free cell": N_("free cell")}


def _card(text: str) -> str:
    code = _CARD_CODES.get(text)
    return card_name(code) if code else text


def _title(text: str) -> str:
    return gettext(text) if text in _TITLES else text


def _from(table: dict[str, str]) -> Callable[[str], str]:
    return lambda text: gettext(table[text]) if text in table else text


def _same(text: str) -> str:
    return text


# A placeholder's kind by its name's start: what its value is and how it is translated.
_KINDS: dict[str, tuple[str, Callable[[str], str]]] = {
    "card": (r"(?:ace|two|three|four|five|six|seven|eight|nine|ten|jack|queen|king) of \w+", _card),
    "title": (r"[A-Z][\w' ]+?", _title),
    "rank": (r"\w+", lambda text: gettext(text) if text in RANK_NAMES else text),
    "colour": (r"red|black", _from(_COLOURS)),
    "pile": (r"reserve|free cell", _from(_PILES)),
    "n": (r"-?[\d,]+", _same),
    "text": (r".+?", _same),
    "label": (r".+?", gettext),  # a form field's label, itself in the catalog
}

# The messages with values in them: their English form (``{name}``: a value; its kind by the
# name's start, see _KINDS), the same as a message of the catalog.
PATTERNS: tuple[str, ...] = (
    N_("There is no such column: columns are numbered 0 to {n}."),
    N_("Column {n} is empty: there is no card to pick up."),
    N_("Column {n} has no card at position {n2}."),
    N_("Only a King can go into an empty column; the {card} cannot."),
    N_("Only a King or a group led by a King can go into an empty column; the {card} cannot."),
    N_("The {card} cannot go on another card: a King can only move to an empty column."),
    N_("The {card} can only go on a {colour} {rank}, not on the {card2}."),
    N_("The {card} can only go on the {card2}, not on the {card3}."),
    N_("{title} has no reserve cards."),
    N_("{title} has no free cells."),
    N_("{title} has no stock to deal."),
    N_("There is no such free cell: cells are numbered 0 to {n}."),
    N_("Free cell {n} already holds a card: a cell holds one."),
    N_("There is no such {pile}: they are numbered 0 to {n}."),
    N_("A {pile} holds one card: its index is 0."),
    N_("The {pile} {n} is empty: there is no card to pick up."),
    N_("This game is won and finished: {text}."),
    N_("Deal numbers run from {n} to {n2}; {n3} is not one."),
    N_("A deal is written as {n} card codes separated by spaces."),
    N_("A deal has exactly {n} cards; this one has {n2}."),
    N_("A {title} deal has exactly {n} cards ({n2} decks); this one has {n3}."),
    N_("A deal of {n} decks holds each of the 52 cards exactly {n2} times."),
    N_("A deal number is a whole number from {n} to {n2}."),
)

# The engine's and the services' messages without values, as they word them (the catalog
# holds them; ``translate`` finds them by their English).
MESSAGES: tuple[str, ...] = (
    N_("A face-down card cannot be moved."),
    N_("The card is already in that column."),
    N_("Nothing can ever be put onto a reserve card."),
    N_("Only the exposed card of a column, alone, can go into a free cell."),
    N_("A card never moves from one free cell to another."),
    N_("A reserve card can only be played onto the tableau."),
    N_("The stock is empty: its cards have already been dealt."),
    N_("There is nothing to undo: this is the opening layout."),
    N_("There is nothing to redo."),
    N_("A deal number is a whole number."),
    N_("A deal holds each of the 52 cards exactly once."),
    N_("A replay is shown once the game is won."),
    N_("This deal is still secret (today's daily deal): its review waits until the day is over."),
    N_("A day is written YYYY-MM-DD, e.g. 2026-11-29."),
    N_("A display name is text."),
    N_("A move names a column, a position in it and a target column."),
    N_("A page is a whole number from 1, e.g. page=2."),
    N_("A pile is named by a string: column, reserve or cell."),
    N_("An action is a move, the deal, undo or redo."),
    N_("Give either a deal number or a deal string, not both."),
    N_("That day has not come yet: its daily deal is still a secret."),
    N_("There is no such challenge."),
    N_("There is no such shared deal."),
    N_("There is no such game."),
    N_(
        'This browser\'s player data was deleted ("Delete everything"), so nothing can be '
        "saved for it any more. Reload the page to start afresh as a new player."
    ),
    N_("No daily deal was played on that day."),
    N_("This game is won and finished: there is nothing left to analyse."),
    N_("A winnable deal is chosen by the server: give no deal number or deal string."),
    N_(
        "A display name starts with a letter or digit and holds only letters (A-Z), "
        "digits, spaces and the characters - _ . '"
    ),
    N_("Names like \u201cPlayer 4F2A\u201d are kept for players without a name: choose another."),
)
PATTERNS += (
    N_(
        "Too many new games: at most {n} every {n2} seconds. "
        "Please wait {n3} seconds and try again."
    ),
    N_("Too many actions: at most {n} every {n2} seconds. Please wait {n3} seconds and try again."),
    N_(
        "The solver is busy with other players' questions just now: nothing was asked "
        "and your game is unchanged. Please try again in {n} seconds."
    ),
    N_(
        "The game has changed since you last saw it (it is at version {n}, not {n2}): "
        "reload it and try again."
    ),
    N_("There is no difficulty called {text}: choose easy, medium or hard."),
    N_("There is no variant called {text}: choose one of {text2}."),
    N_("{title} daily deal of {text}"),
    N_("{title} challenge"),
    N_("A display name has at most {n} characters."),
    N_("A page is a whole number from 1 to {n}."),
)

# The devices' and the data file's refusals (``app.services.devices``, ``.portability``) and
# the deck's (``app.services.players``, ``app.web.player_pages``).
MESSAGES += (
    N_("There is no such device."),
    N_("This device is already linked to that player."),
    N_(
        "A device can remove itself and the devices linked after it, not one linked before it: "
        "remove this one from an older device."
    ),
    N_(
        "This device was removed from its player on another device, so it can no longer "
        "change or read that player's data. Reload the page to start afresh as a new player."
    ),
    N_(
        "This device has games or results of its own. Tick the box to confirm that you "
        "leave them behind."
    ),
    N_("This file is empty."),
    N_("This file is not a Scorpion data file."),
    N_("This file is not a Scorpion data file: it is not valid JSON (perhaps it was cut short)."),
    N_("This file is not a Scorpion data file: its JSON is nested too deeply."),
    N_(
        "This data file's signature does not match: it was changed after it was exported, or "
        "it comes from a site with another secret key."
    ),
    N_("This data file is not consistent: a game appears twice."),
    N_("This data file is not consistent: its statistics name unknown variants."),
    N_("This data file is not consistent: a result names a missing game."),
    N_("This data file is not consistent: a race entry names a missing game."),
    N_("Choose the data file to import."),
    N_(
        "Importing replaces your games, results, statistics and settings here: tick the box "
        "to confirm."
    ),
)
PATTERNS += (
    N_(
        "That code is wrong, already used or expired (a code works once, for {n} minutes). "
        "Check it, or make a new one on the other device."
    ),
    N_("A link code has {n} letters and digits, like ABCD-EFGH."),
    N_(
        "Too many live updates open: at most {n} at a time per player. Close another tab "
        "showing a race, then try again in {n2} seconds."
    ),
    N_(
        "Too many live updates open from your address: at most {n} at a time. Close another "
        "tab showing a race, then try again in {n2} seconds."
    ),
    N_("Too many link codes: at most {n} every {n2} minutes. Please wait {n3} seconds."),
    N_(
        "Too many link codes tried: at most {n} every {n2} minutes. Please wait {n3} seconds "
        "and try again."
    ),
    N_("This file is too large: at most {n} bytes."),
    N_("This request is too large: at most {n} bytes are accepted."),
    N_("This data file has format version {text}; this site reads versions 1 to {n}."),
    N_("This data file is not valid: {text}: {text2}."),
    N_("This data file is not consistent: game {n} is not a valid game."),
    N_("This data file is not consistent: game {text} is unreadable."),
    N_("This data file is not consistent: the move log of game {text} does not replay."),
    N_(
        "This data file is not consistent: the move log of game {text} does not lead to its "
        "saved position."
    ),
    N_("Unknown theme {text}: choose one of {text2}."),
    N_("{label}: send \u201con\u201d to choose it, or leave it out."),
)

# A refusal's closing sentence, translated on its own after the rest (in Chinese no space
# follows a sentence's full stop).
_SPACE = {"zh-CN": ""}
ENDINGS = (N_("Nothing was changed."), N_("Nothing changed."))


def _compile(template: str) -> tuple[re.Pattern[str], list[tuple[str, Callable[[str], str]]]]:
    parts = re.split(r"\{(\w+)\}", template)
    regex = []
    fields = []
    for k, part in enumerate(parts):
        if k % 2 == 0:
            regex.append(re.escape(part))
            continue
        kind = next(name for name in _KINDS if part.startswith(name))
        value_re, convert = _KINDS[kind]
        regex.append(f"(?P<{part}>{value_re})")
        fields.append((part, convert))
    return re.compile("".join(regex) + r"\Z", re.S), fields


_COMPILED = [(template, *_compile(template)) for template in PATTERNS]


@lru_cache(maxsize=1024)
def _translate(message: str, locale: str) -> str:
    found = gettext(message)
    if found != message or locale == "en":
        return found
    for ending in ENDINGS:
        if message.endswith(" " + ending):
            english = message[: -len(ending) - 1]
            rest = _translate(english, locale)
            if rest == english:
                return message  # (never half translated)
            return f"{rest}{_SPACE.get(locale, ' ')}{gettext(ending)}"
    for template, regex, fields in _COMPILED:
        m = regex.match(message)
        if m is not None:
            values = {name: convert(m.group(name)) for name, convert in fields}
            return gettext(template).format(**values)
    return message


def translate(message: str | None) -> str:
    """An English message of the engine, the services or the web layer, in the request's
    language (see the module notes)."""
    if not message:
        return message or ""
    return _translate(message, current_locale.get())
