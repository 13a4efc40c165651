"""Hunks as people read them (``rewind show TURN --path P``, ``rewind restore --patch``):
each hunk numbered, its changed lines numbered in a gutter, for ``--hunks N:L`` (as data:
rewind.actions.records.hunk_json)."""

from __future__ import annotations

from rewind.actions.changes import ADDED, Hunk
from rewind.commands.output.render import paint

# Unchanged lines are indented past the numbers of the changed ones ("  1  -line").
_CONTEXT = " " * 6


def hunk_text(hunk: Hunk, count: int, name: str, colour: bool) -> str:
    """One hunk: ``hunk N/COUNT of NAME  @@ ... @@``, then its lines, changed ones numbered."""
    lines = [paint(f"hunk {hunk.number}/{count} of {name}  {hunk.header()}", "cyan", colour)]
    lines += [f"{_CONTEXT}{_shown(line)}" for line in hunk.context_before]
    for number, (origin, line) in enumerate(hunk.changed, 1):
        text = f"{number:>3}  {origin}{_shown(line)}"
        lines.append(paint(text, "green" if origin == ADDED else "red", colour))
        if not line.endswith(b"\n"):
            lines.append(f"{_CONTEXT}\\ No newline at end of file")
    lines += [f"{_CONTEXT}{_shown(line)}" for line in hunk.context_after]
    return "\n".join(lines)


def _shown(line: bytes) -> str:
    """A line of the file for the terminal: UTF-8 where it is, its newline left out."""
    return line.rstrip(b"\n").decode("utf-8", "replace")
