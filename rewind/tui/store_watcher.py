"""Watching the store for what hooks record (other processes), with watchdog.

Events arrive on watchdog's thread; the watcher posts one :class:`StoreWatcher.Changed` to the
app per event, and the app coalesces them (a turn writes several files in a burst).
"""

from __future__ import annotations

import os
from typing import Any

from textual.app import App
from textual.message import Message
from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from rewind.history.journal import JOURNAL_DIR
from rewind.store.repository import Store


class StoreWatcher(FileSystemEventHandler):
    class Changed(Message):
        """Something under the store's refs, session caches or journals changed."""

    def __init__(self, store: Store, app: App[Any]) -> None:
        super().__init__()
        self.app = app
        self.observer = Observer()
        journals = store.state_path(JOURNAL_DIR)  # the open turns' records, as hooks append them
        try:
            os.makedirs(journals, exist_ok=True)
        except OSError:
            pass  # a read-only store: nothing will be appended either
        for directory in (
            os.path.join(store.git_dir, "refs"),
            store.state_path("sessions"),
            journals,
        ):
            if os.path.isdir(directory):
                self.observer.schedule(self, directory, recursive=True)

    def start(self) -> None:
        self.observer.daemon = True
        self.observer.start()

    def stop(self) -> None:
        self.observer.stop()
        self.observer.join(timeout=2)

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return  # reads (our own included) change nothing
        self.app.post_message(self.Changed())
