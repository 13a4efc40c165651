"""The diff of the selected file, coloured line by line, or the sentence saying why there is none.

Only the lines on screen are rendered (Textual's line API), so a 10,000-line diff shows as fast
as a short one; ``-``/``+``/``@@``/header lines are coloured as a diff highlighter would. When
Pygments knows the file's language (by its name: ``DiffText.path``, or the diff's own header),
the code of each line is syntax highlighted as it is first rendered, and kept for the next
paint until another diff is shown: the ``+``/``-`` marker stays green/red and added/removed
lines are tinted green/red behind the token colours. Each line is highlighted on its own (see
``rewind.tui.highlight``), so a docstring or block comment over several lines is coloured only
where the lexer sees it begin. Other files keep the plain diff colours.
"""

from __future__ import annotations

import os
from typing import ClassVar, NamedTuple

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from rewind.tui.highlight import TAB_SIZE, Lexer, code_segments, lexer_for
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
# Behind highlighted code: added and removed lines tinted (dark, for the token colours to read);
# context lines on the view's own background.
CODE_BACKGROUNDS = {
    "added": Style(bgcolor="#002800"),
    "removed": Style(bgcolor="#3f0001"),
    "plain": Style(),
}


class StyledLine(NamedTuple):
    """A rendered line (or half of a side-by-side row) before it is fitted to the view."""

    strip: Strip
    padding: Style  # what fills the row after the text


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


def folded_headers(lines: list[str]) -> tuple[str, list[str]]:
    """``lines`` with git's header block (``diff --git``, ``index``, ``---``/``+++``, modes)
    folded into at most one line saying what the header says beyond the file's name, which the
    view's title already gives: ``deleted (mode 100644)``, ``new file (mode 100755)``, ``mode
    100644 -> 100755``, ``renamed from OLD``; nothing for a plain modification. Lines of the
    header that are not git's own (``Binary files ... differ``) are kept. Returns that line
    ('' for none) and the lines after it."""
    end = next((i for i, line in enumerate(lines) if line.startswith("@@")), len(lines))
    said, kept = [], []
    old_mode = ""
    for line in lines[:end]:
        if line.startswith(("diff --git ", "index ", "--- ", "+++ ", "similarity index ")):
            continue
        if line.startswith("deleted file mode "):
            said.append(f"deleted (mode {line.rsplit(' ', 1)[1]})")
        elif line.startswith("new file mode "):
            said.append(f"new file (mode {line.rsplit(' ', 1)[1]})")
        elif line.startswith("old mode "):
            old_mode = line.rsplit(" ", 1)[1]
        elif line.startswith("new mode "):
            said.append(f"mode {old_mode or '?'} -> {line.rsplit(' ', 1)[1]}")
        elif line.startswith("rename from "):
            said.append(f"renamed from {line[len('rename from ') :]}")
        elif line.startswith(("rename to ", "copy from ", "copy to ")):
            continue
        else:
            kept.append(line)
    return ", ".join(said), kept + lines[end:]


def diff_file_name(diff: DiffText) -> str:
    """The name of the diffed file: ``diff.path``, else the one in the diff's header."""
    if diff.path:
        return os.fsdecode(diff.path)
    name = ""
    for line in diff.text.split("\n"):
        if line.startswith("@@"):
            break
        if line.startswith("+++ b/") or (line.startswith("--- a/") and not name):
            name = line[6:]
        elif line.startswith("diff --git ") and " b/" in line:
            name = line.rpartition(" b/")[2]
    return name


def _fit(text: str, width: int) -> str:
    text = text.expandtabs(TAB_SIZE)
    return text[:width].ljust(width)


class DiffView(ScrollView, can_focus=True):
    DEFAULT_CSS = """
    DiffView { width: 1fr; padding: 0 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "scroll_down", "Down", show=False),
        Binding("k", "scroll_up", "Up", show=False),
    ]

    shown: DiffText | None = None

    def on_mount(self) -> None:
        self._lines: list[tuple[str, str]] = [("note", "select a turn and a file to see its diff")]
        self._rows: list[Row | str] = []
        self._lexer: Lexer | None = None
        # What render_line has styled since the diff was shown, by line (or row) index: only
        # the lines that were on screen are ever tokenized.
        self.styled_lines: dict[int, StyledLine] = {}
        self.styled_rows: dict[int, tuple[StyledLine, StyledLine]] = {}
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
            summary, body = folded_headers(diff.text.rstrip("\n").split("\n"))
            self._lines = [
                ("title", diff.title),
                *([("header", summary)] if summary else []),
                *((line_kind(line), line) for line in body),
            ]
        self._rows = side_by_side_rows(diff.text) if diff is not None and split else []
        self._lexer = lexer_for(diff_file_name(diff)) if diff is not None and diff.text else None
        self.styled_lines = {}
        self.styled_rows = {}
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
        styled = self.styled_lines.get(index)
        if styled is None:
            styled = self.styled_lines[index] = self._style_line(*self._lines[index])
        return styled.strip.crop(scroll_x, scroll_x + width).extend_cell_length(
            width, styled.padding
        )

    def _style_line(self, kind: str, text: str) -> StyledLine:
        """One line of the unified diff: its code highlighted when the language is known."""
        lexer = self._lexer
        is_code = kind in ("added", "removed") or (kind == "plain" and text.startswith(" "))
        if lexer is None or not is_code:
            return StyledLine(Strip([Segment(text.expandtabs(TAB_SIZE), STYLES[kind])]), Style())
        background = CODE_BACKGROUNDS[kind]
        marker = Segment(text[0], STYLES[kind] + background)
        code = code_segments(text[1:], lexer, background, first_column=1)
        return StyledLine(Strip([marker, *code]), background)

    def _style_half(self, code: str, kind: str) -> StyledLine:
        """One side of a side-by-side row (``kind`` "plain" when that side did not change)."""
        lexer = self._lexer
        if lexer is None:
            return StyledLine(Strip([Segment(code.expandtabs(TAB_SIZE), STYLES[kind])]), Style())
        background = CODE_BACKGROUNDS[kind]
        return StyledLine(Strip(code_segments(code, lexer, background)), background)

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
        halves = self.styled_rows.get(index)
        if halves is None:
            old_changed = bool(old_number) and (not new_number or old != new)
            new_changed = bool(new_number) and (not old_number or old != new)
            halves = self.styled_rows[index] = (
                self._style_half(old, "removed" if old_changed else "plain"),
                self._style_half(new, "added" if new_changed else "plain"),
            )
        old_half, new_half = halves
        new_width = max(0, width - half - 2 * NUMBER_WIDTH - 5)
        return Strip.join(
            [
                Strip([Segment(old_number.rjust(NUMBER_WIDTH) + " ", STYLES["number"])]),
                old_half.strip.crop(0, half).extend_cell_length(half, old_half.padding),
                Strip([Segment(" │ ", STYLES["number"])]),
                Strip([Segment(new_number.rjust(NUMBER_WIDTH) + " ", STYLES["number"])]),
                new_half.strip.crop(0, new_width).extend_cell_length(new_width, new_half.padding),
            ]
        )
