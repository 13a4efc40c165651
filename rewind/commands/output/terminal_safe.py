"""Printing what a reading command (log, show, diff, sessions) read from a session fetched from a
remote (rewind.actions.projects.store_to_read opens it): harmless to the terminal."""

from __future__ import annotations

import sys
from typing import Any, TextIO, cast

# Every control character but tab, newline and carriage return (CRLF files' diffs), shown as
# \xNN: what a fetched session holds is whatever a remote wrote, and an escape sequence in a
# prompt, a path or a file could retitle, clear or take over the terminal it is printed on.
_VISIBLE = {
    code: f"\\x{code:02x}"
    for code in (*range(0x20), *range(0x7F, 0xA0))
    if chr(code) not in "\t\n\r"
}


class _TerminalSafe:
    """``sys.stdout`` for printing a fetched session: control characters made visible, and
    no colours (it is not a terminal: colours are escape sequences too)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(text.translate(_VISIBLE))

    def isatty(self) -> bool:
        return False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def print_fetched_safely() -> None:
    """Makes what is printed from here on harmless to the terminal (see :class:`_TerminalSafe`),
    for the rest of this command; log, show and diff call it when they read a fetched
    session."""
    if not isinstance(sys.stdout, _TerminalSafe):
        sys.stdout = cast(TextIO, _TerminalSafe(sys.stdout))
