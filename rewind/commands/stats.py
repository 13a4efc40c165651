"""``rewind stats``: what rewind has recorded for a project (or, with ``--all``, every project)
and what it cost: counts, bytes recorded against bytes on disk, the hooks' latency and failures,
restores, the last gc. The figures come from the history (rewind.history.insight.tally), a walk of
the store for its size, and the stats files under ``<store>/rewind/stats/`` (docs/store.md)."""

from __future__ import annotations

import json
import time

from rewind.actions.changes import RestoreCounts, restore_counts
from rewind.actions.records import FORMAT, backup_json, iso_time
from rewind.actions.stores import open_current_store, open_store
from rewind.commands.output.backup_text import backup_line
from rewind.commands.output.stats_text import print_projects
from rewind.commands.stats_figures import ProjectFigures
from rewind.errors import UserError
from rewind.history.insight.tally import Tally, tally
from rewind.store.event_log import STATS_DIR, read_events
from rewind.store.gc_record import GC_RECORD, GcRecord, read_gc_record
from rewind.store.hook_calls import HOOK_CALLS, HookWindow
from rewind.store.projects import known_stores
from rewind.store.repository import Store

DAY = 24 * 60 * 60
WEEK = 7 * DAY
# The keys of the hooks' failure counts in --json (rewind.store.hook_calls names them).
HOOK_COUNT_KEYS = {
    "lock_timeout": "lock_timeouts",
    "spooled": "spooled",
    "error": "errors",
    "ignored": "ignored",
    "unreadable": "unreadable",
    "too_large": "too_large",
    "special": "special",
    "unwatched": "unwatched",
}


def run(*, as_json: bool, all_projects: bool) -> int:
    if all_projects:
        figures = [_figures_of_known(known.store_dir, known.root) for known in known_stores()]
    else:
        figures = [project_figures(open_current_store())]
    if as_json:
        shown = [figures_json(f) for f in figures]
        print(json.dumps(shown if all_projects else shown[0], indent=2))
    else:
        print_projects(figures, all_projects)
    return 0


def _figures_of_known(store_dir: str, root: bytes | None) -> ProjectFigures:
    if root is None:
        figures = ProjectFigures("", store_dir)
        figures.problem = "its rewind/project.json does not name the root this store is for"
        return figures
    try:
        return project_figures(open_store(root))
    except (UserError, OSError) as error:
        figures = ProjectFigures(_text(root), store_dir)
        figures.problem = f"its store cannot be read: {error}"
        return figures


def project_figures(store: Store, now: float | None = None) -> ProjectFigures:
    """The figures of ``store``'s project. Measures the store's size by walking it (a
    ``stat`` of every file) and reads every entry of every session."""
    now = time.time() if now is None else now
    figures = ProjectFigures(_text(store.root.path), store.git_dir)
    figures.tally = tally(store)
    figures.on_disk = store.disk_usage()
    calls = read_events(store.state_path(STATS_DIR, HOOK_CALLS))
    figures.day = HookWindow(calls, now - DAY)
    figures.week = HookWindow(calls, now - WEEK)
    figures.restores = restore_counts(store)
    figures.last_gc = read_gc_record(store.state_path(STATS_DIR, GC_RECORD))
    figures.backup = backup_json(store)
    figures.backup_line = backup_line(store)
    figures.fetched = store.fetched_usage()
    return figures


def _text(path: bytes) -> str:
    return path.decode("utf-8", "replace")


def figures_json(figures: ProjectFigures) -> dict[str, object]:
    """One project's figures as ``rewind stats --json`` prints them (docs/cli.md)."""
    counted = figures.tally
    return {
        "format": FORMAT,
        "project": figures.root or None,
        "store": figures.store_dir,
        "problem": figures.problem or None,
        "sessions": counted.sessions if counted else None,
        "unreadable_sessions": counted.unreadable_sessions if counted else None,
        "entries": _entries_json(counted) if counted else None,
        "files": {
            "records": counted.file_records,
            "paths": counted.paths,
            "by_source": counted.by_source,
        }
        if counted
        else None,
        "bytes": {"recorded": counted.recorded_bytes, "on_disk": figures.on_disk}
        if counted
        else None,
        "hooks": {"day": _window_json(figures.day), "week": _window_json(figures.week)}
        if figures.day and figures.week
        else None,
        "restores": _restores_json(figures.restores) if figures.restores else None,
        "last_gc": _gc_json(figures.last_gc) if figures.last_gc else None,
        "backup": figures.backup,
        "fetched_bytes": figures.fetched,
    }


def _entries_json(counted: Tally) -> dict[str, int]:
    kinds = counted.entries
    return {
        "total": counted.entry_count,
        "turns": kinds.get("turn", 0),
        "restores": kinds.get("restore", 0),
        "undos": kinds.get("undo", 0),
        "redos": kinds.get("redo", 0),
        "damaged": kinds.get("damaged", 0),
    }


def _window_json(window: HookWindow | None) -> dict[str, object] | None:
    if window is None:
        return None
    data: dict[str, object] = {
        "from": iso_time(window.start),
        "complete": window.complete,
        "calls": window.calls,
        "p50_ms": _rounded(window.p50_ms),
        "p95_ms": _rounded(window.p95_ms),
    }
    data.update((key, window.counts.get(name, 0)) for name, key in HOOK_COUNT_KEYS.items())
    return data


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def _restores_json(counts: RestoreCounts) -> dict[str, object]:
    return {
        "done": counts.done,
        "refused": counts.refused,
        "undone": counts.undone,
        "undo_refused": counts.undo_refused,
        "since": iso_time(counts.since),
    }


def _gc_json(record: GcRecord) -> dict[str, object]:
    return {
        "time": iso_time(record.started),
        "seconds": round(record.seconds, 3),
        "size_before": record.size_before,
        "size_after": record.size_after,
        "packed": record.packed,
        "loose_removed": record.loose_removed,
        "retention_dropped": record.retention_dropped,
    }
