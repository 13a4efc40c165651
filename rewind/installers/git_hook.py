"""``rewind install git-hook``: git's pre-commit hook, through the install targets' registry.

The files are written by :mod:`rewind.installers.precommit_hook` (``--project``: the
directory git runs hooks from) and :mod:`rewind.installers.precommit_private` (``--local``: a
directory of the clone's own, for a hooks directory that git tracks); this maps their outcome onto a
:class:`~rewind.installers.Change`. Once the private directory is there, git runs hooks from it,
so both scopes then install and uninstall it.
"""

from __future__ import annotations

import os
import sys

from rewind.errors import UserError
from rewind.installers import (
    Change,
    Context,
    Inspection,
    Probe,
    ProbeStep,
    Target,
    precommit_hook,
    precommit_private,
)


class GitHook(Target):
    name = "git-hook"
    title = "git pre-commit hook"
    scopes = ("project", "local")
    default_scope = "project"
    hook_agent = "git"

    def location(self, scope: str, context: Context) -> str:
        if scope == "local":
            return precommit_private.place(context.project).private
        _, hooks = precommit_hook.hooks_directory(context.project)
        return os.path.join(hooks, precommit_hook.HOOK)

    def install(self, scope: str, context: Context) -> Change:
        # The interpreter running now, baked into the script: a hook must not depend on PATH.
        if scope == "local" or _private(context):
            return _change(precommit_private.install(context.project, sys.executable))
        return _change(precommit_hook.install(context.project, sys.executable))

    def uninstall(self, scope: str, context: Context) -> Change:
        outcome = precommit_private.uninstall(context.project)
        if outcome is None and scope == "local":
            return Change(precommit_private.place(context.project).private)
        return _change(outcome or precommit_hook.uninstall(context.project))

    def inspect(self, scope: str, context: Context) -> Inspection | None:
        try:
            private = _private(context)
        except UserError:
            return None  # not in a git work tree: no git hook to speak of
        if scope == "local":
            return _inspect_private(context) if private else None
        return None if private else _inspect_shared(context)

    def probe(self, project: str, path: str) -> Probe | None:
        """One commit attempt: git sends nothing, and ``path`` is a new, untracked file."""
        return Probe([ProbeStep({"hook_event_name": "pre-commit"})])


def _private(context: Context) -> bool:
    """Whether the repository has rewind's private hooks directory."""
    return precommit_private.installed(precommit_private.place(context.project).private)


def _inspect_shared(context: Context) -> Inspection:
    _, hooks = precommit_hook.hooks_directory(context.project)
    hook, legacy = (
        os.path.join(hooks, precommit_hook.HOOK),
        os.path.join(hooks, precommit_hook.LEGACY),
    )
    try:
        ours = next(
            (p for p in (hook, legacy) if precommit_hook.installed_version(p) is not None), ""
        )
    except UserError as error:
        return Inspection(hook, True, problem=str(error))
    if not ours:
        return Inspection(hook, os.path.lexists(hook))
    found = _inspect_hook(ours, "project")
    if precommit_hook.tracked_files(hooks):
        instead = "run 'rewind uninstall git-hook', then 'rewind install git-hook --local'"
        found.notes.append(("warn", f"{hooks} is tracked by git, for the team; {instead}"))
    if ours == legacy:
        found.notes.append(("info", f"{hook} is another tool's hook; it runs rewind's"))
    return found


def _inspect_private(context: Context) -> Inspection:
    top, private = precommit_private.place(context.project)
    hook = os.path.join(private, precommit_hook.HOOK)
    try:
        found = _inspect_hook(hook, "local")
        team = precommit_private.team_directory(top, private, precommit_private.read_state(private))
    except UserError as error:
        return Inspection(hook, True, problem=str(error))
    present = precommit_private.wrappers(private)
    found.missing += [n for n in precommit_private.team_hooks(top, team) if n not in present]
    _, hooks = precommit_hook.hooks_directory(top)
    if os.path.realpath(hooks) != os.path.realpath(private):
        again = "run 'rewind install git-hook --local' again"
        found.notes.append(("warn", f"git runs hooks from {hooks}, not from here; {again}"))
    else:
        found.notes.append(("ok", f"runs the hooks of {team} after rewind's"))
    return found


def _inspect_hook(hook: str, scope: str) -> Inspection:
    """rewind's pre-commit at ``hook``: its version and the interpreter it runs."""
    found = Inspection(hook, True, installed=[precommit_hook.HOOK])
    version = precommit_hook.installed_version(hook)
    if version is None:
        found.installed, found.missing = [], [precommit_hook.HOOK]
    elif version < precommit_hook.VERSION:
        found.different.append(f"hook version {version}")
    # The hooks after a commit (authorship notes, commit labels), beside it: an install from
    # before they existed lacks them until it runs again.
    for name in precommit_hook.AFTER_HOOKS:
        after = os.path.join(os.path.dirname(hook), name)
        if precommit_hook.installed_version(after) is not None:
            found.installed.append(name)
        elif precommit_hook.installed_version(f"{after}.legacy") is None:
            found.missing.append(name)
    interpreter = precommit_hook.installed_interpreter(hook) if version is not None else ""
    if os.access(interpreter, os.X_OK):
        found.notes.append(("ok", f"runs {interpreter} -P -m rewind hook git"))
    elif version is not None:
        again = f"run 'rewind install git-hook --{scope}' again"
        found.notes.append(("warn", f"runs {interpreter!r}, which is gone; {again}"))
    return found


def _change(outcome: precommit_hook.Outcome) -> Change:
    return Change(outcome.path, outcome.created, list(outcome.items), list(outcome.notes))


TARGET = GitHook()
