"""The ``--json`` vocabulary: one shape per kind of record, one name per field.

Every command that prints a path, an entry, a file's change or a version of a file builds it
here, so a key means the same thing in every output (docs/cli.md, "JSON output"). An entry is
named by ``turn`` (its number in its session) and ``id``; a few outputs also carry ``number``,
the same value under the name they first used, kept for readers of format 1.
"""

from __future__ import annotations

import time

from rewind.history.entry import Entry
from rewind.history.insight.diffs import FileDiff
from rewind.history.insight.file_history import Version


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
        "unrecorded": entry.unrecorded,
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
