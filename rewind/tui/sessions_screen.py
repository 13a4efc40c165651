"""The project's sessions, to jump to one: agent, start, last activity, entries, files; then,
a group per remote, the sessions fetched from it (``remote · machine/session``), read-only."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from rewind.store.repository import Store
from rewind.tui.keys import Table
from rewind.tui.origin import Fetched, Opened
from rewind.tui.timeline_data import (
    SessionDetails,
    SessionRow,
    fetched_rows,
    session_details,
    session_rows,
)
from rewind.tui.turn_table import COMPACT_BELOW, fitted, short_number, short_time

# (name, width): with the cell padding, 94 columns, inside the dialog's border at 100 wide.
COLUMNS = (
    ("session", 38),  # "* " and a 36-character uuid
    ("agent", 12),
    ("started", 11),
    ("last active", 11),
    ("entries", 7),
    ("files", 5),
)
# Below 100 columns: times as 14:03 (or 11-28), a long session id cut (its start tells it).
COMPACT_COLUMNS = (
    ("session", 24),
    ("agent", 11),
    ("started", 7),
    ("last active", 11),
    ("entries", 7),
    ("files", 5),
)


class SessionsScreen(ModalScreen[Opened | None]):
    """Answers with the chosen session (local or fetched), or None."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss_none", "Close")]

    DEFAULT_CSS = """
    SessionsScreen { align: center middle; }
    SessionsScreen > Vertical {
        width: 100%; max-width: 120; height: 80%; border: round $accent; background: $surface;
    }
    """

    def __init__(self, store: Store, current: Opened | None = None) -> None:
        super().__init__()
        self.store = store  # the project's own store: its sessions, and its remotes' mirrors
        self.current = current
        self.choices: dict[str, Opened] = {}  # row key: the session it opens

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("sessions (enter opens one, esc closes)", style="bold"))
            yield Table(id="sessions", cursor_type="row")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        # Fixed widths that fit the terminal (compact below 100 columns); a longer session id
        # or agent ends in an ellipsis.
        self.compact = self.app.size.width < COMPACT_BELOW
        self.columns = COMPACT_COLUMNS if self.compact else COLUMNS
        for name, width in self.columns:
            table.add_column(name, key=name, width=width)
        for row in session_rows(self.store):
            marker = "* " if row.is_recent else "  "
            self._add(table, Opened(self.store, row.session_id), marker + row.session_id, row)
        remote = None
        for fetched in fetched_rows(self.store):
            if fetched.remote != remote:  # a heading row per remote, which opens nothing
                remote = fetched.remote
                heading = Text(f"fetched from {remote} (read-only)", style="bold")
                columns = len(self.columns) - 1
                table.add_row(heading, *([""] * columns), key=f"remote\0{remote}")
            origin = Fetched(fetched.remote, fetched.machine)
            opened = Opened(fetched.view, fetched.row.session_id, origin)
            shown = f"  {fetched.remote} · {fetched.machine}/{fetched.row.session_id}"
            self._add(table, opened, shown, fetched.row)
        keys = list(self.choices)
        if self.current is not None and _key(self.current) in self.choices:
            table.move_cursor(row=table.get_row_index(_key(self.current)))
        table.focus()
        self._fill_details(keys)

    def _add(self, table: DataTable[object], opened: Opened, shown: str, row: SessionRow) -> None:
        key = _key(opened)
        self.choices[key] = opened
        table.add_row(
            fitted(Text(shown), self.columns[0][1]),
            fitted(Text(row.agent), self.columns[1][1]),
            "…",
            short_time(row.last_active, compact=self.compact),
            short_number(row.entries),
            "…",
            key=key,
        )

    @work(thread=True, exclusive=True)
    def _fill_details(self, keys: list[str]) -> None:
        for key in keys:
            opened = self.choices[key]
            details = session_details(opened.store, opened.session_id)
            self.app.call_from_thread(self._show_details, key, details)

    def _show_details(self, key: str, details: SessionDetails) -> None:
        table = self.query_one(DataTable)
        table.update_cell(key, "started", short_time(details.started, compact=self.compact))
        table.update_cell(key, "files", short_number(details.files))

    @on(DataTable.RowSelected)
    def _chosen(self, event: DataTable.RowSelected) -> None:
        chosen = self.choices.get(str(event.row_key.value))
        if chosen is not None:  # not a remote's heading
            self.dismiss(chosen)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


def _key(opened: Opened) -> str:
    """A row's key: the session's id, or ``remote NUL machine/session`` for a fetched one."""
    if opened.fetched is None:
        return opened.session_id
    return f"{opened.fetched.remote}\0{opened.fetched.machine}/{opened.session_id}"
