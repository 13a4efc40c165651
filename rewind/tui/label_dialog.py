"""Naming an entry from the timeline: ``l`` opens this dialog on the selected entry.

A name the entry does not have yet is added (as ``rewind label TURN NAME`` would); a name it
already has is removed (``rewind label --remove``). The engine (``rewind.history.insight.labels``)
does the work and its refusals (an open turn, a name taken by another entry) are shown in the
dialog.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, Label

from rewind.errors import UserError
from rewind.history.entry import Entry
from rewind.history.insight.labels import add_label, remove_label
from rewind.store.repository import Store
from rewind.tui.dialog import Dialog


class LabelDialog(Dialog[str | None]):
    """Dismissed with a sentence saying what changed, or None when nothing did."""

    DEFAULT_CSS = """
    LabelDialog > Vertical {
        width: 64; height: auto; padding: 1 2;
    }
    LabelDialog #problem { color: $error; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, store: Store, session_id: str, entry: Entry, labels: list[str]) -> None:
        super().__init__()
        self.store = store
        self.session_id = session_id
        self.entry = entry
        self.labels = labels  # every label the entry has now (its own and attached ones)

    def compose(self) -> ComposeResult:
        entry = self.entry
        has = ", ".join(self.labels) if self.labels else "none"
        with Vertical():
            yield Label(f"Label {entry.kind} {entry.number}  (labels: {has})", id="heading")
            yield Label("A new name is added; a name it has already is removed.", id="hint")
            yield Input(placeholder="label name, e.g. works-again", id="name")
            yield Label("", id="problem")
            yield Label("Enter: apply   Esc: cancel", classes="dim")

    def on_mount(self) -> None:
        self.query_one("#name", Input).focus()

    @on(Input.Submitted, "#name")
    def _apply(self, event: Input.Submitted) -> None:
        name = event.value.strip()
        if not name:
            self.dismiss(None)
            return
        described = f"{self.entry.kind} {self.entry.number}"
        try:
            if name in self.labels:
                remove_label(self.store, self.session_id, self.entry, name)
                self.dismiss(f"label {name!r} removed from {described}")
            else:
                add_label(self.store, self.session_id, self.entry, name)
                self.dismiss(f"{described} labelled {name!r}")
        except UserError as error:
            self.query_one("#problem", Label).update(str(error))

    def action_cancel(self) -> None:
        self.dismiss(None)
