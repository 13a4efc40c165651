"""What each entry changed, as data: the shape behind ``rewind log`` and ``--json``."""

from __future__ import annotations

import time

from rewind.history.entry import Entry
from rewind.history.insight.diffs import FileDiff, diff_states
from rewind.store.repository import Store


def iso_time(stamp: float | None) -> str | None:
    """A time as ISO 8601 in UTC, as the --json outputs give times."""
    return None if stamp is None else time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(stamp))


def entry_diffs(store: Store, entry: Entry, with_text: bool = False) -> list[FileDiff]:
    return [
        diff_states(store, change.path, change.before, change.after, with_text=with_text)
        for change in entry.files
    ]


def _path_fields(path: bytes) -> dict[str, object]:
    try:
        return {"path": path.decode("utf-8")}
    except UnicodeDecodeError:  # not UTF-8: a readable form plus the exact bytes
        return {"path": path.decode("utf-8", "replace"), "path_hex": path.hex()}


def diff_json(diff: FileDiff, with_text: bool = False) -> dict[str, object]:
    """One file of ``rewind diff --json`` and ``show --json``: the keys of ``log --json``'s
    files, with the unified diff as ``diff`` when ``with_text``."""
    item = _path_fields(diff.path)
    item.update(
        status=diff.status,
        added=diff.added,
        removed=diff.removed,
        binary=diff.binary,
        before=diff.old.to_json() if diff.old else None,
        after=diff.new.to_json() if diff.new else None,
    )
    if with_text:
        item["diff"] = diff.text or None
    return item


def path_json(path: bytes) -> dict[str, object]:
    """``path`` (and ``path_hex`` for a name that is not UTF-8), as every --json gives a path."""
    return _path_fields(path)


def entry_json(
    entry: Entry, diffs: list[FileDiff], labels: list[str] | None = None
) -> dict[str, object]:
    """One element of ``rewind log --json`` (documented in docs/cli.md); ``labels`` replaces
    the entry's own (those given at 'rewind begin') when given."""
    files = []
    for change, diff in zip(entry.files, diffs, strict=True):
        item = _path_fields(diff.path)
        item.update(
            source=change.source,
            status=diff.status,
            added=diff.added,
            removed=diff.removed,
            binary=diff.binary,
            before=diff.old.to_json() if diff.old else None,
            after=diff.new.to_json() if diff.new else None,
        )
        files.append(item)
    target = entry.target or {}
    return {
        "session": entry.session,
        "turn": entry.number,
        "id": entry.id,
        "kind": entry.kind,
        "prompt": entry.prompt,
        "agent": entry.agent,
        "time": iso_time(entry.started),
        "ended": iso_time(entry.ended),
        "labels": entry.labels if labels is None else labels,
        "target": {"turn": target.get("number"), "id": target.get("entry")} if target else None,
        "files": files,
        "unrecorded": entry.unrecorded,
    }
