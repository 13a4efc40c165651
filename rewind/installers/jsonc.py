"""Reading JSON with comments (JSONC) while keeping where each value sits in the text, so that
an edit can splice text into the document and leave every other byte as it was.

Accepted beyond JSON: ``//`` and ``/* */`` comments and a trailing comma before ``]`` or ``}``
(what Gemini CLI's and VS Code's settings readers accept). :func:`parse` returns the tree of
:class:`Node`; ``node.value`` is the plain Python value, as :func:`json.loads` gives it. A
document nested deeper than ``rewind.store.input_limits.DEPTH`` is refused (:class:`JsoncTooDeep`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from rewind.store.input_limits import DEPTH

_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_LITERALS = {"true": True, "false": False, "null": None}


class JsoncError(ValueError):
    def __init__(self, message: str, text: str, position: int) -> None:
        self.line = text.count("\n", 0, position) + 1
        self.column = position - (text.rfind("\n", 0, position) + 1) + 1
        self.message = message
        super().__init__(f"{message} at line {self.line} column {self.column}")


class JsoncTooDeep(JsoncError):
    """A container nested deeper than rewind.store.input_limits.DEPTH."""


@dataclass
class Member:
    key: str
    key_start: int  # where the key's opening quote is
    value: Node


@dataclass
class Node:
    """A value of the document: ``start``/``end`` delimit its text (``text[start:end]``)."""

    start: int
    end: int
    value: object
    members: list[Member] = field(default_factory=list)  # an object's, in order
    elements: list[Node] = field(default_factory=list)  # an array's, in order
    kind: str = "scalar"  # "object", "array" or "scalar"

    def member(self, key: str) -> Member | None:
        found = [member for member in self.members if member.key == key]
        return found[-1] if found else None  # the last one wins, as in json.loads


def parse(text: str) -> Node:
    """The document's tree; a :class:`JsoncError` says where it is not JSONC."""
    return _Scanner(text).parse_document()


def skip_blanks(text: str, position: int) -> int:
    """Where the next token after ``position`` starts, past whitespace and comments."""
    scanner = _Scanner(text)
    scanner.at = position
    scanner.skip()
    return scanner.at


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0

    def fail(self, message: str, position: int | None = None) -> JsoncError:
        return JsoncError(message, self.text, self.at if position is None else position)

    def parse_document(self) -> Node:
        self.skip()
        node = self.value()
        self.skip()
        if self.at != len(self.text):
            raise self.fail("Extra data")
        return node

    def skip(self) -> None:
        """Past whitespace and comments."""
        text = self.text
        while self.at < len(text):
            char = text[self.at]
            if char in " \t\r\n\ufeff":
                self.at += 1
            elif text.startswith("//", self.at):
                newline = text.find("\n", self.at)
                self.at = len(text) if newline < 0 else newline + 1
            elif text.startswith("/*", self.at):
                close = text.find("*/", self.at + 2)
                if close < 0:
                    raise self.fail("Unterminated comment")
                self.at = close + 2
            else:
                return

    def value(self) -> Node:
        """The value that starts here, read to its end; a container's items are read with a
        stack of the containers open, not by recursion, and no deeper than DEPTH."""
        opened: list[Node] = []  # outermost first
        keys: list[tuple[str, int]] = []  # of the objects open: the key whose value is read
        while True:
            node = self.start_value()
            if node.kind != "scalar":
                if len(opened) == DEPTH:
                    raise JsoncTooDeep(
                        f"Nested more than {DEPTH} levels deep", self.text, node.start
                    )
                opened.append(node)
                if self.next_item(node, keys, first=True):
                    continue
                opened.pop()  # empty
            while opened:  # the value is whole: into its container, and on to the next item
                container = opened[-1]
                if container.kind == "object":
                    key, key_start = keys.pop()
                    container.members.append(Member(key, key_start, node))
                    assert isinstance(container.value, dict)
                    container.value[key] = node.value
                else:
                    container.elements.append(node)
                    assert isinstance(container.value, list)
                    container.value.append(node.value)
                if self.next_item(container, keys, first=False):
                    break
                node = opened.pop()  # closed: a value of the container around it
            else:
                return node

    def start_value(self) -> Node:
        """A scalar, read; or a container, opened (its items are read by :meth:`value`)."""
        text = self.text
        if self.at >= len(text):
            raise self.fail("Expecting value")
        char = text[self.at]
        if char in "{[":
            start, object_ = self.at, char == "{"
            self.at += 1
            return Node(start, start, {} if object_ else [], kind="object" if object_ else "array")
        if char == '"':
            start = self.at
            string = self.string()
            return Node(start, self.at, string)
        for word, literal in _LITERALS.items():
            if text.startswith(word, self.at):
                start, self.at = self.at, self.at + len(word)
                return Node(start, self.at, literal)
        number = _NUMBER.match(text, self.at)
        if number is None:
            raise self.fail("Expecting value")
        try:
            value = json.loads(number.group())
        except ValueError:  # more digits than Python turns into an int (4300)
            raise self.fail("Number too long") from None
        self.at = number.end()
        return Node(number.start(), number.end(), value)

    def next_item(self, node: Node, keys: list[tuple[str, int]], *, first: bool) -> bool:
        """Past the separator to the container's next value (an object's key read onto
        ``keys``): True; or past its end (a trailing comma allowed): False."""
        close = "}" if node.kind == "object" else "]"
        self.skip()
        if not first:
            if not self.text.startswith(",", self.at):
                if not self.text.startswith(close, self.at):
                    raise self.fail(f"Expecting ',' delimiter or '{close}'")
                self.at += 1
                node.end = self.at
                return False
            self.at += 1
            self.skip()
        if self.text.startswith(close, self.at):
            self.at += 1
            node.end = self.at
            return False
        if node.kind == "object":
            if not self.text.startswith('"', self.at):
                raise self.fail("Expecting property name enclosed in double quotes")
            key_start = self.at
            key = self.string()
            self.skip()
            if not self.text.startswith(":", self.at):
                raise self.fail("Expecting ':' delimiter")
            self.at += 1
            self.skip()
            keys.append((key, key_start))
        return True

    def string(self) -> str:
        try:
            value, end = json.decoder.scanstring(self.text, self.at + 1)  # type: ignore[attr-defined]
        except json.JSONDecodeError as error:
            raise self.fail(error.msg, error.pos) from None
        self.at = end
        return str(value)
