"""Choosing which of a restore plan's files to put back: check boxes, all preselected."""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.strip import Strip
from textual.widgets import Button, Label
from textual.widgets._toggle_button import ToggleButton
from textual.widgets.option_list import OptionDoesNotExist
from textual.widgets.selection_list import Selection

from rewind.actions.changes import CANNOT, UNCHANGED, PlannedFile, RestorePlan
from rewind.tui.dialog import Dialog
from rewind.tui.keys import Selections

ACTION_WORDS = {
    "restore": "put back",
    "delete": "delete",
    "recreate": "bring back",
    CANNOT: "cannot",
}


CHECKED = "[x]"
UNCHECKED = "[ ]"


class Checks(Selections):
    """A check-box list in which Space toggles and Enter confirms the screen's choice.

    Each box reads ``[x]`` or ``[ ]``, so its state shows without colour too."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "select", "Toggle", show=False),
        Binding("enter", "screen.confirm", "Confirm", show=False),
    ]

    def render_line(self, y: int) -> Strip:
        line = super().render_line(y)
        try:
            selection = self.get_option_at_index(round(self.scroll_offset.y) + y)
        except OptionDoesNotExist:
            return line
        segments = list(line)
        if len(segments) < 3 or segments[1].text != ToggleButton.BUTTON_INNER:
            return line
        box = CHECKED if selection.value in self.selected else UNCHECKED
        boxed = [Segment(char, segments[1].style) for char in box]  # the button's own colours
        return Strip(boxed + segments[3:], line.cell_length)


def shown(path: bytes) -> str:
    """A stored path as people read it (the same form as ``Root.display``)."""
    return path.decode("utf-8", "backslashreplace")


def file_line(planned: PlannedFile) -> Text:
    """One file of a plan: what will happen to it, its name, and why it is special."""
    word = ACTION_WORDS.get(planned.action, planned.action)
    line = Text(f"{word:<10} ")
    line.append(shown(planned.path))
    reason = planned.reason()
    if reason:
        line.append(f"  ({reason})", style="italic")
    return line


class FileChoice(Dialog[set[bytes] | None]):
    """The plan's files as check boxes; returns the chosen paths, or None to cancel.

    Files changed outside since rewind recorded them start unchecked (and highlighted); files
    that cannot be restored are shown but cannot be chosen.
    """

    DEFAULT_CSS = """
    FileChoice > Vertical {
        width: 90%;
        max-width: 110;
        height: auto;
        max-height: 90%;
    }
    FileChoice .title {
        width: 1fr;
        margin-bottom: 1;
    }
    FileChoice Checks {
        height: auto;
        max-height: 55vh;
    }
    FileChoice .hint {
        width: 1fr;
        margin-top: 1;
    }
    FileChoice Horizontal {
        height: auto;
        align-horizontal: right;
    }
    FileChoice Button {
        margin-left: 1;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("a", "toggle_all", "All/none"),
    ]

    def __init__(self, plan: RestorePlan) -> None:
        super().__init__()
        self.plan = plan
        self.files = [f for f in plan.files if f.action != UNCHANGED]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(
                f"Choose the files to restore to before turn {self.plan.subject.number}",
                classes="title",
            )
            yield Checks(*(self._selection(f) for f in self.files))
            yield Label(
                "Space toggles · a all/none · Enter continues · Esc cancels", classes="hint"
            )
            with Horizontal():
                yield Button("Continue", variant="primary", id="confirm")
                yield Button("Cancel", id="cancel")

    def _selection(self, planned: PlannedFile) -> Selection[bytes]:
        line = file_line(planned)
        if planned.conflict and planned.action != CANNOT:
            line.stylize("bold yellow")
        return Selection(
            line,
            planned.path,
            initial_state=not planned.conflict and planned.action != CANNOT,
            disabled=planned.action == CANNOT,
        )

    def on_mount(self) -> None:
        self.query_one(Checks).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "confirm":
            self.action_confirm()
        else:
            self.action_cancel()

    def action_confirm(self) -> None:
        self.dismiss(set(self.query_one(Checks).selected))

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_toggle_all(self) -> None:
        checks = self.query_one(Checks)
        if checks.selected:
            checks.deselect_all()
            return
        for index in range(checks.option_count):
            option = checks.get_option_at_index(index)
            if not option.disabled:
                checks.select(option)
