"""Splicing values into a JSON(C) document's text and taking them out again, so that what
``rewind install`` adds is the only change to the file and ``rewind uninstall`` removes exactly
that: the rest keeps its bytes (formatting, key order, compact arrays, comments).

An item is added after the container's last item, in the container's style: on a line of its
own at the last item's indentation when the items are one per line, else on the same line with
the separator the items use (``[1, 2]`` becomes ``[1, 2, 3]``). Into an empty container it goes
on its own line, one indent deeper than the container's line. Removing an item takes away the
separator before it (or after it, for the first item), so a removal undoes an addition byte for
byte; removing the only item leaves ``{}`` or ``[]``.
"""

from __future__ import annotations

import json

from rewind.errors import UserError
from rewind.installers.jsonc import Node, parse, skip_blanks


class Document:
    """A document's text and its tree, parsed again after every edit (settings files are small)."""

    def __init__(self, text: str, indent: str, path: str = "") -> None:
        self.path = path  # for messages
        self.text = text
        self.indent = indent
        self.newline = "\r\n" if "\r\n" in text else "\n"
        self.root = parse(text)

    def _splice(self, start: int, end: int, new: str) -> None:
        self.text = self.text[:start] + new + self.text[end:]
        self.root = parse(self.text)

    # rendering ---------------------------------------------------------------------------------

    def _line_prefix(self, position: int) -> str:
        """The whitespace that starts the line holding ``position``."""
        line_start = self.text.rfind("\n", 0, position) + 1
        line = self.text[line_start:position]
        return line[: len(line) - len(line.lstrip(" \t"))]

    def render(self, value: object, base: str | None) -> str:
        """``value`` as JSON text: over lines indented from ``base``, or on one line when None."""
        if base is None:
            return json.dumps(value, ensure_ascii=False)
        text = json.dumps(value, indent=self.indent, ensure_ascii=False)
        return text.replace("\n", self.newline + base)

    @staticmethod
    def _items(node: Node) -> list[tuple[int, int]]:
        """The (start, end) of each item of a container: members from their key."""
        if node.kind == "object":
            return [(member.key_start, member.value.end) for member in node.members]
        return [(element.start, element.end) for element in node.elements]

    # adding ------------------------------------------------------------------------------------

    def add(self, container: Node, value: object, key: str | None = None) -> None:
        """Adds ``value`` (under ``key`` in an object) after the container's last item."""
        items = self._items(container)
        label = "" if key is None else json.dumps(key, ensure_ascii=False) + ": "
        # The top object of a blank file (comments only) is rewritten: uninstall puts the
        # file's text back whole.
        is_root = container.start == self.root.start
        if not items and not is_root and self.holds_comments(container):
            line = self.text.count("\n", 0, container.start) + 1
            raise UserError(
                f"{self.path or 'the settings file'} holds only comments in the empty list or "
                f"object at line {line}, where rewind adds its entry; take them out, then run "
                "the command again."
            )
        if not items:
            base = self._line_prefix(container.start)
            inner = base + self.indent
            piece = label + self.render(value, inner)
            opening, closing = self.text[container.start], self.text[container.end - 1]
            new = f"{opening}{self.newline}{inner}{piece}{self.newline}{base}{closing}"
            self._splice(container.start, container.end, new)
            return
        last_start, last_end = items[-1]
        prefix = self.text[self.text.rfind("\n", 0, last_start) + 1 : last_start]
        if prefix.strip() == "":  # one item per line
            separator = "," + self.newline + prefix
            piece = label + self.render(value, prefix)
        else:
            separator = ", "
            if len(items) > 1:
                gap = self.text[items[-2][1] : last_start]
                if gap.strip() == ",":
                    separator = gap
            piece = label + self.render(value, None)
        self._splice(last_end, last_end, separator + piece)

    def replace(self, node: Node, value: object) -> None:
        """Puts ``value`` where ``node`` is, indented from the line ``node`` starts on."""
        self._splice(node.start, node.end, self.render(value, self._line_prefix(node.start)))

    # removing ----------------------------------------------------------------------------------

    def remove(self, container: Node, index: int) -> None:
        """Removes the container's item ``index`` and one separator next to it."""
        items = self._items(container)
        start, end = items[index]
        if len(items) == 1 and self.holds_comments(container):  # keep them: the item alone
            after = skip_blanks(self.text, end)
            end = after + 1 if self.text[after] == "," else end
            line_start = self.text.rfind("\n", 0, start)
            line_end = self.text.find("\n", end)
            rest = self.text[end : line_end if line_end >= 0 else len(self.text)]
            if (
                line_start >= 0
                and not self.text[line_start + 1 : start].strip()
                and not (rest.strip())
            ):  # on a line of its own: with the line's break and indentation
                start = line_start
            self._splice(start, end, "")
            return
        if len(items) == 1:
            empty = self.text[container.start] + self.text[container.end - 1]
            self._splice(container.start, container.end, empty)
            return
        if index > 0 and self.text[items[index - 1][1] : start].strip() == ",":
            self._splice(items[index - 1][1], end, "")  # the exact inverse of add()
        elif index + 1 < len(items):  # the item, its comma and the blanks up to the next item
            after = self._comma_after(end) + 1
            while after < len(self.text) and self.text[after] in " \t\r\n":
                after += 1
            self._splice(start, after, "")
        else:  # the last item after comments: keep them, take the item and the comma before it
            comma = self._comma_after(items[index - 1][1])
            text = self.text[:comma] + self.text[comma + 1 : start] + self.text[end:]
            self._splice(0, len(self.text), text)

    def holds_comments(self, container: Node) -> bool:
        """Whether the container's text holds comments (besides its items)."""
        return any("//" in gap or "/*" in gap for gap in self._gaps(container))

    def _gaps(self, container: Node) -> list[str]:
        """The text between the container's items (and before the first, after the last)."""
        edges = [container.start + 1]
        for start, end in self._items(container):
            edges += [start, end]
        edges.append(container.end - 1)
        return [self.text[edges[i] : edges[i + 1]] for i in range(0, len(edges), 2)]

    def _comma_after(self, position: int) -> int:
        comma = skip_blanks(self.text, position)
        assert self.text[comma] == ","
        return comma
