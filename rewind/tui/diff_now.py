"""The files of a checkpoint (just before a turn) against what is on disk now, as one
scrollable unified diff."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Label, Static

from rewind.history.checkpoint import checkpoint_states
from rewind.history.entry import Entry
from rewind.history.insight.diffs import NO_PRE_IMAGE, UNCHANGED, FileDiff, diff_to_disk
from rewind.store.repository import Store
from rewind.tui.dialog import Dialog
from rewind.tui.file_choice import shown

LINE_STYLES = (
    (("+++", "---", "diff ", "old mode", "new mode", "index "), "bold"),
    (("+",), "green"),
    (("-",), "red"),
    (("@@",), "cyan"),
)


def checkpoint_diffs(store: Store, entries: list[Entry], entry: Entry) -> list[FileDiff]:
    """Each file touched from ``entry`` on: from its state just before then to the disk now."""
    states = checkpoint_states(entries, entries.index(entry))
    return [diff_to_disk(store, path, state) for path, state in states.items()]


def diff_text(diffs: list[FileDiff]) -> Text:
    text = Text()
    for diff in diffs:
        if diff.status == UNCHANGED:
            text.append(f"{shown(diff.path)}: as it was then\n", style="dim")
        elif diff.status == NO_PRE_IMAGE:
            text.append(f"{shown(diff.path)}: its earlier state was not recorded\n", style="dim")
        elif diff.binary:
            text.append(f"{shown(diff.path)}: binary, +{diff.added} -{diff.removed}\n")
        else:
            for line in diff.text.splitlines():
                text.append(line + "\n", style=_style(line))
    if not diffs:
        text.append("No file was changed from this turn on.")
    return text


def _style(line: str) -> str:
    for prefixes, style in LINE_STYLES:
        if line.startswith(prefixes):
            return style
    return ""


class DiffNow(Dialog[None]):
    """A read-only diff; Esc or q closes it."""

    DEFAULT_CSS = """
    DiffNow > Vertical {
        width: 95%;
        height: 90%;
    }
    DiffNow .title {
        width: 1fr;
    }
    DiffNow VerticalScroll {
        height: 1fr;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("q", "close", "Close", show=False),
    ]

    def __init__(self, title: str, diffs: list[FileDiff]) -> None:
        super().__init__()
        self.title_text = title
        self.diffs = diffs

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.title_text, classes="title")
            with VerticalScroll():
                yield Static(diff_text(self.diffs))

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()

    def action_close(self) -> None:
        self.dismiss(None)
