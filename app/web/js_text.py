"""The words ``static/js/board.js`` says (screen-reader lines, the confirmation dialog), in the
request's language: every page carries them as JSON (``<script type="application/json"
id="js-text">``, data, never run), and the script looks each English text up there, falling
back to the English. ``{name}`` marks a value the script fills in."""

from __future__ import annotations

import json

from markupsafe import Markup

from app.i18n import N_, current_locale, gettext

JS_TEXTS = (
    N_("Picked up the {card}: now choose the column it goes to."),
    N_("Picked up the {card}{rest}: now choose the column it goes to."),
    N_(" with the card on it"),
    N_(" with the {n} cards on it"),
    N_("Put back."),
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
    N_("The server could not be reached: nothing was changed. Try again."),
    N_("Share link copied: {url}"),
    N_("Copy this link to share the deal: {url}"),
    N_("card"),
)

_RENDERED: dict[str, Markup] = {}


def js_text() -> Markup:
    """The script's texts as a JSON ``<script>`` element (made once per language)."""
    locale = current_locale.get()
    html = _RENDERED.get(locale)
    if html is None:
        table = {text: gettext(text) for text in JS_TEXTS}
        data = json.dumps(table, ensure_ascii=False).replace("<", "\\u003c")
        html = _RENDERED[locale] = Markup(
            f'<script type="application/json" id="js-text">{data}</script>'
        )
    return html
