"""The templates: Jinja2's one environment (jinja2-fragments' ``templates``), its translation
callables, filters and globals (the site's parts every page shares: the card sprite, the
static files' URLs). babel.cfg extracts with the same options."""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import (
    Environment,
    FileSystemBytecodeCache,
    FileSystemLoader,
    pass_context,
    select_autoescape,
)
from jinja2_fragments.fastapi import Jinja2Blocks
from markupsafe import Markup

from app import i18n
from app.engine import ALL_VARIANTS, MAX_DEAL_NUMBER
from app.i18n import N_, gettext
from app.services import GameState
from app.services.daily import daily_day_of, is_daily_game, today
from app.web.assets import static_url as asset_url
from app.web.examples import variant_example
from app.web.js_text import js_text
from app.web.messages import translate
from app.web.words import card_name, format_seconds, rank_label, suit_name

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES_DIR = ROOT / "templates"
STATIC_DIR = ROOT / "static"

# How a race entry's status reads on the pages (daily deal, challenges, the live panel).
# (marked for the catalog; the templates show them through ``race_status_text``, translated)
RACE_STATUS_TEXT = {
    "playing": N_("playing"),
    "won": N_("finished: won"),
    "stuck": N_("stuck"),
    "gave-up": N_("gave up"),
    "rejected": N_("result rejected"),
    "unfinished": N_("did not finish"),
}


class _StatusText:
    """``RACE_STATUS_TEXT`` in the request's language (``race_status_text.get(status, status)``
    in the templates)."""

    def get(self, status: str, default: str = "") -> str:
        text = RACE_STATUS_TEXT.get(status)
        return gettext(text) if text is not None else default


class _Environment(Environment):
    """Jinja2's environment, with each template's globals the environment's own dict.

    Jinja2 layers a template's globals over the environment's in a ``ChainMap``, which costs
    it about a microsecond per global (we have some twenty) every time it makes a render's
    context and every time a template runs an ``{% import %}`` (it diffs the two sets of
    names): 25 to 30 us each, several times per page and per htmx answer. No template here has
    globals of its own, so the environment's dict serves as is (and whatever is added to it
    later is seen, as before)."""

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        return super().make_globals(d) if d else self.globals


# Templates change only with a new release (a new process): no file's time is looked up on
# every render. (The loader and autoescaping are Starlette's defaults.) Compiled templates
# are kept on disk between processes (Jinja's bytecode cache, in the system's temporary
# directory): a worker starts without compiling them again. ``{% cache %}``: a fragment kept
# rendered by its inputs and the request's language (``app.web.fragment_cache``).
templates = Jinja2Blocks(
    env=_Environment(
        loader=FileSystemLoader(str(TEMPLATES_DIR)),
        autoescape=select_autoescape(),
        auto_reload=False,
        bytecode_cache=FileSystemBytecodeCache(),
        extensions=["jinja2.ext.i18n", "jinja2.ext.do", "app.web.fragment_cache.FragmentCache"],
    )
)
templates.env.fragment_cache_varies = i18n.current_locale.get  # type: ignore[attr-defined]
# Translations (``app.i18n``): ``_()``, ``gettext``, ``ngettext``... read the request's locale
# (a context variable) on every call, so the one shared environment speaks each request's
# language; installed once, never per request. Newstyle: ``_("%(n)s moves", n=3)``, escaped
# arguments (a literal ``%`` is written ``%%``). ``{% trans %}`` blocks are trimmed, as
# babel.cfg extracts them.
templates.env.policies["ext.i18n.trimmed"] = True
templates.env.install_gettext_callables(  # type: ignore[attr-defined]
    i18n.gettext,
    i18n.ngettext,
    newstyle=True,
    pgettext=i18n.pgettext,
    npgettext=i18n.npgettext,
)
# ...then Jinja's newstyle wrappers replaced by the same behaviour at a fraction of the cost
# (theirs: ~10 us a call through Context.call, some sixty calls a page): the translation as
# Markup (every template autoescapes), ``%`` applied with the (escaped) arguments, the
# translated text of a message without arguments kept per locale.
_TRANSLATED: dict[tuple[str, str], Markup] = {}


def _jinja_gettext(__string: str, **variables: Any) -> Markup:
    if variables:
        return Markup(i18n.gettext(__string)) % variables
    key = (i18n.current_locale.get(), __string)
    text = _TRANSLATED.get(key)
    if text is None:
        if len(_TRANSLATED) >= 8192:
            _TRANSLATED.clear()
        text = _TRANSLATED[key] = Markup(i18n.gettext(__string)) % {}
    return text


def _jinja_ngettext(__singular: str, __plural: str, __num: int, **variables: Any) -> Markup:
    variables.setdefault("num", __num)
    return Markup(i18n.ngettext(__singular, __plural, __num)) % variables


def _jinja_pgettext(__context: str, __string: str, **variables: Any) -> Markup:
    return Markup(i18n.pgettext(__context, __string)) % variables


def _jinja_npgettext(
    __context: str, __singular: str, __plural: str, __num: int, **variables: Any
) -> Markup:
    variables.setdefault("num", __num)
    return Markup(i18n.npgettext(__context, __singular, __plural, __num)) % variables


templates.env.globals.update(
    _=_jinja_gettext,
    gettext=_jinja_gettext,
    ngettext=_jinja_ngettext,
    pgettext=_jinja_pgettext,
    npgettext=_jinja_npgettext,
)


def static_url(path: str) -> str:
    """``/static/<name>.<content hash>.<ext>``: cacheable forever, a new URL when it changes
    (servestatic, ``app/web/assets.py``)."""
    return asset_url(path)


def _favicon_data_url() -> str:
    """The site icon inline (a data: URL): one request fewer, and none to abort mid-load."""
    svg = (STATIC_DIR / "favicon.svg").read_text().strip()
    return "data:image/svg+xml," + quote(svg, safe=" =:/'\"<>.")


templates.env.globals.update(favicon=_favicon_data_url(), static_url=static_url)
templates.env.globals.update(rank_label=rank_label, suit_name=suit_name, card_name=card_name)
templates.env.globals.update(format_seconds=format_seconds)
# The whole family (home page picker, statistics, rules); ``variants``: those with shared deals.
templates.env.globals.update(family=ALL_VARIANTS, variant_example=variant_example)
templates.env.globals.update(MAX_DEAL_NUMBER=MAX_DEAL_NUMBER, race_status_text=_StatusText())
# Numbers, percentages, dates and times as the request's language writes them. (Each takes
# the context, so that Jinja never folds a constant's filter at compile time, in whatever
# language was current then.)


def _per_request(f: Callable[..., str]) -> Callable[..., str]:
    @pass_context
    def apply(context: Any, value: Any, *args: Any) -> str:
        return f(value, *args)

    return apply


templates.env.filters.update(
    # ``|t``: a text that is not written in the template (a variant's title, a caption) in
    # the request's language, escaped like any value (``_()`` would mark it safe).
    t=_per_request(i18n.gettext),
    number=_per_request(i18n.format_number),
    percent=_per_request(i18n.format_percentage),
    day=_per_request(i18n.format_day),
    when=_per_request(i18n.format_when),
    duration=_per_request(i18n.format_duration),
)
templates.env.globals.update(
    js_text=js_text,
    translate=translate,
    current_locale=i18n.current_locale.get,
    locale_names=i18n.LOCALE_NAMES,
    locales=i18n.LOCALES,
)
templates.env.globals["together_css"] = "css/together.css"
templates.env.globals["is_daily_game"] = is_daily_game


def daily_label(state: GameState) -> str:
    """How the pages name a daily game: "Today's daily deal" or "The daily deal of <day>",
    in the request's language ("" for any other game)."""
    day = daily_day_of(state)
    if day is None:
        return ""
    if day == today():
        return gettext("Today's daily deal")
    return gettext("The daily deal of {day}").format(day=i18n.format_day(day, "full"))


templates.env.globals["daily_label"] = daily_label


# The card sprite every page carries (partials/sprite.html: the 52 faces and the back, the same
# on every page), rendered once here rather than looped over on every page.
templates.env.globals["sprite"] = Markup(
    templates.env.get_template("partials/sprite.html").render()
)
