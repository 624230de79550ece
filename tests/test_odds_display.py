"""The README's odds block is generated from the solver's published odds and kept current."""

from __future__ import annotations

from pathlib import Path

import pytest

from app import odds_display
from app.odds_display import END, START, main, odds_rows, readme_block, render_readme

ENTRY = {
    "variant": "scorpion",
    "first_deal": 1,
    "last_deal": 100000,
    "deals": 100000,
    "win": 20123,
    "loss": 79870,
    "unknown": 7,
    "win_share": 0.20123,
    "ci_low": 0.198759,
    "ci_high": 0.203724,
    "unknown_share": 0.00007,
    "budget_seconds": 10.0,
}


def test_the_readme_shows_the_odds_the_solver_published() -> None:
    """Fails when ``odds.json`` changed without ``python -m app.odds_display`` being run."""
    assert main(["--check"]) == 0


def test_the_block_is_a_table_of_whatever_the_entries_hold() -> None:
    block = readme_block(odds_rows([ENTRY, {"variant": "wasp"}, {**ENTRY, "deals": 0}]))
    assert block.startswith(START) and block.endswith(END)
    assert (
        "| Scorpion | 100,000 (deal numbers 1 to 100,000) | 20.12% | 19.88% to 20.37% "
        "(±0.25 points) | 0.007% (7 not settled within 10 s) |"
    ) in block
    assert "Wasp" not in block  # an unreadable entry is left out, not guessed
    retried = readme_block(odds_rows([{**ENTRY, "budget_seconds": 1.0, "retry_seconds": 30.0}]))
    assert "(7 not settled within 30 s)" in retried
    assert "no odds are published yet" in readme_block(odds_rows([]))


def test_check_and_write_a_readme(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(f"# Title\n\n{START}\nold figures\n{END}\n\nmore\n")
    monkeypatch.setattr(odds_display, "load_odds", lambda: [ENTRY])
    assert main(["--check", "--readme", str(readme)]) == 1
    assert main(["--readme", str(readme)]) == 0
    text = readme.read_text()
    assert "old figures" not in text and "| Scorpion | 100,000" in text
    assert text.startswith("# Title\n\n") and text.endswith("\n\nmore\n")
    assert main(["--check", "--readme", str(readme)]) == 0
    with pytest.raises(ValueError):
        render_readme("no markers here", [])
