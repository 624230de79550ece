"""The words ``static/js/board.js`` says (screen-reader lines, the confirmation dialog), in the
request's language: every page carries them as JSON in an attribute (templates/base.html,
``#js-text``'s ``data-texts``: data, no inline script, which the security policy forbids), and
the script looks each English text up there, falling back to the English. ``{name}`` marks a
value the script fills in."""

from __future__ import annotations

import json

from markupsafe import Markup, escape

from app.i18n import N_, current_locale, gettext, ngettext

JS_TEXTS = (
    N_("Picked up the {card}: now choose the column it goes to."),
    N_("Picked up the {card}: now choose the column or free cell it goes to."),
    N_("Picked up the {card}{rest}: now choose the column it goes to."),
    N_(" with the {n} cards on it"),
    N_("{card} picked up"),
    N_("{card} and {n} more picked up"),
    N_("Choose a card first"),
    N_("Put back."),
    N_("The {card} cannot move now: no column takes it."),
    N_("The {card} cannot move now: no column or free cell takes it."),
    N_("{card}: nowhere to go"),
    N_("Choose a face-up card first, then the column it goes to."),
    N_("Choose a face-up card first: a column's exposed card may go into an empty cell."),
    N_("Keep playing"),
    N_("This gives up {what}: it counts as a loss. {question}"),
    N_("today's daily deal"),
    N_("the game"),
    N_("Restart this deal from the opening layout?"),
    N_("Start a new game?"),
    N_("Give up and restart"),
    N_("Give up and start a new game"),
    N_(
        "Restart this deal from the opening layout? Your attempt in the race goes on: the moves "
        "you made and the clock carry over."
    ),
    N_("Restart"),
    N_("The server could not be reached: nothing was changed. Try again."),
    N_("Share link copied: {url}"),
    N_("Copy this link to share the deal: {url}"),
    N_("card"),
)

_JSON: dict[str, Markup] = {}


def js_text() -> Markup:
    """The script's texts as JSON, English to the request's language, escaped for the
    template's attribute (made once per language)."""
    locale = current_locale.get()
    data = _JSON.get(locale)
    if data is None:
        table = {text: gettext(text) for text in JS_TEXTS}
        # (the singular of app.web.game.words.with_rest_held's plural message)
        one = ngettext(" with the card on it", " with the %(n)d cards on it", 1)
        table[" with the card on it"] = one % {"n": 1}
        data = _JSON[locale] = escape(json.dumps(table, ensure_ascii=False))
    return data
