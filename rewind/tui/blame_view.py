"""Blame: the file as it is now, each line with the prompt that last changed it.

The blame is :func:`rewind.history.insight.blame.blame_file`'s (``rewind blame P``), computed in a
worker. Each line gets a gutter: on the first line of a run (consecutive lines from the same
version) the entry's number, its agent, a short time and the prompt's first line; on the lines
after it a dim continuation mark. Lines that predate the record say ``before rewind``, lines
changed where rewind did not see it ``outside``. The status line under the file says, for the
line under the cursor, the whole prompt and the version it comes from; Enter opens that version
in the file's history.

Only the lines on screen are rendered (Textual's line API, as the diff view), so a 5,000-line
file scrolls as fast as a short one; a line's code is highlighted when it is first drawn.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import ClassVar, NamedTuple

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Footer, Static
from textual.worker import Worker, WorkerState

from rewind.errors import UserError
from rewind.history.attribution.note_blame import NotedLine
from rewind.history.entry import TURN, first_line
from rewind.history.insight.blame import BEFORE_RECORD, OUTSIDE_RECORD, Blame, Run, blame_file
from rewind.history.insight.file_history import OUTSIDE
from rewind.store.repository import Store
from rewind.tui.highlight import TAB_SIZE, Lexer, code_segments, lexer_for
from rewind.tui.turn_table import short_time

NUMBER_WIDTH = 5  # the entry's number
AGENT_WIDTH = 8  # the least; as wide as the longest agent's name, up to AGENT_MAX
AGENT_MAX = 14
TIME_WIDTH = 11
NARROW_PROMPT = 14  # below 100 columns
WIDE_PROMPT = 26  # the least from 100 columns; the room the code leaves, up to PROMPT_MAX
PROMPT_MAX = 72
LINE_NUMBER_WIDTH = 5
CONTINUATION = "┆"
STYLES = {
    "number": Style(color="cyan", bold=True),
    "agent": Style(dim=True),
    "time": Style(dim=True),
    "prompt": Style(),
    "continued": Style(dim=True),
    "before": Style(color="magenta", italic=True),
    "outside": Style(color="yellow", italic=True),
    "line": Style(dim=True),
    "bar": Style(dim=True),
    "cursor": Style(bgcolor="#264f78"),
}
PLAIN = Style()
STATUS_WORDS = {BEFORE_RECORD: "before rewind", OUTSIDE_RECORD: "outside"}


def _cut(text: str, width: int) -> str:
    """``text`` in exactly ``width`` cells, ending in ``…`` when it was longer."""
    if len(text) > width:
        return text[: max(width - 1, 0)] + "…"
    return text.ljust(width)


def run_words(run: Run) -> str:
    """The status line for a line of ``run``: where it came from, with the whole prompt."""
    version = run.version
    if version is None:
        if run.status == BEFORE_RECORD:
            return "before rewind: the line was there when rewind first saw the file"
        return "outside: changed where rewind did not see it (by hand, an editor, a command)"
    entry = version.entry
    agent = f", {entry.agent}" if entry.agent else ""
    where = f"{entry.kind} {entry.number} of session {entry.session}{agent}"
    prompt = " ⏎ ".join(line for line in entry.prompt.strip().splitlines() if line.strip())
    outside = "changed outside rewind, found by " if run.status == OUTSIDE_RECORD else ""
    return f"{outside}{where} · version {version.id} · {prompt or '(no prompt)'}"


def noted_words(noted: NotedLine) -> str:
    """The status line for a line a commit's authorship note answers."""
    who = f"{noted.tool} session {noted.session}" if noted.session else noted.tool
    turn = f" turn {noted.turn}" if noted.turn else ""
    prompt = " ⏎ ".join(line for line in noted.prompt.strip().splitlines() if line.strip())
    return (
        f"the note of commit {noted.commit[:12]} (not rewind's record): {who}{turn} · "
        f"{prompt or '(the note holds no prompt)'}"
    )


def outside_record(run: Run) -> bool:
    """Whether the run's lines are ones rewind's record does not explain (a note may)."""
    return run.version is None or run.version.source == OUTSIDE


def _unexplained(run: Run, width: int) -> list[Segment]:
    """The gutter of a line no recorded version explains: ``before rewind`` or ``outside``."""
    words = STATUS_WORDS.get(run.status, run.status)
    style = STYLES["before"] if run.status == BEFORE_RECORD else STYLES["outside"]
    return [Segment(_cut(f"{'':>{NUMBER_WIDTH}} {words}", width), style)]


class BlameLines(ScrollView, can_focus=True):
    """The file's lines with their blame gutter and a cursor line."""

    DEFAULT_CSS = """
    BlameLines { height: 1fr; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "to(0)", "First line", show=False),
        Binding("end", "to(-1)", "Last line", show=False),
    ]

    class Moved(Message):
        """The cursor is on another line."""

    def on_mount(self) -> None:
        self.blame: Blame | None = None
        # The lines rewind's record does not explain that a commit's note does, by number.
        self.noted: dict[int, NotedLine] = {}
        self.starts: list[int] = []  # each run's first line (from 0), for bisect
        self.cursor = 0
        self._lexer: Lexer | None = None
        self._code: dict[int, list[Segment]] = {}  # highlighted lines, by index
        # The agent's and the prompt's columns, for the blame and width of _column_key.
        self._column_key: tuple[int, int] | None = None
        self._column_widths = (AGENT_WIDTH, NARROW_PROMPT)
        self._update_size()

    def show(self, blame: Blame, name: str, noted: dict[int, NotedLine] | None = None) -> None:
        self.blame = blame
        self.noted = noted or {}
        self.starts = [run.start - 1 for run in blame.runs]
        self._lexer = lexer_for(name)
        self._code = {}
        self.cursor = 0
        self._update_size()
        self.scroll_home(animate=False)
        self.refresh()
        self.post_message(self.Moved())

    def _update_size(self) -> None:
        lines = self.blame.lines if self.blame is not None else []
        width = max((len(line) for line in lines), default=0)
        self.virtual_size = Size(self.gutter_width() + width, len(lines))

    def agent_width(self) -> int:
        return self._columns()[0]

    def prompt_width(self) -> int:
        return self._columns()[1]

    def _columns(self) -> tuple[int, int]:
        """The agent's column, as wide as the longest agent's name of the blame (``claude-code``
        whole) within AGENT_WIDTH and AGENT_MAX; the prompt's, at least NARROW_PROMPT (below
        100 columns) or WIDE_PROMPT, and from 100 columns the room the longest line of code
        leaves too, up to PROMPT_MAX. Worked out once per blame and width (every painted
        line asks)."""
        key = (id(self.blame), self.size.width)
        if self._column_key == key:
            return self._column_widths
        runs = self.blame.runs if self.blame is not None else []
        names = [run.version.entry.agent or run.version.entry.kind for run in runs if run.version]
        agent = min(AGENT_MAX, max([AGENT_WIDTH, *(len(name) for name in names)]))
        prompt = NARROW_PROMPT
        if self.size.width >= 100:
            lines = self.blame.lines if self.blame is not None else []
            longest = max((len(line.expandtabs(TAB_SIZE)) for line in lines), default=0)
            others = NUMBER_WIDTH + agent + TIME_WIDTH + 4 + LINE_NUMBER_WIDTH + 3
            prompt = max(WIDE_PROMPT, min(PROMPT_MAX, self.size.width - others - longest - 2))
        self._column_key, self._column_widths = key, (agent, prompt)
        return agent, prompt

    def gutter_width(self) -> int:
        return NUMBER_WIDTH + self.agent_width() + TIME_WIDTH + self.prompt_width() + 4

    def run_at(self, index: int) -> Run | None:
        """The run holding line ``index`` (from 0)."""
        if self.blame is None or not self.blame.runs:
            return None
        return self.blame.runs[bisect_right(self.starts, index) - 1]

    def blame_gutter(self, index: int) -> list[Segment]:
        """The blame of line ``index``: who, on the run's first line; a mark on the others."""
        run = self.run_at(index)
        width = self.gutter_width()
        if run is None:
            return [Segment(" " * width, PLAIN)]
        noted = self.noted.get(index + 1) if outside_record(run) else None
        if noted is not None:
            if index != run.start - 1 and self.noted.get(index) == noted:
                mark = f"{'':>{NUMBER_WIDTH}} {CONTINUATION}"
                return [Segment(_cut(mark, width), STYLES["continued"])]
            prompt = first_line(noted.prompt) or "(the note holds no prompt)"
            return [
                Segment(f"{'note':>{NUMBER_WIDTH}} ", STYLES["number"]),
                Segment(_cut(noted.tool, self.agent_width()) + " ", STYLES["agent"]),
                Segment(_cut(noted.commit[: TIME_WIDTH - 1], TIME_WIDTH) + " ", STYLES["time"]),
                Segment(_cut(prompt, self.prompt_width()) + " ", STYLES["prompt"]),
            ]
        if index != run.start - 1:
            if self.noted.get(index) is not None and outside_record(run):
                return _unexplained(run, width)  # a note's lines ended just above
            return [
                Segment(_cut(f"{'':>{NUMBER_WIDTH}} {CONTINUATION}", width), STYLES["continued"])
            ]
        version = run.version
        if version is None:
            return _unexplained(run, width)
        entry = version.entry
        prompt = first_line(entry.prompt) or ("(no prompt)" if entry.kind == TURN else entry.kind)
        if entry.kind != TURN:
            prompt = f"[{entry.kind}] {prompt}"
        if run.status == OUTSIDE_RECORD:
            prompt = f"[outside] {prompt}"
        return [
            Segment(f"{entry.number:>{NUMBER_WIDTH}} ", STYLES["number"]),
            Segment(_cut(entry.agent or entry.kind, self.agent_width()) + " ", STYLES["agent"]),
            Segment(_cut(short_time(version.at), TIME_WIDTH) + " ", STYLES["time"]),
            Segment(_cut(prompt, self.prompt_width()) + " ", STYLES["prompt"]),
        ]

    def gutter_text(self, index: int) -> str:
        """The gutter of line ``index`` as plain text (for tests)."""
        return "".join(segment.text for segment in self.blame_gutter(index)).rstrip()

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.scrollable_content_region.width
        if self.blame is None or index >= len(self.blame.lines):
            return Strip.blank(width, PLAIN)
        code = self._code.get(index)
        if code is None:
            code = self._code[index] = self._highlight(self.blame.lines[index])
        number = Segment(f"{index + 1:>{LINE_NUMBER_WIDTH}} │ ", STYLES["line"])
        gutter = Strip([*self.blame_gutter(index), number])
        # The gutter stays put; the code scrolls sideways under it.
        room = max(width - gutter.cell_length, 0)
        body = Strip(code).crop(scroll_x, scroll_x + room).extend_cell_length(room, PLAIN)
        strip = Strip.join([gutter.crop(0, width), body])
        if index == self.cursor:
            strip = strip.apply_style(STYLES["cursor"])
        return strip

    def _highlight(self, line: bytes) -> list[Segment]:
        text = line.decode("utf-8", "replace")
        if self._lexer is None:
            return [Segment(text.expandtabs(TAB_SIZE), PLAIN)]
        return code_segments(text, self._lexer)

    # the cursor --------------------------------------------------------------------------

    def move_to(self, index: int) -> None:
        if self.blame is None or not self.blame.lines:
            return
        index = max(0, min(index, len(self.blame.lines) - 1))
        if index == self.cursor:
            return
        self.refresh_line(self.cursor)
        self.cursor = index
        self.refresh_line(index)
        self.scroll_to_region(Region(0, index, 1, 1), animate=False, immediate=True)
        self.post_message(self.Moved())

    def action_cursor(self, step: int) -> None:
        self.move_to(self.cursor + step)

    def action_page(self, direction: int) -> None:
        self.move_to(self.cursor + direction * max(self.size.height - 1, 1))

    def action_to(self, index: int) -> None:
        last = len(self.blame.lines) - 1 if self.blame is not None else 0
        self.move_to(last if index < 0 else index)

    def on_click(self, event: events.Click) -> None:
        self.move_to(self.scroll_offset.y + event.y)


class Blamed(NamedTuple):
    blame: Blame
    noted: dict[int, NotedLine]


class BlameScreen(Screen[str | None]):
    """The blame of ``path`` (a stored name). Returns the version id Enter chose (to show in
    the file's history), or None."""

    DEFAULT_CSS = """
    BlameScreen #blame-title {
        height: 1;
        padding: 0 1;
        background: $boost;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    /* The whole prompt of the line's origin: up to three lines, then cut with an ellipsis. */
    BlameScreen #blame-status {
        height: auto;
        max-height: 3;
        padding: 0 1;
        background: $boost;
        text-overflow: ellipsis;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "enter", "open_version", "Version", tooltip="Show the line's version in its history"
        ),
        Binding("escape", "close", "Back"),
    ]

    def __init__(self, store: Store, session_id: str, path: bytes) -> None:
        super().__init__()
        self.store = store
        self.session_id = session_id
        self.path = path
        self.name_now = store.root.display(path)
        self.blame: Blame | None = None

    def compose(self) -> ComposeResult:
        yield Static(self._title(), id="blame-title")
        yield BlameLines(id="blame")
        yield Static("", id="blame-status")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.query_one(BlameLines).focus()
        self.query_one("#blame-status", Static).update("working out where each line came from…")
        self.reload()

    def reload(self) -> None:
        self._blame()

    def _title(self) -> Text:
        title = Text(no_wrap=True, overflow="ellipsis")
        title.append(f"blame {self.name_now}", style="bold")
        if self.blame is not None:
            lines = len(self.blame.lines)
            runs = len([run for run in self.blame.runs if run.version is not None])
            title.append(f"  {lines} line{'' if lines == 1 else 's'} as it is now", style="dim")
            title.append(f", {runs} run{'' if runs == 1 else 's'} from recorded versions", "dim")
        return title

    @work(thread=True, exclusive=True, group="blame", exit_on_error=False)
    def _blame(self) -> Blamed:
        """The blame, and the lines the commits' authorship notes answer (docs/attribution.md),
        as ``rewind blame`` gives them."""
        from rewind.history.attribution.note_blame import has_notes, noted_lines

        root = self.store.root.path
        notes = not self.store.read_only and has_notes(root)
        blame = blame_file(self.store, self.path, allow_unrecorded=notes)
        if not notes:
            return Blamed(blame, {})
        wanted = {
            number
            for run in blame.runs
            if outside_record(run)
            for number in range(run.start, run.start + run.count)
        }
        return Blamed(blame, noted_lines(root, self.path, wanted))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.group != "blame":
            return
        if event.state == WorkerState.ERROR:
            error = worker.error
            words = str(error) if isinstance(error, UserError) else f"blame failed: {error}"
            self.query_one("#blame-status", Static).update(Text(words, style="bold"))
            return
        if event.state != WorkerState.SUCCESS or not isinstance(worker.result, Blamed):
            return
        self.blame = worker.result.blame
        view = self.query_one(BlameLines)
        cursor = view.cursor
        view.show(self.blame, self.name_now, worker.result.noted)
        view.move_to(cursor)
        self.query_one("#blame-title", Static).update(self._title())

    def on_blame_lines_moved(self) -> None:
        view = self.query_one(BlameLines)
        run = view.run_at(view.cursor)
        status = self.query_one("#blame-status", Static)
        if run is None:
            status.update(Text(f"{self.name_now} is empty", style="dim"))
            return
        noted = view.noted.get(view.cursor + 1) if outside_record(run) else None
        words = noted_words(noted) if noted is not None else run_words(run)
        status.update(Text(f"line {view.cursor + 1}: {words}"))

    def status_text(self) -> str:
        return str(self.query_one("#blame-status", Static).render())

    def action_open_version(self) -> None:
        view = self.query_one(BlameLines)
        run = view.run_at(view.cursor)
        if run is None:
            return
        if run.version is None:
            words = STATUS_WORDS.get(run.status, run.status)
            self.notify(f"Line {view.cursor + 1} is {words}: no recorded version made it.")
            return
        self.dismiss(run.version.id)

    def action_close(self) -> None:
        self.dismiss(None)
