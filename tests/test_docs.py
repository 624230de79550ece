"""The documentation stands alone: it names no path outside the repository, and every relative
link in it (file and, where given, heading anchor) leads somewhere that exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Text that would point a reader outside the repository.
FORBIDDEN = ("../shared", "/work/")

# Files and folders searched for FORBIDDEN. `app/` is to be added here once the docstrings of
# app/web/game/api.py and app/web/coach/api_analysis.py stop naming the old contract path.
SCANNED = ("README.md", "DEVELOPERS.md", "docs", "Makefile", ".ci", "app")

# Markdown files whose relative links must resolve.
LINKED = ("README.md", "DEVELOPERS.md", "docs")

_FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)  # http:, https:, mailto:, ...


def _built(path: Path) -> bool:
    """What ``pip install -e .`` builds from a ``.pyx`` (the compiled solver core): never
    committed, and its build paths are the machine's, not links."""
    return path.suffix in (".so", ".pyd") or (
        path.suffix in (".c", ".html") and path.with_suffix(".pyx").exists()
    )


def _files(names: tuple[str, ...], pattern: str) -> list[Path]:
    found: list[Path] = []
    for name in names:
        path = ROOT / name
        if path.is_dir():
            found += sorted(
                p
                for p in path.rglob(pattern)
                if p.is_file() and "__pycache__" not in p.parts and not _built(p)
            )
        elif path.is_file():
            found.append(path)
    return found


def links(markdown: str) -> list[str]:
    """The link targets of ``markdown``, code blocks and code spans left out."""
    prose = _CODE_SPAN.sub("", _FENCE.sub("", markdown))
    return _LINK.findall(prose)


def anchors(markdown: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces become hyphens."""
    found: set[str] = set()
    for line in _FENCE.sub("", markdown).splitlines():
        heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            text = heading.group(1).strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", text).replace(" ", "-"))
    return found


def _where(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_the_link_finder_sees_links_and_skips_code() -> None:
    text = "See [rules](docs/rules.md#deals) and ![x](a.png).\n```\n[no](nope.md)\n```\n`[no](x)`"
    assert links(text) == ["docs/rules.md#deals", "a.png"]
    assert anchors("# Assistance (decided)\n## Is this still winnable? (solver)\n") == {
        "assistance-decided",
        "is-this-still-winnable-solver",
    }


@pytest.mark.parametrize("path", _files(SCANNED, "*"), ids=_where)
def test_no_path_outside_the_repository(path: Path) -> None:
    text = path.read_text(encoding="utf-8", errors="replace")
    for needle in FORBIDDEN:
        assert needle not in text, f"{_where(path)} names {needle!r}: link inside the repository"


@pytest.mark.parametrize("path", _files(LINKED, "*.md"), ids=_where)
def test_every_relative_link_leads_to_an_existing_file(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    for target in links(text):
        if _EXTERNAL.match(target):
            continue
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        assert dest.is_relative_to(ROOT), f"{_where(path)}: {target} leaves the repository"
        assert dest.exists(), f"{_where(path)}: {target} does not exist"
        if anchor and dest.suffix == ".md":
            assert anchor in anchors(dest.read_text(encoding="utf-8")), (
                f"{_where(path)}: {target}: no heading #{anchor} in {_where(dest)}"
            )


def test_the_docs_the_readme_promises_are_there() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for doc in ("docs/rules.md", "docs/api.md"):
        assert doc in links(readme), f"README.md does not link {doc}"
