"""The observer and the loop that drains its events.

watchdog's threads only append each event to a queue; this loop, on the main thread, filters
(:mod:`rewind.watch.ignore`), coalesces and caps (:mod:`rewind.watch.bursts`) and hands due
paths to the recorder in batches, one store-lock hold per batch. It blocks while nothing is
pending, so an idle watcher costs nothing but the kernel's inotify watches.

The hooks' requests (rewind.watch.listener) come through the same queue: a shell call begins
or ends (rewind.watch.windows), or a **barrier**: every change made before the request is to
be recorded before it is answered. A barrier sets the project root's permission bits to what
they are; the kernel reports that as an attribute change of the root, queued behind every
event of the project it queued before, and read by the same watchdog thread in the same order.
When that event comes out of the queue, every earlier change has been taken in: they are all
recorded at once, quiet or not, and the request is answered.
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
    DirAttribEvent,
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

from rewind.history.entry import Unrecorded
from rewind.store.home import rewind_home
from rewind.store.project_repository import ProjectRepository
from rewind.store.repository import Store
from rewind.watch.bursts import Coalescer, Pending, Storms
from rewind.watch.channel import supported
from rewind.watch.ignore import IgnoreRules
from rewind.watch.listener import Listener, Request
from rewind.watch.markers import Markers
from rewind.watch.pidfile import INFO_NAME
from rewind.watch.preimages import PreImages
from rewind.watch.recorder import Change, Recorder
from rewind.watch.snapshot import Snapshot, SnapshotRound
from rewind.watch.windows import ShellCalls

EVENTS: list[type[FileSystemEvent]] = [
    FileCreatedEvent,
    FileModifiedEvent,
    FileAttribEvent,
    FileDeletedEvent,
    FileMovedEvent,
    DirCreatedEvent,
    DirMovedEvent,
    DirAttribEvent,  # the root's: a barrier's marker
]
BATCH = 500  # paths per hold of the store lock
BATCH_INTERVAL = 0.1  # seconds between two batches at least (each is one commit)
IDLE_WAKE = 0.5  # seconds: how often an idle loop looks at its stop flag
STOP_GRACE = 0.3  # seconds: reading what the kernel queued before a stop
HEARTBEAT = 5.0  # seconds between two touches of the pid file (when the watcher was last alive)
Event = tuple[str, str, str, bool, float]


class _Enqueue(FileSystemEventHandler):
    """On watchdog's thread: only queue the event."""

    def __init__(self, events: queue.SimpleQueue[Event | Request]) -> None:
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
        idle_exit: float | None = None,
    ) -> None:
        """``idle_exit``: seconds without a hook's request after which the watcher stops (one
        a hook started; None: it runs until stopped)."""
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
        self.events: queue.SimpleQueue[Event | Request] = queue.SimpleQueue()
        self.observer = Observer()
        self.prefix = root.rstrip(b"/") + b"/"
        self.stopping = False
        self.overflow = _OverflowSignal()
        self.overflow_reported = False
        self.recorded = 0
        self.last_batch = float("-inf")
        # The hooks' requests: shell calls, barriers waiting for their marker.
        self.calls = ShellCalls()
        self.listener: Listener | None = None
        self.markers = Markers(store.root.path, self._problem)
        self.idle_exit = idle_exit
        self.snapshot = Snapshot(store)
        self.snapshot_round: SnapshotRound | None = None
        self.snapshot_wanted = False
        self.last_request = time.monotonic()
        self.last_beat = time.monotonic()

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
        # Read before the hooks can be answered: a shell call that began while the snapshot
        # was read would change files it has not read yet.
        self._take_snapshot()
        self._listen()

    def _listen(self) -> None:
        """Opens the hooks' channel (rewind.watch.channel); without it the watcher still
        records, as watch mode always did, and says why."""
        if not supported():
            return
        try:
            self.listener = Listener(self.store.git_dir, self._deliver)
        except OSError as error:
            self._problem(
                f"the hooks' channel could not be opened ({error}): shell calls are "
                "not told apart, and no barrier waits for the watcher"
            )
            return
        self.listener.start()

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
        """From a signal handler: sets a flag and wakes the loop with a "stop" event (a
        SimpleQueue's put may be called from a signal handler), so that the watcher ends at
        once rather than at its next idle wake-up."""
        self.stopping = True
        self.events.put(("stop", "", "", False, time.monotonic()))

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
            if self.listener is not None:
                self.listener.close()
            self.observer.stop()
            self.observer.join(timeout=5)
            self._drain_queue()
            self._marker_arrived(self.markers.everything(), time.monotonic())
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
        self._keep_alive(now)

    def _keep_alive(self, now: float) -> None:
        """Touches the pid file now and then (when a killed watcher was last alive), and stops
        a watcher a hook started once no hook has asked anything for ``idle_exit`` seconds
        (said once: the steps of its last grace come here too)."""
        if self.stopping:
            return
        if now - self.last_beat >= HEARTBEAT:
            self.last_beat = now
            try:
                os.utime(self.store.state_path(INFO_NAME))
            except OSError:
                pass
            if not os.path.isdir(self.store.root.path):
                self._problem("the project's folder is gone: the watcher ends")
                self.stopping = True
        if not self.observer.is_alive() or not all(e.is_alive() for e in self.observer.emitters):
            self._problem(
                "the file observer stopped (the kernel's inotify limit reached for a new "
                "directory?): this watcher ends, and the next hook starts another"
            )
            self.stopping = True
        idle = now - self.last_request
        if self.idle_exit is not None and idle >= self.idle_exit and not self.calls.any_open():
            self._problem(f"stopped after {idle / 60:.0f} minutes without an agent's request")
            self.stopping = True

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

    def _take(self, item: Event | Request) -> None:
        if isinstance(item, Request):
            self._answer(item)
            return
        kind, source, dest, is_directory, when = item
        if kind == "stop":
            return
        if is_directory and kind == "attrib":
            if os.fsencode(source).rstrip(b"/") == self.prefix.rstrip(b"/"):
                self._marker_arrived(self.markers.arrived(), when)
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
        if self.snapshot_round is not None:
            self.snapshot_round.saw(relative, when)
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

    def _flush(self, due: list[tuple[bytes, Pending]]) -> None:
        for start in range(0, len(due), BATCH):
            part = due[start : start + BATCH]
            try:
                changes = [
                    self.recorder.capture(
                        path,
                        pending.created,
                        self._missing_dirs(path) if pending.created else 0,
                        pending.first,
                        pending.last,
                    )
                    for path, pending in part
                ]
                self._record_by_call(changes)
            except Exception as error:  # keep watching; say what went wrong
                self._problem(
                    f"{len(part)} change(s) could not be recorded: {error!r}\n"
                    + "".join(traceback.format_exception(error)).rstrip()
                )

    def _record_by_call(self, changes: list[Change]) -> None:
        """Records each change of a path an open turn holds in that turn's session (its agent's
        own edit, when two sessions work at once); the others as the program's of the shell
        call they happened in (into that call's session), or as external changes."""
        owners = self.recorder.open_turn_owners({change.path for change in changes})
        groups: dict[tuple[str, str] | None, list[Change]] = {}
        for change in changes:
            owner = owners.get(change.path)
            call = None if owner else self.calls.covering(change.first, change.last)
            if owner is not None:
                key: tuple[str, str] | None = (owner, "")
            else:
                key = (call.session, call.agent) if call is not None else None
            groups.setdefault(key, []).append(change)
        for key, group in groups.items():
            self._record(group, program_of=key)
        for change in changes:  # the snapshot no longer says what they hold
            self.preimages.forget(change.path)

    def _record(
        self,
        changes: list[Change],
        unrecorded: list[Unrecorded] | None = None,
        program_of: tuple[str, str] | None = None,
    ) -> None:
        done = self.recorder.record(changes, unrecorded, program_of)
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
            self._record([], [summary.unrecorded(cap)])
        except Exception as error:
            self._problem(f"the storm's summary could not be recorded: {error!r}")

    # the hooks' requests -------------------------------------------------------------------

    def _answer(self, request: Request) -> None:
        now = time.monotonic()
        self.last_request = now
        operation = request.text("op")
        if operation in ("end-shell", "barrier", "turn-start"):
            if operation != "end-shell":  # the turn began or ended: its calls are over
                self.calls.end_all(request.text("session"), now, request.received)
            if not self.markers.want(request):
                self._marker_arrived([request], now)  # no marker: what is queued now
        elif operation == "status":
            request.answer(self._status())
        else:
            request.answer({"ok": False, "error": f"unknown request {operation!r}"})

    def _deliver(self, request: Request) -> None:
        """On the channel's thread: a shell call begins at once (its command waits for the
        answer, so its changes come after); the rest waits for the loop."""
        operation = request.text("op")
        now = time.monotonic()
        if operation == "begin-shell":
            self.last_request = now
            session, agent = request.text("session"), request.text("agent")
            self.calls.begin(session, request.text("call"), agent, now)
            request.answer({"ok": True})
            return
        self.events.put(request)

    def _snapshot_now(self) -> None:
        """A snapshot now, or once the one under way is done."""
        if self.snapshot_round is None:
            self._take_snapshot()
        else:
            self.snapshot_wanted = True

    def _take_snapshot(self) -> None:
        """Reads what the files git does not hold (every file, outside git) hold now; its
        states count once its marker comes back (rewind.watch.snapshot)."""
        began = time.monotonic()
        try:
            states = self.snapshot.take(self._snapshot_names())
        except Exception as error:  # keep watching; say what went wrong
            self._problem(f"the snapshot of the files git does not hold failed: {error!r}")
            return
        if self.snapshot.left_out:
            self._problem(
                f"the snapshot kept {len(states)} files and left {self.snapshot.left_out} out "
                "(past its limits): their changes by programs are not rewindable"
            )
        round_ = SnapshotRound(states, began)
        if self.markers.want(round_):
            self.snapshot_round = round_
        # else: without a marker, what was read cannot be ordered with the events: not used

    def _snapshot_names(self) -> list[bytes]:
        if self.preimages.git is None:
            return sorted(self.preimages.existing or ())
        from rewind.store.git_status import changed_paths

        names = changed_paths(self.store.root.path)
        return [name for name in names if not name.endswith(b"/") and not self.ignore.ignored(name)]

    def _marker_arrived(self, waiters: list[object], when: float) -> None:
        """A marker came out of the queue (``when``): every event queued before it is in. A
        snapshot it carried counts from now on; the barriers it carried end their calls,
        everything pending is recorded, and they are answered."""
        requests = [waiter for waiter in waiters if isinstance(waiter, Request)]
        for waiter in waiters:
            if isinstance(waiter, SnapshotRound) and waiter is self.snapshot_round:
                self.snapshot_round = None
                self.preimages.take_snapshot(waiter.trusted(), when)
                if self.snapshot_wanted:
                    self.snapshot_wanted = False
                    self._take_snapshot()
        if not requests:
            return
        for request in requests:
            if request.text("op") == "end-shell":
                self.calls.end(request.text("session"), request.text("call"), when)
        self._flush(self.coalescer.all())
        for request in requests:
            request.answer({"ok": True, "recorded": self.recorded})
        if any(request.text("op") == "turn-start" for request in requests):
            self._snapshot_now()  # what git does not hold, as the turn begins

    def _status(self) -> dict[str, object]:
        return {
            "ok": True,
            "pid": os.getpid(),
            "recorded": self.recorded,
            "overflowed": self.overflow.overflowed,
            "calls": len(self.calls.calls),
        }

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
