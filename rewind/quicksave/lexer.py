"""The prepared command line split into words and runs of operator characters, as stdlib
``shlex`` splits it in POSIX mode with ``punctuation_chars=True`` and ``whitespace_split``, but
in time linear in the text's length (``shlex`` grows each word a character at a time, which
takes time quadratic in the word's length) and without importing ``re``."""

from __future__ import annotations

_WHITESPACE = " \t\r\n"
_PUNCTUATION = "();<>|&"
# Every character at which a run of plain word characters ends is translated to a space, so
# that one ``str.find(" ")`` in the translated text finds where the run ends.
_WORD_STOPS = str.maketrans(dict.fromkeys(_WHITESPACE + _PUNCTUATION + "'\"\\", " "))


def split_words(text: str) -> list[str]:
    """The words (quotes and backslashes removed) and operator runs (``&&(``) of ``text``;
    raises ValueError where a quote is not closed or the text ends in a backslash."""
    stops = text.translate(_WORD_STOPS)
    tokens: list[str] = []
    index = 0
    while True:
        index = _skip_whitespace(text, index)
        if index == len(text):
            return tokens
        if text[index] in _PUNCTUATION:
            end = _punctuation_end(text, index)
            tokens.append(text[index:end])
        else:
            word, end = _word(text, stops, index)
            tokens.append(word)
        index = end


def _skip_whitespace(text: str, index: int) -> int:
    while index < len(text) and text[index] in _WHITESPACE:
        index += 1
    return index


def _punctuation_end(text: str, index: int) -> int:
    while index < len(text) and text[index] in _PUNCTUATION:
        index += 1
    return index


def _word(text: str, stops: str, index: int) -> tuple[str, int]:
    """The word that starts at ``index``, and where it ends (white space, an operator
    character, or the end of the text)."""
    pieces: list[str] = []
    while index < len(text):
        char = text[index]
        if char in _WHITESPACE or char in _PUNCTUATION:
            break
        if char == "'":
            index = _single_quoted(text, index + 1, pieces)
        elif char == '"':
            index = _double_quoted(text, index + 1, pieces)
        elif char == "\\":
            if index + 1 == len(text):
                raise ValueError("No escaped character")
            pieces.append(text[index + 1])
            index += 2
        else:
            end = stops.find(" ", index)
            end = len(text) if end < 0 else end
            pieces.append(text[index:end])
            index = end
    return "".join(pieces), index


def _single_quoted(text: str, index: int, pieces: list[str]) -> int:
    """Adds the text up to the closing ``'`` (no escapes in it); returns where it goes on."""
    close = text.find("'", index)
    if close < 0:
        raise ValueError("No closing quotation")
    pieces.append(text[index:close])
    return close + 1


def _double_quoted(text: str, index: int, pieces: list[str]) -> int:
    """Adds the text up to the closing ``"``, in which a backslash escapes only ``"`` and
    itself (before anything else it is kept); returns where the word goes on."""
    close = _find_or_end(text, '"', index)
    while True:
        backslash = text.find("\\", index, close)
        if backslash < 0:
            if close == len(text):
                raise ValueError("No closing quotation")
            pieces.append(text[index:close])
            return close + 1
        if backslash + 1 == len(text):
            raise ValueError("No escaped character")
        pieces.append(text[index:backslash])
        escaped = text[backslash + 1]
        pieces.append(escaped if escaped in '"\\' else "\\" + escaped)
        index = backslash + 2
        if index > close:  # the backslash escaped the quote thought to close the string
            close = _find_or_end(text, '"', index)


def _find_or_end(text: str, char: str, index: int) -> int:
    found = text.find(char, index)
    return len(text) if found < 0 else found
