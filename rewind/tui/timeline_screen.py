"""A session's timeline, the files of the selected entry and the diff of the selected file."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Static
from textual.worker import get_current_worker

from rewind.errors import UserError
from rewind.store.repository import Store
from rewind.tui.compare import compared_diff, compared_files, span
from rewind.tui.diff_view import DiffView
from rewind.tui.file_list import FileList
from rewind.tui.messages import Restored, SessionChosen
from rewind.tui.origin import NO_BLAME_NOTICE, Fetched, Opened, refused
from rewind.tui.timeline_data import (
    TO_NOW,
    TURN_DIFF,
    Counts,
    SessionHistory,
    TurnRow,
    session_agent,
)
from rewind.tui.turn_table import TurnTable

if TYPE_CHECKING:  # the restore engine is imported when a restore is asked for, not at start
    from rewind.tui.restore_actions import RestoreOutcome

MODE_NAMES = {TURN_DIFF: "what the turn changed", TO_NOW: "from the checkpoint to now"}
# A fetched session changed another work tree than this one: its "to now" is where it ended.
FETCHED_MODE_NAMES = {**MODE_NAMES, TO_NOW: "from the checkpoint to the session's end"}


def matches(row: TurnRow, query: str) -> bool:
    """Whether a row's prompt or one of its files contains ``query`` (case-insensitive)."""
    wanted = query.lower()
    return wanted in row.title.lower() or any(wanted in path.lower() for path in row.paths)


class TimelineScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        # The app's ? again, first: Help lists every key. The footer shows the keys that fit
        # 80 columns with the app's (u Undo, q Quit); v, l, m and c are in Help only.
        Binding("question_mark", "app.help", "Help", key_display="?"),
        Binding("slash", "search", "Find"),
        Binding("d", "toggle_diff", "Diff"),
        Binding("v", "toggle_split", "Split", show=False),
        Binding("l", "label", "Label", show=False),
        Binding("m", "mark", "Mark", show=False),
        Binding(
            "c", "compare", "Cmp", show=False, tooltip="Compare the marked entry with this one"
        ),
        Binding("p", "put_back", "Hunks", tooltip="Put back hunks of the selected file"),
        Binding("h", "history", "Hist", tooltip="History of the selected file (or of a path)"),
        Binding("b", "blame", "Blame", tooltip="Blame of the selected file"),
        Binding("s", "sessions", "Sessions"),
        Binding(
            "g",
            "commits",
            "Commit",
            show=False,
            tooltip="The prompts behind the commits the selected entry made (their notes)",
        ),
        Binding("escape", "back", "Back", show=False),
    ]

    def __init__(
        self,
        store: Store,
        session_id: str,
        fetched: Fetched | None = None,
        local: Store | None = None,
    ) -> None:
        super().__init__()
        self.store = store
        self.session_id = session_id
        self.fetched = fetched  # where a session read from a remote's mirror was fetched from
        self.local = local or store  # the project's own store, whose sessions 's' lists
        self.history = SessionHistory(store, session_id)
        self.rows: list[TurnRow] = []
        self.shown: list[TurnRow] = []  # the rows the search lets through, in table order
        self.counts: dict[int, Counts] = {}
        self.query_text = ""
        self.diff_mode = TURN_DIFF
        self.split = False  # side by side rather than unified
        self.marked: str | None = None  # the entry id marked with m, to compare with
        self.comparing = False  # the detail shows the marked..selected span (c)
        self.agent = ""  # as 'rewind log' names it: the newest turn's agent other than watch

    def compose(self) -> ComposeResult:
        yield Static(id="title")
        yield TurnTable(id="turns")
        yield Input(placeholder="search prompts and file paths", id="search")
        with Horizontal(id="detail"):
            yield FileList(id="files")
            yield DiffView(id="diff")
        # Compact, without the palette's entry, so that every key fits 100 columns (? lists them).
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.query_one("#search", Input).display = False
        self.history.reload()
        self._show_rows()
        table = self.query_one(TurnTable)
        table.focus()
        self.watch(table, "scroll_y", self._count_visible, init=False)

    def on_resize(self) -> None:
        self._lay_out()
        self._show_title(len(self.shown))
        self.call_after_refresh(self._count_visible)

    def _lay_out(self) -> None:
        """At a terminal's usual 24 lines the timeline and the detail share the height (nine
        entries in view); taller, the diff gets the larger part."""
        tall = self.size.height > 30
        self.query_one("#turns").styles.height = "2fr" if tall else "1fr"
        self.query_one("#detail").styles.height = "3fr" if tall else "1fr"

    # loading -----------------------------------------------------------------------------

    def reload(self, newest: bool = False) -> None:
        """Shows what other processes recorded since; the selection stays where it was, or on
        the newest entry when it was there (or ``newest``: after a restore made here)."""
        last = len(self.history.entries) - 1
        if self.history.reload():
            # The newest entry may have grown (an open turn); later ones are new.
            self.counts = {i: c for i, c in self.counts.items() if i < last}
            self._show_rows(newest)

    def _show_rows(self, newest: bool = False) -> None:
        self.rows = self.history.rows()
        self.agent = session_agent(self.store, self.session_id)
        shown = [row for row in self.rows if not self.query_text or matches(row, self.query_text)]
        self.shown = shown
        self.query_one(TurnTable).show(shown, self.counts, self.marked, newest)
        self._show_title(len(shown))
        self.call_after_refresh(self._count_visible)
        self._show_entry()

    def _show_title(self, shown: int) -> None:
        """One line: the session, what is shown of it and how; as it fits the terminal (the
        long form, else a compact one, else cut with an ellipsis)."""
        width = self.size.width or self.app.size.width
        title = self._title(shown, compact=False)
        if title.cell_len > width - 2:
            title = self._title(shown, compact=True)
        self.query_one("#title", Static).update(title)

    def _title(self, shown: int, compact: bool) -> Text:
        """The title line; ``compact``: the session's id cut to its start, the older entries
        counted in short, the diff's mode left to the diff's own title."""
        entries = self.history.entries
        title = Text(no_wrap=True, overflow="ellipsis")
        if self.fetched is not None:
            title.append(self.fetched.describe(self.session_id), style="bold")
        elif compact and len(self.session_id) > 12:
            title.append(f"session {self.session_id[:8]}…", style="bold")
        else:
            title.append(f"session {self.session_id}", style="bold")
        if self.agent:
            title.append(f"  {self.agent}")
        title.append(f"  {len(entries) + self.history.older} entries", style="dim")
        if self.history.older:
            older = "↑ for more" if compact else "at the top for more"
            title.append(f" ({self.history.older} older: {older})", style="dim")
        if self.query_text:
            title.append(f"  search {self.query_text!r}: {shown} shown", style="cyan")
        compared = self._compared_span()
        if compared is not None:
            start, stop = compared
            first, last = self.history.entries[start].number, self.history.entries[stop - 1].number
            title.append(f"  compare {first}..{last}", style="bold magenta")
        elif not compact:
            names = MODE_NAMES if self.fetched is None else FETCHED_MODE_NAMES
            title.append(f"  diff: {names[self.diff_mode]}", style="dim")
        return title

    def _count_visible(self) -> None:
        """Starts counting +/- lines for the rows in view that have none shown yet.

        Only what is seen is counted (a 1,000-turn session has thousands of file versions);
        scrolling counts the rows it brings into view.
        """
        table = self.query_one(TurnTable)
        wanted = [
            (row.index, row.entry_id, row.files)
            for row in table.rows_in_view(self.shown)
            if row.index not in self.counts
        ]
        if wanted:
            self._count_lines(wanted)

    @work(thread=True, exclusive=True, group="counts")
    def _count_lines(self, wanted: list[tuple[int, str, int]]) -> None:
        """+/- counts of ``wanted`` (index, entry id, files), handed to the table in one batch."""
        worker = get_current_worker()
        batch = []
        for index, entry_id, files in wanted:
            if worker.is_cancelled:
                return
            batch.append((index, entry_id, files, self.history.entry_counts(index)))
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show_counts, batch)

    def _show_counts(self, batch: list[tuple[int, str, int, Counts]]) -> None:
        table = self.query_one(TurnTable)
        for index, entry_id, files, counts in batch:
            self.counts[index] = counts
            table.show_counts(entry_id, files, counts)

    # selection ---------------------------------------------------------------------------

    def selected_entry_id(self) -> str | None:
        """The id of the entry the timeline has selected (None before it shows any)."""
        return self.query_one(TurnTable).selected_id()

    def _selected_index(self) -> int | None:
        entry_id = self.query_one(TurnTable).selected_id()
        for row in self.rows:
            if row.entry_id == entry_id:
                return row.index
        return None

    def _marked_index(self) -> int | None:
        for index, entry in enumerate(self.history.entries):
            if entry.id == self.marked:
                return index
        return None

    def _compared_span(self) -> tuple[int, int] | None:
        """The entries compared (a slice), while comparing with a marked entry."""
        if not self.comparing:
            return None
        marked, selected = self._marked_index(), self._selected_index()
        if marked is None or selected is None:
            return None
        return span(marked, selected)

    def _show_entry(self) -> None:
        index = self._selected_index()
        files = self.query_one(FileList)
        compared = self._compared_span()
        if compared is not None:
            files.show(compared_files(self.history, *compared))
            self._show_title(len(self.shown))
        else:
            files.show([] if index is None else self.history.file_rows(index))
        self._show_diff()

    def _show_diff(self) -> None:
        index = self._selected_index()
        path = self.query_one(FileList).selected_path()
        view = self.query_one(DiffView)
        if index is None or path is None:
            view.show(None)
            return
        compared = self._compared_span()
        if compared is not None:
            view.show(compared_diff(self.history, *compared, path), self.split)
            return
        view.show(self.history.diff_text(index, path, self.diff_mode), self.split)

    @on(DataTable.RowHighlighted, "#turns")
    def _turn_highlighted(self) -> None:
        at_top = bool(self.shown) and (
            self.query_one(TurnTable).selected_id() == self.shown[0].entry_id
        )
        if at_top and self.history.older and not self.query_text:
            self._read_older()  # the cursor reached the top: the next window comes
            return
        self._show_entry()

    def _read_older(self, everything: bool = False) -> None:
        """Reads older entries in front of those shown; the cursor stays on its entry."""
        added = self.history.load_older(everything)
        if added:
            self.counts = {index + added: counts for index, counts in self.counts.items()}
            self._show_rows()

    @on(DataTable.RowHighlighted, "#files")
    def _file_highlighted(self) -> None:
        self._show_diff()

    @on(DataTable.RowSelected, "#turns")
    def _turn_chosen(self) -> None:
        self.query_one(FileList).focus()

    @on(DataTable.RowSelected, "#files")
    def _file_chosen(self) -> None:
        self.query_one(DiffView).focus()

    # actions -----------------------------------------------------------------------------

    def action_toggle_diff(self) -> None:
        self.diff_mode = TO_NOW if self.diff_mode == TURN_DIFF else TURN_DIFF
        if self.comparing:
            self.comparing = False
            self._show_entry()
        self._show_title(self.query_one(TurnTable).row_count)
        self._show_diff()

    def action_mark(self) -> None:
        """Marks the selected entry as one end of a comparison (again: unmarks it)."""
        index = self._selected_index()
        if index is None:
            return
        entry = self.history.entries[index]
        table = self.query_one(TurnTable)
        previous = self._marked_index()
        if previous is not None:
            table.show_mark(
                self.history.entries[previous].id, self.history.entries[previous].number, False
            )
        if self.marked == entry.id:
            self.marked = None
            self.comparing = False
            self._show_entry()
            self.notify("mark removed")
            return
        self.marked = entry.id
        table.show_mark(entry.id, entry.number, True)
        self.notify(f"{entry.kind} {entry.number} marked: select another entry and press c")
        if self.comparing:
            self._show_entry()

    def action_compare(self) -> None:
        """Shows (or stops showing) what the entries from the marked to the selected changed."""
        if self._marked_index() is None:
            self.notify("mark an entry with m first, then select another and press c")
            return
        self.comparing = not self.comparing
        self._show_title(len(self.shown))
        self._show_entry()

    def action_toggle_split(self) -> None:
        self.split = not self.split
        self._show_diff()

    def action_search(self) -> None:
        search = self.query_one("#search", Input)
        search.display = True
        search.focus()

    @on(Input.Changed, "#search")
    def _search_changed(self, event: Input.Changed) -> None:
        self.query_text = event.value.strip()
        if self.query_text and self.history.older:
            self._read_older(everything=True)  # a search looks at the whole session
        self._show_rows()

    @on(Input.Submitted, "#search")
    def _search_submitted(self) -> None:
        self.query_one(TurnTable).focus()

    def action_back(self) -> None:
        """Esc: close the search, else step focus back from the diff to the timeline."""
        search = self.query_one("#search", Input)
        if search.display:
            search.display = False
            search.value = ""
            self.query_one(TurnTable).focus()
        elif self.focused is self.query_one(DiffView):
            self.query_one(FileList).focus()
        else:
            self.query_one(TurnTable).focus()

    def action_label(self) -> None:
        """Opens the label dialog on the selected entry; the timeline shows the result."""
        from rewind.history.sessions import all_labels
        from rewind.tui.label_dialog import LabelDialog

        if refused(self.app, self.store):
            return
        index = self._selected_index()
        if index is None:
            return
        entry = self.history.entries[index]
        if entry.is_open:
            self.notify(
                f"turn {entry.number} is still open; label it once it ends.", severity="warning"
            )
            return

        def done(message: str | None) -> None:
            if message:
                self.notify(message)
                self.reload()

        labels = all_labels(entry, self.history.attached)
        self.app.push_screen(LabelDialog(self.store, self.session_id, entry, labels), done)

    def action_put_back(self) -> None:
        """Opens the hunk picker on what the selected turn did to the selected file."""
        from rewind.tui.hunk_picker import HunkPicker
        from rewind.tui.restore_actions import turn_choice

        if refused(self.app, self.store):
            return
        if self.comparing:
            self.notify("p puts back hunks of one entry: press c to leave the comparison first.")
            return
        index = self._selected_index()
        path = self.query_one(FileList).selected_path()
        if index is None or path is None:
            self.notify("Select a turn and one of its files first, then press p.")
            return
        try:
            choice = turn_choice(self.store, self.session_id, self.history.entries[index], path)
            picker = HunkPicker(choice, choice.blocked())
        except UserError as error:
            self.notify(str(error), severity="warning")
            return
        self.app.push_screen(picker, self._put_back)

    Restored = Restored  # the message, under the name it has had here

    def _put_back(self, outcome: RestoreOutcome | None) -> None:
        if outcome is not None:
            self.post_message(self.Restored(outcome))

    def action_sessions(self) -> None:
        """Lists the project's sessions and those fetched from its remotes; the app shows the
        one chosen in place of this timeline."""
        from rewind.tui.sessions_screen import SessionsScreen

        def chosen(opened: Opened | None) -> None:
            shown = (self.fetched, self.session_id)
            if opened is not None and (opened.fetched, opened.session_id) != shown:
                self.post_message(SessionChosen(opened))

        current = Opened(self.store, self.session_id, self.fetched)
        self.app.push_screen(SessionsScreen(self.local, current), chosen)

    # one file's story -----------------------------------------------------------------------

    def action_history(self) -> None:
        """Opens the history of the selected file (every version, across sessions); without a
        selected file, asks for a path."""
        path = self.query_one(FileList).selected_path()
        if path is None:
            self.action_file_history()
            return
        self.open_history(path)

    def open_history(self, path: bytes, select: str | None = None) -> None:
        from rewind.tui.file_history_screen import FileHistoryScreen

        self.app.push_screen(FileHistoryScreen(self.store, self.session_id, path, select))

    def action_commits(self) -> None:
        """Shows the prompts behind each commit the selected entry made (``commit:ID``)."""
        from rewind.errors import UserError
        from rewind.history.attribution.commit_prompts import (
            commit_prompts,
            described,
            linked_commits,
            with_recorded_prompts,
        )
        from rewind.tui.commit_dialog import CommitDialog

        index = self._selected_index()
        if index is None:
            return
        entry = self.history.entries[index]
        commits = linked_commits(entry.labels)
        if not commits:
            self.notify(
                f"{entry.kind} {entry.number} made no commit; 'rewind log --commit REV' reads "
                "any commit's note.",
                severity="warning",
            )
            return
        lines: list[str] = []
        for commit in commits:
            try:
                found = commit_prompts(self.store.root.path, commit)
            except UserError as error:
                lines += [f"commit {commit}", f"  {error}"]
                continue
            lines += described(with_recorded_prompts(found, self.store))
        title = f"The prompts behind the commits of {entry.kind} {entry.number}"
        self.app.push_screen(CommitDialog(title, lines))

    def action_blame(self) -> None:
        """Opens the blame of the selected file; Enter there opens the line's version."""
        from rewind.tui.blame_view import BlameScreen

        if self.store.read_only:
            self.notify(NO_BLAME_NOTICE, severity="warning")
            return
        path = self.query_one(FileList).selected_path()
        if path is None:
            self.notify("Select a file of an entry first, then press b.")
            return

        def jump(version_id: str | None) -> None:
            if version_id is not None:
                self.open_history(path, version_id)

        self.app.push_screen(BlameScreen(self.store, self.session_id, path), jump)

    def action_file_history(self) -> None:
        """Asks for a path (completing the session's files), then opens its history."""
        from rewind.tui.path_prompt import ask_path

        known = sorted({path for row in self.rows for path in row.paths})
        ask_path(self, self.store, known, "", self.open_history)
