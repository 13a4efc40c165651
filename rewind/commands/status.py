from __future__ import annotations

import os

from rewind.commands.output.backup_text import backup_line
from rewind.commands.output.render import human_size, local_time
from rewind.errors import UserError
from rewind.history.restoring.opening import open_store
from rewind.history.session import load_head, recent_session
from rewind.store.event_log import STATS_DIR
from rewind.store.failure_log import problem_logs, recent_problems
from rewind.store.gc_record import GC_RECORD, GcRecord, read_gc_record
from rewind.store.home import store_dir_for
from rewind.store.repository import JOURNAL, Store
from rewind.store.root import find_root
from rewind.store.size_estimate import estimated_size
from rewind.store.storage_check import StorageCheck, check_store_directory
from rewind.watch.pidfile import running_info

RECENT_SHOWN = 5


def run(*, as_json: bool = False) -> int:
    """Prints what it can even without a usable store; exits 1 when hooks cannot record."""
    root = find_root(os.getcwdb())
    store_dir = store_dir_for(root)
    storage = check_store_directory(store_dir)
    store, unopened = _open_store(root, store_dir)
    if as_json:
        from rewind.commands.output.status_json import print_status_json

        problems = [p for p in (unopened, _storage_problem(storage)) if p]
        print_status_json(root, store_dir, store, storage, problems)
        return 1 if unopened or storage.problem else 0
    print(f"project:  {os.fsdecode(root)}")
    _print_store(store_dir, store, storage)
    for problem in (unopened, _storage_problem(storage)):
        if problem:
            print(f"problem:  {problem}")
    if store is not None:
        _print_session(store)
    _print_logs(store_dir)
    return 1 if unopened or storage.problem else 0


def _open_store(root: bytes, store_dir: str) -> tuple[Store | None, str]:
    """The store (None before the first recording), or why it cannot be opened."""
    if not os.path.exists(os.path.join(store_dir, "HEAD")):
        return None, ""
    try:
        return open_store(root), ""
    except (UserError, OSError) as error:
        return None, f"the store cannot be opened: {error}"


def _print_store(store_dir: str, store: Store | None, storage: StorageCheck) -> None:
    free = f", {human_size(storage.free)} free" if storage.free is not None else ""
    if store is not None:
        # Not measured (that walks the whole store): the size the last gc measured, plus an
        # estimate of what was written since (rewind.store.size_estimate); 'rewind stats'
        # measures it.
        last_gc = read_gc_record(store.state_path(STATS_DIR, GC_RECORD))
        size = human_size(estimated_size(store.git_dir, last_gc))
        print(f"store:    {store.git_dir}  (about {size}, estimated{free})")
        print(f"last gc:  {_last_gc(last_gc)}")
        backup = backup_line(store)
        if backup is not None:
            print(f"backup:   {backup}")
    elif os.path.exists(os.path.join(store_dir, "HEAD")):
        print(f"store:    {store_dir}")
    elif storage.problem:
        print(f"store:    {store_dir}  (none yet)")
    else:
        print(f"store:    {store_dir}  (none yet; the first hook event or 'rewind begin' makes it)")


def _last_gc(record: GcRecord | None) -> str:
    if record is None:
        return "none yet ('rewind gc' packs the store; 'rewind stats' measures it)"
    before, after = human_size(record.size_before), human_size(record.size_after)
    return f"{local_time(record.started)} ({before} -> {after})"


def _storage_problem(storage: StorageCheck) -> str:
    if storage.problem:
        return f"hooks record nothing: {storage.problem}"
    if storage.low_on_space:
        free = human_size(storage.free or 0)
        return f"only {free} free on the disk of {storage.checked}; free space before it runs out."
    return ""


def _print_session(store: Store) -> None:
    session_id = os.environ.get("REWIND_SESSION") or recent_session(store)
    head = load_head(store, session_id) if session_id else None
    if head is None or head.current is None:
        print("session:  none yet")
    else:
        entry = head.current
        state = "open" if entry.is_open else "closed"
        print(f"session:  {session_id}")
        print(f"turn:     {entry.number} ({entry.kind}, {state}, {len(entry.files)} file(s))")
    watcher = running_info(store)
    if watcher is not None:
        following = watcher.get("session") or "the most recent session"
        print(
            f"watcher:  running (pid {watcher.get('pid', '?')}, {following}; rewind watch --stop)"
        )
    if os.path.exists(store.state_path(JOURNAL)):
        print(
            "restore:  an interrupted restore is waiting to be finished ('rewind undo' takes it "
            "back)"
        )


def _print_logs(store_dir: str) -> None:
    """The store's log, the other logs hooks wrote, then each log's lines of the last day."""
    store_log, *others = problem_logs(store_dir)
    print(f"log:      {store_log.path}")
    for log in others:
        if os.path.exists(log.path):
            print(f"          {log.path} ({log.holds})")
    for log in (store_log, *others):
        recent = recent_problems(log.path)
        if recent:
            print(f"problems in the last day ({len(recent)}) in {log.path}, the newest last:")
            for line in recent[-RECENT_SHOWN:]:
                print(f"  {line}")
