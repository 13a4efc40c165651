"""The timeline: one row per entry of the session, newest last."""

from __future__ import annotations

import time

from rich.text import Text
from textual.widgets import DataTable

from rewind.tui.keys import Table
from rewind.tui.timeline_data import Counts, TurnRow

KIND_STYLES = {
    "restore": "bold yellow",
    "undo": "bold yellow",
    "redo": "bold yellow",
    "pre-commit": "magenta",
    "quicksave": "magenta",
    "external": "blue",
}
NUMBER_WIDTH = 6  # entry numbers are never abbreviated: 99999* fits
TIME_WIDTH = 11
COMPACT_TIME_WIDTH = 5
FILES_WIDTH = 22  # the widest counts_text: "1.2k files +999k -999k"
COMPACT_FILES_WIDTH = 16  # "4 files +11 -11", "1k files +0 -1k": most, whole; others cut
LABELS_WIDTH = 20
MIN_PROMPT_WIDTH = 20
# Below this many columns the timeline is compact: times as 14:03 (or 11-28), narrower counts.
COMPACT_BELOW = 100
# Each column takes its width plus one cell of padding on each side; the scrollbar two more.
_PADDING = 2
_SCROLLBAR = 2


class Widths:
    """The width of each column of the timeline for a table ``width`` cells wide, whose
    newest entry is numbered ``newest``: the prompt takes what the others leave. The labels
    column shows only when an entry has a label, and not when compact: the labels then lead the
    prompt, as the kind of an entry does."""

    def __init__(self, width: int, labels: int, newest: int = 99999) -> None:
        """``labels``: the length of the longest labels text of the rows (0: none has one)."""
        self.compact = width < COMPACT_BELOW
        # Numbers are never abbreviated: as wide as the newest, and the mark of a comparison.
        self.number = min(NUMBER_WIDTH, len(str(newest)) + 1)
        self.time = COMPACT_TIME_WIDTH if self.compact else TIME_WIDTH
        self.files = COMPACT_FILES_WIDTH if self.compact else FILES_WIDTH
        # As wide as the longest labels (at most LABELS_WIDTH): the prompt takes the rest.
        self.labels = min(LABELS_WIDTH, max(labels, len("labels"))) if labels else 0
        if self.compact:
            self.labels = 0
        fixed = self.number + self.time + self.files + self.labels
        columns = 4 + (1 if self.labels else 0)
        self.prompt = max(MIN_PROMPT_WIDTH, width - fixed - columns * _PADDING - _SCROLLBAR)

    def key(self) -> tuple[int, ...]:
        return (self.number, self.time, self.prompt, self.files, self.labels)


def short_time(stamp: float, now: float | None = None, compact: bool = False) -> str:
    """``14:03:07`` today, ``11-28 14:03`` on other days; ``compact``: ``14:03`` today,
    ``11-28`` on other days."""
    local = time.localtime(stamp)
    today = time.localtime(now if now is not None else time.time())
    if local[:3] == today[:3]:
        return time.strftime("%H:%M" if compact else "%H:%M:%S", local)
    return time.strftime("%m-%d" if compact else "%m-%d %H:%M", local)


def number_text(number: int, marked: bool) -> Text:
    """The number column: ``12``, or ``12*`` for the entry marked for a comparison."""
    if marked:
        return Text(f"{number}*", style="bold reverse")
    return Text(str(number), style="bold")


def short_number(number: int) -> str:
    """At most four characters: ``999``, ``1k``, ``1.2k``, ``12k``, ``999k``, ``1.2M``, ``12M``.

    Rounded down, so an abbreviation never claims more than there is."""
    for limit, suffix in ((10**9, "G"), (10**6, "M"), (10**3, "k")):
        if number >= limit:
            whole, rest = divmod(number, limit)
            if whole < 10 and rest * 10 // limit:
                return f"{whole}.{rest * 10 // limit}{suffix}"
            return f"{whole}{suffix}" if whole < 1000 else f"{number // limit}{suffix}"
    return str(number)


def fitted(text: Text, width: int) -> Text:
    """``text`` cut to ``width`` cells with an ellipsis when it is longer (never silently)."""
    if text.cell_len > width:
        text = text.copy()
        text.truncate(width, overflow="ellipsis")
    return text


def counts_text(files: int, counts: Counts | None) -> Text:
    """``3 files +12 -4``; large numbers abbreviated (``1k files +0 -1k``) so they fit whole."""
    text = Text(f"{short_number(files)} file{'' if files == 1 else 's'}")
    if counts is not None and (counts.added or counts.removed):
        text.append(" ")
        text.append(f"+{short_number(counts.added)}", style="green")
        text.append(" ")
        text.append(f"-{short_number(counts.removed)}", style="red")
    elif counts is not None and counts.binary:
        text.append(" bin")
    return text


def _title(row: TurnRow, width: int, labels: bool = False) -> Text:
    """The prompt cell: the entry's kind and tags, ``labels`` (when they have no column of
    their own), then the prompt, cut to ``width``."""
    text = Text()
    if labels and row.labels:
        text.append(f"[{', '.join(row.labels)}] ", style="cyan")
    if row.kind != "turn":
        text.append(f"[{row.kind}] ", style=KIND_STYLES.get(row.kind, "bold"))
    for tag in row.sources:  # files saved by the shell quicksave or seen by watch mode
        text.append(f"[{tag}] ", style=KIND_STYLES.get(tag, "bold"))
    suffix = Text(" (open)", style="dim") if row.is_open else Text()
    room = max(width - text.cell_len - suffix.cell_len, 8)
    text.append_text(fitted(Text(row.title), room))
    text.append_text(suffix)
    return fitted(text, width)


def labels_text(labels: tuple[str, ...], width: int = LABELS_WIDTH) -> Text:
    return fitted(Text(", ".join(labels), style="cyan"), width)


def selected_key(table: DataTable[Text | str]) -> str | None:
    """The key of the row under a table's cursor, or None when it has no rows (or the cursor is
    past them: they were just cleared)."""
    if not table.row_count:
        return None
    try:
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
    except Exception:  # the cursor is past the rows
        return None
    return None if key.value is None else str(key.value)


class TurnTable(Table):
    """Rows keyed by entry id, so a refresh keeps the cursor on the same entry."""

    DEFAULT_CSS = """
    TurnTable { height: 1fr; }
    """

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.zebra_stripes = True
        self.widths: Widths | None = None
        self.shown: tuple[list[TurnRow], dict[int, Counts], str | None] = ([], {}, None)

    def on_resize(self) -> None:
        """The prompt takes the room the terminal gives: the rows are laid out again."""
        rows, counts, marked = self.shown
        if self.widths is not None and self._widths(rows).key() != self.widths.key():
            self.show(rows, counts, marked)

    def _widths(self, rows: list[TurnRow]) -> Widths:
        labels = max((len(", ".join(row.labels)) for row in rows), default=0)
        return Widths(self.size.width or 80, labels, max((row.number for row in rows), default=1))

    def _columns(self, rows: list[TurnRow]) -> Widths:
        """The columns for this width (made again when it changed). Fixed widths: measuring
        every cell of a 1,000-row table costs a noticeable paint."""
        widths = self._widths(rows)
        if self.widths is None or widths.key() != self.widths.key():
            self.clear(columns=True)
            self.add_column("#", key="number", width=widths.number)
            self.add_column("time", key="time", width=widths.time)
            self.add_column("prompt", key="prompt", width=widths.prompt)
            self.add_column("files", key="files", width=widths.files)
            if widths.labels:
                self.add_column("labels", key="labels", width=widths.labels)
            self.widths = widths
        return widths

    def show(
        self,
        rows: list[TurnRow],
        counts: dict[int, Counts],
        marked: str | None = None,
        newest: bool = False,
    ) -> None:
        """Replaces the rows; the cursor stays on the entry it was on (else goes to the last),
        and follows the newest entry when it was on the newest or ``newest`` says so (new
        entries scroll into view). ``marked`` is the id of the entry marked for a comparison."""
        selected = self.selected_id()
        previous = self.shown[0]
        if newest or (previous and selected == previous[-1].entry_id):
            selected = None  # on the newest: stays on the newest
        self.shown = (rows, counts, marked)
        self.clear()
        widths = self._columns(rows)
        for row in rows:
            cells: list[Text | str] = [
                number_text(row.number, row.entry_id == marked),
                short_time(row.started, compact=widths.compact),
                _title(row, widths.prompt, labels=not widths.labels),
                fitted(counts_text(row.files, counts.get(row.index)), widths.files),
            ]
            if widths.labels:
                cells.append(labels_text(row.labels, widths.labels))
            self.add_row(*cells, key=row.entry_id)
        if not rows:
            return
        keys = [row.entry_id for row in rows]
        self.move_cursor(row=keys.index(selected) if selected in keys else len(rows) - 1)

    def rows_in_view(self, rows: list[TurnRow]) -> list[TurnRow]:
        """Those of ``rows`` (as shown, in order) that the table's viewport shows."""
        top = round(self.scroll_y)
        return rows[top : top + max(self.size.height, 1)]

    def selected_id(self) -> str | None:
        return selected_key(self)

    def show_mark(self, entry_id: str, number: int, marked: bool) -> None:
        try:
            self.update_cell(entry_id, "number", number_text(number, marked))
        except Exception:  # the row is hidden by a search
            pass

    def show_counts(self, entry_id: str, files: int, counts: Counts) -> None:
        width = self.widths.files if self.widths is not None else FILES_WIDTH
        try:
            self.update_cell(entry_id, "files", fitted(counts_text(files, counts), width))
        except Exception:  # the row went away (a search, a refresh) before its counts came
            pass
