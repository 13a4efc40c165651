"""The name of a file whose history to open (``h`` on the timeline without a selected file,
``o`` in a file's history), with completion from the files the session's entries touched (any
path of the project may be typed)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.suggester import SuggestFromList
from textual.widgets import Input, Label

from rewind.errors import UserError
from rewind.store.repository import Store
from rewind.tui.dialog import Dialog


class PathPrompt(Dialog[str | None]):
    """Returns the path typed (relative to the project's root), or None on Esc."""

    DEFAULT_CSS = """
    PathPrompt > Vertical {
        width: 80%;
        max-width: 90;
        height: auto;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, known: list[str], value: str = "") -> None:
        super().__init__()
        self.known = known
        self.value = value

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("History of which file? (a path from the project's root)", classes="title")
            yield Input(
                self.value,
                placeholder="src/app.py",
                suggester=SuggestFromList(self.known, case_sensitive=False),
                id="path",
            )
            yield Label(
                "Enter opens its history · → takes the suggestion · Esc cancels", classes="hint"
            )

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


def ask_path(
    screen: Screen[Any],
    store: Store,
    known: list[str],
    value: str,
    then: Callable[[bytes], None],
) -> None:
    """Asks for a path, then calls ``then`` with its stored name (a mistake is notified)."""

    def chosen(text: str | None) -> None:
        if not text:
            return
        try:
            path = store.root.stored_name(text, cwd=store.root.path)
        except UserError as error:
            screen.notify(str(error), severity="warning")
            return
        then(path)

    screen.app.push_screen(PathPrompt(known, value), chosen)
