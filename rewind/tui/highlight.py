"""Syntax colours for one line of code, chosen by the name of the file the line comes from.

Pygments picks the lexer from the file name (``get_lexer_for_filename``: the extension, or the
whole name for files such as ``Makefile``); a name it does not know, or one it would only treat
as plain text, gets no lexer and the caller keeps its own colours. The token colours are the
foregrounds of rich's ``monokai`` theme (the default of ``rich.syntax.Syntax``), which read well
on a dark terminal; the caller gives the background, so a diff can tint added and removed lines.

A line is tokenized on its own: a construct spanning lines (a docstring, a block comment) is
coloured only on the lines where the lexer can see it start.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from functools import lru_cache
from typing import Protocol

from pygments.lexers import get_lexer_for_filename  # type: ignore[import-untyped]
from pygments.lexers.special import TextLexer  # type: ignore[import-untyped]
from rich.segment import Segment
from rich.style import Style
from rich.syntax import PygmentsSyntaxTheme

TokenType = tuple[str, ...]  # pygments.token's types are tuples of names, e.g. Keyword.Constant
TAB_SIZE = 4
THEME = PygmentsSyntaxTheme("monokai")
NO_BACKGROUND = Style()


class Lexer(Protocol):
    """What is used of a Pygments lexer."""

    def get_tokens(self, text: str) -> Iterable[tuple[TokenType, str]]: ...


@lru_cache(maxsize=256)
def lexer_for(file_name: str) -> Lexer | None:
    """The lexer for the file called ``file_name`` (a path or a base name), or None."""
    name = os.path.basename(file_name)
    if not name:
        return None
    try:
        lexer = get_lexer_for_filename(name, stripnl=False, ensurenl=False)
    except Exception:  # ClassNotFound, or a broken third-party lexer plugin: no colours
        return None
    if isinstance(lexer, TextLexer):
        return None
    found: Lexer = lexer
    return found


@lru_cache(maxsize=1024)
def token_style(token_type: TokenType, background: Style) -> Style:
    """The theme's colour (and bold/italic/underline) for a token, on ``background``."""
    themed = THEME.get_style_for_token(token_type)
    foreground = Style(
        color=themed.color, bold=themed.bold, italic=themed.italic, underline=themed.underline
    )
    return background + foreground


def code_segments(
    code: str, lexer: Lexer, background: Style = NO_BACKGROUND, first_column: int = 0
) -> list[Segment]:
    """``code`` (one line, without its diff marker) as segments styled by token.

    Tabs are expanded to TAB_SIZE columns, counted as if the line were drawn from
    ``first_column`` (so a diff marker before the code keeps the tab stops where they were).
    """
    segments = []
    column = first_column
    try:
        tokens = list(lexer.get_tokens(code))
    except Exception:  # a lexer that fails on odd input: the line uncoloured rather than lost
        tokens = [((), code)]
    for token_type, text in tokens:
        text = text.rstrip("\n")
        if not text:
            continue
        if "\t" in text:
            text = _expand_tabs(text, column)
        segments.append(Segment(text, token_style(token_type, background)))
        column += len(text)
    return segments


def _expand_tabs(text: str, column: int) -> str:
    """``text.expandtabs(TAB_SIZE)`` for text that starts at ``column`` of its line."""
    expanded = []
    for character in text:
        if character == "\t":
            spaces = TAB_SIZE - (column % TAB_SIZE)
            expanded.append(" " * spaces)
            column += spaces
        else:
            expanded.append(character)
            column += 1
    return "".join(expanded)
