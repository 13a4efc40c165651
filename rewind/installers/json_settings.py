"""Editing an agent's JSON settings file: adding rewind's hook block, removing it, and saying
what is there, while keeping every other key, hook and the file's key order.

A hook block is the document ``rewind install`` would write into an empty file, such as
``{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "rewind hook claude-code"}]}]}}``.
Each event holds a list of items: a group with its own ``hooks`` list (Claude Code, Codex,
Gemini) or a hook itself (Cursor). A hook is rewind's when its ``command`` ends with
``rewind hook AGENT``, whichever path or quoting the ``rewind`` has.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass

from rewind.errors import UserError
from rewind.installers import Change, Context, Inspection, Probe, Target
from rewind.store.atomic import replace_file

JsonObject = dict[str, object]
HOOKS = "hooks"


def is_rewind_hook(hook: object, agent: str) -> bool:
    if not isinstance(hook, dict):
        return False
    command = hook.get("command")
    pattern = r"""(?:^|[\s/'"])rewind['"]?\s+hook\s+""" + re.escape(agent) + r"\s*$"
    return isinstance(command, str) and re.search(pattern, command) is not None


def _inner_hooks(item: object) -> list[object]:
    """The hooks of an event's item: a group's ``hooks`` list, or the item itself."""
    if isinstance(item, dict) and isinstance(item.get(HOOKS), list):
        return list(item[HOOKS])
    return [item]


def _holds_rewind_hook(item: object, agent: str) -> bool:
    return any(is_rewind_hook(hook, agent) for hook in _inner_hooks(item))


def _without_rewind_hooks(item: object, agent: str) -> object | None:
    """``item`` minus rewind's hooks; None when nothing of it is left."""
    if isinstance(item, dict) and isinstance(item.get(HOOKS), list):
        kept = [hook for hook in item[HOOKS] if not is_rewind_hook(hook, agent)]
        if not kept:
            return None
        return {**item, HOOKS: kept} if len(kept) != len(item[HOOKS]) else item
    return None if is_rewind_hook(item, agent) else item


# the file --------------------------------------------------------------------------------------


@dataclass
class SettingsFile:
    """A settings file as read: its data, and how to write it back the way it was written."""

    path: str
    data: JsonObject
    exists: bool
    indent: str = "  "
    final_newline: bool = True
    mode: int | None = None

    @classmethod
    def read(cls, path: str) -> SettingsFile:
        """The file's content (an empty object when it is missing or empty); a file that is not
        a JSON object is refused."""
        try:
            with open(path, encoding="utf-8-sig") as handle:
                text = handle.read()
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except FileNotFoundError:
            return cls(path, {}, exists=False)
        except (OSError, UnicodeDecodeError) as error:
            reason = getattr(error, "strerror", None) or str(error)
            raise UserError(f"{path} could not be read ({reason}); fix it and run again.") from None
        if not text.strip():
            return cls(path, {}, exists=True, mode=mode)
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise UserError(
                f"{path} is not valid JSON ({error.msg} at line {error.lineno} column "
                f"{error.colno}); fix it, then run the command again."
            ) from None
        if not isinstance(data, dict):
            raise UserError(f"{path} does not hold a JSON object; fix it, then run again.")
        indent = re.search(r"^([ \t]+)\S", text, re.MULTILINE)
        return cls(
            path,
            data,
            exists=True,
            indent=indent.group(1) if indent else "  ",
            final_newline=text.endswith("\n"),
            mode=mode,
        )

    def render(self) -> str:
        text = json.dumps(self.data, indent=self.indent, ensure_ascii=False)
        return text + "\n" if self.final_newline else text

    def write(self) -> None:
        """Replaces the file atomically, with its permissions (the real file, through a link)."""
        target = os.path.realpath(self.path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        mode = self.mode if self.mode is not None else 0o666 & ~_umask()
        replace_file(os.fsencode(target), self.render().encode("utf-8"), mode)

    def hooks_object(self, create: bool) -> JsonObject | None:
        hooks = self.data.get(HOOKS)
        if hooks is None and create:
            hooks = self.data[HOOKS] = {}
        if hooks is not None and not isinstance(hooks, dict):
            raise UserError(f'"hooks" in {self.path} is not a JSON object; fix it and run again.')
        return hooks


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# adding, removing, inspecting ------------------------------------------------------------------


def _template_hooks(template: JsonObject) -> dict[str, list[object]]:
    hooks = template[HOOKS]
    assert isinstance(hooks, dict)
    return hooks


def add_block(settings: SettingsFile, template: JsonObject, agent: str) -> list[tuple[str, str]]:
    """Makes each event of ``template`` run rewind's hook exactly as the template says; returns
    what changed. Top-level keys of the template other than ``hooks`` are added when missing."""
    wanted = _template_hooks(template)
    existing = settings.hooks_object(create=False)
    if existing is not None:
        for event in wanted:
            if event in existing and not isinstance(existing[event], list):
                raise UserError(
                    f'"hooks" > "{event}" in {settings.path} is not a list; fix it and run again.'
                )
    changes: list[tuple[str, str]] = []
    for key, value in template.items():
        if key != HOOKS and key not in settings.data:
            settings.data[key] = value
            changes.append(("added", f"{key}: {json.dumps(value)}"))
    hooks = settings.hooks_object(create=True)
    assert hooks is not None
    for event, items in wanted.items():
        action = _add_to_event(hooks, event, items[0], agent)
        if action:
            changes.append((action, event))
    return changes


def _add_to_event(hooks: JsonObject, event: str, wanted: object, agent: str) -> str | None:
    items = hooks.setdefault(event, [])
    assert isinstance(items, list)
    ours = [index for index, item in enumerate(items) if _holds_rewind_hook(item, agent)]
    if not ours:
        items.append(wanted)
        return "added"
    if len(ours) == 1 and items[ours[0]] == wanted:
        return None
    replaced: list[object] = []
    placed = False
    for index, item in enumerate(items):
        rest = _without_rewind_hooks(item, agent)
        if index == ours[0] and rest is None:
            replaced.append(wanted)
            placed = True
        elif rest is not None:
            replaced.append(rest)
    if not placed:
        replaced.append(wanted)
    items[:] = replaced
    return "updated"


def remove_block(settings: SettingsFile, agent: str) -> list[tuple[str, str]]:
    """Removes every rewind hook of ``agent`` from every event, and the event lists (and the
    ``hooks`` object) that leaves empty; returns the events changed."""
    hooks = settings.hooks_object(create=False)
    if not hooks:
        return []
    changes = []
    for event, items in list(hooks.items()):
        if not isinstance(items, list) or not any(_holds_rewind_hook(i, agent) for i in items):
            continue
        kept = [r for r in (_without_rewind_hooks(i, agent) for i in items) if r is not None]
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
        changes.append(("removed", event))
    if changes and not hooks:
        del settings.data[HOOKS]
    return changes


def inspect_block(settings: SettingsFile, template: JsonObject, agent: str) -> Inspection:
    found = Inspection(settings.path, settings.exists)
    hooks = settings.data.get(HOOKS)
    hooks = hooks if isinstance(hooks, dict) else {}
    commands: dict[str, None] = {}
    for event, wanted in _template_hooks(template).items():
        items = hooks.get(event)
        items = items if isinstance(items, list) else []
        ours = [item for item in items if _holds_rewind_hook(item, agent)]
        if not ours:
            found.missing.append(event)
            continue
        found.installed.append(event)
        if ours != [_with_command(wanted[0], _first_command(ours[0], agent))]:
            found.different.append(event)
        for item in ours:
            for hook in _inner_hooks(item):
                if is_rewind_hook(hook, agent):
                    assert isinstance(hook, dict)
                    commands[str(hook["command"])] = None
    found.commands = list(commands)
    return found


def _first_command(item: object, agent: str) -> str:
    for hook in _inner_hooks(item):
        if is_rewind_hook(hook, agent):
            assert isinstance(hook, dict)
            return str(hook["command"])
    return ""


def _with_command(item: object, command: str) -> object:
    """``item`` with the command of each of its hooks replaced (to compare modulo the path)."""
    if isinstance(item, dict) and isinstance(item.get(HOOKS), list):
        return {**item, HOOKS: [_with_command(hook, command) for hook in item[HOOKS]]}
    if isinstance(item, dict) and "command" in item:
        return {**item, "command": command}
    return item


# the target ------------------------------------------------------------------------------------


class JsonHooksTarget(Target):
    """A target whose hooks live in a JSON settings file.

    ``paths`` maps each scope to the file's path relative to the home directory (``user``) or
    to the project root (the others); ``document(command)`` is the hook block for a command.
    """

    def __init__(
        self,
        name: str,
        title: str,
        paths: dict[str, str],
        document: Callable[[str], JsonObject],
        probe: Callable[[str, str], Probe] | None = None,
        agent: str | None = None,
    ) -> None:
        self.name = name
        self.title = title
        self.scopes = tuple(paths)
        self.paths = paths
        self.document = document
        self.agent = self.hook_agent = agent or name
        self._probe = probe

    def location(self, scope: str, context: Context) -> str:
        base = context.home if scope == "user" else context.project
        return os.path.join(base, self.paths[scope])

    def install(self, scope: str, context: Context) -> Change:
        settings = SettingsFile.read(self.location(scope, context))
        command = context.hook_command(self.agent)
        items = add_block(settings, self.document(command), self.agent)
        change = Change(settings.path, created=not settings.exists, items=items)
        if change.changed:
            settings.write()
            change.notes.append(f"the hooks run: {command}")
        return change

    def uninstall(self, scope: str, context: Context) -> Change:
        settings = SettingsFile.read(self.location(scope, context))
        items = remove_block(settings, self.agent)
        if items:
            settings.write()
        return Change(settings.path, items=items)

    def inspect(self, scope: str, context: Context) -> Inspection:
        path = self.location(scope, context)
        try:
            settings = SettingsFile.read(path)
        except UserError as error:
            return Inspection(path, True, problem=str(error))
        found = inspect_block(settings, self.document("rewind hook " + self.agent), self.agent)
        self.inspect_more(scope, settings, found)
        return found

    def inspect_more(self, scope: str, settings: SettingsFile, found: Inspection) -> None:
        """Adds what else an agent's settings say about rewind (a subclass's business)."""

    def probe(self, project: str, path: str) -> Probe | None:
        return self._probe(project, path) if self._probe else None


def command_groups(
    command: str, events: tuple[tuple[str, str | None, int], ...]
) -> dict[str, list[object]]:
    """Claude Code's shape, also used by Codex and Gemini: per event, one group with an
    optional matcher and one command hook with a timeout."""
    block: dict[str, list[object]] = {}
    for event, matcher, timeout in events:
        group: JsonObject = {"matcher": matcher} if matcher else {}
        group[HOOKS] = [{"type": "command", "command": command, "timeout": timeout}]
        block[event] = [group]
    return block
