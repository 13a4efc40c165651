"""``rewind install git-hook``: git's pre-commit hook, through the install targets' registry.

The files are written by :mod:`rewind.git_hook` (``--project``: the directory git runs hooks
from) and :mod:`rewind.git_hook_private` (``--local``: a directory of the clone's own, for a
hooks directory that git tracks); this maps their outcome onto a
:class:`~rewind.installers.Change`. Once the private directory is there, git runs hooks from it,
so both scopes then install and uninstall it.
"""

from __future__ import annotations

import os
import sys

from rewind import git_hook, git_hook_private
from rewind.errors import UserError
from rewind.installers import (
    Change,
    Context,
    Inspection,
    Probe,
    ProbeStep,
    Target,
    register,
)


class GitHook(Target):
    name = "git-hook"
    title = "git pre-commit hook"
    scopes = ("project", "local")
    default_scope = "project"
    hook_agent = "git"

    def location(self, scope: str, context: Context) -> str:
        if scope == "local":
            return git_hook_private.place(context.project).private
        _, hooks = git_hook.hooks_directory(context.project)
        return os.path.join(hooks, git_hook.HOOK)

    def install(self, scope: str, context: Context) -> Change:
        # The interpreter running now, baked into the script: a hook must not depend on PATH.
        if scope == "local" or _private(context):
            return _change(git_hook_private.install(context.project, sys.executable))
        return _change(git_hook.install(context.project, sys.executable))

    def uninstall(self, scope: str, context: Context) -> Change:
        outcome = git_hook_private.uninstall(context.project)
        if outcome is None and scope == "local":
            return Change(git_hook_private.place(context.project).private)
        return _change(outcome or git_hook.uninstall(context.project))

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
    return git_hook_private.installed(git_hook_private.place(context.project).private)


def _inspect_shared(context: Context) -> Inspection:
    _, hooks = git_hook.hooks_directory(context.project)
    hook, legacy = os.path.join(hooks, git_hook.HOOK), os.path.join(hooks, git_hook.LEGACY)
    try:
        ours = next((p for p in (hook, legacy) if git_hook.installed_version(p) is not None), "")
    except UserError as error:
        return Inspection(hook, True, problem=str(error))
    if not ours:
        return Inspection(hook, os.path.lexists(hook))
    found = _inspect_hook(ours, "project")
    if git_hook.tracked_files(hooks):
        instead = "run 'rewind uninstall git-hook', then 'rewind install git-hook --local'"
        found.notes.append(("warn", f"{hooks} is tracked by git, for the team; {instead}"))
    if ours == legacy:
        found.notes.append(("info", f"{hook} is another tool's hook; it runs rewind's"))
    return found


def _inspect_private(context: Context) -> Inspection:
    top, private = git_hook_private.place(context.project)
    hook = os.path.join(private, git_hook.HOOK)
    try:
        found = _inspect_hook(hook, "local")
        team = git_hook_private.team_directory(top, private, git_hook_private.read_state(private))
    except UserError as error:
        return Inspection(hook, True, problem=str(error))
    present = git_hook_private.wrappers(private)
    found.missing += [n for n in git_hook_private.team_hooks(top, team) if n not in present]
    _, hooks = git_hook.hooks_directory(top)
    if os.path.realpath(hooks) != os.path.realpath(private):
        again = "run 'rewind install git-hook --local' again"
        found.notes.append(("warn", f"git runs hooks from {hooks}, not from here; {again}"))
    else:
        found.notes.append(("ok", f"runs the hooks of {team} after rewind's"))
    return found


def _inspect_hook(hook: str, scope: str) -> Inspection:
    """rewind's pre-commit at ``hook``: its version and the interpreter it runs."""
    found = Inspection(hook, True, installed=[git_hook.HOOK])
    version = git_hook.installed_version(hook)
    if version is None:
        found.installed, found.missing = [], [git_hook.HOOK]
    elif version < git_hook.VERSION:
        found.different.append(f"hook version {version}")
    interpreter = git_hook.installed_interpreter(hook) if version is not None else ""
    if os.access(interpreter, os.X_OK):
        found.notes.append(("ok", f"runs {interpreter} -m rewind hook git"))
    elif version is not None:
        again = f"run 'rewind install git-hook --{scope}' again"
        found.notes.append(("warn", f"runs {interpreter!r}, which is gone; {again}"))
    return found


def _change(outcome: git_hook.Outcome) -> Change:
    return Change(outcome.path, outcome.created, list(outcome.items), list(outcome.notes))


register(GitHook())
