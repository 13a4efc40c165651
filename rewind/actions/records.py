"""The records rewind answers as data: what ``--json`` prints and what the MCP server answers,
one shape per kind of record, one name per field.

Every output that gives a path, an entry, a file's change, a version of a file or a plan builds
it here, so a key means the same thing in every output (docs/cli.md, "JSON output"). An entry is
named by ``turn`` (its number in its session) and ``id``; a few outputs also carry ``number``,
the same value under the name they first used, kept for readers of format 1.
"""

from __future__ import annotations

import os
import time

from rewind.actions.reading import Blamed, Diff, FileHistory, LoggedEntry, Shown, ShownHunks
from rewind.actions.resuming import Resumed
from rewind.actions.status import ProjectStatus
from rewind.history.attribution.note_blame import NotedLine
from rewind.history.entry import Entry
from rewind.history.insight.diffs import FileDiff
from rewind.history.insight.file_history import Version
from rewind.history.remote.backup import backup_state, pending_since
from rewind.history.restoring.apply import (
    ALREADY,
    CONFLICT,
    DELETE,
    MERGE,
    REFUSED,
    WRITE,
    ApplyPlan,
)
from rewind.history.restoring.hunks import Hunk, describe_selection
from rewind.history.restoring.partial import PartialPlan
from rewind.history.restoring.restore_plan import CANNOT, PlannedFile, RestorePlan
from rewind.history.restoring.versions import VersionPlan
from rewind.store.failure_log import recent_problems
from rewind.store.repository import Store

# The version of every shape; an object carries it as "format", a list's elements are of
# this version (docs/cli.md). It changes only when a key is removed or changes meaning.
FORMAT = 1


def iso_time(stamp: float | None) -> str | None:
    """A time as ISO 8601 in UTC, as the --json outputs give times."""
    return None if stamp is None else time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(stamp))


def path_json(path: bytes) -> dict[str, object]:
    """``path`` (and ``path_hex`` for a name that is not UTF-8), as every --json gives a path."""
    try:
        return {"path": path.decode("utf-8")}
    except UnicodeDecodeError:  # not UTF-8: a readable form plus the exact bytes
        return {"path": path.decode("utf-8", "replace"), "path_hex": path.hex()}


def entry_key_json(entry: Entry) -> dict[str, object]:
    """An entry named where another record points at it: ``{"turn", "id"}``."""
    return {"turn": entry.number, "id": entry.id}


def _change_json(diff: FileDiff) -> dict[str, object]:
    return {
        "status": diff.status,
        "added": diff.added,
        "removed": diff.removed,
        "binary": diff.binary,
        "before": diff.old.to_json() if diff.old else None,
        "after": diff.new.to_json() if diff.new else None,
    }


def diff_json(diff: FileDiff, with_text: bool = False) -> dict[str, object]:
    """One file of ``rewind diff --json`` and ``show --json``: the keys of ``log --json``'s
    files, with the unified diff as ``diff`` when ``with_text``."""
    item = {**path_json(diff.path), **_change_json(diff)}
    if with_text:
        item["diff"] = diff.text or None
    return item


def entry_json(
    entry: Entry, diffs: list[FileDiff], labels: list[str] | None = None
) -> dict[str, object]:
    """One element of ``rewind log --json`` (documented in docs/cli.md); ``labels`` replaces
    the entry's own (those given at 'rewind begin') when given."""
    files = [
        {**path_json(diff.path), "source": change.source, **_change_json(diff)}
        for change, diff in zip(entry.files, diffs, strict=True)
    ]
    target = entry.target or {}
    return {
        "session": entry.session,
        **entry_key_json(entry),
        "kind": entry.kind,
        "prompt": entry.prompt,
        "agent": entry.agent,
        "time": iso_time(entry.started),
        "ended": iso_time(entry.ended),
        "labels": entry.labels if labels is None else labels,
        "target": {"turn": target.get("number"), "id": target.get("entry")} if target else None,
        "files": files,
        "unrecorded": [storm.to_json() for storm in entry.unrecorded],
    }


def version_json(version: Version) -> dict[str, object]:
    """One version of a file: an element of ``rewind history --json``'s versions, the origin of
    a ``rewind blame --json`` run, and the version a ``restore --version`` plan brings back."""
    entry = version.entry
    return {
        "version": version.id,
        "entry": entry.id,
        "side": "after" if version.after else "before",
        "session": entry.session,
        "turn": entry.number,
        "kind": entry.kind,
        "agent": entry.agent,
        "prompt": entry.prompt,
        "source": version.source,
        "time": iso_time(version.at),
        **path_json(version.path),
        "moved_from": path_json(version.moved_from)["path"] if version.moved_from else None,
        "state": version.state.to_json(),
        "added": version.added if version.compared else None,
        "removed": version.removed if version.compared else None,
        "binary": version.binary,
        "same_as": version.same_as.id if version.same_as is not None else None,
    }


# -- what the reading actions answer (rewind.actions.reading) -----------------------------------


def logged_json(row: LoggedEntry) -> dict[str, object]:
    """One element of ``rewind log --json``."""
    return {
        "format": FORMAT,
        **entry_json(row.entry, row.diffs(), row.labels),
        "undone": row.undone,
    }


def shown_json(shown: Shown) -> dict[str, object]:
    """``rewind show TURN --json``: the entry, each file with its diff's text, where the
    conversation stood and the kept reply."""
    record = {
        "format": FORMAT,
        **entry_json(shown.entry, shown.diffs, shown.labels),
        "conversation": shown.conversation.to_json() if shown.conversation else None,
        "reply": shown.reply,
    }
    files = record["files"]
    assert isinstance(files, list)
    for item, diff in zip(files, shown.diffs, strict=True):
        item["diff"] = diff.text or None
    return record


def shown_hunks_json(shown: ShownHunks) -> dict[str, object]:
    """``rewind show TURN --path P --json``: the file's diff in the entry as numbered hunks."""
    entry, root = shown.entry, shown.store.root
    return {
        "format": FORMAT,
        "entry": {
            **entry_key_json(entry),
            "number": entry.number,  # the name format 1 first used
            "session": entry.session,
            "kind": entry.kind,
        },
        **path_json(shown.path),
        # The file's name in the entry and now (they differ when it was renamed).
        "recorded_as": root.display(shown.hunks.recorded_as),
        "now": root.display(shown.hunks.path),
        "hunks": [hunk_json(hunk) for hunk in shown.hunks.hunks],
    }


def hunk_json(hunk: Hunk) -> dict[str, object]:
    """A hunk as ``show --path --json`` gives it: its lines, the changed ones numbered (what
    ``--hunks N:L`` names)."""
    return {
        "number": hunk.number,
        "header": hunk.header(),
        "old_start": hunk.old_start + 1,
        "new_start": hunk.new_start + 1,
        "removed": len(hunk.removed),
        "added": len(hunk.added),
        "lines": [_line_json(None, " ", line) for line in hunk.context_before]
        + [
            _line_json(number, origin, line)
            for number, (origin, line) in enumerate(hunk.changed, 1)
        ]
        + [_line_json(None, " ", line) for line in hunk.context_after],
    }


def _line_json(number: int | None, origin: str, line: bytes) -> dict[str, object]:
    return {"number": number, "origin": origin, "text": line.decode("utf-8", "replace")}


def diff_between_json(found: Diff) -> dict[str, object]:
    """``rewind diff --json``: from the checkpoint before ``from`` to the one before ``to``
    (null: to the files now)."""
    return {
        "format": FORMAT,
        "session": found.session,
        "from": entry_key_json(found.start),
        "to": entry_key_json(found.stop) if found.stop is not None else None,
        "files": [diff_json(diff, with_text=True) for diff in found.files],
    }


def history_json(found: FileHistory) -> dict[str, object]:
    """``rewind history PATH --json``: the file's versions, newest first."""
    return {
        "format": FORMAT,
        **path_json(found.path),
        "versions": [version_json(version) for version in found.versions],
    }


def blame_json(blamed: Blamed) -> dict[str, object]:
    """``rewind blame PATH --json``: runs of lines, each with the version that last changed
    it (null: before the record, or changed outside rewind; ``status`` says which)."""
    blame = blamed.blame
    return {
        "format": FORMAT,
        **path_json(blame.path),
        "lines": len(blame.lines),
        "runs": [
            {
                "start": run.start,
                "count": run.count,
                "status": run.status,
                "origin": version_json(run.version) if run.version is not None else None,
            }
            for run in blame.runs
        ],
        # The lines the commits' authorship notes answer (those no recorded version explains).
        "noted": [
            {"start": start, "count": count, **_noted_json(noted)}
            for start, count, noted in _noted_runs(blamed.noted)
        ],
    }


def _noted_runs(noted: dict[int, NotedLine]) -> list[tuple[int, int, NotedLine]]:
    runs: list[tuple[int, int, NotedLine]] = []
    for number in sorted(noted):
        line = noted[number]
        if runs and runs[-1][2] == line and runs[-1][0] + runs[-1][1] == number:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1, line)
        else:
            runs.append((number, 1, line))
    return runs


def _noted_json(noted: NotedLine) -> dict[str, object]:
    return {
        "commit": noted.commit,
        "key": noted.key,
        "tool": noted.tool,
        "model": noted.model,
        "session": noted.session,
        "turn": int(noted.turn) if noted.turn.isdigit() else None,
        "prompt": noted.prompt or None,
        "author": noted.author or None,
    }


# -- plans (rewind.actions.changes) ---------------------------------------------------------------


def plan_json(plan: RestorePlan) -> dict[str, object]:
    """A restore's plan: ``restore --dry-run --json``, ``undo --dry-run --json`` and the MCP
    server's plans. A version's restore adds "version" (which one), a partial rewind adds, per
    file, the hunks chosen and the diff from the file now to what it will hold."""
    subject = plan.subject
    shape: dict[str, object] = {
        "format": FORMAT,
        "kind": plan.kind,
        "session": plan.session,
        "target": {**entry_key_json(subject), "kind": subject.kind},
        "changes": len(plan.changes),
        "conflicts": len(plan.conflicts),
        "skipped": len(plan.blocked),
        "files": [_planned_json(planned) for planned in plan.files],
    }
    if isinstance(plan, VersionPlan):
        # "number" as well: the name this key first used (format 1).
        shape["version"] = {**version_json(plan.version), "number": plan.version.entry.number}
    if isinstance(plan, PartialPlan):
        files = shape["files"]
        assert isinstance(files, list)
        for item, planned in zip(files, plan.files, strict=True):
            item["hunks"] = describe_selection(plan.chosen[planned.path])
            item["diff"] = plan.resulting_diff(planned)
    return shape


def _planned_json(planned: PlannedFile) -> dict[str, object]:
    item = path_json(planned.path)
    item.update(
        action=planned.action,
        conflict=planned.conflict and planned.action != CANNOT,
        reason=planned.reason() or None,
        before=planned.current.to_json(),
        after=planned.target.to_json(),
    )
    return item


# The outcomes of an apply, in the order its counts are given.
APPLY_OUTCOMES = (WRITE, DELETE, MERGE, ALREADY, CONFLICT, REFUSED)


def apply_plan_json(plan: ApplyPlan) -> dict[str, object]:
    """``rewind apply --dry-run --json``: what each file of the other session's turns would
    become here."""
    first, last = plan.entries[0], plan.entries[-1]
    changed = {planned.path for planned in plan.conflicts}
    files = []
    for item in plan.applied:
        data = path_json(item.path)
        data.update(
            outcome=item.outcome,
            reason=item.reason or None,
            changed_outside=item.path in changed,
            base=item.base.to_json() if item.base else None,
            theirs=item.theirs.to_json() if item.theirs else None,
            now=item.planned.current.to_json() if item.planned else None,
            result=item.planned.target.to_json() if item.planned else None,
        )
        files.append(data)
    counts = dict.fromkeys(APPLY_OUTCOMES, 0)
    for item in plan.applied:
        counts[item.outcome] += 1
    return {
        "format": FORMAT,
        "kind": "apply",
        "from": plan.source.name,
        "remote": plan.source.remote,
        "session": plan.source.head.session_id,
        "first": entry_key_json(first),
        "last": entry_key_json(last),
        "into": plan.session,
        "counts": counts,
        "files": files,
    }


# -- status (rewind.actions.status) -----------------------------------------------------------


def status_json(status: ProjectStatus) -> dict[str, object]:
    """``rewind status --json``: what ``rewind status`` prints, as one object; before anything
    was recorded, what needs a store is null."""
    store = status.store
    record = status.last_gc()
    newest = status.newest
    return {
        "format": FORMAT,
        "project": os.fsdecode(status.root),
        "store": {
            "path": store.git_dir if store is not None else status.store_dir,
            "exists": status.exists,
            "size": status.size(),
            "free": status.storage.free,
        },
        "last_gc": None
        if record is None
        else {
            "time": iso_time(record.started),
            "size_before": record.size_before,
            "size_after": record.size_after,
        },
        "backup": backup_json(store) if store is not None else None,
        "session": status.session,
        "turn": None
        if newest is None
        else {
            **entry_key_json(newest),
            "kind": newest.kind,
            "open": newest.is_open,
            "files": len(newest.files),
        },
        "watcher": None
        if status.watcher is None
        else {"pid": status.watcher.get("pid"), "session": status.watcher.get("session") or None},
        "interrupted_restore": status.interrupted_restore,
        "problems": status.problems,
        "logs": [
            {
                "path": log.path,
                "holds": log.holds,
                "recent_problems": recent_problems(log.path) or [],
            }
            for log in status.logs
        ],
    }


def backup_json(store: Store) -> dict[str, object] | None:
    """The automatic backup's state (rewind.history.remote.backup), in ``status --json`` and
    ``stats --json``: ``{"remote", "last_success", "last_attempt", "failures", "error",
    "pending_since"}``; None when no backup is set."""
    remote = store.config.remote.backup
    if not remote:
        return None
    state = backup_state(store)
    waiting = pending_since(store)

    def when(stamp: float | None) -> str | None:
        return iso_time(stamp) if stamp else None

    return {
        "remote": remote,
        "last_success": when(state.last_success if state else None),
        "last_attempt": when(state.last_attempt if state else None),
        "failures": state.failures if state else 0,
        "error": (state.error or None) if state else None,
        "pending_since": when(waiting),
    }


def resume_json(resumed: Resumed) -> dict[str, object]:
    """``rewind resume --print --json``: the command that continues the conversation."""
    return {
        "format": FORMAT,
        "turn": resumed.entry.number,
        "agent": resumed.branch.agent,
        "argv": resumed.argv,
        "cwd": resumed.root,
        "session": resumed.branch.session or None,
        "notes": resumed.branch.notes,
    }
