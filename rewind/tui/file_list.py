"""The files of the selected entry: what happened to each, and +/- lines."""

from __future__ import annotations

from rich.text import Text

from rewind.history.insight.diffs import ADDED, DELETED, MODE, MODIFIED, NO_PRE_IMAGE, PENDING
from rewind.tui.keys import Table
from rewind.tui.timeline_data import RENAMED, SOURCE_TAGS, FileRow
from rewind.tui.turn_table import KIND_STYLES, selected_key

STATUS = {
    ADDED: ("A", "green"),
    DELETED: ("D", "red"),
    MODIFIED: ("M", "yellow"),
    MODE: ("T", "yellow"),
    PENDING: ("~", "dim"),
    NO_PRE_IMAGE: ("?", "magenta"),
    RENAMED: ("R", "cyan"),
}


def _counts(row: FileRow) -> Text:
    if row.counts is None:
        return Text("")
    if row.counts.binary:
        return Text("binary", style="dim")
    text = Text(f"+{row.counts.added}", style="green")
    text.append(f" -{row.counts.removed}", style="red")
    return text


def path_text(row: FileRow, width: int | None = None) -> Text:
    """The path and its source's tag, in ``width`` columns at most. A path too long to go beside
    the whole tag gets the tag's first letter (``[q]`` for ``[quicksave]``); one still too long
    loses its start (``…/src/calc.py``), never its name, the tag or the +/- column beside."""
    tag = SOURCE_TAGS.get(row.source)
    shown = row.shown
    suffix = f" [{tag}]" if tag else ""  # saved by the shell quicksave, or seen by watch mode
    if tag and width is not None and len(shown) + len(suffix) > width:
        suffix = f" [{tag[0]}]"
    if width is not None and len(shown) + len(suffix) > width:
        room = max(width - len(suffix) - 1, 1)
        shown = "…" + shown[-room:]
    text = Text(shown)
    if tag:
        text.append(suffix, style=KIND_STYLES.get(tag, "bold"))
    return text


# The columns' padding (one on each side of each of the three) and the scroll bar.
CHROME = 3 * 2 + 1


class FileList(Table):
    """Rows keyed by the path (as text); a refresh keeps the selected file."""

    DEFAULT_CSS = """
    FileList { width: 36; }
    """

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.add_column(" ", key="status")
        self.add_column("file", key="path")
        self.add_column("+/-", key="counts")
        self.paths: dict[str, bytes] = {}

    def show(self, rows: list[FileRow]) -> None:
        selected = self.selected_path()
        self.clear()
        self.paths = {}
        counts = [_counts(row) for row in rows]
        room = (self.size.width or 36) - CHROME - 1 - max((len(c) for c in counts), default=0)
        for row, counted in zip(rows, counts, strict=True):
            letter, style = STATUS.get(row.status, (" ", ""))
            key = row.path.decode("utf-8", "surrogateescape")
            self.paths[key] = row.path
            self.add_row(Text(letter, style=style), path_text(row, max(room, 8)), counted, key=key)
        keys = list(self.paths.values())
        if keys:
            self.move_cursor(row=keys.index(selected) if selected in keys else 0)

    def selected_path(self) -> bytes | None:
        key = selected_key(self)
        return None if key is None else self.paths.get(key)
