"""The translation catalogs (issue 33): extract, update, compile, check.

    python -m scripts.i18n             # `make i18n`: extract to messages.pot, update every .po
    python -m scripts.i18n --compile   # the .po files to .mo (what `pip install -e .` does)
    python -m scripts.i18n --check     # exit 1 if the .pot is stale, a translation missing or
                                       # a term rendered as the glossary rejects

Messages come from the templates and ``app/**.py`` (``babel.cfg``: ``_()``, ``gettext``,
``ngettext``, ``N_`` and Jinja's ``{% trans %}``), plus the engine's own English texts the pages
show translated: each variant's title, one-line description and summary (the engine stays
free of translation machinery; ``app.engine.variants`` is their one source).

The Chinese terms: ``docs/glossary-zh.md``, a table whose "Rejected" column lists, in
backticks, renderings no translation may use (``re:`` starts a regular expression); the check
reports each one found.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator
from io import BytesIO
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
LOCALES = ROOT / "app" / "locales"
POT = LOCALES / "messages.pot"
# The site's catalogs besides English: each must translate every message.
TRANSLATED = ("zh_CN",)
ALL = ("en", *TRANSLATED)
KEYWORDS = {
    "_": None,
    "gettext": None,
    "ngettext": (1, 2),
    "pgettext": ((1, "c"), 2),
    "npgettext": ((1, "c"), 2, 3),
    "N_": None,
}
GLOSSARIES = {"zh_CN": ROOT / "docs" / "glossary-zh.md"}
HEADER = """# Translations of the Scorpion solitaire site.
# See DEVELOPERS.md (Translations) for the workflow: `make i18n`, then translate."""


def _mapping() -> tuple[list[tuple[str, str]], dict[str, dict[str, str]]]:
    with (ROOT / "babel.cfg").open() as f:
        method_map, options_map = parse_mapping_cfg(f)
    return method_map, options_map


def _engine_messages() -> Iterator[tuple[str, str]]:
    from app.engine import ALL_VARIANTS

    for v in ALL_VARIANTS.values():
        yield v.title, f"engine: the title of variant {v.name}"
        yield v.description, f"engine: the one-line description of {v.name} (home page)"
        yield v.summary, f"engine: the rules page's summary of {v.name}"


def extract() -> Catalog:
    """Every message the site shows, as a template catalog (``messages.pot``)."""
    method_map, options_map = _mapping()
    catalog = Catalog(
        project="scorpion",
        version="0.1.0",
        copyright_holder="",
        msgid_bugs_address="",
        header_comment=HEADER,
        fuzzy=False,
    )
    plain: set[str] = set()
    plural: set[str] = set()
    for filename, lineno, message, comments, context in extract_from_dir(
        str(ROOT),
        method_map,
        options_map,
        keywords=KEYWORDS,
        comment_tags=("TRANSLATORS:",),
        strip_comment_tags=True,
    ):
        if filename.startswith("scripts") or filename.startswith("tests"):
            continue
        if isinstance(message, tuple):
            plural.add(message[0])
        else:
            plain.add(message)
        catalog.add(
            message,
            None,
            [(filename, lineno)],
            auto_comments=comments,
            context=context,
        )
    for message, note in _engine_messages():
        catalog.add(message, None, [("app/engine/variants.py", 0)], auto_comments=[note])
    # A text used both alone and as a plural's singular is one catalog entry, a plural one,
    # which a plain gettext never finds: reported by ``problems``.
    catalog.both_plain_and_plural = sorted(plain & plural)  # type: ignore[attr-defined]
    return catalog


def _pot_bytes(catalog: Catalog) -> bytes:
    out = BytesIO()
    write_po(out, catalog, width=100, sort_output=True, include_lineno=False)
    return out.getvalue()


def _without_date(data: bytes) -> bytes:
    return b"\n".join(
        line for line in data.split(b"\n") if not line.startswith(b'"POT-Creation-Date')
    )


def po_path(locale: str) -> Path:
    return LOCALES / locale / "LC_MESSAGES" / "messages.po"


def read_catalog(locale: str) -> Catalog:
    with po_path(locale).open("rb") as f:
        return read_po(f, locale=locale)


def update() -> None:
    """Write ``messages.pot`` and bring every ``.po`` up to it (new messages untranslated,
    vanished ones dropped, changed ones fuzzy)."""
    template = extract()
    POT.parent.mkdir(parents=True, exist_ok=True)
    data = _pot_bytes(template)
    if not POT.is_file() or _without_date(POT.read_bytes()) != _without_date(data):
        POT.write_bytes(data)
    for locale in ALL:
        path = po_path(locale)
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_file():
            catalog = read_catalog(locale)
        else:
            catalog = Catalog(locale=locale, header_comment=HEADER, project="scorpion", fuzzy=False)
        catalog.update(template, update_header_comment=False)
        catalog.obsolete.clear()
        out = BytesIO()
        write_po(
            out, catalog, width=100, sort_output=True, include_previous=False, include_lineno=False
        )
        path.write_bytes(out.getvalue())
    missing = problems()
    print(f"{POT.relative_to(ROOT)}: {len(template)} messages")
    for line in missing:
        print(line)


def compile_all() -> None:
    for locale in ALL:
        catalog = read_catalog(locale)
        out = BytesIO()
        write_mo(out, catalog, use_fuzzy=False)
        po_path(locale).with_suffix(".mo").write_bytes(out.getvalue())


def problems() -> list[str]:
    """What keeps the catalogs from being complete: a stale ``.pot``, a message a translated
    catalog lacks, leaves empty or marks fuzzy, a translation whose placeholders differ."""
    template = extract()
    found: list[str] = []
    if not POT.is_file() or _without_date(POT.read_bytes()) != _without_date(_pot_bytes(template)):
        found.append(f"{POT.relative_to(ROOT)} is out of date: run `make i18n`")
    for text in getattr(template, "both_plain_and_plural", []):
        found.append(f"used both alone and as a plural (word one of them apart): {text!r}")
    for locale in TRANSLATED:
        catalog = read_catalog(locale)
        for message in template:
            if not message.id:
                continue
            entry = catalog.get(message.id, context=message.context)
            key = message.id if isinstance(message.id, str) else message.id[0]
            if entry is None:
                found.append(f"{locale}: missing {key!r}")
            elif entry.fuzzy:
                found.append(f"{locale}: fuzzy {key!r}")
            elif not all(entry.string if isinstance(entry.string, tuple) else [entry.string]):
                found.append(f"{locale}: untranslated {key!r}")
            else:
                found.extend(f"{locale}: {e}" for e in _placeholder_errors(message.id, entry))
                found.extend(f"{locale}: {e}" for e in _glossary_errors(locale, key, entry))
    return found


Rejected = tuple[str, re.Pattern[str], str]  # (as written, its pattern, the term to use)


def glossary(locale: str) -> list[Rejected]:
    """The renderings the locale's glossary rejects: each with the term to use instead."""
    path = GLOSSARIES.get(locale)
    if path is None or not path.is_file():
        return []
    rejected: list[Rejected] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) < 3 or set(cells[0]) <= {"-", " "}:
            continue
        for written in re.findall(r"`([^`]+)`", line.split("|")[3]):
            pattern = written[3:] if written.startswith("re:") else re.escape(written)
            rejected.append((written, re.compile(pattern), f"{cells[0]}: {cells[1]}"))
    return rejected


def _glossary_errors(locale: str, key: str, entry: object) -> list[str]:
    string = getattr(entry, "string", "")
    strings = [string] if isinstance(string, str) else list(string)
    return [
        f"{key!r} renders {written!r}, which the glossary rejects (use {use})"
        for written, pattern, use in glossary(locale)
        if any(pattern.search(s) for s in strings)
    ]


def _placeholders(text: str) -> set[str]:
    import re

    return set(re.findall(r"%\(\w+\)[sd]|\{\w*\}", text))


def _placeholder_errors(msgid: str | tuple[str, ...] | list[str], entry: object) -> list[str]:
    ids = [msgid] if isinstance(msgid, str) else list(msgid)
    string = getattr(entry, "string", "")
    strings = [string] if isinstance(string, str) else list(string)
    wanted = _placeholders(ids[-1]) | _placeholders(ids[0])
    errors = []
    for s in strings:
        if _placeholders(s) != wanted and _placeholders(s) != _placeholders(ids[0]):
            errors.append(f"placeholders differ in {ids[0]!r}: {s!r}")
    return errors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--compile", action="store_true")
    args = parser.parse_args(argv)
    if args.check:
        found = problems()
        for line in found:
            print(line)
        return 1 if found else 0
    if args.compile:
        compile_all()
        return 0
    update()
    compile_all()
    return 0


if __name__ == "__main__":
    sys.exit(main())
