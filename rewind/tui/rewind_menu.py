"""The rewind menu: a session's turns oldest first, as the timeline lists them, the turn
selected there (else the newest) chosen to start with; choose one, then restore the code and the
conversation to before it, the code alone or the conversation alone (for the agents whose
conversation rewind can resume: docs/conversation.md), choose the files to restore, or see its
checkpoint against now."""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from rewind.actions.changes import RestorePlan
from rewind.actions.resuming import check as check_resume
from rewind.actions.resuming import cut_point_of
from rewind.errors import UserError
from rewind.history.entry import TURN, Entry, first_line
from rewind.history.insight.diffs import ADDED, DELETED, MODIFIED, PENDING, entry_diffs
from rewind.history.session import load_head
from rewind.history.sessions import read_entries
from rewind.store.repository import Store
from rewind.tui.confirm_restore import ConfirmRestore
from rewind.tui.dialog import Dialog
from rewind.tui.diff_now import DiffNow, checkpoint_diffs
from rewind.tui.file_choice import FileChoice
from rewind.tui.keys import Options
from rewind.tui.restore_actions import RestoreOutcome, plan_for, restore

ACTIONS = (
    ("both", "Restore code and conversation to before this turn"),
    ("restore", "Restore code to before this turn"),
    ("conversation", "Resume the conversation from before this turn"),
    ("choose", "Choose files to restore…"),
    ("diff", "Show the diff against now"),
    ("never", "Never mind"),
)
# The actions shown only for a turn whose conversation can be resumed.
CONVERSATION_ACTIONS = frozenset({"both", "conversation"})
PROMPT_WIDTH = 40


def change_summary(store: Store, entry: Entry) -> str:
    """Files and +/- lines of an entry: ``3 files +12 -4``."""
    diffs = entry_diffs(store, entry)
    count = f"{len(diffs)} file" + ("" if len(diffs) == 1 else "s")
    if any(diff.status == PENDING for diff in diffs):
        return f"{count}, turn still open"
    counted = [d for d in diffs if d.status in (ADDED, DELETED, MODIFIED) and not d.binary]
    if not counted and any(diff.binary for diff in diffs):
        return f"{count}, binary"  # no lines to count: not "+0 -0"
    added = sum(diff.added for diff in counted)
    removed = sum(diff.removed for diff in counted)
    return f"{count} +{added} -{removed}"


def turn_line(store: Store, entry: Entry) -> Text:
    prompt = first_line(entry.prompt, PROMPT_WIDTH) or "(no prompt)"
    line = Text(f"{entry.number:>4}  ")
    line.append(f"{prompt:<{PROMPT_WIDTH}}", style="" if entry.kind == TURN else "italic")
    line.append(f"  {change_summary(store, entry)}", style="dim")
    return line


def _not_resumable(entry: Entry) -> str:
    """Why the conversation of ``entry`` cannot be resumed ('' when it can)."""
    try:
        cut_point_of(entry)
    except UserError as error:
        return str(error).split("; ")[0]
    return ""


class RewindMenu(Dialog[RestoreOutcome | None]):
    """Returns what a restore did, or None when the person changed their mind."""

    DEFAULT_CSS = """
    RewindMenu > Vertical {
        width: 90%;
        max-width: 100;
        height: auto;
        max-height: 90%;
    }
    RewindMenu .title {
        width: 1fr;
        margin-bottom: 1;
    }
    RewindMenu OptionList {
        height: auto;
        max-height: 60vh;
    }
    RewindMenu #actions {
        display: none;
    }
    RewindMenu.choosing #turns {
        display: none;
    }
    RewindMenu.choosing #actions {
        display: block;
    }
    RewindMenu .hint {
        width: 1fr;
        margin-top: 1;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "back", "Back")]

    def __init__(self, store: Store, session_id: str, selected: str | None = None) -> None:
        """``selected``: the id of the entry the timeline has selected, highlighted first."""
        super().__init__()
        self.store = store
        self.session_id = session_id
        self.entries = read_entries(store, load_head(store, session_id))
        self.entry: Entry | None = None
        self.selected = selected

    def compose(self) -> ComposeResult:
        turns = [Option(turn_line(self.store, e), id=e.id) for e in self.entries]
        with Vertical():
            yield Label(self._title(), id="title", classes="title")
            yield Options(*turns, id="turns")
            yield Options(id="actions")
            yield Label(self._hint(), id="hint", classes="hint")

    def _title(self) -> str:
        if self.entry is None:
            return f"Rewind session {self.session_id}: choose a turn"
        prompt = first_line(self.entry.prompt, 60) or "(no prompt)"
        return f"Turn {self.entry.number}: {prompt}"

    def _hint(self) -> str:
        if not self.entries:
            return "This session has no turns yet · Esc closes"
        if self.entry is None:
            return "↑↓ move · Enter chooses · Esc closes"
        keys = "↑↓ move · Enter chooses · Esc goes back to the turns"
        why = _not_resumable(self.entry)
        return f"{keys}\nThe conversation stays as it is: {why}" if why else keys

    def on_mount(self) -> None:
        turns = self.query_one("#turns", OptionList)
        ids = [entry.id for entry in self.entries]
        if ids:  # the timeline's selection, else the newest, as the timeline starts
            turns.highlighted = ids.index(self.selected) if self.selected in ids else len(ids) - 1
        turns.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_list.id == "turns":
            self._choose_turn(event.option.id)
        elif event.option.id == "restore":
            self._restore()
        elif event.option.id == "both":
            self._restore(resume=True)
        elif event.option.id == "conversation":
            self._resume()
        elif event.option.id == "choose":
            self._choose_files()
        elif event.option.id == "diff":
            self._show_diff()
        else:
            self.dismiss(None)

    def _choose_turn(self, entry_id: str | None) -> None:
        self.entry = next(e for e in self.entries if e.id == entry_id)
        self._show_stage()

    def _show_stage(self) -> None:
        if self.entry is not None:
            resumable = not _not_resumable(self.entry)
            actions = self.query_one("#actions", OptionList)
            actions.clear_options()
            actions.add_options(
                Option(text, id=key)
                for key, text in ACTIONS
                if resumable or key not in CONVERSATION_ACTIONS
            )
        self.set_class(self.entry is not None, "choosing")
        self.query_one("#title", Label).update(self._title())
        self.query_one("#hint", Label).update(self._hint())
        stage = "#actions" if self.entry is not None else "#turns"
        actions = self.query_one(stage, OptionList)
        actions.highlighted = 0 if self.entry is not None else actions.highlighted
        actions.focus()

    def action_back(self) -> None:
        if self.entry is None:
            self.dismiss(None)
        else:
            self.entry = None
            self._show_stage()

    def _plan(self) -> RestorePlan | None:
        assert self.entry is not None
        try:
            return plan_for(self.store, self.session_id, self.entry.id)
        except UserError as error:
            self.notify(str(error), severity="error")
            return None

    def _restore(self, resume: bool = False) -> None:
        if resume and not self._client_ready():
            return
        plan = self._plan()
        if plan is not None:
            self._confirm(plan, {f.path for f in plan.files}, resume)

    def _resume(self) -> None:
        assert self.entry is not None
        if self._client_ready():
            message = f"Resuming the conversation from before turn {self.entry.number}…"
            self.dismiss(RestoreOutcome(message, resume=self.entry))

    def _client_ready(self) -> bool:
        """Whether the conversation can be resumed: its transcript as it was, the agent's
        client installed and of a version rewind resumes (else says why)."""
        assert self.entry is not None
        try:
            check_resume(self.store, self.entry)
        except UserError as error:
            self.notify(str(error), severity="error")
            return False
        return True

    def _choose_files(self) -> None:
        plan = self._plan()
        if plan is None:
            return

        def chosen(paths: set[bytes] | None) -> None:
            if paths:
                self._confirm(plan, paths)
            elif paths is not None:
                self.notify("No file was chosen; nothing was restored.")

        self.app.push_screen(FileChoice(plan), chosen)

    def _confirm(self, plan: RestorePlan, chosen: set[bytes], resume: bool = False) -> None:
        def confirmed(forced: set[bytes] | None) -> None:
            if forced is None:
                return
            outcome = restore(self.store, plan, forced, chosen)
            if resume and outcome.undoable:  # the files are back: the conversation follows
                outcome = replace(outcome, resume=self.entry)
            self.dismiss(outcome)

        then = "resume the conversation" if resume else ""
        self.app.push_screen(ConfirmRestore(plan, chosen, then), confirmed)

    def _show_diff(self) -> None:
        assert self.entry is not None
        try:
            diffs = checkpoint_diffs(self.store, self.entries, self.entry)
        except UserError as error:
            self.notify(str(error), severity="error")
            return
        title = f"Before turn {self.entry.number} → now (Esc closes)"
        self.app.push_screen(DiffNow(title, diffs))
