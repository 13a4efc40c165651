"""One file's whole story: its versions newest first (above) and a diff (below).

The versions are :func:`rewind.history.insight.file_history.file_versions`'s, as ``rewind history
P`` lists them, renames followed. The diff is, by default, between the selected version and the one
before it; ``m`` marks a version and ``c`` shows the diff from the marked one to the selected one;
``n`` shows the selected version against the file as it is now. From here ``r`` restores the
selected version at the file's name now (``rewind restore --path P --version ID``), ``p`` puts back
hunks of the step that made it, and ``b`` opens the blame of the file.

The versions (with their +/- counts, a diff each the first time) are read in a worker, off the
UI thread; a diff is made when its version is selected, as the timeline makes its diffs.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static
from textual.worker import get_current_worker

from rewind.errors import UserError
from rewind.history.entry import TURN
from rewind.history.filestate import ABSENT
from rewind.history.insight.diffs import diff_states, diff_to_disk
from rewind.history.insight.file_history import OUTSIDE, Version, file_versions
from rewind.store.repository import Store
from rewind.tui.diff_view import DiffView
from rewind.tui.keys import Table
from rewind.tui.origin import NO_BLAME_NOTICE, refused
from rewind.tui.timeline_data import SOURCE_TAGS, DiffText, diff_text_of
from rewind.tui.turn_table import (
    COMPACT_BELOW,
    KIND_STYLES,
    fitted,
    selected_key,
    short_number,
    short_time,
)

ID_WIDTH = 8  # 7 characters of the entry id, and ^ for a before-state
TIME_WIDTH = 11
ENTRY_WIDTH = 9  # "12 demo…": the entry's number and its session, abbreviated
WIDE_ENTRY_WIDTH = 16  # from WIDE_FROM columns: "12 d111d1df-878…"
WIDE_FROM = 120
SOURCE_WIDTH = 10
COUNTS_WIDTH = 11  # "+1.2k -999k", "binary", "deleted"
PROMPT_WIDTH = 38
SOURCE_STYLES = {**KIND_STYLES, OUTSIDE: "yellow"}


def short_id(version: Version) -> str:
    """``3f2a1c4`` for the file as entry 3f2a1c4… left it, ``3f2a1c4^`` for just before."""
    return version.entry.id[:7] + ("" if version.after else "^")


def version_words(version: Version) -> str:
    """``3f2a1c4 (after turn 2)``: which version, for titles."""
    side = "after" if version.after else "before"
    return f"{short_id(version)} ({side} {version.entry.kind} {version.entry.number})"


def source_tag(version: Version) -> Text:
    tag = SOURCE_TAGS.get(version.source, version.source)
    return Text(tag, style=SOURCE_STYLES.get(tag, ""))


def entry_words(version: Version, width: int = ENTRY_WIDTH) -> str:
    """``12 demo``: the entry's number and its session (abbreviated with an ellipsis)."""
    session = version.entry.session
    room = width - len(str(version.entry.number)) - 1
    if len(session) > room:
        session = session[: max(room - 1, 1)] + "…"
    return f"{version.entry.number} {session}"


def counts_words(version: Version) -> Text:
    """What the version did to the file: ``+12 -4``, ``binary``, ``deleted``."""
    if version.state.kind == ABSENT:
        # The oldest version absent: the file did not exist yet when rewind first saw it.
        return Text("deleted", style="red") if version.compared else Text("absent", style="dim")
    if version.binary:
        return Text("binary", style="dim")
    if not version.compared:
        return Text("first", style="dim")  # the oldest version: nothing to compare it with
    text = Text(f"+{short_number(version.added)}", style="green")
    text.append(f" -{short_number(version.removed)}", style="red")
    return text


def prompt_words(version: Version, shown: str, display: str, width: int = PROMPT_WIDTH) -> Text:
    """The prompt's first line, after what is special about the version (its name then)."""
    entry = version.entry
    lines = entry.prompt.strip().splitlines()
    prompt = lines[0] if lines else ("(no prompt)" if entry.kind == TURN else entry.kind)
    text = Text()
    if version.moved_from is not None:
        text.append(f"[renamed from {version.moved_from.decode('utf-8', 'replace')}] ", "cyan")
    elif display != shown:
        text.append(f"[as {display}] ", "cyan")
    if not version.after:
        text.append("before: ", "dim")
    text.append(prompt, style="" if entry.kind == TURN else "italic")
    return fitted(text, width)


class VersionTable(Table):
    """One row per version, newest first, keyed by the version id."""

    DEFAULT_CSS = """
    VersionTable { height: 2fr; min-height: 5; }
    """

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.layout_key: tuple[bool, int] | None = None
        self.shown: tuple[list[Version], str, dict[bytes, str]] = ([], "", {})

    def on_resize(self) -> None:
        """The prompt takes the room the terminal gives: the rows are laid out again."""
        if self.layout_key is not None and self._layout() != self.layout_key:
            self.show(*self.shown)

    def _layout(self) -> tuple[bool, int]:
        """Whether the table is compact (times as 14:03) and how wide the prompt is."""
        width = self.size.width or 80
        compact = width < COMPACT_BELOW
        time_width = 5 if compact else TIME_WIDTH
        fixed = ID_WIDTH + time_width + self._entry_width() + SOURCE_WIDTH + COUNTS_WIDTH
        return compact, max(20, width - fixed - 6 * 2 - 2)

    def _entry_width(self) -> int:
        """Wider from WIDE_FROM columns, where the prompt keeps room: more of the session."""
        return WIDE_ENTRY_WIDTH if (self.size.width or 80) >= WIDE_FROM else ENTRY_WIDTH

    def show(self, versions: list[Version], name: str, display: dict[bytes, str]) -> None:
        selected = self.selected_id()
        self.shown = (versions, name, display)
        compact, prompt_width = self._layout()
        if (compact, prompt_width) != self.layout_key:
            self.clear(columns=True)
            self.add_column("version", width=ID_WIDTH, key="id")
            self.add_column("time", width=5 if compact else TIME_WIDTH, key="time")
            self.add_column(
                "entry", width=ENTRY_WIDTH if compact else WIDE_ENTRY_WIDTH, key="entry"
            )
            self.add_column("source", width=SOURCE_WIDTH, key="source")
            self.add_column("+/-", width=COUNTS_WIDTH, key="counts")
            self.add_column("prompt", width=prompt_width, key="prompt")
            self.layout_key = (compact, prompt_width)
        self.clear()
        for version in versions:
            self.add_row(
                Text(short_id(version), style="bold"),
                short_time(version.at, compact=compact),
                entry_words(version, self._entry_width()),
                fitted(source_tag(version), SOURCE_WIDTH),
                fitted(counts_words(version), COUNTS_WIDTH),
                prompt_words(version, name, display[version.path], prompt_width),
                key=version.id,
            )
        ids = [version.id for version in versions]
        if ids:
            self.move_cursor(row=ids.index(selected) if selected in ids else 0)

    def show_mark(self, versions: list[Version], marked: str | None) -> None:
        for version in versions:
            style = "bold reverse" if version.id == marked else "bold"
            suffix = "*" if version.id == marked else ""
            self.update_cell(version.id, "id", Text(short_id(version) + suffix, style=style))

    def select(self, version_id: str) -> bool:
        try:
            row = self.get_row_index(version_id)
        except Exception:  # no such row
            return False
        self.move_cursor(row=row)
        return True

    def selected_id(self) -> str | None:
        return selected_key(self)


class FileHistoryScreen(Screen[None]):
    """The versions of ``path`` (a stored name: the file's name now); restores are recorded in
    ``session_id``. ``select``: the version id to put the cursor on once they are read."""

    DEFAULT_CSS = """
    FileHistoryScreen #history-title {
        height: 1;
        padding: 0 1;
        background: $boost;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    FileHistoryScreen #version-diff { height: 3fr; border-top: solid $primary; }
    FileHistoryScreen VersionTable:focus, FileHistoryScreen DiffView:focus {
        background-tint: $primary 5%;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("m", "mark", "Mark", tooltip="Mark the selected version"),
        Binding("c", "compare", "Cmp", tooltip="Compare the marked version with this one"),
        Binding("n", "against_now", "Now", tooltip="Diff this version against the file now"),
        Binding("v", "toggle_split", "Split"),
        Binding("r", "restore", "Restore", tooltip="Restore the file to this version"),
        Binding("p", "put_back", "Hunks", tooltip="Put back hunks of the step to this version"),
        Binding("b", "blame", "Blame", tooltip="Blame of the file as it is now"),
        Binding("o", "open", "Open", tooltip="Open the history of another path"),
        Binding("escape", "back", "Back", show=False),
    ]

    def __init__(
        self, store: Store, session_id: str, path: bytes, select: str | None = None
    ) -> None:
        super().__init__()
        self.store = store
        self.session_id = session_id
        self.path = path
        self.name_now = store.root.display(path)
        self.versions: list[Version] = []
        self.loaded = False
        self.wanted = select  # the version to select once the versions are read
        self.marked: str | None = None  # the version id marked with m
        self.comparing = False  # the diff is from the marked version to the selected one (c)
        self.against_now = False  # the diff is from the selected version to the file now (n)
        self.split = False

    def compose(self) -> ComposeResult:
        yield Static(id="history-title")
        yield VersionTable(id="versions")
        yield DiffView(id="version-diff")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self._show_title()
        self.query_one(VersionTable).focus()
        self.reload()

    # loading -----------------------------------------------------------------------------

    def reload(self) -> None:
        """Reads the versions again (after a restore, or what hooks recorded since)."""
        self._read_versions()

    @work(thread=True, exclusive=True, group="versions")
    def _read_versions(self) -> None:
        versions = file_versions(self.store, self.path)
        if not get_current_worker().is_cancelled:  # a newer read replaced this one
            self.app.call_from_thread(self._show_versions, versions)

    def _show_versions(self, versions: list[Version]) -> None:
        self.versions = versions
        self.loaded = True
        if self.marked is not None and self.marked not in {v.id for v in versions}:
            self.marked, self.comparing = None, False
        display = {v.path: self.store.root.display(v.path) for v in versions}
        table = self.query_one(VersionTable)
        table.show(versions, self.name_now, display)
        table.show_mark(versions, self.marked)
        if self.wanted is not None:
            table.select(self.wanted)
            self.wanted = None
        self._show_title()
        self._show_diff()

    # selection ---------------------------------------------------------------------------

    def selected(self) -> Version | None:
        wanted = self.query_one(VersionTable).selected_id()
        return self._version(wanted)

    def _version(self, version_id: str | None) -> Version | None:
        for version in self.versions:
            if version.id == version_id:
                return version
        return None

    def _older(self, version: Version) -> Version | None:
        """The version before ``version`` (None for the oldest)."""
        position = self.versions.index(version)
        return self.versions[position + 1] if position + 1 < len(self.versions) else None

    def select_version(self, version_id: str) -> None:
        """Puts the cursor on ``version_id`` (from the blame view's Enter)."""
        if not self.loaded or not self.query_one(VersionTable).select(version_id):
            self.wanted = version_id
        self.query_one(VersionTable).focus()

    def _mode_words(self, compact: bool = False) -> str:
        marked = self._version(self.marked)
        if self.comparing and marked is not None:
            return f"diff: from marked {short_id(marked)} to the selected version"
        if self.against_now:
            return (
                "diff: against the file now"
                if compact
                else ("diff: the selected version against the file now")
            )
        if compact:
            return "diff: against the one before"
        return "diff: the selected version against the one before"

    def _show_title(self) -> None:
        title = self._title(compact=False)
        if title.cell_len > (self.size.width or self.app.size.width) - 2:
            title = self._title(compact=True)
        self.query_one("#history-title", Static).update(title)

    def on_resize(self) -> None:
        self._show_title()

    def _title(self, compact: bool) -> Text:
        title = Text(no_wrap=True, overflow="ellipsis")
        title.append(self.name_now, style="bold")
        if not self.loaded:
            title.append("  reading its versions…", style="dim")
        else:
            count = len(self.versions)
            order = "" if compact else ", newest first"
            title.append(f"  {count} version{'' if count == 1 else 's'}{order}", "dim")
            style = "bold magenta" if self.comparing else "dim"
            title.append(f"  {self._mode_words(compact)}", style=style)
        return title

    def diff_text(self) -> DiffText | None:
        """What the diff view shows for the selection and the mode."""
        version = self.selected()
        if version is None:
            if not self.loaded:
                return DiffText(self.name_now, "", "reading the versions…", self.path)
            note = f"rewind has recorded nothing for {self.name_now}"
            return DiffText(self.name_now, "", note, self.path)
        marked = self._version(self.marked)
        if self.comparing and marked is not None:
            if marked is version:
                return DiffText(
                    f"{self.name_now}: {version_words(version)}", "", "the same version"
                )
            older, newer = sorted((marked, version), key=self.versions.index, reverse=True)
            title = f"{self.name_now}: from {version_words(older)} to {version_words(newer)}"
            return self._diff(title, older, newer)
        if self.against_now:
            title = f"{self.name_now}: from {version_words(version)} to the file now"
            diff = diff_to_disk(self.store, self.path, version.state)
            return diff_text_of(title, version.state, diff.new, diff)
        before = self._older(version)
        if before is None:
            title = f"{self.name_now}: {version_words(version)}, the oldest version"
            note = "the oldest version rewind recorded: nothing before it to compare with"
            return DiffText(title, "", note, self.path)
        title = f"{self.name_now}: {version_words(version)} against {version_words(before)}"
        return self._diff(title, before, version)

    def _diff(self, title: str, older: Version, newer: Version) -> DiffText:
        diff = diff_states(self.store, newer.path, older.state, newer.state, with_text=True)
        return diff_text_of(title, older.state, newer.state, diff)

    def _show_diff(self) -> None:
        self.query_one(DiffView).show(self.diff_text(), self.split)

    @on(DataTable.RowHighlighted, "#versions")
    def _version_highlighted(self) -> None:
        self._show_diff()

    @on(DataTable.RowSelected, "#versions")
    def _version_chosen(self) -> None:
        self.query_one(DiffView).focus()

    # actions -----------------------------------------------------------------------------

    def action_mark(self) -> None:
        """Marks the selected version as one end of a comparison (again: unmarks it)."""
        version = self.selected()
        if version is None:
            return
        if self.marked == version.id:
            self.marked, self.comparing = None, False
            self.notify("mark removed")
        else:
            self.marked = version.id
            self.notify(f"version {short_id(version)} marked: select another and press c")
        self.query_one(VersionTable).show_mark(self.versions, self.marked)
        self._show_title()
        self._show_diff()

    def action_compare(self) -> None:
        """Shows (or stops showing) the diff from the marked version to the selected one."""
        if self.marked is None:
            self.notify("mark a version with m first, then select another and press c")
            return
        self.comparing = not self.comparing
        self.against_now = False
        self._show_title()
        self._show_diff()

    def action_against_now(self) -> None:
        self.against_now = not self.against_now
        self.comparing = False
        self._show_title()
        self._show_diff()

    def action_toggle_split(self) -> None:
        self.split = not self.split
        self._show_diff()

    def action_back(self) -> None:
        """Esc: from the diff back to the versions, else back to where the screen was opened."""
        if self.focused is self.query_one(DiffView):
            self.query_one(VersionTable).focus()
        else:
            self.dismiss(None)

    def action_restore(self) -> None:
        """Asks, then writes the selected version at the file's name now."""
        from rewind.tui.confirm_restore import ConfirmRestore
        from rewind.tui.restore_actions import restore_version, version_plan

        if refused(self.app, self.store):
            return
        version = self.selected()
        if version is None:
            return
        try:
            plan = version_plan(self.store, self.session_id, version, self.path)
        except UserError as error:
            self.notify(str(error), severity="warning")
            return
        if plan.blocked:
            reason = plan.blocked[0].reason()
            self.notify(f"{self.name_now} cannot be restored to that version: {reason}.")
            return
        if not plan.changes:
            self.notify(f"{self.name_now} already is version {short_id(version)}: nothing to do.")
            return

        def confirmed(forced: set[bytes] | None) -> None:
            if forced is not None:
                self._done(restore_version(self.store, plan, force=self.path in forced))

        self.app.push_screen(ConfirmRestore(plan, {self.path}), confirmed)

    def action_put_back(self) -> None:
        """Opens the hunk picker on the step that made the selected version."""
        from rewind.tui.hunk_picker import HunkPicker
        from rewind.tui.restore_actions import step_choice

        if refused(self.app, self.store):
            return
        version = self.selected()
        if version is None:
            return
        older = self._older(version)
        if older is None:
            self.notify("This is the oldest version: there is no step before it to put back.")
            return
        try:
            choice = step_choice(self.store, self.session_id, older, version, self.path)
            picker = HunkPicker(choice, choice.blocked())
        except UserError as error:
            self.notify(str(error), severity="warning")
            return
        self.app.push_screen(picker, self._done)

    def _done(self, outcome: object) -> None:
        """Shows what a restore from here did: the app says it, makes u undo it and refreshes
        every screen (this one reads its versions again)."""
        from rewind.tui.messages import Restored
        from rewind.tui.restore_actions import RestoreOutcome

        if not isinstance(outcome, RestoreOutcome):
            return
        if outcome.undoable:
            self.post_message(Restored(outcome))
        else:
            self.notify(outcome.message, severity="warning")

    def action_blame(self) -> None:
        from rewind.tui.blame_view import BlameScreen

        if self.store.read_only:
            self.notify(NO_BLAME_NOTICE, severity="warning")
            return

        def jump(version_id: str | None) -> None:
            if version_id is not None:
                self.select_version(version_id)

        self.app.push_screen(BlameScreen(self.store, self.session_id, self.path), jump)

    def action_open(self) -> None:
        """Asks for another path; its history replaces this one."""
        from rewind.tui.path_prompt import ask_path

        known = sorted({self.store.root.display(version.path) for version in self.versions})

        def open_it(path: bytes) -> None:
            self.app.switch_screen(FileHistoryScreen(self.store, self.session_id, path))

        ask_path(self, self.store, known, self.name_now, open_it)
