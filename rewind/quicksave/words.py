"""Words as the imitated shell sees them: which only the running shell knows, which are globs,
assignments or names, and which use a variable."""

from __future__ import annotations

# Marks a word whose value only the running shell knows ($(...), `...`, $UNKNOWN); the text
# that follows the mark is what the command line said.
DYNAMIC = "\0"
# Marks the word after ``<<`` that stands for a here-document's delimiter: the number of its
# body follows (rewind.quicksave.prepass puts it there, the parser puts the body in its place).
HERE_DOCUMENT = "\x01"
_GLOB_CHARS = frozenset("*?[")


def names(text: str) -> frozenset[str]:
    return frozenset(text.split())


def is_dynamic(word: str) -> bool:
    return DYNAMIC in word


def has_glob(word: str) -> bool:
    return any(char in _GLOB_CHARS for char in word)


def expands_as_glob(word: str) -> bool:
    """A glob the shell expands; a word with white space in it (it was quoted) is passed on
    as it is."""
    return has_glob(word) and not any(char.isspace() for char in word)


def is_identifier(name: str) -> bool:
    return name.isidentifier() and name.isascii()


def is_assignment(word: str) -> bool:
    name, equals, _ = word.partition("=")
    return bool(equals) and is_identifier(name)


def mentions(word: str, name: str) -> bool:
    """Whether ``word`` expands variable ``name`` (``$name`` or ``${name}``)."""
    if "${" + name + "}" in word:
        return True
    search = 0
    while (index := word.find("$" + name, search)) >= 0:
        after = index + 1 + len(name)
        if after == len(word) or not (word[after].isalnum() or word[after] == "_"):
            return True
        search = after
    return False
