"""``rewind status --json``: what ``rewind status`` prints, as one object (format 1,
docs/cli.md). Before anything was recorded, what needs a store is null."""

from __future__ import annotations

import os

from rewind.commands.output.backup_text import backup_json
from rewind.commands.output.json_output import FORMAT, print_json
from rewind.commands.output.records_json import entry_key_json, iso_time
from rewind.history.session import load_head, recent_session
from rewind.store.event_log import STATS_DIR
from rewind.store.failure_log import problem_logs, recent_problems
from rewind.store.gc_record import GC_RECORD, read_gc_record
from rewind.store.repository import JOURNAL, Store
from rewind.store.size_estimate import estimated_size
from rewind.store.storage_check import StorageCheck
from rewind.watch.pidfile import running_info


def print_status_json(
    root: bytes, store_dir: str, store: Store | None, storage: StorageCheck, problems: list[str]
) -> None:
    print_json(
        {
            "format": FORMAT,
            "project": os.fsdecode(root),
            "store": {
                "path": store.git_dir if store is not None else store_dir,
                "exists": os.path.exists(os.path.join(store_dir, "HEAD")),
                "size": _size(store),
                "free": storage.free,
            },
            "last_gc": _last_gc(store),
            "backup": backup_json(store) if store is not None else None,
            **_session(store),
            "watcher": _watcher(store),
            "interrupted_restore": store is not None and os.path.exists(store.state_path(JOURNAL)),
            "problems": problems,
            "logs": _logs(store_dir),
        }
    )


def _size(store: Store | None) -> int | None:
    """About the store's size on disk, as the text says it (not measured: estimated)."""
    if store is None:
        return None
    return int(
        estimated_size(store.git_dir, read_gc_record(store.state_path(STATS_DIR, GC_RECORD)))
    )


def _last_gc(store: Store | None) -> dict[str, object] | None:
    record = read_gc_record(store.state_path(STATS_DIR, GC_RECORD)) if store is not None else None
    if record is None:
        return None
    return {
        "time": iso_time(record.started),
        "size_before": record.size_before,
        "size_after": record.size_after,
    }


def _session(store: Store | None) -> dict[str, object]:
    """The current session and its newest entry (``turn``), nulls when there is none."""
    session_id = (
        (os.environ.get("REWIND_SESSION") or recent_session(store)) if store is not None else None
    )
    head = load_head(store, session_id) if store is not None and session_id else None
    if head is None or head.current is None:
        return {"session": None, "turn": None}
    entry = head.current
    return {
        "session": session_id,
        "turn": {
            **entry_key_json(entry),
            "kind": entry.kind,
            "open": entry.is_open,
            "files": len(entry.files),
        },
    }


def _watcher(store: Store | None) -> dict[str, object] | None:
    watcher = running_info(store) if store is not None else None
    if watcher is None:
        return None
    return {"pid": watcher.get("pid"), "session": watcher.get("session") or None}


def _logs(store_dir: str) -> list[dict[str, object]]:
    """The store's log first, then the other logs hooks wrote that exist."""
    store_log, *others = problem_logs(store_dir)
    shown = [store_log, *(log for log in others if os.path.exists(log.path))]
    return [
        {"path": log.path, "holds": log.holds, "recent_problems": recent_problems(log.path) or []}
        for log in shown
    ]
