"""Registering rewind's MCP server in an agent's JSON settings file and taking it out again,
byte for byte (``rewind install AGENT --mcp``; docs/mcp.md).

What goes into one file is a list of :class:`JsonEntry`: a value under a key (the server,
``mcpServers > rewind``; or a setting, such as a read tool's ``permission > rewind_rewind_log:
"allow"`` in OpenCode's config, which a person's own value of that key overrides) or strings
added to a list (the read tools in ``permissions > allow``), each at a path of keys from the top
of the file. Objects and lists missing on the path are created. Install records
(:mod:`rewind.installers.record`) what it added, so that uninstall takes out exactly that: per
registration (part ``mcp [PATH]``), the containers it created, the strings and settings it added
(not those that were there already), the server entry it added, and a server of rewind's
someone set up their own way (kept by install, left by uninstall); per file (part
``mcp-file``, shared by the registrations in it), whether install created the file, and the
folders above it, or wrote into a blank one. A record of which nothing is in the file any more
(the file deleted, perhaps made again by someone) is dropped. Without a record
(a committed file installed on another machine), ``rewind uninstall --mcp`` takes out rewind's
server, the strings and the settings that hold rewind's value, and the containers that leaves
empty; the hooks' uninstall leaves it.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import TypeVar

from rewind.errors import UserError
from rewind.installers import Change, record
from rewind.installers.jsonc import Node
from rewind.installers.settings_file import BOM, SettingsFile, delete_created
from rewind.installers.text_edits import Document


@dataclass(frozen=True)
class JsonEntry:
    """One thing the registration puts in a file: ``value`` under ``key`` of the object at
    ``path``, or (``key`` None) each of ``items`` in the list at ``path``."""

    path: tuple[str, ...]
    key: str | None = None
    value: object = None
    items: tuple[str, ...] = ()
    # A key entry that is a setting, not the server: a value of the person's under that key is
    # kept as it is (never a conflict), and only ``value`` itself is ever taken out.
    setting: bool = False

    def where(self) -> str:
        return " > ".join((*self.path, self.key) if self.key is not None else self.path)


@dataclass(frozen=True)
class JsonRegistration:
    """The entries of one file."""

    path: str
    entries: tuple[JsonEntry, ...]


@dataclass
class _Made:
    """What install added to the file (the record of one registration)."""

    containers: list[list[str]] = field(default_factory=list)
    items: dict[str, list[str]] = field(default_factory=dict)  # by the list's path, joined
    members: list[str] = field(default_factory=list)  # the key entries added, by path joined
    kept: list[str] = field(default_factory=list)  # rewind's servers someone set up their way


@dataclass
class _Created:
    """Whether install created the file (and the folders above it) or wrote into a blank one:
    one record per file, shared by the registrations in it (Claude Code's user and local
    servers both live in ~/.claude.json)."""

    created_file: bool = False
    created_directories: list[str] = field(default_factory=list)
    blank: str | None = None


FILE_PART = "mcp-file"
_Record = TypeVar("_Record", "_Made", "_Created")


def _read_record(kind: type[_Record], found: dict[str, object] | None) -> _Record | None:
    """A record as saved, or None (none, or of another version's shape)."""
    if found is None:
        return None
    try:
        return kind(**found)  # type: ignore[arg-type]
    except TypeError:
        return None


def is_rewind_server(value: object) -> bool:
    """Whether a server entry runs rewind's MCP server (``rewind mcp``, by any path): a
    ``command`` and its ``args``, or one ``command`` list (OpenCode's)."""
    if not isinstance(value, dict):
        return False
    command, arguments = value.get("command"), value.get("args")
    if isinstance(command, list) and arguments is None:
        words: list[object] = command
        command, arguments = (words[0] if words else None), words[1:]
    return (
        isinstance(command, str)
        and os.path.basename(command) == "rewind"
        and isinstance(arguments, list)
        and arguments[:1] == ["mcp"]
    )


def _is_ours(entry: JsonEntry, value: object) -> bool:
    """Whether the value under a key entry's key is what the entry puts there: rewind's server,
    or the setting's very value."""
    return value == entry.value if entry.setting else is_rewind_server(value)


def _part(registration: JsonRegistration) -> str:
    first = registration.entries[0]
    return "mcp " + json.dumps([*first.path, first.key])


def _join(path: tuple[str, ...] | list[str]) -> str:
    return "\0".join(path)


def _find(document: Document, path: tuple[str, ...] | list[str]) -> Node | None:
    node: Node | None = document.root
    for key in path:
        if node is None or node.kind != "object":
            return None
        member = node.member(key)
        node = member.value if member is not None else None
    return node


def _ensure(
    document: Document, settings: SettingsFile, path: tuple[str, ...], kind: str, made: _Made
) -> Node:
    """The container at ``path``, created (with the objects above it) when missing."""
    for depth in range(1, len(path) + 1):
        above = _find(document, path[: depth - 1])
        assert above is not None
        key = path[depth - 1]
        wanted = kind if depth == len(path) else "object"
        member = above.member(key)
        if member is None:
            document.add(above, [] if wanted == "array" else {}, key)
            made.containers.append(list(path[:depth]))
        elif member.value.kind != wanted:
            shape = "a list" if wanted == "array" else "a JSON object"
            raise UserError(
                f'"{" > ".join(path[:depth])}" in {settings.path} is not {shape}; fix it, then '
                "run the command again."
            )
    found = _find(document, path)
    assert found is not None
    return found


def refuse_conflicts(registration: JsonRegistration) -> None:
    """Raises the user error install would (a server of that name that is not rewind's, a file
    that is not JSON, a key on the way that is not what it should be, an empty object of
    comments only where the entry goes), writing nothing."""
    _edited(registration)


def _edited(registration: JsonRegistration) -> tuple[SettingsFile, Document, _Made, Change]:
    """The file with the entries put in, in memory: its settings as read, the edited
    document, what the edit added and the change."""
    settings = SettingsFile.read(registration.path)
    document = settings.document()
    made = _Made()
    change = Change(settings.path, created=not settings.exists)
    for entry in registration.entries:
        kind = "object" if entry.key is not None else "array"
        container = _ensure(document, settings, entry.path, kind, made)
        if entry.key is not None:
            member = container.member(entry.key)
            if member is None:
                document.add(container, entry.value, entry.key)
                made.members.append(_join((*entry.path, entry.key)))
                change.items.append(("added", entry.where()))
            elif entry.setting:
                if member.value.value != entry.value:
                    change.notes.append(f"kept {entry.where()} as it is (set by hand)")
            elif not is_rewind_server(member.value.value):
                raise UserError(_not_rewinds(settings.path, entry))
            elif member.value.value != entry.value:
                change.notes.append(f"kept {entry.where()} as it is (it runs rewind mcp)")
                made.kept.append(_join((*entry.path, entry.key)))
            continue
        added = []
        for item in entry.items:
            container = _find(document, entry.path) or container
            present = container.value if isinstance(container.value, list) else []
            if item not in present:
                document.add(container, item)
                added.append(item)
        if added:
            made.items[_join(entry.path)] = added
            change.items.append(("added", f"{entry.where()}: {', '.join(added)}"))
    return settings, document, made, change


def _value_at(data: object, path: tuple[str, ...]) -> object:
    """The value at a path of keys (None when there is none)."""
    for key in path:
        data = data.get(key) if isinstance(data, dict) else None
    return data


def _still_there(settings: SettingsFile, registration: JsonRegistration, made: _Made) -> bool:
    """Whether anything a record lists is in the file: a record of which nothing is there is
    of a file deleted (and perhaps made again by someone) since, and no longer says anything."""
    for entry in registration.entries:
        node = _value_at(settings.data, entry.path)
        if entry.key is not None:
            joined = _join((*entry.path, entry.key))
            found = node.get(entry.key) if isinstance(node, dict) else None
            if joined in made.members + made.kept and _is_ours(entry, found):
                return True
        elif isinstance(node, list) and set(made.items.get(_join(entry.path), [])) & set(node):
            return True
    return False


def install(registration: JsonRegistration) -> Change:
    """Puts the entries in the file; a server of the same name that is not rewind's is refused
    (nothing written); one that runs rewind's server as someone set it up is kept as it is."""
    settings, document, made, change = _edited(registration)
    part = _part(registration)
    earlier = _read_record(_Made, record.load_part(settings.path, part))
    if earlier is not None and not (
        settings.exists and _still_there(settings, registration, earlier)
    ):
        earlier = None  # stale: of a file since deleted
        record.forget_part(settings.path, part)
        if not _registered_parts(settings.path, part):
            record.forget_part(settings.path, FILE_PART)
    if not change.items:
        if made.kept and earlier is None:  # for uninstall: that server is not rewind's to take
            record.save_part(settings.path, part, made.__dict__)
        return change
    created = _Created(
        created_file=not settings.exists,
        blank=settings.text if settings.exists and not settings.data else None,
    )
    settings.take(document)
    created.created_directories = settings.write()
    if earlier is None and not _registered_parts(settings.path, part):  # the first one here
        if created.created_file or created.blank is not None:
            record.save_part(settings.path, FILE_PART, created.__dict__)
        else:
            record.forget_part(settings.path, FILE_PART)
    if earlier is not None:  # installed before (and partly taken out by hand since)
        made.containers = earlier.containers + made.containers
        made.members = earlier.members + [m for m in made.members if m not in earlier.members]
        made.kept = earlier.kept + [m for m in made.kept if m not in earlier.kept]
        for joined, items in earlier.items.items():
            made.items[joined] = items + [i for i in made.items.get(joined, []) if i not in items]
    record.save_part(settings.path, part, made.__dict__)
    return change


def _registered_parts(path: str, but: str) -> list[str]:
    """The other registrations on record in the file."""
    return [p for p in record.parts(path) if p.startswith("mcp ") and p != but]


def _not_rewinds(path: str, entry: JsonEntry) -> str:
    return (
        f'{path} already has "{entry.where()}", which is not rewind\'s MCP server; rename or '
        "remove it, then run the command again."
    )


def uninstall(registration: JsonRegistration, recorded_only: bool = False) -> Change:
    """Takes out what install put in (see the module's documentation); ``recorded_only``: only
    when an install on this machine is on record (what the hooks' uninstall does on the way)."""
    part = _part(registration)
    made = _read_record(_Made, record.load_part(registration.path, part))
    if made is None and recorded_only:
        return Change(registration.path)
    settings = SettingsFile.read(registration.path)
    change = Change(settings.path)
    if not settings.exists:
        record.forget_part(settings.path, part)
        if not _registered_parts(settings.path, part):
            record.forget_part(settings.path, FILE_PART)
        return change
    document = settings.document()
    emptied: list[tuple[str, ...]] = []
    for entry in registration.entries:
        container = _find(document, entry.path)
        if container is None:
            continue
        if entry.key is not None:
            member = container.member(entry.key)
            joined = _join((*entry.path, entry.key))
            ours = joined in made.members if made else True
            if member is not None and made and joined in made.kept:
                change.notes.append(f"left {entry.where()}: it was set up by hand")
            if member is not None and ours and _is_ours(entry, member.value.value):
                document.remove(container, container.members.index(member))
                change.items.append(("removed", entry.where()))
                emptied.append(entry.path)
            continue
        wanted = made.items.get(_join(entry.path), []) if made else list(entry.items)
        removed = []
        for item in wanted:
            container = _find(document, entry.path)
            if container is None or container.kind != "array":
                break
            values = [element.value for element in container.elements]
            if item in values:
                document.remove(container, values.index(item))
                removed.append(item)
        if removed:
            change.items.append(("removed", f"{entry.where()}: {', '.join(removed)}"))
            emptied.append(entry.path)
    if made and made.kept:  # what was set up by hand stays so for the next uninstall too
        record.save_part(settings.path, part, _Made(kept=made.kept).__dict__)
    else:
        record.forget_part(settings.path, part)
    if not change.items:
        return change
    created = [tuple(path) for path in made.containers] if made else emptied
    for path in sorted(set(created), key=len, reverse=True):
        _remove_if_empty(document, path)
    settings.take(document)
    whole = _read_record(_Created, record.load_part(settings.path, FILE_PART))
    only_braces = re.sub(r"\s", "", settings.text.lstrip(BOM)) == "{}"
    others = _registered_parts(settings.path, part)
    if whole and only_braces and not others and whole.created_file:
        delete_created(settings.path, whole.created_directories)
        change.items.append(("deleted", settings.path))
    else:
        if whole and only_braces and not others and whole.blank is not None:
            settings.text = whole.blank
        settings.write()
    if not others:
        record.forget_part(settings.path, FILE_PART)
    return change


def _remove_if_empty(document: Document, path: tuple[str, ...]) -> None:
    """Takes out the container at ``path`` when it holds nothing."""
    node, above = _find(document, path), _find(document, path[:-1])
    if node is None or above is None or node.kind not in ("object", "array"):
        return
    if node.members or node.elements or document.holds_comments(node):
        return
    member = above.member(path[-1])
    assert member is not None
    document.remove(above, above.members.index(member))


def inspect(registration: JsonRegistration) -> tuple[object, list[str]]:
    """Rewind's server entry as it is in the file (None: none), and the lists' strings that
    are missing."""
    settings = SettingsFile.read(registration.path)
    server: object = None
    missing: list[str] = []
    for entry in registration.entries:
        node = _value_at(settings.data, entry.path)
        if entry.key is not None:
            found = node.get(entry.key) if isinstance(node, dict) else None
            if entry.setting and found != entry.value:
                missing.append(entry.key)
            elif not entry.setting and is_rewind_server(found):
                server = found
            continue
        present = node if isinstance(node, list) else []
        missing.extend(item for item in entry.items if item not in present)
    return server, missing
