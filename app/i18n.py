"""Translations (issue 33): English (the default) and Simplified Chinese.

The catalogs are gettext files in ``app/locales`` (``messages.pot``, one ``messages.po`` per
locale, kept in the repository); the compiled ``.mo`` files are built at install
(``setup.py``) and never committed. A ``.mo`` that is missing (a checkout not installed since
its catalog changed) is compiled from its ``.po`` in memory, with a warning: the site still
speaks the language.

The locale of a request is a context variable (``current_locale``) set once per request by
the front middleware (``app.web.front``) from, in order: the player's choice (the
``scorpion_lang`` cookie, which mirrors ``PlayerSettings.locale``), else the browser's
``Accept-Language``, else English. ``gettext`` and friends read it on every call, so the
shared Jinja environment and the Python code that writes words (``app.web.words``,
``app.web.view``) speak the request's language without anything reinstalled per request.

Chinese tags: ``zh``, ``zh-CN``, ``zh-SG``, ``zh-Hans`` (and any other Simplified tag) get
``zh-CN``. Traditional Chinese (``zh-TW``, ``zh-HK``, ``zh-MO``, ``zh-Hant``) also gets
``zh-CN``: the site has no Traditional catalog, and a reader of Traditional characters reads
Simplified far more easily than English. A browser that lists English before Chinese still
gets English (the q-values decide).
"""

from __future__ import annotations

import gettext as _gettext
import io
import logging
from contextvars import ContextVar
from datetime import date, datetime
from functools import cache, lru_cache
from pathlib import Path

from babel import Locale
from babel.dates import format_date as _babel_date
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal, format_percent

log = logging.getLogger(__name__)

LOCALE_DIR = Path(__file__).resolve().parent / "locales"
DOMAIN = "messages"
DEFAULT_LOCALE = "en"
# The site's locales (BCP 47 tags, as in <html lang>) and their catalog directories.
CATALOG_DIRS = {"en": "en", "zh-CN": "zh_CN"}
LOCALES = tuple(CATALOG_DIRS)
# Their own names, for the language switch (never translated).
LOCALE_NAMES = {"en": "English", "zh-CN": "简体中文"}
# The cookie that carries the player's choice on each device ("auto": follow the browser).
LOCALE_COOKIE = "scorpion_lang"
AUTO = "auto"

current_locale: ContextVar[str] = ContextVar("current_locale", default=DEFAULT_LOCALE)


def N_(message: str) -> str:  # noqa: N802 (gettext's name for "mark for extraction only")
    """Marks ``message`` for the catalog without translating it (module-level tables): it is
    translated where it is shown, with ``gettext``."""
    return message


# -- catalogs ---------------------------------------------------------------------------------


def mo_path(locale: str) -> Path:
    return LOCALE_DIR / CATALOG_DIRS[locale] / "LC_MESSAGES" / f"{DOMAIN}.mo"


def po_path(locale: str) -> Path:
    return LOCALE_DIR / CATALOG_DIRS[locale] / "LC_MESSAGES" / f"{DOMAIN}.po"


def compile_po(po_file: Path) -> bytes:
    """The ``.mo`` bytes of a ``.po`` file (fuzzy entries left out, as msgfmt does)."""
    with po_file.open("rb") as f:
        catalog = read_po(f, locale=po_file.parent.parent.name)
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


@cache
def translations(locale: str) -> _gettext.NullTranslations:
    """The compiled catalog of ``locale`` (English: its catalog too, so a reworded English
    text can be set there; an unknown locale: no translation)."""
    if locale not in CATALOG_DIRS:
        return _gettext.NullTranslations()
    mo = mo_path(locale)
    if mo.is_file():
        with mo.open("rb") as f:
            return _gettext.GNUTranslations(f)
    po = po_path(locale)
    if not po.is_file():
        log.warning("no catalog for locale %s (%s): English is shown", locale, po)
        return _gettext.NullTranslations()
    log.warning(
        "the compiled catalog %s is missing (run `pip install -e .` or `make i18n`): "
        "compiling %s in memory",
        mo,
        po,
    )
    return _gettext.GNUTranslations(io.BytesIO(compile_po(po)))


def gettext(message: str) -> str:
    """``message`` in the request's language."""
    return translations(current_locale.get()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return translations(current_locale.get()).ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    return translations(current_locale.get()).pgettext(context, message)


def npgettext(context: str, singular: str, plural: str, n: int) -> str:
    return translations(current_locale.get()).npgettext(context, singular, plural, n)


_ = gettext


# -- choosing the locale ----------------------------------------------------------------------

_TRADITIONAL = ("zh-tw", "zh-hk", "zh-mo", "zh-hant")


def match_tag(tag: str) -> str | None:
    """The site's locale for one language tag of ``Accept-Language``, or None."""
    tag = tag.strip().lower().replace("_", "-")
    if not tag or tag == "*":
        return None
    primary = tag.split("-", 1)[0]
    if primary == "en":
        return "en"
    if primary == "zh" or tag.startswith(_TRADITIONAL):
        # Simplified or not: see the module notes (no Traditional catalog; zh-CN reads better
        # than English for a Chinese reader).
        return "zh-CN"
    return None


def parse_accept_language(header: str | None) -> list[tuple[str, float]]:
    """``Accept-Language``'s tags with their q-values, best first (ties: in header order);
    malformed items and ``q=0`` are dropped."""
    if not header:
        return []
    items: list[tuple[float, int, str]] = []
    for n, part in enumerate(header[:2000].split(",")[:50]):
        tag, *params = part.strip().split(";")
        tag = tag.strip()
        if not tag:
            continue
        q = 1.0
        for param in params:
            key, _sep, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value.strip())
                except ValueError:
                    q = -1.0
        if not 0 < q <= 1:
            continue
        items.append((-q, n, tag))
    items.sort()
    return [(tag, -neg_q) for neg_q, _n, tag in items]


@lru_cache(maxsize=512)
def negotiate(header: str | None) -> str:
    """The best of the site's locales for ``Accept-Language`` ``header`` (English if none)."""
    for tag, _q in parse_accept_language(header):
        locale = match_tag(tag)
        if locale is not None:
            return locale
    return DEFAULT_LOCALE


def normalize(value: str | None) -> str | None:
    """A stored or submitted choice as one of ``LOCALES``, or None (follow the browser)."""
    if not value:
        return None
    for locale in LOCALES:
        if value.lower() == locale.lower():
            return locale
    return None


def choose(choice: str | None, accept_language: str | None) -> str:
    """The request's locale: the player's ``choice`` (a locale, or None / ``auto``: follow the
    browser), else ``Accept-Language``."""
    return normalize(choice) or negotiate(accept_language)


# -- numbers, dates and durations -------------------------------------------------------------


@cache
def babel_locale(locale: str) -> Locale:
    return Locale.parse(CATALOG_DIRS.get(locale, "en"))


def format_number(value: float | int | None) -> str:
    """``1234`` -> ``1,234`` (the separators of the request's language)."""
    if value is None:
        return "–"
    return format_decimal(value, locale=babel_locale(current_locale.get()))


def format_percentage(fraction: float | None) -> str:
    """``0.256`` -> ``26%``, whole percent."""
    if fraction is None:
        return "–"
    return format_percent(fraction, format="#,##0%", locale=babel_locale(current_locale.get()))


def format_day(day: date | datetime, style: str = "medium") -> str:
    """``2026-12-07`` -> ``Dec 7, 2026`` / ``2026年12月7日``."""
    return _babel_date(day, format=style, locale=babel_locale(current_locale.get()))


def format_when(when: datetime) -> str:
    """A moment of a recent game, short: ``Dec 7 14:05`` / ``12月7日 14:05`` (UTC)."""
    return f"{format_short_day(when)} {when:%H:%M}"


def format_duration(seconds: int | float | None) -> str:
    """A game's time as the clock shows it: ``4:07``, ``1:02:03`` (the same in every
    language)."""
    if seconds is None:
        return "–"
    seconds = max(0, int(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


_COOKIE_PREFIX = LOCALE_COOKIE + "="


def cookie_choice(cookie_header: str | None) -> str | None:
    """The player's choice on this device (the ``scorpion_lang`` cookie): a locale, ``auto``
    (follow the browser), or None when the cookie is missing or unreadable."""
    if not cookie_header or _COOKIE_PREFIX not in cookie_header:
        return None
    for part in cookie_header.split(";"):
        name, _sep, value = part.strip().partition("=")
        if name == LOCALE_COOKIE:
            value = value.strip().strip('"')
            return AUTO if value == AUTO else normalize(value)
    return None


def format_short_day(day: date) -> str:
    """A day of the month, short: ``Dec 7`` / ``12月7日``."""
    loc = babel_locale(current_locale.get())
    pattern = loc.datetime_skeletons.get("MMMd")
    return _babel_date(day, format=str(pattern) if pattern else "MMM d", locale=loc)
