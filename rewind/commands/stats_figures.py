"""What ``rewind stats`` shows of one project, as the command gathers it and its text and JSON
forms read it."""

from __future__ import annotations

from rewind.actions.changes import RestoreCounts
from rewind.history.insight.tally import Tally
from rewind.store.gc_record import GcRecord
from rewind.store.hook_calls import HookWindow


class ProjectFigures:
    """Everything ``rewind stats`` shows of one project; ``problem`` says why the rest is
    missing when its store could not be read."""

    __slots__ = (
        "backup",
        "backup_line",
        "day",
        "fetched",
        "last_gc",
        "on_disk",
        "problem",
        "restores",
        "root",
        "store_dir",
        "tally",
        "week",
    )

    def __init__(self, root: str, store_dir: str) -> None:
        self.root = root
        self.store_dir = store_dir
        self.problem = ""
        self.tally: Tally | None = None
        self.on_disk = 0
        self.day: HookWindow | None = None
        self.week: HookWindow | None = None
        self.restores: RestoreCounts | None = None
        self.last_gc: GcRecord | None = None
        self.backup: dict[str, object] | None = None  # [remote] backup's state, when set
        self.backup_line: str | None = None
        self.fetched = 0  # bytes what was fetched from remotes takes
