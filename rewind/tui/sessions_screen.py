"""The project's sessions, to jump to one: agent, start, last activity, entries, files."""

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
from rewind.tui.timeline_data import SessionDetails, session_details, session_rows
from rewind.tui.turn_table import fitted, short_number, short_time

# (name, width): with the cell padding, 94 columns, inside the dialog's border at 100 wide.
COLUMNS = (
    ("session", 38),  # "* " and a 36-character uuid
    ("agent", 12),
    ("started", 11),
    ("last active", 11),
    ("entries", 7),
    ("files", 5),
)


class SessionsScreen(ModalScreen[str | None]):
    """Answers with the chosen session's id, or None."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss_none", "Close")]

    DEFAULT_CSS = """
    SessionsScreen { align: center middle; }
    SessionsScreen > Vertical {
        width: 100%; max-width: 120; height: 80%; border: round $accent; background: $surface;
    }
    """

    def __init__(self, store: Store, current: str | None = None) -> None:
        super().__init__()
        self.store = store
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("sessions (enter opens one, esc closes)", style="bold"))
            yield DataTable(id="sessions", cursor_type="row")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        # Fixed widths that fit 100 columns; a longer session id or agent ends in an ellipsis.
        for name, width in COLUMNS:
            table.add_column(name, key=name, width=width)
        rows = session_rows(self.store)
        for row in rows:
            marker = "* " if row.is_recent else "  "
            table.add_row(
                fitted(Text(marker + row.session_id), COLUMNS[0][1]),
                fitted(Text(row.agent), COLUMNS[1][1]),
                "…",
                short_time(row.last_active),
                short_number(row.entries),
                "…",
                key=row.session_id,
            )
        ids = [row.session_id for row in rows]
        if self.current in ids:
            table.move_cursor(row=ids.index(self.current))
        table.focus()
        self._fill_details(ids)

    @work(thread=True, exclusive=True)
    def _fill_details(self, ids: list[str]) -> None:
        for session_id in ids:
            details = session_details(self.store, session_id)
            self.app.call_from_thread(self._show_details, session_id, details)

    def _show_details(self, session_id: str, details: SessionDetails) -> None:
        table = self.query_one(DataTable)
        table.update_cell(session_id, "started", short_time(details.started))
        table.update_cell(session_id, "files", short_number(details.files))

    @on(DataTable.RowSelected)
    def _chosen(self, event: DataTable.RowSelected) -> None:
        self.dismiss(event.row_key.value)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
