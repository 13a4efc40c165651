"""What a partial rewind will write, before anything is: the diff from the file as it is now to
the file with the chosen hunks put back (``PartialPlan.resulting_diff``)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label

from rewind.actions.changes import PartialPlan
from rewind.tui.dialog import Dialog
from rewind.tui.diff_view import DiffView
from rewind.tui.timeline_data import DiffText


class ConfirmPartial(Dialog[bool]):
    """Shows what putting the chosen hunks back changes; True to go ahead, False to cancel."""

    DEFAULT_CSS = """
    ConfirmPartial > Vertical {
        width: 90%;
        max-width: 110;
        height: 90%;
    }
    ConfirmPartial .title {
        width: 1fr;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    ConfirmPartial DiffView {
        height: 1fr;
        padding: 0;
    }
    ConfirmPartial .hint {
        width: 1fr;
    }
    ConfirmPartial Horizontal {
        height: auto;
        align-horizontal: right;
    }
    ConfirmPartial Button {
        margin-left: 1;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("y", "confirm", "Put back"),
    ]

    def __init__(self, plan: PartialPlan) -> None:
        super().__init__()
        self.plan = plan

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"About to {self.plan.prompt()}", classes="title")
            yield DiffView()
            yield Label("Enter or y puts them back · Esc goes back to the hunks", classes="hint")
            with Horizontal():
                yield Button("Put back", variant="primary", id="confirm")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        view = self.query_one(DiffView)
        for planned in self.plan.files:
            name = planned.path.decode("utf-8", "backslashreplace")
            title = f"{name}: as it is now → with the chosen hunks put back"
            view.show(DiffText(title, self.plan.resulting_diff(planned), "", planned.path))
        self.query_one("#confirm", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "confirm":
            self.action_confirm()
        else:
            self.action_cancel()

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)
