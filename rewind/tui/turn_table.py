"""The timeline: one row per entry of the session, newest last."""

from __future__ import annotations

import time

from rich.text import Text
from textual.widgets import DataTable

from rewind.tui.timeline_data import Counts, TurnRow

KIND_STYLES = {
    "restore": "bold yellow",
    "undo": "bold yellow",
    "pre-commit": "magenta",
    "quicksave": "magenta",
    "external": "blue",
}
PROMPT_WIDTH = 34


def short_time(stamp: float, now: float | None = None) -> str:
    """``14:03:07`` today, ``11-28 14:03`` on other days."""
    local = time.localtime(stamp)
    today = time.localtime(now if now is not None else time.time())
    if local[:3] == today[:3]:
        return time.strftime("%H:%M:%S", local)
    return time.strftime("%m-%d %H:%M", local)


def number_text(number: int, marked: bool) -> Text:
    """The number column: ``12``, or ``12*`` for the entry marked for a comparison."""
    if marked:
        return Text(f"{number}*", style="bold reverse")
    return Text(str(number), style="bold")


def counts_text(files: int, counts: Counts | None) -> Text:
    text = Text(f"{files} file{'' if files == 1 else 's'}")
    if counts is not None and (counts.added or counts.removed):
        text.append(" ")
        text.append(f"+{counts.added}", style="green")
        text.append(" ")
        text.append(f"-{counts.removed}", style="red")
    elif counts is not None and counts.binary:
        text.append(" bin")
    return text


def _title(row: TurnRow) -> Text:
    text = Text()
    if row.kind != "turn":
        text.append(f"[{row.kind}] ", style=KIND_STYLES.get(row.kind, "bold"))
    for tag in row.sources:  # files saved by the shell quicksave or seen by watch mode
        text.append(f"[{tag}] ", style=KIND_STYLES.get(tag, "bold"))
    room = max(PROMPT_WIDTH - len(text.plain), 8)
    text.append(row.title if len(row.title) <= room else row.title[: room - 1] + "…")
    if row.is_open:
        text.append(" (open)", style="dim")
    return text


class TurnTable(DataTable[Text | str]):
    """Rows keyed by entry id, so a refresh keeps the cursor on the same entry."""

    DEFAULT_CSS = """
    TurnTable { height: 1fr; }
    """

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.zebra_stripes = True
        # Fixed widths: measuring every cell of a 1,000-row table costs a noticeable paint.
        self.add_column("#", key="number", width=4)
        self.add_column("time", key="time", width=11)
        self.add_column("prompt", key="prompt", width=PROMPT_WIDTH)
        self.add_column("files", key="files", width=16)
        self.add_column("labels", key="labels", width=20)

    def show(
        self, rows: list[TurnRow], counts: dict[int, Counts], marked: str | None = None
    ) -> None:
        """Replaces the rows; the cursor stays on the entry it was on (else goes to the last).
        ``marked`` is the id of the entry marked for a comparison."""
        selected = self.selected_id()
        self.clear()
        for row in rows:
            self.add_row(
                number_text(row.number, row.entry_id == marked),
                short_time(row.started),
                _title(row),
                counts_text(row.files, counts.get(row.index)),
                Text(", ".join(row.labels), style="cyan"),
                key=row.entry_id,
            )
        if not rows:
            return
        keys = [row.entry_id for row in rows]
        self.move_cursor(row=keys.index(selected) if selected in keys else len(rows) - 1)

    def rows_in_view(self, rows: list[TurnRow]) -> list[TurnRow]:
        """Those of ``rows`` (as shown, in order) that the table's viewport shows."""
        top = round(self.scroll_y)
        return rows[top : top + max(self.size.height, 1)]

    def selected_id(self) -> str | None:
        if not self.row_count:
            return None
        try:
            key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key
        except Exception:  # the cursor is past the rows (they were just cleared)
            return None
        return key.value

    def show_mark(self, entry_id: str, number: int, marked: bool) -> None:
        try:
            self.update_cell(entry_id, "number", number_text(number, marked))
        except Exception:  # the row is hidden by a search
            pass

    def show_counts(self, entry_id: str, files: int, counts: Counts) -> None:
        try:
            self.update_cell(entry_id, "files", counts_text(files, counts))
        except Exception:  # the row went away (a search, a refresh) before its counts came
            pass
