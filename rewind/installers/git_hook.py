"""``rewind install git-hook``: git's pre-commit hook, through the install targets' registry.

The file itself is written by :mod:`rewind.git_hook`; this maps its outcome onto a
:class:`~rewind.installers.Change`. The hook belongs to one repository (or to the directory
``core.hooksPath`` names), so the target has the project scope only.
"""

from __future__ import annotations

import os
import sys

from rewind import git_hook
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
    scopes = ("project",)
    default_scope = "project"
    hook_agent = "git"

    def location(self, scope: str, context: Context) -> str:
        _, hooks = git_hook.hooks_directory(context.project)
        return os.path.join(hooks, git_hook.HOOK)

    def install(self, scope: str, context: Context) -> Change:
        # The interpreter running now, baked into the script: a hook must not depend on PATH.
        return _change(git_hook.install(context.project, sys.executable))

    def uninstall(self, scope: str, context: Context) -> Change:
        return _change(git_hook.uninstall(context.project))

    def inspect(self, scope: str, context: Context) -> Inspection | None:
        try:
            _, hooks = git_hook.hooks_directory(context.project)
        except UserError:
            return None  # not in a git work tree: no git hook to speak of
        hook, legacy = os.path.join(hooks, git_hook.HOOK), os.path.join(hooks, git_hook.LEGACY)
        try:
            ours = next(
                (p for p in (hook, legacy) if git_hook.installed_version(p) is not None), ""
            )
        except UserError as error:
            return Inspection(hook, True, problem=str(error))
        if not ours:
            return Inspection(hook, os.path.lexists(hook))
        found = Inspection(ours, True, installed=[git_hook.HOOK])
        version = git_hook.installed_version(ours)
        if version is not None and version < git_hook.VERSION:
            found.different.append(f"hook version {version}")
        interpreter = git_hook.installed_interpreter(ours)
        if os.access(interpreter, os.X_OK):
            found.notes.append(("ok", f"runs {interpreter} -m rewind hook git"))
        else:
            again = "run 'rewind install git-hook' again"
            found.notes.append(("warn", f"runs {interpreter!r}, which is gone; {again}"))
        if ours == legacy:
            found.notes.append(("info", f"{hook} is another tool's hook; it runs rewind's"))
        return found

    def probe(self, project: str, path: str) -> Probe | None:
        """One commit attempt: git sends nothing, and ``path`` is a new, untracked file."""
        return Probe([ProbeStep({"hook_event_name": "pre-commit"})])


def _change(outcome: git_hook.Outcome) -> Change:
    return Change(outcome.path, outcome.created, list(outcome.items), list(outcome.notes))


register(GitHook())
