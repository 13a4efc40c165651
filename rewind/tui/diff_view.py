"""The diff of the selected file, coloured line by line, or the sentence saying why there is none.

Only the lines on screen are rendered (Textual's line API), so a 10,000-line diff shows as fast
as a short one; ``-``/``+``/``@@``/header lines are coloured as a diff highlighter would.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from rewind.tui.side_by_side import Row, side_by_side_rows
from rewind.tui.timeline_data import DiffText

HEADERS = ("diff ", "index ", "--- ", "+++ ", "old mode", "new mode", "new file", "deleted file")
STYLES = {
    "title": Style(bold=True),
    "note": Style(italic=True),
    "header": Style(bold=True),
    "hunk": Style(color="cyan"),
    "added": Style(color="green"),
    "removed": Style(color="red"),
    "number": Style(dim=True),
    "plain": Style(),
}
NUMBER_WIDTH = 5


def line_kind(line: str) -> str:
    if line.startswith(HEADERS):
        return "header"
    if line.startswith("@@"):
        return "hunk"
    if line.startswith("+"):
        return "added"
    if line.startswith("-"):
        return "removed"
    return "plain"


def _fit(text: str, width: int) -> str:
    text = text.expandtabs(4)
    return text[:width].ljust(width)


class DiffView(ScrollView, can_focus=True):
    DEFAULT_CSS = """
    DiffView { width: 1fr; padding: 0 1; }
    """

    shown: DiffText | None = None

    def on_mount(self) -> None:
        self._lines: list[tuple[str, str]] = [("note", "select a turn and a file to see its diff")]
        self._rows: list[Row | str] = []
        self._update_size()

    def show(self, diff: DiffText | None, split: bool = False) -> None:
        """Shows ``diff`` (unified, or side by side with ``split``)."""
        if diff == self.shown and split == self.has_class("-split"):
            return  # a live refresh that changed nothing here keeps the scroll position
        same_file = diff is not None and self.shown is not None and diff.title == self.shown.title
        self.shown = diff
        self.set_class(split, "-split")
        if diff is None:
            self._lines = [("note", "no file selected")]
        elif not diff.text:
            self._lines = [("title", diff.title), ("plain", ""), ("note", diff.note)]
        else:
            body = diff.text.rstrip("\n").split("\n")
            self._lines = [("title", diff.title), *((line_kind(line), line) for line in body)]
        self._rows = side_by_side_rows(diff.text) if diff is not None and split else []
        self._update_size()
        if not same_file:
            self.scroll_home(animate=False)
        self.refresh()

    def _update_size(self) -> None:
        if self._rows:
            self.virtual_size = Size(0, 1 + len(self._rows))  # fitted to the width, no h-scroll
        else:
            width = max((len(text) for _, text in self._lines), default=0)
            self.virtual_size = Size(width, len(self._lines))

    def text_lines(self) -> list[str]:
        """What the view holds, as plain lines (for tests and people reading the code)."""
        return [text for _, text in self._lines]

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.scrollable_content_region.width
        if self._rows:
            return self._split_line(index, width)
        if index >= len(self._lines):
            return Strip.blank(width, STYLES["plain"])
        kind, text = self._lines[index]
        strip = Strip([Segment(text.expandtabs(4), STYLES[kind])])
        return strip.crop(scroll_x, scroll_x + width).extend_cell_length(width, STYLES["plain"])

    def _split_line(self, index: int, width: int) -> Strip:
        if index == 0:
            kind, text = self._lines[0]
            return Strip([Segment(_fit(text, width), STYLES[kind])])
        if index - 1 >= len(self._rows):
            return Strip.blank(width, STYLES["plain"])
        row = self._rows[index - 1]
        half = max(1, (width - 2 * NUMBER_WIDTH - 3) // 2)
        if isinstance(row, str):
            return Strip([Segment(_fit(row, width), STYLES["hunk"])])
        old_number, old, new_number, new = (str(cell) for cell in row)
        old_style = STYLES["removed"] if old and old != new else STYLES["plain"]
        new_style = STYLES["added"] if new and old != new else STYLES["plain"]
        if not old_number:
            old_style = STYLES["plain"]
        return Strip(
            [
                Segment(old_number.rjust(NUMBER_WIDTH) + " ", STYLES["number"]),
                Segment(_fit(old, half), old_style),
                Segment(" │ ", STYLES["number"]),
                Segment(new_number.rjust(NUMBER_WIDTH) + " ", STYLES["number"]),
                Segment(_fit(new, width - half - 2 * NUMBER_WIDTH - 5), new_style),
            ]
        )
