"""What the imitated shell knows as it goes: its directory, its variables, the words of ``for``
loops; and what it makes of a word (braces, ``~``, variables, globs)."""

from __future__ import annotations

import os

from rewind.quicksave.braces import brace_words
from rewind.quicksave.words import DYNAMIC, is_dynamic, is_identifier


class StandardInput:
    """What the command being read gets on its standard input, when the command line says:
    the ``text`` of a here-document or here-string, or the ``path`` of a file (``< FILE``)."""

    __slots__ = ("path", "text")

    def __init__(self, text: str | None = None, path: str | None = None) -> None:
        self.text = text
        self.path = path


class Shell:
    """The shell's directory (None once a ``cd`` could not be followed), variables set on the
    command line (None: set to something unknown), the words of ``for`` loops, and the
    standard input of the command being read (None: not known)."""

    __slots__ = ("cwd", "loops", "previous", "stack", "stdin", "variables")

    def __init__(self, cwd: str | None) -> None:
        self.cwd = cwd
        self.previous: str | None = cwd
        self.stack: list[str | None] = []
        self.variables: dict[str, str | None] = {}
        self.loops: dict[str, list[str]] = {}
        self.stdin: StandardInput | None = None

    def copy(self) -> Shell:
        other = Shell(self.cwd)
        other.previous = self.previous
        other.stack = list(self.stack)
        other.variables = dict(self.variables)
        other.loops = dict(self.loops)
        other.stdin = self.stdin
        return other

    def variable(self, name: str) -> str | None:
        if name in self.variables:
            return self.variables[name]
        if name in ("PWD", "OLDPWD"):
            return self.cwd if name == "PWD" else self.previous
        return os.environ.get(name)

    def set_variable(self, name: str, value: str | None) -> None:
        self.variables[name] = value
        self.loops.pop(name, None)

    def assign(self, assignment: str) -> None:
        """``NAME=value``: the shell keeps the value (unknown if only it could know it)."""
        name, _, value = assignment.partition("=")
        self.set_variable(name, None if is_dynamic(value) else value)

    def glob(self, pattern: str, recursive: bool) -> list[str]:
        """The names ``pattern`` matches, sorted; relative to the shell's directory unless
        the pattern is absolute."""
        import glob  # only for a word with a wildcard: it loads re (about 5 ms)

        root = None if os.path.isabs(pattern) else self.cwd
        return sorted(glob.glob(pattern, root_dir=root, recursive=recursive))

    def expand(self, word: str) -> list[str]:
        """The words ``word`` becomes (braces, ``~``, variables); globs are left for the
        command to expand where it takes paths."""
        if DYNAMIC in word or "`" in word or "$(" in word:
            return [DYNAMIC + word]  # the text is kept for bash -c
        return [self._variables_in(self._tilde(each)) for each in brace_words(word)]

    def _tilde(self, word: str) -> str:
        if word == "~" or word.startswith("~/"):
            home = self.variable("HOME")
            return DYNAMIC if home is None else home + word[1:]
        if word.startswith("~"):
            return os.path.expanduser(word)
        return word

    def _variables_in(self, word: str) -> str:
        if "$" not in word:
            return word
        out: list[str] = []
        index = 0
        while index < len(word):
            char = word[index]
            if char != "$" or index + 1 == len(word):
                out.append(char)
                index += 1
                continue
            start = index
            name, index = _variable_name(word, index + 1)
            if name is None:
                out.append("$")
                continue
            value = self.variable(name) if is_identifier(name) else None
            if value is None or DYNAMIC in value:
                value = DYNAMIC + word[start:index]  # the text is kept for bash -c
            out.append(value)
        return "".join(out)


def _variable_name(word: str, index: int) -> tuple[str | None, int]:
    """The name of the variable whose ``$`` is just before ``index``, and where it ends.
    A name that is not a plain identifier (``$1``, ``$@``, ``${X:-y}``) comes back as is, to
    be treated as unknown; None when the ``$`` starts no variable."""
    if word[index] == "{":
        end = word.find("}", index)
        if end < 0:
            return word[index:], len(word)
        return word[index + 1 : end], end + 1
    if word[index] in "@*#?$!-0123456789":
        return word[index], index + 1
    end = index
    while end < len(word) and (word[end].isalnum() or word[end] == "_"):
        end += 1
    if end == index:
        return None, index
    return word[index:end], end


def directory_named(word: str, cwd: str | None) -> str | None:
    """The directory ``word`` names, a relative one under ``cwd``; None when only the running
    shell knows it."""
    if is_dynamic(word):
        return None
    if os.path.isabs(word):
        return os.path.normpath(word)
    return None if cwd is None else os.path.normpath(os.path.join(cwd, word))
