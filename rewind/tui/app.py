"""``RewindApp``: the project's store, its screens, the Esc Esc menu and live updates."""

from __future__ import annotations

import importlib
import os
import time
from typing import Any, ClassVar

from textual import events, on
from textual.app import App
from textual.binding import Binding, BindingType
from textual.timer import Timer

from rewind.actions import stores
from rewind.history.entry import Entry
from rewind.history.sessions import resolve_session
from rewind.store.repository import Store
from rewind.store.root import find_root
from rewind.tui.help_screen import HelpScreen, binding_rows
from rewind.tui.messages import Restored, SessionChosen
from rewind.tui.origin import Fetched, Opened, open_remote, refused
from rewind.tui.store_watcher import StoreWatcher
from rewind.tui.timeline_screen import TimelineScreen

DOUBLE_ESCAPE_SECONDS = 0.5
NOTICE_SECONDS = 3.0
REFRESH_DELAY = 0.15  # coalesces the burst of writes one hook call makes


def open_store(directory: str) -> Store:
    """The store of the project holding ``directory`` (as ``open_current_store``)."""
    return stores.open_store(find_root(os.fsencode(os.path.abspath(directory))))


class RewindApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "rewind"
    # Toasts sit at the top right (app.tcss), off the diff: short, they hide little for long.
    NOTIFICATION_TIMEOUT: ClassVar[float] = NOTICE_SECONDS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit"),
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True),
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("u", "undo", "Undo"),
        Binding("U", "redo", "Redo"),
    ]

    def __init__(
        self,
        directory: str,
        session: str | None = None,
        watch: bool = True,
        remote: str | None = None,
    ) -> None:
        super().__init__()
        self.local_store = open_store(directory)  # the project's own: the sessions screen lists
        if remote is not None:  # a fetched session: a read-only view of the remote's mirror
            opened = open_remote(self.local_store, remote, session)
        else:
            opened = Opened(self.local_store, resolve_session(self.local_store, session))
        # The session on screen: what the rewind menu and 'u' act on (never a fetched one).
        self.store = opened.store
        self.session_id = opened.session_id
        self.fetched: Fetched | None = opened.fetched
        self.watch_store = watch  # the local store's; a fetched view changes only on 'rewind fetch'
        self.watcher: StoreWatcher | None = None
        # 'u' takes back a restore made here, then the ones before it; 'U' puts back what 'u'
        # took back (rewind.history.restoring.undo_stack).
        self.undoable = False
        self.redoable = False
        self.undo_session = self.session_id  # where the last restore was recorded: 'u' undoes it
        # The turn whose conversation 'rewind tui' resumes once the TUI has closed (the rewind
        # menu's "conversation" choices).
        self.resume: Entry | None = None
        self._last_escape = 0.0
        self._refresh_timer: Timer | None = None

    def on_mount(self) -> None:
        self.push_screen(
            TimelineScreen(self.store, self.session_id, self.fetched, self.local_store)
        )
        self._watch_local()

    def _watch_local(self) -> None:
        """Starts watching the project's store, once a local session is on screen."""
        if self.watch_store and self.watcher is None and self.fetched is None:
            self.watcher = StoreWatcher(self.local_store, self)
            self.watcher.start()

    @on(SessionChosen)
    def _open_session(self, message: SessionChosen) -> None:
        """Shows the session chosen in the sessions screen, local or fetched, in place of the
        timeline on screen."""
        opened = message.opened
        self.store, self.session_id, self.fetched = opened.store, opened.session_id, opened.fetched
        self.refresh_bindings()
        timeline = TimelineScreen(opened.store, opened.session_id, opened.fetched, self.local_store)
        self.switch_screen(timeline)
        self._watch_local()

    def on_unmount(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()

    # Esc Esc -----------------------------------------------------------------------------

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and event.key == "escape" and not event.is_forwarded:
            now = time.monotonic()
            if now - self._last_escape <= DOUBLE_ESCAPE_SECONDS:
                self._last_escape = 0.0
                self.open_rewind_menu()
                return
            self._last_escape = now
        await super().on_event(event)

    def open_rewind_menu(self) -> None:
        if refused(self, self.store):
            return
        RewindMenu = _optional("rewind.tui.rewind_menu", "RewindMenu")
        if RewindMenu is None:
            self.notify("rewind menu not available", severity="warning")
            return
        if any(isinstance(screen, RewindMenu) for screen in self.screen_stack):
            return
        screen = self.screen
        selected = None
        if isinstance(screen, TimelineScreen):
            self.session_id = screen.session_id
            selected = screen.selected_entry_id()
        self.push_screen(RewindMenu(self.store, self.session_id, selected), self.restored)

    def restored(self, outcome: Any, hint: bool = True) -> None:
        """Shows what a restore did (``hint``: adds that ``u`` undoes it) and the new entry."""
        if outcome is None:
            return
        if getattr(outcome, "resume", None) is not None:  # the agent's client takes over
            self.resume = outcome.resume
            self.exit()
            return
        self.undoable = bool(outcome.undoable)
        self.redoable = False  # a new restore: nothing to redo (as in an editor)
        self.undo_session = self.session_id  # restores are recorded in the session on screen
        self.refresh_bindings()
        self.notify(outcome.message + ("  (u: undo)" if hint and self.undoable else ""))
        self.refresh_views(newest=bool(outcome.undoable))

    @on(Restored)
    def _put_back(self, message: Restored) -> None:
        self.restored(message.outcome, hint=False)  # its message says that 'u' undoes it

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "undo":
            # None: in the footer, dimmed, until a restore; on a fetched session 'u' says why
            # it does nothing.
            return True if self.undoable or self.store.read_only else None
        if action == "redo":
            return self.redoable  # shown only when there is one to redo
        return True

    def action_undo(self) -> None:
        if refused(self, self.store):
            return
        undo_last = _optional("rewind.tui.restore_actions", "undo_last")
        if undo_last is None:
            self.notify("rewind menu not available", severity="warning")
            return
        outcome = undo_last(self.local_store, self.undo_session)
        self._stepped(outcome)

    def action_redo(self) -> None:
        redo_last = _optional("rewind.tui.restore_actions", "redo_last")
        if redo_last is None or not self.redoable:
            return
        self._stepped(redo_last(self.local_store, self.undo_session))

    def _stepped(self, outcome: Any) -> None:
        """After 'u' or 'U': where the session now stands among its restores."""
        from rewind.actions.reading import undo_stack
        from rewind.history.session import load_head

        stack = undo_stack(self.local_store, load_head(self.local_store, self.undo_session))
        self.undoable = stack.next_undo() is not None
        self.redoable = stack.next_redo() is not None
        self.refresh_bindings()
        more = [
            key for key, able in (("u: undo", self.undoable), ("U: redo", self.redoable)) if able
        ]
        self.notify(outcome.message + (f"  ({', '.join(more)})" if more else ""))
        self.refresh_views(newest=True)

    # help --------------------------------------------------------------------------------

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        self.push_screen(HelpScreen(all_bindings()))

    # live updates ------------------------------------------------------------------------

    @on(StoreWatcher.Changed)
    def _store_changed(self) -> None:
        if self._refresh_timer is not None:
            self._refresh_timer.stop()
        self._refresh_timer = self.set_timer(REFRESH_DELAY, self.refresh_views)

    def refresh_views(self, newest: bool = False) -> None:
        """Shows what was recorded since; ``newest``: after a restore, an undo or a redo made
        here, the timeline goes to the entry that recorded it."""
        self._refresh_timer = None
        for screen in self.screen_stack:
            if isinstance(screen, TimelineScreen):
                screen.reload(newest)
            elif hasattr(screen, "reload"):
                screen.reload()


def _optional(module: str, name: str) -> Any:
    """``module.name``, or None while that module is not there (the rewind menu is optional).
    Only its absence is: a module that is there but cannot be imported (an import inside it
    that fails) raises, so that a broken menu is seen, never silently gone."""
    try:
        found = importlib.import_module(module)
    except ModuleNotFoundError as missing:
        if missing.name != module:
            raise
        return None
    return getattr(found, name)


def all_bindings() -> list[tuple[str, str, str]]:
    from rewind.tui.blame_view import BlameScreen
    from rewind.tui.confirm_partial import ConfirmPartial
    from rewind.tui.confirm_restore import ConfirmRestore
    from rewind.tui.file_choice import Checks, FileChoice
    from rewind.tui.file_history_screen import FileHistoryScreen
    from rewind.tui.hunk_picker import HunkList, HunkPicker, LineList
    from rewind.tui.keys import LIST_KEYS
    from rewind.tui.label_dialog import LabelDialog
    from rewind.tui.sessions_screen import SessionsScreen

    owners: list[tuple[str, list[BindingType]]] = [
        ("anywhere", RewindApp.BINDINGS),
        ("timeline", TimelineScreen.BINDINGS),
        ("file history", FileHistoryScreen.BINDINGS),
        ("blame", BlameScreen.BINDINGS),
        ("sessions", SessionsScreen.BINDINGS),
        ("label dialog", LabelDialog.BINDINGS),
    ]
    RewindMenu = _optional("rewind.tui.rewind_menu", "RewindMenu")
    if RewindMenu is not None:
        owners.append(("rewind menu", RewindMenu.BINDINGS))
    owners += [
        ("choose files", FileChoice.BINDINGS + Checks.BINDINGS),
        ("confirm restore", ConfirmRestore.BINDINGS + Checks.BINDINGS),
        ("put back hunks", HunkList.BINDINGS + HunkPicker.BINDINGS),
        ("hunk lines", LineList.BINDINGS),
        ("confirm put back", ConfirmPartial.BINDINGS),
        ("help", HelpScreen.BINDINGS),
        ("lists", LIST_KEYS),
    ]
    return binding_rows(*owners)
