from __future__ import annotations

import os

from rewind.session import load_head, recent_session
from rewind.store import JOURNAL, Store


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
    print(f"log:      {store.state_path('rewind.log')}")
    if os.path.exists(store.state_path(JOURNAL)):
        print("restore:  an interrupted restore is waiting to be finished")
    return 0


def human_size(size: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"
