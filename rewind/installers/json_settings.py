"""Editing an agent's JSON settings file: adding rewind's hook block, removing it, and saying
what is there. The file is read as JSONC (comments, trailing commas) and edited as text
(:mod:`rewind.installers.text_edits`): install adds text, uninstall takes that text out again,
and every other byte stays; :mod:`rewind.installers.record` notes what install created.

A hook block is the document ``rewind install`` would write into an empty file, such as
``{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "rewind hook claude-code"}]}]}}``.
Each event holds a list of items: a group with its own ``hooks`` list (Claude Code, Codex,
Gemini) or a hook itself (Cursor, GitHub Copilot). A hook is rewind's when its ``command`` (its
``bash`` for Copilot) ends with ``rewind hook AGENT``, whichever path or quoting the ``rewind``
has, optionally followed by a guard that keeps its exit status 0 (``|| true``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass

from rewind.errors import UserError
from rewind.installers import (
    Change,
    Context,
    Inspection,
    Probe,
    Target,
    jsonc,
    path_advice,
    record,
    text_edits,
)
from rewind.store.atomic import replace_file
from rewind.store.git_program import GitFailed, run_git

JsonObject = dict[str, object]
HOOKS = "hooks"


# Where a hook keeps the command it runs: ``command`` (Claude Code, Codex, Gemini, Cursor), or
# ``bash`` (GitHub Copilot, whose hooks also have a ``powershell`` twin of it).
COMMAND_KEYS = ("command", "bash", "powershell")
# What may follow ``rewind hook AGENT``: a guard that keeps the hook's exit status 0 when there
# is no rewind to run (Copilot denies the tool call when a preToolUse hook fails).
GUARDS = r"(?:\s*\|\|\s*true|\s*;\s*exit\s+0)?"


def hook_command(hook: object) -> str | None:
    """The command a hook runs: its ``command``, else its ``bash``."""
    if not isinstance(hook, dict):
        return None
    for key in COMMAND_KEYS[:2]:
        value = hook.get(key)
        if isinstance(value, str):
            return value
    return None


def is_rewind_hook(hook: object, agent: str) -> bool:
    command = hook_command(hook)
    pattern = r"""(?:^|[\s/'"])rewind['"]?\s+hook\s+""" + re.escape(agent) + GUARDS + r"\s*$"
    return command is not None and re.search(pattern, command) is not None


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

BOM = "\ufeff"


@dataclass
class SettingsFile:
    """A settings file as read: its text (comments and all), its data, and the tree of where
    each value sits in the text, which edits splice into."""

    path: str
    data: JsonObject
    exists: bool
    text: str = ""
    indent: str = "  "
    mode: int | None = None

    @classmethod
    def read(cls, path: str) -> SettingsFile:
        """The file's content (an empty object when it is missing or empty); a file that is not
        a JSON object (comments and trailing commas allowed) is refused."""
        try:
            with open(path, "rb") as handle:
                raw = handle.read()
            text = raw.decode("utf-8")
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except FileNotFoundError:
            return cls(path, {}, exists=False)
        except (OSError, UnicodeDecodeError) as error:
            reason = getattr(error, "strerror", None) or str(error)
            raise UserError(f"{path} could not be read ({reason}); fix it and run again.") from None
        body = text[1:] if text.startswith(BOM) else text
        if not body.strip():
            return cls(path, {}, exists=True, text=text, mode=mode)
        try:
            root = jsonc.parse(body)
        except jsonc.JsoncError as error:
            raise UserError(
                f"{path} is not valid JSON ({error.message} at line {error.line} column "
                f"{error.column}); fix it, then run the command again."
            ) from None
        if not isinstance(root.value, dict):
            raise UserError(f"{path} does not hold a JSON object; fix it, then run again.")
        indent = re.search(r"^([ \t]+)[\"}\]]", body, re.MULTILINE)
        return cls(
            path,
            root.value,
            exists=True,
            text=text,
            indent=indent.group(1) if indent else "  ",
            mode=mode,
        )

    def document(self) -> text_edits.Document:
        """The text to edit: ``{}`` when the file is missing or blank."""
        body = self.text[1:] if self.text.startswith(BOM) else self.text
        if not body.strip():
            return text_edits.Document("{}\n", self.indent)
        return text_edits.Document(body, self.indent)

    def take(self, edited: text_edits.Document) -> None:
        """Makes the edited document this file's content."""
        self.text = (BOM if self.text.startswith(BOM) else "") + edited.text
        value = edited.root.value
        assert isinstance(value, dict)
        self.data = value

    def write(self) -> list[str]:
        """Replaces the file atomically, with its permissions (the real file, through a link);
        returns the directories it had to create, outermost first."""
        target = os.path.realpath(self.path)
        created = _missing_directories(os.path.dirname(target))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        mode = self.mode if self.mode is not None else 0o666 & ~_umask()
        replace_file(os.fsencode(target), self.text.encode("utf-8"), mode)
        return created

    def hooks_object(self, create: bool) -> JsonObject | None:
        hooks = self.data.get(HOOKS)
        if hooks is not None and not isinstance(hooks, dict):
            raise UserError(f'"hooks" in {self.path} is not a JSON object; fix it and run again.')
        return hooks


def _missing_directories(directory: str) -> list[str]:
    missing: list[str] = []
    while directory and not os.path.exists(directory):
        missing.insert(0, directory)
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return missing


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def tracked_by_git(project: str, path: str) -> bool:
    """Whether git tracks ``path`` in the project's repository (someone committed it)."""
    try:
        done = run_git(
            None,
            "--literal-pathspecs",
            "ls-files",
            "--error-unmatch",
            "--",
            path,
            what="asking git whether it tracks a file",
            cwd=project,
            timeout=60,
            check=False,
            repository_from_environment=True,
        )
    except GitFailed:
        return False
    return done.returncode == 0


# adding, removing, inspecting ------------------------------------------------------------------


def _template_hooks(template: JsonObject) -> dict[str, list[object]]:
    hooks = template[HOOKS]
    assert isinstance(hooks, dict)
    return hooks


def _member(node: jsonc.Node, key: str) -> jsonc.Node:
    member = node.member(key)
    assert member is not None
    return member.value


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
    wanted = _template_hooks(template)
    existing = settings.hooks_object(create=False)
    if existing is not None:
        for event in wanted:
            if event in existing and not isinstance(existing[event], list):
                raise UserError(
                    f'"hooks" > "{event}" in {settings.path} is not a list; fix it and run again.'
                )
    document = settings.document()
    changes: list[tuple[str, str]] = []
    kept: list[str] = []
    for key, value in template.items():
        if key != HOOKS and key not in settings.data:
            document.add(document.root, value, key)
            changes.append(("added", f"{key}: {json.dumps(value)}"))
    for event, items in wanted.items():
        hooks = document.root.member(HOOKS)
        if hooks is None:
            document.add(document.root, {}, HOOKS)
        hooks_node = _member(document.root, HOOKS)
        event_node = hooks_node.member(event)
        if event_node is None:
            document.add(hooks_node, [items[0]], event)
            changes.append(("added", event))
            continue
        current = event_node.value.value
        assert isinstance(current, list)
        ours = [i for i, item in enumerate(current) if _holds_rewind_hook(item, agent)]
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
            while _remove_one_hook(document, event, agent, keep_empty):
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
    ours = [index for index, item in enumerate(items) if _holds_rewind_hook(item, agent)]
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
    document = settings.document()
    changes: list[tuple[str, str]] = []
    for event in list(hooks):
        removed = False
        keep_empty = made is not None and event not in made.events
        while _remove_one_hook(document, event, agent, keep_empty):
            removed = True
        if removed:
            changes.append(("removed", event))
    if not changes:
        return []
    hooks_member = document.root.member(HOOKS)
    created_hooks = made is None or HOOKS in made.added
    if hooks_member is not None and not hooks_member.value.members and created_hooks:
        document.remove(document.root, document.root.members.index(hooks_member))
    for key, value in (made.added if made else {}).items():
        if key == HOOKS:
            continue
        member = document.root.member(key)
        if member is not None and member.value.value == value:
            document.remove(document.root, document.root.members.index(member))
            changes.append(("removed", f"{key}: {json.dumps(value)}"))
    settings.take(document)
    return changes


def _remove_one_hook(
    document: text_edits.Document, event: str, agent: str, keep_empty: bool
) -> bool:
    """Takes out one rewind hook of ``event`` (its group when nothing else is in it, the event
    when it was the last unless ``keep_empty``); False when there is none left."""
    hooks = document.root.member(HOOKS)
    member = hooks.value.member(event) if hooks else None
    if hooks is None or member is None or member.value.kind != "array":
        return False
    items = member.value
    for index, item in enumerate(items.elements):
        if not _holds_rewind_hook(item.value, agent):
            continue
        if _without_rewind_hooks(item.value, agent) is None:
            if len(items.elements) == 1 and not keep_empty:
                document.remove(hooks.value, hooks.value.members.index(member))
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
    hooks = settings.data.get(HOOKS)
    hooks = hooks if isinstance(hooks, dict) else {}
    for event, wanted in _template_hooks(template).items():
        items = hooks.get(event)
        items = items if isinstance(items, list) else []
        ours = [item for item in items if _holds_rewind_hook(item, agent)]
        if not ours:
            found.missing.append(event)
            continue
        found.installed.append(event)
        if ours != [_with_commands(wanted[0], _first_hook(ours[0], agent))]:
            found.different.append(event)
    found.commands = _commands_of(hooks, found.installed, agent)
    return found


def _commands_of(hooks: object, events: list[str], agent: str) -> list[str]:
    """The distinct commands of rewind's hooks of ``events`` in a ``hooks`` object."""
    commands: dict[str, None] = {}
    for event in events:
        items = hooks.get(event) if isinstance(hooks, dict) else None
        for item in items if isinstance(items, list) else []:
            for hook in _inner_hooks(item):
                if is_rewind_hook(hook, agent):
                    commands[str(hook_command(hook))] = None
    return list(commands)


def _first_hook(item: object, agent: str) -> dict[str, object]:
    for hook in _inner_hooks(item):
        if is_rewind_hook(hook, agent):
            assert isinstance(hook, dict)
            return hook
    return {}


def _with_commands(item: object, found: dict[str, object]) -> object:
    """``item`` with the commands of each of its hooks replaced by those of the hook ``found``
    (to compare modulo the path)."""
    if isinstance(item, dict) and isinstance(item.get(HOOKS), list):
        return {**item, HOOKS: [_with_commands(hook, found) for hook in item[HOOKS]]}
    if isinstance(item, dict):
        return {**item, **{key: found[key] for key in COMMAND_KEYS if key in item and key in found}}
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
        self.shared_scopes = ("project",) if "project" in paths else ()
        self.paths = paths
        self.document = document
        self.agent = self.hook_agent = agent or name
        self._probe = probe

    def location(self, scope: str, context: Context) -> str:
        base = context.home if scope == "user" else context.project
        return os.path.join(base, self.paths[scope])

    def install(self, scope: str, context: Context) -> Change:
        settings = SettingsFile.read(self.location(scope, context))
        shared = scope in self.shared_scopes
        command = context.hook_command(self.agent, shared)
        template = self.document(command)
        had = dict(settings.data)
        had_hooks = settings.data.get(HOOKS)
        had_events = set(had_hooks) if isinstance(had_hooks, dict) else set()
        blank = settings.text if settings.exists and not settings.data else None
        committed = shared and settings.exists and tracked_by_git(context.project, settings.path)
        earlier = record.load(settings.path)
        items, kept = add_block(settings, template, self.agent, committed, earlier)
        change = Change(settings.path, created=not settings.exists, items=items)
        if change.changed:
            directories = settings.write()
            added = {k: v for k, v in template.items() if k not in had}
            events = [event for event in _template_hooks(template) if event not in had_events]
            made = record.InstallRecord(not settings.exists, directories, added, blank, events)
            record.save(settings.path, made)
            change.notes.append(f"the hooks run: {command}")
        if kept:
            runs = ", ".join(_commands_of(had_hooks, kept, self.agent))
            change.notes.append(
                f"warning: left {', '.join(kept)} as committed (running {runs}); to rewrite "
                f"them, run 'rewind uninstall {self.name} --{scope}', then install again."
            )
        if shared and shutil.which("rewind") is None:
            change.notes.append(
                "warning: rewind is not on PATH here, and these hooks, meant to be committed, "
                f"run 'rewind' from PATH: {path_advice(self)}."
            )
        change.notes.extend(self._disabled_warnings(context))
        return change

    def _disabled_warnings(self, context: Context) -> list[str]:
        """A warning per settings file of this agent that turns all hooks off."""
        warnings = []
        for scope in self.scopes:
            try:
                settings = SettingsFile.read(self.location(scope, context))
            except UserError:
                continue
            disabled = self.hooks_disabled(settings)
            if disabled:
                warnings.append(f"warning: {settings.path}: {disabled}")
        return list(dict.fromkeys(warnings))

    def hooks_disabled(self, settings: SettingsFile) -> str:
        """Why these settings stop the agent running any hook, or "" (a subclass's business)."""
        return ""

    def uninstall(self, scope: str, context: Context) -> Change:
        settings = SettingsFile.read(self.location(scope, context))
        made = record.load(settings.path)
        items = remove_block(settings, self.agent, made)
        if not items:
            return Change(settings.path, items=items)
        only_braces = re.sub(r"\s", "", settings.text.lstrip(BOM)) == "{}"
        if made and only_braces and (made.created_file or made.blank is not None):
            if made.created_file:
                os.unlink(os.path.realpath(settings.path))
                for directory in reversed(made.created_directories):
                    try:
                        os.rmdir(directory)
                    except OSError:
                        break  # something else is in it
                items.append(("deleted", settings.path))
            else:
                settings.text = made.blank or ""
                settings.write()
        else:
            settings.write()
        record.forget(settings.path)
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
