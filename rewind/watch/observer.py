"""The observer and the loop that drains its events.

watchdog's threads only append each event to a queue; this loop, on the main thread, filters
(:mod:`rewind.watch.ignore`), coalesces and caps (:mod:`rewind.watch.bursts`) and hands due
paths to the recorder in batches, one store-lock hold per batch. It blocks while nothing is
pending, so an idle watcher costs nothing but the kernel's inotify watches.
"""

from __future__ import annotations

import logging
import os
import queue
import sys
import time
import traceback
from collections.abc import Callable
from typing import TextIO

from watchdog.events import (
    DirCreatedEvent,
    DirMovedEvent,
    FileAttribEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer

from rewind.store.home import rewind_home
from rewind.store.project_repository import ProjectRepository
from rewind.store.repository import Store
from rewind.watch.bursts import Coalescer, Storms
from rewind.watch.ignore import IgnoreRules
from rewind.watch.preimages import PreImages
from rewind.watch.recorder import Change, Recorder

EVENTS: list[type[FileSystemEvent]] = [
    FileCreatedEvent,
    FileModifiedEvent,
    FileAttribEvent,
    FileDeletedEvent,
    FileMovedEvent,
    DirCreatedEvent,
    DirMovedEvent,
]
BATCH = 500  # paths per hold of the store lock
BATCH_INTERVAL = 0.1  # seconds between two batches at least (each is one commit)
IDLE_WAKE = 0.5  # seconds: how often an idle loop looks at its stop flag
STOP_GRACE = 0.3  # seconds: reading what the kernel queued before a stop


class _Enqueue(FileSystemEventHandler):
    """On watchdog's thread: only queue the event."""

    def __init__(self, events: queue.SimpleQueue[tuple[str, str, str, bool, float]]) -> None:
        super().__init__()
        self.events = events

    def on_any_event(self, event: FileSystemEvent) -> None:
        dest = event.dest_path if isinstance(event, FileMovedEvent | DirMovedEvent) else ""
        self.events.put(
            (
                event.event_type,
                os.fsdecode(event.src_path),
                os.fsdecode(dest),
                event.is_directory,
                time.monotonic(),
            )
        )


class _OverflowSignal(logging.Handler):
    """watchdog logs a warning when the kernel's inotify queue overflowed (events lost)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.overflowed = False

    def emit(self, record: logging.LogRecord) -> None:
        if "overflow" in record.getMessage().lower():
            self.overflowed = True


class Watcher:
    def __init__(
        self,
        store: Store,
        session: str | None,
        report: Callable[[str], None] | None = None,
    ) -> None:
        self.store = store
        self.report = report
        config = store.config
        root = store.root.path
        repository = ProjectRepository.open(root)
        self.ignore = IgnoreRules(
            root, [rewind_home(), store.git_dir], config.watch_exclude, repository
        )
        self.preimages = PreImages(store, repository)
        self.recorder = Recorder(store, session, self.preimages)
        self.coalescer = Coalescer(config.watch_quiet_ms / 1000, config.watch_max_delay_ms / 1000)
        gap = max(1.0, 2 * config.watch_quiet_ms / 1000)
        self.storms = Storms(config.watch_storm_files, gap, self.recorder.known)
        self.created_dirs: set[bytes] = set()
        self.events: queue.SimpleQueue[tuple[str, str, str, bool, float]] = queue.SimpleQueue()
        self.observer = Observer()
        self.prefix = root.rstrip(b"/") + b"/"
        self.stopping = False
        self.overflow = _OverflowSignal()
        self.overflow_reported = False
        self.recorded = 0
        self.last_batch = float("-inf")

    # life --------------------------------------------------------------------------------

    def start(self) -> None:
        self.recorder.prime()
        logging.getLogger("watchdog").addHandler(self.overflow)
        self.observer.schedule(
            _Enqueue(self.events),
            os.fsdecode(self.store.root.path),
            recursive=True,
            event_filter=EVENTS,
        )
        self.observer.daemon = True
        self.observer.start()
        if self.preimages.git is None:  # after the observer started: nothing falls between
            self.preimages.note_existing(self._files_now())

    def _files_now(self) -> set[bytes]:
        """Every file under the root that would be recorded (one walk, at start, outside git)."""
        found: set[bytes] = set()
        pending = [b""]
        root = self.store.root.path
        while pending:
            relative = pending.pop()
            try:
                entries = list(os.scandir(os.path.join(root, relative) if relative else root))
            except OSError:
                continue
            for entry in entries:
                name = os.path.join(relative, entry.name) if relative else entry.name
                if self.ignore.ignored(name):
                    continue
                if entry.is_dir(follow_symlinks=False):
                    pending.append(name)
                else:
                    found.add(name)
        return found

    def request_stop(self) -> None:
        """From a signal handler: only set a flag (the loop wakes within IDLE_WAKE)."""
        self.stopping = True

    def run(self) -> None:
        """Drains events until asked to stop; then records everything still pending."""
        try:
            while not self.stopping:
                self._step()
            # Events the kernel queued before the stop was asked for are still read.
            grace = time.monotonic() + STOP_GRACE
            while time.monotonic() < grace:
                self._step(wait=False)
        finally:
            self.observer.stop()
            self.observer.join(timeout=5)
            self._drain_queue()
            self._flush(self.coalescer.all())
            self._finish_burst(force=True)
            logging.getLogger("watchdog").removeHandler(self.overflow)

    def _step(self, wait: bool = True) -> None:
        now = time.monotonic()
        due = self.coalescer.next_due()
        if due is not None:  # batches at most every BATCH_INTERVAL: one commit for many paths
            due = max(due, self.last_batch + BATCH_INTERVAL)
        deadlines = [d for d in (due, self.storms.next_end()) if d]
        timeout = min([*deadlines, now + IDLE_WAKE]) - now if wait else 0.05
        try:
            item = self.events.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            item = None
        if item is not None:
            self._take(item)
            self._drain_queue()
        if self.overflow.overflowed and not self.overflow_reported:
            self.overflow_reported = True
            self.preimages.events_lost()
            self._problem(
                "the kernel dropped file events (inotify queue overflow): changes may have "
                "gone unrecorded, and files git reported clean are no longer taken as unchanged"
            )
        now = time.monotonic()
        if now >= self.last_batch + BATCH_INTERVAL or not wait:
            ready = self.coalescer.ready(now)
            if ready:
                self.last_batch = now
                self._flush(ready)
        if self.storms.burst_over(now):
            self._finish_burst()

    def _drain_queue(self, limit: int = 20000) -> None:
        for _ in range(limit):
            try:
                item = self.events.get_nowait()
            except queue.Empty:
                return
            self._take(item)

    # events ------------------------------------------------------------------------------

    def _relative(self, path: str) -> bytes | None:
        raw = os.fsencode(path)
        if not raw.startswith(self.prefix):
            return None
        relative = raw[len(self.prefix) :]
        if self.ignore.ignored(relative):
            return None
        return relative

    def _take(self, item: tuple[str, str, str, bool, float]) -> None:
        kind, source, dest, is_directory, when = item
        if kind == "stop":
            return
        if is_directory:
            if kind == "created":
                relative = self._relative(source)
                if relative is not None:
                    self.created_dirs.add(relative)
            return  # a moved directory's files come as their own events
        if kind == "moved":
            self._add(source, False, when)
            self._add(dest, False, when)
        else:
            self._add(source, kind == "created", when)

    def _add(self, path: str, created: bool, when: float) -> None:
        relative = self._relative(path)
        if relative is None:
            return
        if relative in self.coalescer or self.storms.admit(relative, when, time.time()):
            self.coalescer.add(relative, created, when)
        else:
            self.preimages.mark_seen(relative)

    def _missing_dirs(self, path: bytes) -> int:
        count = 0
        parent = os.path.dirname(path)
        while parent and parent in self.created_dirs:
            count += 1
            parent = os.path.dirname(parent)
        return count

    # recording ---------------------------------------------------------------------------

    def _flush(self, due: list[tuple[bytes, bool]]) -> None:
        for start in range(0, len(due), BATCH):
            part = due[start : start + BATCH]
            try:
                changes = [
                    self.recorder.capture(path, created, self._missing_dirs(path) if created else 0)
                    for path, created in part
                ]
                self._record(changes)
            except Exception as error:  # keep watching; say what went wrong
                self._problem(
                    f"{len(part)} change(s) could not be recorded: {error!r}\n"
                    + "".join(traceback.format_exception(error)).rstrip()
                )

    def _record(
        self, changes: list[Change], unrecorded: list[dict[str, object]] | None = None
    ) -> None:
        done = self.recorder.record(changes, unrecorded)
        self.recorded += len(done.changes)
        if self.report is not None:
            for letter, path in done.changes:
                self.report(f"{letter} {self.store.root.display(path)}  (session {done.session})")

    def _finish_burst(self, force: bool = False) -> None:
        if not force and not self.storms.burst_over(time.monotonic()):
            return
        summary = self.storms.finish()
        self.created_dirs.clear()
        if summary is None:
            return
        cap = self.storms.cap
        message = summary.describe(cap)
        self._problem(f"storm: {message}")
        try:
            self._record([], [summary.to_json(cap)])
        except Exception as error:
            self._problem(f"the storm's summary could not be recorded: {error!r}")

    def _problem(self, message: str) -> None:
        self.store.log_problem(f"watch: {message}")
        if self.report is not None:
            self.report(f"rewind watch: {message.splitlines()[0]}")


def stderr_reporter(stream: TextIO = sys.stderr) -> Callable[[str], None]:
    """Prints a line per change; once the stream is gone (a closed pipe), prints no more."""
    gone = False

    def report(line: str) -> None:
        nonlocal gone
        if gone:
            return
        try:
            print(line, file=stream, flush=True)
        except (OSError, ValueError):
            gone = True  # the recording goes on; only the output stops

    return report
