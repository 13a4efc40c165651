"""The command line made readable for shlex: comments and here-document bodies taken out, line
continuations joined, and unquoted newlines made ``;``."""

from __future__ import annotations

_WORD_END = frozenset(" \t\r\n;&|()<>")


def shlex_ready(command: str) -> str:
    """``command`` with what shlex cannot read taken out (quotes are kept as they are)."""
    out: list[str] = []
    heredocs: list[tuple[str, bool]] = []
    quote = ""
    index = 0
    while index < len(command):
        char = command[index]
        if quote == "'":
            quote = "" if char == "'" else quote
            out.append(char)
            index += 1
        elif char == "\\":
            if command.startswith("\\\n", index):
                index += 2  # a line continuation
                continue
            out.append(command[index : index + 2])
            index += 2
        elif quote:
            quote = "" if char == '"' else quote
            out.append(char)
            index += 1
        elif char in "'\"":
            quote = char
            out.append(char)
            index += 1
        elif char == "#" and (index == 0 or command[index - 1] in _WORD_END):
            end = command.find("\n", index)
            index = len(command) if end < 0 else end
        elif char == "\n":
            out.append(" ; ")
            index = _skip_heredoc_bodies(command, index + 1, heredocs)
            heredocs = []
        elif command.startswith("<<", index) and not command.startswith("<<<", index):
            end, delimiter, strip_tabs = _heredoc_delimiter(command, index + 2)
            if delimiter:
                heredocs.append((delimiter, strip_tabs))
            out.append(command[index:end])
            index = end
        else:
            out.append(char)
            index += 1
    return "".join(out)


def _heredoc_delimiter(command: str, index: int) -> tuple[int, str, bool]:
    """Where the word after ``<<`` ends, the delimiter it names (quotes removed), and whether
    it was ``<<-`` (leading tabs of the body are ignored)."""
    strip_tabs = command.startswith("-", index)
    if strip_tabs:
        index += 1
    while index < len(command) and command[index] in " \t":
        index += 1
    delimiter: list[str] = []
    quote = ""
    while index < len(command):
        char = command[index]
        if quote:
            if char == quote:
                quote = ""
            else:
                delimiter.append(char)
        elif char in "'\"":
            quote = char
        elif char in _WORD_END:
            break
        elif char != "\\":
            delimiter.append(char)
        index += 1
    return index, "".join(delimiter), strip_tabs


def _skip_heredoc_bodies(command: str, index: int, heredocs: list[tuple[str, bool]]) -> int:
    """Where the command line goes on after the bodies of ``heredocs``, which start at
    ``index``."""
    for delimiter, strip_tabs in heredocs:
        while index < len(command):
            end = command.find("\n", index)
            end = len(command) if end < 0 else end
            line = command[index:end].rstrip("\r")
            index = end + 1
            if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                break
    return min(index, len(command))
