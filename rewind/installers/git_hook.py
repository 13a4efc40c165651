"""``rewind install git-hook``: git's pre-commit hook, through the install targets' registry.

The file itself is written by :mod:`rewind.git_hook`; this maps its outcome onto a
:class:`~rewind.installers.Change`. The hook belongs to one repository (or to the directory
``core.hooksPath`` names), so the target has the project scope only.
"""

from __future__ import annotations

import os
import sys

from rewind import git_hook
from rewind.installers import Change, Context, Target, register


class GitHook(Target):
    name = "git-hook"
    title = "git pre-commit hook"
    scopes = ("project",)
    default_scope = "project"

    def location(self, scope: str, context: Context) -> str:
        _, hooks = git_hook.hooks_directory(context.project)
        return os.path.join(hooks, git_hook.HOOK)

    def install(self, scope: str, context: Context) -> Change:
        # The interpreter running now, baked into the script: a hook must not depend on PATH.
        return _change(git_hook.install(context.project, sys.executable))

    def uninstall(self, scope: str, context: Context) -> Change:
        return _change(git_hook.uninstall(context.project))


def _change(outcome: git_hook.Outcome) -> Change:
    return Change(outcome.path, outcome.created, list(outcome.items), list(outcome.notes))


register(GitHook())
