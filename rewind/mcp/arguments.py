"""The MCP tools' arguments are data, never command-line words: each is checked here before it
is used, and one that could not be a turn, a session, a path or a search (a NUL byte, text that
is not valid Unicode, a value past its length) is refused in one sentence, whatever the tool
does with it afterwards. (The types, and the ranges of numbers, are the tools' input schemas:
rewind.mcp.server.)"""

from __future__ import annotations

import re

from rewind.errors import UserError

# A turn is its number in the session or its id (or a prefix of it): letters and digits only,
# so that no value can start like an option.
_TURN = re.compile(r"[0-9A-Za-z]{1,64}")
PATH_LIMIT = 4096
SESSION_LIMIT = 256
TEXT_LIMIT = 1000
PLAN_ID_LIMIT = 64


def turn(value: str, name: str = "turn") -> str:
    """A turn's number or id."""
    if not _TURN.fullmatch(value.strip()):
        raise UserError(
            f"{name} is a turn's number or id, letters and digits only ('rewind_log' lists "
            f"them), not {_shown(value)}."
        )
    return value.strip()


def session(value: str | None) -> str | None:
    """A session's id (None: the project's newest session)."""
    if value is None:
        return None
    return text(value, "session", SESSION_LIMIT)


def path(value: str, name: str = "path") -> str:
    """A file's path, relative to the project or absolute inside it."""
    if not value:
        raise UserError(f"{name} is empty: give a file's path in the project.")
    return text(value, name, PATH_LIMIT)


def paths(values: list[str] | None) -> list[str] | None:
    if values is None:
        return None
    return [path(value, "each of paths") for value in values]


def optional_text(value: str | None, name: str, limit: int = TEXT_LIMIT) -> str | None:
    return None if value is None else text(value, name, limit)


def text(value: str, name: str, limit: int = TEXT_LIMIT) -> str:
    """``value``, refused when it holds a NUL byte or what UTF-8 cannot hold (a lone
    surrogate), or is longer than ``limit`` characters."""
    if len(value) > limit:
        raise UserError(f"{name} is {len(value)} characters long; it may be at most {limit}.")
    if "\0" in value:
        raise UserError(f"{name} holds a NUL character, which no {name} can hold.")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise UserError(
            f"{name} holds a lone surrogate (not valid Unicode text); send it as UTF-8 text."
        ) from None
    return value


def _shown(value: str) -> str:
    """``value`` as a sentence may quote it: short, and with what cannot be printed escaped."""
    short = value if len(value) <= 40 else value[:40] + "..."
    return ascii(short)


def count(value: int, name: str, most: int) -> int:
    """A number of things to list: 1 to ``most``."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
        raise UserError(f"{name} is a whole number from 1 to {most}, not {value!r}.")
    return value
