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


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,question_mark", "close", "Close")]

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 90%; max-width: 90; height: 90%; border: round $accent; background: $surface;
    }
    """

    def __init__(self, rows: list[tuple[str, str, str]]) -> None:
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        table = Table(title="rewind: keys", expand=True)
        # The first two columns as narrow as their words; what a key does takes the rest.
        table.add_column("where", no_wrap=True)
        table.add_column("key", no_wrap=True)
        table.add_column("does", ratio=1)
        for where, key, does in self.rows:
            table.add_row(where, key, does)
        for key, does in EXTRA_KEYS:
            table.add_row("anywhere", key, does)
        with VerticalScroll():
            yield Static(table)

    def action_close(self) -> None:
        self.dismiss(None)
