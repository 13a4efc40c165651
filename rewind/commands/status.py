from __future__ import annotations

import os
import time

from rewind.home import rewind_home
from rewind.session import load_head, recent_session
from rewind.store import JOURNAL, Store
from rewind.watch.pidfile import running_info


def run() -> int:
    store = Store.of_current_project()
    print(f"project:  {os.fsdecode(store.root.path)}")
    print(f"store:    {store.git_dir}  ({human_size(store.disk_usage())})")
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
    log = store.state_path("rewind.log")
    print(f"log:      {log}")
    outside = os.path.join(rewind_home(), "hooks.log")
    if os.path.exists(outside):
        print(f"          {outside} (hook events that named no project)")
    if os.path.exists(store.state_path(JOURNAL)):
        print("restore:  an interrupted restore is waiting to be finished")
    recent = _recent_problems(log)
    if recent:
        print(f"problems in the last day ({len(recent)}), the newest last:")
        for line in recent[-RECENT_SHOWN:]:
            print(f"  {line}")
    return 0


RECENT_SHOWN = 5


def _recent_problems(log: str) -> list[str]:
    """The log's lines of the last 24 hours (a checkpoint that could not be taken says so)."""
    try:
        if os.stat(log).st_mtime < time.time() - 86400:
            return []
        with open(log, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return []
    since = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(time.time() - 86400))
    return [line for line in lines if line[:19] >= since and line[:1].isdigit()]


def human_size(size: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"
