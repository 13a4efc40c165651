"""What ``rewind install`` created, so that ``rewind uninstall`` can take it away again: the file
when there was none, the directories above it, the top-level keys it added besides its hooks
(Cursor's ``"version": 1``) and the ``hooks`` object and event lists it created, and the text of
a file that was blank.

Kept in ``$REWIND_HOME/installs.json``, by the settings file's real path::

    {"/home/me/.cursor/hooks.json": {"created_file": true,
                                     "created_directories": ["/home/me/.cursor"],
                                     "added": {"version": 1, "hooks": {}}, "blank": null,
                                     "events": ["stop", ...]}}

A file installed on another machine (a committed project file) has no record here; uninstall
then removes rewind's hooks, the event lists and ``hooks`` object that leaves empty, and keeps
the file.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field

from rewind.store.atomic import replace_file
from rewind.store.fastjson import loads
from rewind.store.home import rewind_home
from rewind.store.input_limits import SETTINGS_BYTES, read_at_most


@dataclass
class InstallRecord:
    created_file: bool = False
    created_directories: list[str] = field(default_factory=list)
    added: dict[str, object] = field(default_factory=dict)
    blank: str | None = None  # the text of a blank file install wrote into
    events: list[str] = field(default_factory=list)  # the event lists install created

    def merged(self, later: InstallRecord) -> InstallRecord:
        """This record followed by a later install of the same file."""
        directories = self.created_directories + [
            d for d in later.created_directories if d not in self.created_directories
        ]
        return InstallRecord(
            self.created_file or later.created_file,
            directories,
            {**later.added, **self.added},
            self.blank if self.blank is not None else later.blank,
            self.events + [e for e in later.events if e not in self.events],
        )


def _records_path() -> str:
    return os.path.join(rewind_home(), "installs.json")


def _read_all() -> dict[str, dict[str, object]]:
    try:
        data = loads(read_at_most(_records_path(), SETTINGS_BYTES, "a settings file").decode())
    except (OSError, ValueError):  # damaged (or past the limits): no record, as without one
        return {}
    return data if isinstance(data, dict) else {}


def _write_all(records: dict[str, dict[str, object]]) -> None:
    path = _records_path()
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        text = json.dumps(records, indent=2, sort_keys=True) + "\n"
        replace_file(os.fsencode(path), text.encode("utf-8"), 0o644)
    except OSError:
        pass  # without the record, uninstall leaves the file; install itself succeeded


def _key(settings_path: str, part: str = "") -> str:
    """The record's key: the file's real path, then `` PART`` for another install's record
    of the same file (the MCP server's registration, rewind.installers.mcp_json)."""
    return os.path.realpath(settings_path) + (f" {part}" if part else "")


def load_part(settings_path: str, part: str) -> dict[str, object] | None:
    """What another install (``part``) recorded of the file, as it saved it."""
    found = _read_all().get(_key(settings_path, part))
    return found if isinstance(found, dict) else None


def save_part(settings_path: str, part: str, made: dict[str, object]) -> None:
    records = _read_all()
    records[_key(settings_path, part)] = made
    _write_all(records)


def parts(settings_path: str) -> list[str]:
    """The parts recorded for the file (besides the hooks' record)."""
    prefix = _key(settings_path) + " "
    return [key[len(prefix) :] for key in _read_all() if key.startswith(prefix)]


def forget_part(settings_path: str, part: str) -> None:
    records = _read_all()
    if records.pop(_key(settings_path, part), None) is not None:
        _write_all(records)


def load(settings_path: str) -> InstallRecord | None:
    found = _read_all().get(_key(settings_path))
    if not isinstance(found, dict):
        return None
    try:
        record = InstallRecord(**found)  # type: ignore[arg-type]
    except TypeError:
        return None
    return record


def save(settings_path: str, record: InstallRecord) -> None:
    previous = load(settings_path)
    records = _read_all()
    records[_key(settings_path)] = asdict(previous.merged(record) if previous else record)
    _write_all(records)


def forget(settings_path: str) -> None:
    records = _read_all()
    if records.pop(_key(settings_path), None) is not None:
        _write_all(records)
