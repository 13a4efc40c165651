"""Adding rewind's hook block to a settings file, removing it, and saying what is there (what
``rewind doctor`` reports).

A hook block is the document ``rewind install`` would write into an empty file, such as
``{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "rewind hook claude-code"}]}]}}``.
Install adds its text to the file's, uninstall takes that text out again, and every other byte
stays; :mod:`rewind.installers.record` notes what install created, so that uninstall takes out
only that. Which hooks are rewind's: :mod:`rewind.installers.rewind_hooks`.
"""

from __future__ import annotations

import json

from rewind.errors import UserError
from rewind.installers import Inspection, jsonc, record, text_edits
from rewind.installers.rewind_hooks import (
    COMMAND_KEYS,
    commands_of,
    holds_rewind_hook,
    inner_hooks,
    is_rewind_hook,
    without_rewind_hooks,
)
from rewind.installers.settings_file import HOOKS, JsonObject, SettingsFile


def template_hooks(template: JsonObject) -> dict[str, list[object]]:
    hooks = template[HOOKS]
    assert isinstance(hooks, dict)
    return hooks


def _member(node: jsonc.Node, key: str) -> jsonc.Node:
    member = node.member(key)
    assert member is not None
    return member.value


def _hooks_node(document: text_edits.Document, key: str | None) -> jsonc.Node | None:
    """The node of the object that holds the events: the member ``key`` of the root, or the
    root itself (None: the file has no such member)."""
    if key is None:
        return document.root
    member = document.root.member(key)
    return member.value if member is not None else None


def add_block(
    settings: SettingsFile,
    template: JsonObject,
    agent: str,
    keep_existing: bool = False,
    made: record.InstallRecord | None = None,
) -> tuple[list[tuple[str, str]], list[str]]:
    """Makes each event of ``template`` run rewind's hook exactly as the template says, by
    adding text to the file's; returns what changed, and the events left alone. Top-level keys
    of the template other than ``hooks`` are added when missing. With ``keep_existing`` (a
    file someone committed), an event whose rewind hooks are set up differently is left as it
    is: only events without one get rewind's. Otherwise rewind's hooks of an event the template
    no longer has (one an earlier version subscribed to) are taken out, and its list with them
    when install created it (``made``: what install recorded), as uninstall does."""
    wanted = template_hooks(template)
    key = settings.hooks_key
    existing = settings.hooks_object(create=False)
    if existing is not None:
        for event in wanted:
            if event in existing and not isinstance(existing[event], list):
                where = f'"{key}" > "{event}"' if key else f'"{event}"'
                raise UserError(f"{where} in {settings.path} is not a list; fix it and run again.")
    document = settings.document()
    changes: list[tuple[str, str]] = []
    kept: list[str] = []
    for name, value in template.items():
        if name != HOOKS and name not in settings.data:
            document.add(document.root, value, name)
            changes.append(("added", f"{name}: {json.dumps(value)}"))
    for event, items in wanted.items():
        if key is not None and document.root.member(key) is None:
            document.add(document.root, {}, key)
        hooks_node = _hooks_node(document, key)
        assert hooks_node is not None
        event_node = hooks_node.member(event)
        if event_node is None:
            document.add(hooks_node, [items[0]], event)
            changes.append(("added", event))
            continue
        current = event_node.value.value
        assert isinstance(current, list)
        ours = [i for i, item in enumerate(current) if holds_rewind_hook(item, agent)]
        if not ours:
            document.add(event_node.value, items[0])
            changes.append(("added", event))
        elif len(ours) == 1 and current[ours[0]] == items[0]:
            continue
        elif keep_existing:
            kept.append(event)
        else:
            updated: JsonObject = {event: list(current)}
            _add_to_event(updated, event, items[0], agent)
            document.replace(event_node.value, updated[event])
            changes.append(("updated", event))
    if not keep_existing:
        for event in list(existing or {}):
            if event in wanted:
                continue
            keep_empty = made is not None and event not in made.events
            retired = False
            while _remove_one_hook(document, event, agent, keep_empty, key):
                retired = True
            if retired:
                changes.append(("removed", event))
    if changes:
        settings.take(document)
    return changes, kept


def _add_to_event(hooks: JsonObject, event: str, wanted: object, agent: str) -> None:
    """Replaces rewind's hooks of ``event`` by ``wanted``, in the place of the first of them."""
    items = hooks[event]
    assert isinstance(items, list)
    ours = [index for index, item in enumerate(items) if holds_rewind_hook(item, agent)]
    replaced: list[object] = []
    placed = False
    for index, item in enumerate(items):
        rest = without_rewind_hooks(item, agent)
        if index == ours[0] and rest is None:
            replaced.append(wanted)
            placed = True
        elif rest is not None:
            replaced.append(rest)
    if not placed:
        replaced.append(wanted)
    items[:] = replaced


def remove_block(
    settings: SettingsFile, agent: str, made: record.InstallRecord | None = None
) -> list[tuple[str, str]]:
    """Removes every rewind hook of ``agent`` from every event, and the event lists (and the
    ``hooks`` object) that leaves empty, by taking their text out of the file's. With ``made``
    (what install recorded), only the event lists and ``hooks`` object install created go, and
    the top-level keys it added that still hold the value it gave them. Returns what changed."""
    hooks = settings.hooks_object(create=False)
    if not hooks:
        return []
    key = settings.hooks_key
    document = settings.document()
    changes: list[tuple[str, str]] = []
    for event in list(hooks):
        removed = False
        keep_empty = made is not None and event not in made.events
        while _remove_one_hook(document, event, agent, keep_empty, key):
            removed = True
        if removed:
            changes.append(("removed", event))
    if not changes:
        return []
    hooks_member = document.root.member(key) if key is not None else None
    created_hooks = made is None or HOOKS in made.added
    if (
        hooks_member is not None
        and not hooks_member.value.members
        and created_hooks
        and not document.holds_comments(hooks_member.value)  # someone's notes: they stay
    ):
        document.remove(document.root, document.root.members.index(hooks_member))
    for name, value in (made.added if made else {}).items():
        if name == HOOKS:
            continue
        member = document.root.member(name)
        if member is not None and member.value.value == value:
            document.remove(document.root, document.root.members.index(member))
            changes.append(("removed", f"{name}: {json.dumps(value)}"))
    settings.take(document)
    return changes


def _remove_one_hook(
    document: text_edits.Document,
    event: str,
    agent: str,
    keep_empty: bool,
    key: str | None = HOOKS,
) -> bool:
    """Takes out one rewind hook of ``event`` (its group when nothing else is in it, the event
    when it was the last unless ``keep_empty``); False when there is none left. ``key``: the
    member holding the events (None: the root)."""
    hooks = _hooks_node(document, key)
    member = hooks.member(event) if hooks is not None else None
    if hooks is None or member is None or member.value.kind != "array":
        return False
    items = member.value
    for index, item in enumerate(items.elements):
        if not holds_rewind_hook(item.value, agent):
            continue
        if without_rewind_hooks(item.value, agent) is None:
            alone = len(items.elements) == 1 and not document.holds_comments(items)
            if alone and not keep_empty:
                document.remove(hooks, hooks.members.index(member))
            else:
                document.remove(items, index)
            return True
        inner = _member(item, HOOKS)
        for position, hook in enumerate(inner.elements):
            if is_rewind_hook(hook.value, agent):
                document.remove(inner, position)
                return True
    return False


def inspect_block(settings: SettingsFile, template: JsonObject, agent: str) -> Inspection:
    found = Inspection(settings.path, settings.exists)
    hooks = settings.hooks_data()
    for event, wanted in template_hooks(template).items():
        items = hooks.get(event)
        items = items if isinstance(items, list) else []
        ours = [item for item in items if holds_rewind_hook(item, agent)]
        if not ours:
            found.missing.append(event)
            continue
        found.installed.append(event)
        if ours != [_with_commands(wanted[0], _first_hook(ours[0], agent))]:
            found.different.append(event)
    found.commands = commands_of(hooks, found.installed, agent)
    return found


def _first_hook(item: object, agent: str) -> dict[str, object]:
    for hook in inner_hooks(item):
        if is_rewind_hook(hook, agent):
            assert isinstance(hook, dict)
            return hook
    return {}


def _with_commands(item: object, found: dict[str, object]) -> object:
    """``item`` with the commands (and the resident's URL) of each of its hooks replaced by
    those of the hook ``found`` (to compare modulo the path, and the port)."""
    if isinstance(item, dict) and isinstance(item.get(HOOKS), list):
        return {**item, HOOKS: [_with_commands(hook, found) for hook in item[HOOKS]]}
    if isinstance(item, dict):
        keys = (*COMMAND_KEYS, "url")
        return {**item, **{key: found[key] for key in keys if key in item and key in found}}
    return item
