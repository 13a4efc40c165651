"""``rewind status``: where the project's recording stands (rewind.actions.status), as text or
``--json``; exits 1 when hooks cannot record."""

from __future__ import annotations

import os

from rewind.actions.records import status_json
from rewind.actions.status import ProjectStatus, project_status
from rewind.commands.output.backup_text import backup_line
from rewind.commands.output.json_output import print_json
from rewind.commands.output.render import local_time
from rewind.commands.watch import followed_session
from rewind.store.failure_log import recent_problems
from rewind.store.gc_record import GcRecord
from rewind.store.storage_check import human_size

RECENT_SHOWN = 5


def run(*, as_json: bool = False) -> int:
    """Prints what it can even without a usable store; exits 1 when hooks cannot record."""
    status = project_status()
    if as_json:
        print_json(status_json(status))
        return 0 if status.recording else 1
    print(f"project:  {os.fsdecode(status.root)}")
    _print_store(status)
    for problem in status.problems:
        print(f"problem:  {problem}")
    if status.store is not None:
        _print_session(status)
    _print_logs(status)
    return 0 if status.recording else 1


def _print_store(status: ProjectStatus) -> None:
    storage, store = status.storage, status.store
    free = f", {human_size(storage.free)} free" if storage.free is not None else ""
    if store is not None:
        # Not measured (that walks the whole store): estimated; 'rewind stats' measures it.
        print(
            f"store:    {store.git_dir}  (about {human_size(status.size() or 0)}, estimated{free})"
        )
        print(f"last gc:  {_last_gc(status.last_gc())}")
        backup = backup_line(store)
        if backup is not None:
            print(f"backup:   {backup}")
    elif status.exists:
        print(f"store:    {status.store_dir}")
    elif storage.problem:
        print(f"store:    {status.store_dir}  (none yet)")
    else:
        print(
            f"store:    {status.store_dir}  (none yet; the first hook event or 'rewind begin' "
            "makes it)"
        )


def _last_gc(record: GcRecord | None) -> str:
    if record is None:
        return "none yet ('rewind gc' packs the store; 'rewind stats' measures it)"
    before, after = human_size(record.size_before), human_size(record.size_after)
    return f"{local_time(record.started)} ({before} -> {after})"


def _print_session(status: ProjectStatus) -> None:
    entry = status.newest
    if entry is None:
        print("session:  none yet")
    else:
        state = "open" if entry.is_open else "closed"
        print(f"session:  {status.session}")
        print(f"turn:     {entry.number} ({entry.kind}, {state}, {len(entry.files)} file(s))")
    watcher = status.watcher
    if watcher is not None:
        following = (
            followed_session(status.store, watcher) if status.store else "the most recent session"
        )
        print(
            f"watcher:  running (pid {watcher.get('pid', '?')}, {following}; rewind watch --stop)"
        )
    if status.interrupted_restore:
        print(
            "restore:  an interrupted restore is waiting to be finished ('rewind undo' takes it "
            "back)"
        )


def _print_logs(status: ProjectStatus) -> None:
    """The store's log, the other logs hooks wrote, then each log's lines of the last day."""
    store_log, *others = status.logs
    if os.path.exists(store_log.path):
        print(f"log:      {store_log.path}")
    else:  # written at the first problem only
        print(f"log:      none yet (problems will be written to {store_log.path})")
    for log in others:
        print(f"          {log.path} ({log.holds})")
    for log in status.logs:
        recent = recent_problems(log.path)
        if recent:
            print(f"problems in the last day ({len(recent)}) in {log.path}, the newest last:")
            for line in recent[-RECENT_SHOWN:]:
                print(f"  {line}")
