"""What an adapter works with: the event's payload, the project's store, and the actions that
map events onto turns, all tolerant of events that arrive out of order."""

from __future__ import annotations

import os
import time

from rewind.errors import UserError
from rewind.fastjson import load_object
from rewind.home import rewind_home
from rewind.recording import begin, record_after, track
from rewind.root import find_root
from rewind.session import new_session_id
from rewind.store import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rewind.filestate import FileState


class HookContext:
    """One hook invocation: ``payload`` is the event, ``store`` the project's once opened."""

    def __init__(self, agent: str) -> None:
        self.agent = agent
        self.payload: dict[str, object] = {}
        self.store: Store | None = None

    def read_payload(self, text: str) -> None:
        if not text.strip():
            raise ValueError("the event had no payload")
        self.payload = load_object(text)

    # payload fields ------------------------------------------------------------------------

    def text(self, *keys: str) -> str:
        """The first of ``keys`` that holds a non-empty string (payload shapes vary)."""
        for key in keys:
            value = self.payload.get(key)
            if isinstance(value, str) and value:
                return value
        return ""

    def mapping(self, key: str) -> dict[str, object]:
        value = self.payload.get(key)
        return value if isinstance(value, dict) else {}

    def session_id(self, *keys: str) -> str:
        """The agent's session id, or one that stays the same for this project directory."""
        found = self.text(*keys)
        return found or f"{self.agent}-{new_session_id()}"

    # the store -----------------------------------------------------------------------------

    def open_store(self, directory: str) -> Store:
        start = os.fsencode(directory) if directory else os.getcwdb()
        if not os.path.isdir(start):
            raise UserError(f"the event's directory {directory!r} does not exist")
        self.store = Store.for_root(find_root(start), create=True)
        return self.store

    def stored_names(self, paths: list[str], base: str) -> list[bytes]:
        """The recordable names of ``paths`` (relative ones are relative to ``base``); a path
        rewind must not record (outside the root, inside .git) is logged and left out."""
        assert self.store is not None
        names = []
        for path in paths:
            try:
                names.append(self.store.root.stored_name(path, cwd=os.fsencode(base or ".")))
            except UserError as error:
                self.log(f"{self.agent}: not recorded: {error}")
        return names

    # actions -------------------------------------------------------------------------------

    def start_turn(self, session: str, prompt: str) -> None:
        assert self.store is not None
        begin(self.store, session, prompt=prompt, agent=self.agent)

    def before_change(self, session: str, names: list[bytes]) -> dict[bytes, FileState]:
        """Records the paths before they change; with no open turn, one is started."""
        assert self.store is not None
        if not names:
            return {}
        return track(self.store, session, names, agent=self.agent)

    def after_change(self, session: str, names: list[bytes] | None = None) -> None:
        """Records after-states (of ``names``, or of every file of the open turn)."""
        assert self.store is not None
        record_after(self.store, session, names)

    def end_turn(self, session: str) -> None:
        assert self.store is not None
        record_after(self.store, session, close=True)

    # the log -------------------------------------------------------------------------------

    def log(self, message: str) -> None:
        if self.store is not None:
            self.store.log_problem(f"hook {self.agent}: {message}")
            return
        path = os.path.join(rewind_home(), "hooks.log")
        line = time.strftime("%Y-%m-%dT%H:%M:%S") + f" [{os.getpid()}] hook {self.agent}: "
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(line + message + "\n")
        except OSError:
            pass

    def log_failure(self, error: BaseException) -> None:
        event = self.text("hook_event_name", "type") or "?"
        if isinstance(error, UserError | ValueError):
            self.log(f"event {event} ignored: {error}")
            return
        import traceback

        details = "".join(traceback.format_exception(error)).rstrip()
        self.log(f"event {event} failed (a bug in rewind): {details}")
