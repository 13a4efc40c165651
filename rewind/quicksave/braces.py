"""Brace expansion: ``a{b,c}d`` -> ``abd``, ``acd``; ``{1..3}``, ``{a..e}``; nested groups."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

_MAX_BRACE_WORDS = 256
_MAX_BRACE_TEXT = 1024  # longer words are left as they are (finding groups is quadratic)


def brace_words(word: str) -> list[str]:
    """The words ``word`` becomes; a long word, or one with white space in it (it was quoted),
    stays as it is."""
    expandable = (
        "{" in word and len(word) <= _MAX_BRACE_TEXT and not any(char.isspace() for char in word)
    )
    return _expand(word) if expandable else [word]


def _expand(word: str) -> list[str]:
    """Every group of ``word``, the first one first; ``${...}`` is left alone."""
    group = _brace_group(word)
    if group is None:
        return [word]
    start, end, alternatives = group
    words: list[str] = []
    for alternative in alternatives:
        words.extend(_expand(word[:start] + alternative + word[end + 1 :]))
        if len(words) >= _MAX_BRACE_WORDS:
            return words[:_MAX_BRACE_WORDS]
    return words


def _brace_group(word: str) -> tuple[int, int, list[str]] | None:
    """Where the first group of ``word`` starts and ends, and its alternatives."""
    search = 0
    while (start := word.find("{", search)) >= 0:
        search = start + 1
        if start > 0 and word[start - 1] == "$":
            continue
        depth = 0
        pieces: list[str] = []
        piece_start = start + 1
        for index in range(start, len(word)):
            char = word[index]
            if char == "{":
                depth += 1
            elif char == "," and depth == 1:
                pieces.append(word[piece_start:index])
                piece_start = index + 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    if pieces:
                        return start, index, [*pieces, word[piece_start:index]]
                    sequence = _brace_sequence(word[start + 1 : index])
                    if sequence:
                        return start, index, sequence
                    break
        else:
            return None
    return None


def _brace_sequence(inner: str) -> list[str] | None:
    """``1..5`` or ``a..e`` as the list of its items; anything else is not a sequence."""
    first, dots, last = inner.partition("..")
    if not dots:
        return None
    item: Callable[[int], str]
    try:
        low, high, item = int(first), int(last), str
    except ValueError:
        if not (len(first) == 1 == len(last) and first.isalpha() and last.isalpha()):
            return None
        low, high, item = ord(first), ord(last), chr
    step = 1 if high >= low else -1
    return [item(code) for code in range(low, high + step, step)[:_MAX_BRACE_WORDS]]
