"""The install target of an agent whose hooks live in a JSON settings file: install,
uninstall and doctor's inspection for each scope, through the file
(:mod:`rewind.installers.settings_file`) and the hook block it adds and removes
(:mod:`rewind.installers.hook_blocks`).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable

from rewind.errors import UserError
from rewind.installers import (
    Change,
    Context,
    Inspection,
    Probe,
    Target,
    path_advice,
    record,
)
from rewind.installers.hook_blocks import add_block, inspect_block, remove_block, template_hooks
from rewind.installers.rewind_hooks import commands_of, holds_rewind_hook
from rewind.installers.settings_file import (
    BOM,
    HOOKS,
    JsonObject,
    SettingsFile,
    delete_created,
    tracked_by_git,
)


class JsonHooksTarget(Target):
    """A target whose hooks live in a JSON settings file.

    ``paths`` maps each scope to the file's path relative to the home directory (``user``) or
    to the project root (the others); ``document(command)`` is the hook block for a command.
    """

    # The key the agent's file keeps its hooks under; None: the events are the file's own
    # top-level keys (the template keeps them under ``hooks`` all the same).
    hooks_key: str | None = HOOKS

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

    def read_settings(self, scope: str, context: Context) -> SettingsFile:
        settings = SettingsFile.read(self.location(scope, context))
        settings.hooks_key = self.hooks_key
        return settings

    def location(self, scope: str, context: Context) -> str:
        base = context.home if scope == "user" else context.project
        return os.path.join(base, self.paths[scope])

    def install(self, scope: str, context: Context) -> Change:
        settings = self.read_settings(scope, context)
        shared = scope in self.shared_scopes
        command = context.hook_command(self.agent, shared)
        template = self.document(command)
        had = dict(settings.data)
        had_hooks = settings.hooks_object(create=False)
        had_events = set(had_hooks) if isinstance(had_hooks, dict) else set()
        blank = settings.text if settings.exists and not settings.data else None
        committed = shared and settings.exists and tracked_by_git(context.project, settings.path)
        earlier = record.load(settings.path)
        if earlier is not None and not _holds_rewind_hooks(had_hooks, self.agent):
            record.forget(settings.path)  # of a file since deleted (or emptied) by someone
            earlier = None
        items, kept = add_block(settings, template, self.agent, committed, earlier)
        change = Change(settings.path, created=not settings.exists, items=items)
        if change.changed:
            directories = settings.write()
            added = {k: v for k, v in template.items() if k not in had}
            if self.hooks_key is None:
                added.pop(HOOKS, None)  # the template's events, which are top-level keys
            events = [event for event in template_hooks(template) if event not in had_events]
            made = record.InstallRecord(not settings.exists, directories, added, blank, events)
            record.save(settings.path, made)
            change.notes.append(f"the hooks run: {command}")
        if kept:
            runs = ", ".join(commands_of(had_hooks, kept, self.agent))
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
                settings = self.read_settings(scope, context)
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
        settings = self.read_settings(scope, context)
        made = record.load(settings.path)
        items = remove_block(settings, self.agent, made)
        if not items:
            if made is not None:  # nothing of it is there: the record says nothing any more
                record.forget(settings.path)
            return Change(settings.path, items=items)
        only_braces = re.sub(r"\s", "", settings.text.lstrip(BOM)) == "{}"
        if made and only_braces and (made.created_file or made.blank is not None):
            if made.created_file:
                delete_created(settings.path, made.created_directories)
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
            settings = self.read_settings(scope, context)
        except UserError as error:
            return Inspection(path, True, problem=str(error))
        found = inspect_block(settings, self.document("rewind hook " + self.agent), self.agent)
        self.inspect_more(scope, settings, found)
        return found

    def inspect_more(self, scope: str, settings: SettingsFile, found: Inspection) -> None:
        """Adds what else an agent's settings say about rewind (a subclass's business)."""

    def probe(self, project: str, path: str) -> Probe | None:
        return self._probe(project, path) if self._probe else None


def _holds_rewind_hooks(hooks: object, agent: str) -> bool:
    """Whether a ``hooks`` object runs one of rewind's hooks for ``agent``."""
    if not isinstance(hooks, dict):
        return False
    return any(
        holds_rewind_hook(item, agent)
        for items in hooks.values()
        if isinstance(items, list)
        for item in items
    )


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
