"""docs/tui.md lists every key binding, as the help screen shows them."""

from __future__ import annotations

from pathlib import Path

from rewind.tui.app import all_bindings
from rewind.tui.help_screen import EXTRA_KEYS

DOC = Path(__file__).resolve().parents[2] / "docs" / "tui.md"


def test_every_binding_is_in_the_key_table() -> None:
    text = DOC.read_text(encoding="utf-8")
    rows = [*all_bindings(), *(("anywhere", key, does) for key, does in EXTRA_KEYS)]
    for where, key, does in rows:
        assert f"| {where} | `{key}` | {does} |" in text, f"docs/tui.md lacks {key!r} ({where})"


def test_the_screenshots_exist() -> None:
    text = DOC.read_text(encoding="utf-8")
    for line in text.splitlines():
        if line.startswith("!["):
            target = line.split("](", 1)[1].rstrip(")")
            assert (DOC.parent / target).is_file(), target
