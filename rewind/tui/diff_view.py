"""The diff of the selected file: a syntax-highlighted unified diff, or why there is none."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from rewind.tui.side_by_side import side_by_side
from rewind.tui.timeline_data import DiffText


def diff_renderable(diff: DiffText, split: bool = False) -> RenderableType:
    title = Text(diff.title, style="bold")
    if not diff.text:
        return Group(title, Text(""), Text(diff.note, style="italic"))
    if split:
        return Group(title, side_by_side(diff.text))
    body = Syntax(diff.text.rstrip("\n"), "diff", theme="ansi_dark", word_wrap=False)
    return Group(title, body)


class DiffView(VerticalScroll, can_focus=True):
    DEFAULT_CSS = """
    DiffView { width: 1fr; padding: 0 1; }
    DiffView > Static { width: auto; }
    DiffView.-split > Static { width: 100%; }
    """

    def compose(self) -> ComposeResult:
        yield Static(Text("select a turn and a file to see its diff", style="italic"))

    def show(self, diff: DiffText | None, split: bool = False) -> None:
        """Shows ``diff`` (unified, or side by side with ``split``)."""
        self.set_class(split, "-split")
        static = self.query_one(Static)
        if diff is None:
            static.update(Text("no file selected", style="italic"))
        else:
            static.update(diff_renderable(diff, split))
        self.scroll_home(animate=False)
