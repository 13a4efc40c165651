"""``g`` on the timeline: the prompts behind the commits the selected entry made (its
``commit:ID`` labels, rewind.hooks.git_postcommit), from their authorship notes, as ``rewind log
--commit`` lists them."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Label, Static

from rewind.tui.dialog import Dialog


class CommitDialog(Dialog[None]):
    DEFAULT_CSS = """
    CommitDialog > Vertical {
        width: 90%;
        max-width: 110;
        height: auto;
        max-height: 90%;
    }
    CommitDialog VerticalScroll {
        height: auto;
        max-height: 70vh;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,enter,g", "close", "Close")]

    def __init__(self, title: str, lines: list[str]) -> None:
        super().__init__()
        self.title_text = title
        self.lines = lines

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.title_text, classes="title")
            with VerticalScroll():
                yield Static(Text("\n".join(self.lines)), id="prompts")
            yield Label("Esc or Enter closes", classes="hint")

    def action_close(self) -> None:
        self.dismiss(None)
