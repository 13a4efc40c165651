"""``?``: every key binding of the app and its screens."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

# Keys that are not bindings of one class: the app watches Esc itself.
EXTRA_KEYS = [
    ("escape escape", "open the rewind menu (two presses within half a second, from anywhere)"),
    ("tab / shift+tab", "move between the timeline, the file list and the diff"),
    ("up / down / enter", "move in a list; enter goes to the next pane"),
]


def binding_rows(*owners: tuple[str, list[BindingType]]) -> list[tuple[str, str, str]]:
    """(where, key, what) for every binding of the given owners, in order."""
    rows = []
    for where, bindings in owners:
        for item in bindings:
            binding = item if isinstance(item, Binding) else Binding(*item)
            key = binding.key_display or binding.key.replace("question_mark", "?")
            key = key.replace("slash", "/")
            # A footer label kept short to fit has its whole meaning in the tooltip.
            rows.append((where, key, binding.tooltip or binding.description or binding.action))
    return rows


# The section the keys of EXTRA_KEYS (and the app's own bindings) are listed in, first.
FIRST = "anywhere"


def sections(rows: list[tuple[str, str, str]]) -> list[tuple[str, list[tuple[str, str]]]]:
    """The rows grouped by where they apply, in order of first appearance, "anywhere" first
    and the rewind menu (Esc Esc) at its top."""
    grouped: dict[str, list[tuple[str, str]]] = {FIRST: list(EXTRA_KEYS)}
    for where, key, does in rows:
        grouped.setdefault(where, []).append((key, does))
    return list(grouped.items())


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,question_mark", "close", "Close")]

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 90%; max-width: 100; height: 90%; border: round $accent; background: $surface;
    }
    """

    def __init__(self, rows: list[tuple[str, str, str]]) -> None:
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        # One table per place, headed by its name: the key column as narrow as its words,
        # what a key does takes the rest of the width (no column of places to wrap it).
        tables = []
        for where, keys in sections(self.rows):
            table = Table(
                title=where,
                title_justify="left",
                title_style="bold",
                expand=True,
                box=None,
                show_header=False,
            )
            table.add_column("key", no_wrap=True, style="cyan", min_width=17)
            table.add_column("does", ratio=1)
            for key, does in keys:
                table.add_row(key, does)
            tables.append(table)
        with VerticalScroll():
            yield Static("rewind: keys (Esc, q or ? closes)", classes="title")
            for table in tables:
                yield Static(table)

    def action_close(self) -> None:
        self.dismiss(None)
