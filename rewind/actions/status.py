"""``rewind status``: where the project's recording stands, read without needing a usable store
(what cannot be read is said as a problem, never raised): the store and its disk, the current
session and its newest entry, the watcher, an interrupted restore, the logs hooks wrote."""

from __future__ import annotations

import os
from dataclasses import dataclass

from rewind.actions.projects import project_root
from rewind.errors import UserError
from rewind.history.entry import Entry
from rewind.history.restoring.opening import open_store
from rewind.history.session import load_head, recent_session
from rewind.store.event_log import STATS_DIR
from rewind.store.failure_log import ProblemLog, problem_logs
from rewind.store.gc_record import GC_RECORD, GcRecord, read_gc_record
from rewind.store.home import store_dir_for
from rewind.store.repository import JOURNAL, Store
from rewind.store.size_estimate import estimated_size
from rewind.store.storage_check import StorageCheck, check_store_directory, human_size
from rewind.watch.pidfile import running_info


@dataclass(frozen=True)
class ProjectStatus:
    """``store`` is None before the first recording, or when it cannot be opened
    (``unopened`` says why)."""

    root: bytes
    store_dir: str
    store: Store | None
    storage: StorageCheck
    unopened: str
    session: str | None
    newest: Entry | None
    watcher: dict[str, object] | None
    interrupted_restore: bool
    logs: list[ProblemLog]

    @property
    def exists(self) -> bool:
        return os.path.exists(os.path.join(self.store_dir, "HEAD"))

    @property
    def problems(self) -> list[str]:
        return [problem for problem in (self.unopened, self.storage_problem) if problem]

    @property
    def storage_problem(self) -> str:
        storage = self.storage
        if storage.problem:
            return f"hooks record nothing: {storage.problem}"
        if storage.low_on_space:
            free = human_size(storage.free or 0)
            return (
                f"only {free} free on the disk of {storage.checked}; free space before it runs out."
            )
        return ""

    @property
    def recording(self) -> bool:
        """Whether hooks can record (``rewind status`` exits 1 when not)."""
        return not (self.unopened or self.storage.problem)

    def last_gc(self) -> GcRecord | None:
        return read_gc_record(self.store.state_path(STATS_DIR, GC_RECORD)) if self.store else None

    def size(self) -> int | None:
        """About the store's size on disk: the size the last gc measured, plus an estimate of
        what was written since (rewind.store.size_estimate; measuring walks the whole store)."""
        return (
            None if self.store is None else int(estimated_size(self.store.git_dir, self.last_gc()))
        )


def project_status(cwd: bytes | None = None) -> ProjectStatus:
    root = project_root(cwd)
    store_dir = store_dir_for(root)
    storage = check_store_directory(store_dir)
    store, unopened = _open(root, store_dir)
    session = newest = None
    watcher = None
    if store is not None:
        session = os.environ.get("REWIND_SESSION") or recent_session(store)
        head = load_head(store, session) if session else None
        newest = head.current if head is not None else None
        if newest is None:
            session = None
        watcher = running_info(store)
    store_log, *others = problem_logs(store_dir)
    logs = [store_log, *(log for log in others if os.path.exists(log.path))]
    return ProjectStatus(
        root,
        store_dir,
        store,
        storage,
        unopened,
        session,
        newest,
        watcher,
        store is not None and os.path.exists(store.state_path(JOURNAL)),
        logs,
    )


def _open(root: bytes, store_dir: str) -> tuple[Store | None, str]:
    """The store (None before the first recording), or why it cannot be opened."""
    if not os.path.exists(os.path.join(store_dir, "HEAD")):
        return None, ""
    try:
        return open_store(root), ""
    except (UserError, OSError) as error:
        return None, f"the store cannot be opened: {error}"
