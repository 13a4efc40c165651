"""How much rewind reads of what others wrote: the one place for the limits every reader of
outside input shares (docs/guarantees.md lists them).

Outside input is what rewind did not write, or wrote where others can change it: a hook's event
on standard input, an agent's settings files, Codex's ``config.toml``, ``rewind.toml``, the
agents' transcripts and session files, a patch, the records of a session fetched from a remote.
A reader refuses what is past its limit in one sentence (a hook logs it and records nothing),
having held no more than the limit in memory; nothing nested deeper than :data:`DEPTH` reaches
the code that walks a value (Python's own readers and writers recurse once per level, so a
RecursionError would be a crash, or a value read here would fail to be written there).

Imports nothing at load time, as the hook path reads its event through it; ``tomllib`` and
``re`` only when a TOML file is read.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MIB = 1024 * 1024

# Levels of nesting of a JSON or TOML value (real files have a few dozen at most).
DEPTH = 512
# A hook's event on standard input: the agent's whole tool call, a file it writes included.
PAYLOAD_BYTES = 64 * MIB
# An agent's JSON settings file: ~/.claude.json keeps every project's history, and grows.
SETTINGS_BYTES = 64 * MIB
# A TOML file (Codex's config.toml, rewind.toml: a few KiB), which Python reads at a
# few seconds a MiB at worst.
TOML_BYTES = 2 * MIB
# The parts of one dotted TOML key or table name (``a.b.c`` has three): Python's reader takes
# time in the square of their number.
TOML_KEY_PARTS = 16
# The session file Cline's hook reads for the prompt's text (a longer one is not read), and how
# far back from its end Droid's hook reads its transcript for the last prompt.
SESSION_FILE_BYTES = 32 * MIB
# A transcript or session file 'rewind resume' reads and copies.
TRANSCRIPT_BYTES = 1024 * MIB
# A message of a client's JSON-RPC server ('rewind resume' asks Codex and Copilot to fork).
RPC_MESSAGE_BYTES = 64 * MIB
# A patch file the quicksave reads for the names of the files it writes.
PATCH_FILE_BYTES = 16 * MIB
# A file name in a patch, in characters: quoted, a byte takes four (``\\303``), and no path is
# longer than 4096 bytes; a longer name names no file and is not decoded.
PATCH_NAME_CHARACTERS = 4 * 4096 + 2
# A record (turn.json) of a fetched session, as it inflates.
RECORD_BYTES = 64 * MIB

_BOM = "\ufeff"


class BeyondLimit(ValueError):
    """Input past one of the limits; ``clause`` says how, after the input's name (``of``
    puts one before it: ``X is larger than 64 MiB, ...``)."""

    def __init__(self, clause: str) -> None:
        super().__init__(clause)
        self.clause = clause

    def of(self, subject: str) -> str:
        return f"{subject} {self.clause}"


def size_words(limit: int) -> str:
    return f"{limit // MIB} MiB" if limit >= MIB and limit % MIB == 0 else f"{limit} bytes"


def too_large(limit: int, what: str) -> BeyondLimit:
    return BeyondLimit(f"is larger than {size_words(limit)}, more than rewind reads of {what}")


def too_deep() -> BeyondLimit:
    return BeyondLimit(f"is nested more than {DEPTH} levels deep, more than rewind reads")


def read_at_most(path: str | bytes, limit: int, what: str) -> bytes:
    """The content of the file at ``path``; :func:`too_large` when it holds more than
    ``limit`` bytes (no more than ``limit + 1`` of them read). OSError as ``open`` raises it."""
    with open(path, "rb") as handle:
        if os.fstat(handle.fileno()).st_size > limit:
            raise too_large(limit, what)
        data = handle.read(limit + 1)
    if len(data) > limit:  # grown since, or a file whose size says nothing (/proc, a fifo)
        raise too_large(limit, what)
    return data


def deeper_than(value: object, depth: int = DEPTH) -> bool:
    """Whether ``value`` (lists and dicts) nests more than ``depth`` levels deep: a walk
    without recursion, that stops at the first container too deep."""
    if not isinstance(value, (dict, list)):
        return False
    stack: list[tuple[dict[object, object] | list[object], int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        for child in item.values() if isinstance(item, dict) else item:
            if isinstance(child, (dict, list)):
                if level >= depth:
                    return True
                stack.append((child, level + 1))
    return False


def check_json_depth(text: str, value: object) -> None:
    """:func:`too_deep` when ``value``, read from the JSON ``text``, nests deeper than
    :data:`DEPTH`. The walk costs a fraction of a microsecond per list or object, and nothing
    per character: a hook's event, a few objects around a file's text, costs next to nothing
    (counting the text's brackets would cost a millisecond per megabyte of it)."""
    if len(text) > 2 * DEPTH and deeper_than(value):
        raise too_deep()


# TOML -------------------------------------------------------------------------------------------


def load_toml(path: str) -> dict[str, Any]:
    """The TOML file at ``path`` (its byte order mark, if any, skipped), within the limits.
    OSError when it cannot be read; ValueError when it is not UTF-8 TOML (a
    UnicodeDecodeError, a ``tomllib.TOMLDecodeError``) or is past a limit (:class:`BeyondLimit`)."""
    return loads_toml(read_at_most(path, TOML_BYTES, "a TOML file").decode("utf-8"))


def loads_toml(text: str) -> dict[str, Any]:
    """``tomllib.loads(text)`` within the limits, a leading byte order mark skipped."""
    import tomllib

    if len(text) > TOML_BYTES:
        raise too_large(TOML_BYTES, "a TOML file")
    text = text.removeprefix(_BOM)
    _check_dotted_keys(text)
    try:
        data = tomllib.loads(text)
    except RecursionError:  # arrays and inline tables: a few hundred levels are Python's limit
        raise too_deep() from None
    if deeper_than(data):  # tables: [a.b.c] nests without recursion
        raise too_deep()
    return data


def _check_dotted_keys(text: str) -> None:
    """:class:`BeyondLimit` when a line holds a dotted key of more than
    :data:`TOML_KEY_PARTS` parts; only a line with that many dots is looked at."""
    if text.count(".") <= TOML_KEY_PARTS:
        return
    import re

    strings = re.compile(r'"(?:[^"\\\n]|\\.)*+"|\'[^\'\n]*+\'')
    # A part: a bare key (a quoted one is a q by then) and a dot; a part begins after no
    # letter of another, so that a long word is not tried again from each of its letters.
    dotted = re.compile(r"(?<![\w-])(?:[\w-]++[ \t]*+\.[ \t]*+){" + str(TOML_KEY_PARTS) + "}")
    for line in text.split("\n"):
        if line.count(".") > TOML_KEY_PARTS and dotted.search(strings.sub("q", line)):
            raise BeyondLimit(
                f"has a key of more than {TOML_KEY_PARTS} dotted parts, more than rewind reads"
            )


def read_hook_event() -> str:
    """A hook's event on standard input; a ValueError (logged: the event is ignored) past
    PAYLOAD_BYTES, the rest read and dropped, so that the agent's write of it never blocks."""
    import sys

    if sys.stdin is None or sys.stdin.isatty():
        return ""
    data = sys.stdin.buffer.read(PAYLOAD_BYTES + 1)
    if len(data) > PAYLOAD_BYTES:
        del data
        while sys.stdin.buffer.read(1 << 20):
            pass
        raise ValueError(too_large(PAYLOAD_BYTES, "a hook's event").of("the event"))
    return data.decode("utf-8", "surrogateescape")
