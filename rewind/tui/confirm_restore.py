"""What a restore will do, file by file, before anything is written; the one place where a
person may force files that were changed outside since rewind recorded them."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Label, Static
from textual.widgets.selection_list import Selection

from rewind.actions.changes import (
    CANNOT,
    DELETE,
    RECREATE,
    RESTORE_FILE,
    PlannedFile,
    RestorePlan,
)
from rewind.tui.dialog import Dialog
from rewind.tui.file_choice import ACTION_WORDS, Checks, shown

SECTIONS = (
    (RESTORE_FILE, "Put back as they were"),
    (DELETE, "Deleted (created by these turns)"),
    (RECREATE, "Brought back (deleted since)"),
)
# The words of the one-line count under the title, section by section.
COUNTED = ((RESTORE_FILE, "put back"), (DELETE, "deleted"), (RECREATE, "brought back"))


class ConfirmRestore(Dialog[set[bytes] | None]):
    """Shows the plan for the ``chosen`` paths; returns the paths forced (changed outside since,
    checked by the person), or None to cancel."""

    DEFAULT_CSS = """
    ConfirmRestore > Vertical {
        width: 90%;
        max-width: 110;
        height: auto;
        max-height: 95%;
    }
    ConfirmRestore .title {
        width: 1fr;
    }
    ConfirmRestore VerticalScroll {
        height: auto;
        max-height: 75vh;
    }
    ConfirmRestore .heading {
        margin-top: 1;
        text-style: bold;
    }
    ConfirmRestore .conflicts {
        color: $warning;
    }
    ConfirmRestore Checks {
        height: auto;
        max-height: 8;
        border: tall $warning;
    }
    ConfirmRestore .summary {
        width: 1fr;
    }
    ConfirmRestore .hint {
        width: 1fr;
    }
    ConfirmRestore Horizontal {
        height: auto;
        align-horizontal: right;
    }
    ConfirmRestore Button {
        margin-left: 1;
    }
    ConfirmRestore .reasons {
        text-style: italic;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("f", "force_all", "Force all"),
        Binding("y", "confirm", "Restore"),
    ]

    def __init__(self, plan: RestorePlan, chosen: set[bytes], then: str = "") -> None:
        super().__init__()
        self.plan = plan
        self.chosen = chosen
        self.then = then  # what follows the restore (the conversation resumed), said in the title
        self.files = [f for f in plan.files if f.path in chosen]

    def compose(self) -> ComposeResult:
        conflicts = [f for f in self.files if f.conflict and f.action != CANNOT]
        with Vertical():
            then = f", then {self.then}" if self.then else ""
            yield Label(f"About to {self.plan.title()}{then}", classes="title")
            # Every section's count, above the lists: on a short screen a list scrolls and the
            # sections below it are out of sight.
            yield Label(self.summary(conflicts), classes="summary")
            with VerticalScroll():
                yield from self._sections(conflicts)
            yield Label(self._hint(conflicts), classes="hint")
            with Horizontal():
                yield Button("Restore", variant="primary", id="confirm")
                yield Button("Cancel", id="cancel")

    def _sections(self, conflicts: list[PlannedFile]) -> ComposeResult:
        if conflicts:
            yield Label(
                f"Changed outside since: left alone unless forced ({len(conflicts)})",
                classes="heading conflicts",
            )
            yield Checks(*(self._conflict(f) for f in conflicts))
            # Why, below the list, wrapped: beside a path in a row, a reason was cut at 80 columns.
            reasons = "\n".join(f"{shown(f.path)}: {f.reason()}" for f in conflicts)
            yield Static(Text(reasons), classes="reasons")
        quiet = [f for f in self.files if not f.conflict]
        for action, heading in SECTIONS:
            paths = [shown(f.path) for f in quiet if f.action == action]
            if paths:
                yield Label(f"{heading} ({len(paths)})", classes="heading")
                yield Static(Text("\n".join(f"  {path}" for path in paths)))
        blocked = [f for f in self.files if f.action == CANNOT]
        if blocked:
            yield Label(f"Cannot be restored ({len(blocked)})", classes="heading")
            lines = (f"  {shown(f.path)}: {f.reason()}" for f in blocked)
            yield Static(Text("\n".join(lines)))
        if not [f for f in self.files if f.action in (RESTORE_FILE, DELETE, RECREATE)]:
            yield Label("Nothing to change: every file is already as it was.", classes="heading")

    def summary(self, conflicts: list[PlannedFile]) -> str:
        quiet = [f for f in self.files if not f.conflict]
        parts = [
            f"{count} {words}"
            for action, words in COUNTED
            if (count := sum(1 for f in quiet if f.action == action))
        ]
        if conflicts:
            parts.append(f"{len(conflicts)} changed outside since")
        if blocked := sum(1 for f in self.files if f.action == CANNOT):
            parts.append(f"{blocked} cannot be restored")
        return " · ".join(parts) if parts else "nothing to change"

    def _conflict(self, planned: PlannedFile) -> Selection[bytes]:
        line = Text(f"{ACTION_WORDS.get(planned.action, planned.action):<10} ", style="bold yellow")
        line.append(shown(planned.path), style="bold yellow")
        return Selection(line, planned.path, initial_state=False)

    def _hint(self, conflicts: list[PlannedFile]) -> str:
        keys = "Enter or y restores · Esc cancels"
        if conflicts:
            return "Space forces one · f forces all · " + keys
        return keys

    def on_mount(self) -> None:
        self.query_one("#confirm", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "confirm":
            self.action_confirm()
        else:
            self.action_cancel()

    def forced(self) -> set[bytes]:
        checks = self.query(Checks)
        return set(checks.first().selected) if checks else set()

    def action_confirm(self) -> None:
        self.dismiss(self.forced())

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_force_all(self) -> None:
        for checks in self.query(Checks):
            if len(checks.selected) == checks.option_count:
                checks.deselect_all()
            else:
                checks.select_all()
