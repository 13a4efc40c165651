"""What a git command may overwrite, as git lists it: the files it reports changed, the files
that differ from a commit or make up a stash, the ignored files; within pathspecs and the limits.

git is asked through :mod:`rewind.store.git_program`, imported (with ``rewind.store.git_status``
and ``subprocess``) only once git is asked.
"""

from __future__ import annotations

import os

from rewind.quicksave.words import has_glob, is_dynamic

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rewind.quicksave.analysis import Analysis

_STATUS = ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignore-submodules=all"]


class GitRisk:
    """What a git command may overwrite: git's changed files (when ``changed``) within
    ``scope`` (absolute pathspecs; None: the whole work tree), the files that differ from
    ``ref``, the files of ``stash``, and (``ignored``) the ignored files."""

    __slots__ = ("changed", "ignored", "ref", "scope", "stash")

    def __init__(
        self,
        scope: list[str] | None = None,
        ref: str | None = None,
        ignored: bool = False,
        stash: str | None = None,
        changed: bool = True,
    ) -> None:
        self.changed = changed
        self.scope = scope
        self.ref = ref
        self.ignored = ignored
        self.stash = stash


def record_git_risk(analysis: Analysis, top: str, risk: GitRisk, context: str) -> None:
    """Records what ``risk`` names in the work tree at ``top``."""
    if risk.changed and not _record_changed(analysis, top, risk.scope, context):
        return
    listed: list[tuple[str, list[str]]] = []
    if risk.ref is not None and risk.ref != "HEAD" and not is_dynamic(risk.ref):
        arguments = ["diff", "--name-only", "-z", "--no-renames", risk.ref, "--"]
        listed.append((f"{context}: the files that differ from {risk.ref}", arguments))
    if risk.stash is not None and not is_dynamic(risk.stash):
        arguments = ["stash", "show", "--name-only", "-z", "--include-untracked", risk.stash]
        listed.append((f"{context}: the files of {risk.stash}", arguments))
    for what, arguments in listed:
        names = _null_separated(_git_output(top, arguments))
        _record_listed(analysis, top, names, risk.scope, what)
    if risk.ignored:
        ignored = _ignored_names(_git_output(top, [*_STATUS, "--ignored"]))
        _record_listed(analysis, top, ignored, risk.scope, f"{context}: the ignored files")


def _record_changed(analysis: Analysis, top: str, scope: list[str] | None, context: str) -> bool:
    """The files git reports modified, staged or untracked; False, with a warning, when git
    could not say."""
    from rewind.errors import UserError
    from rewind.store.git_status import changed_paths

    try:
        changed = changed_paths(os.fsencode(top))
    except UserError as error:
        analysis.warn(f"{context}: {error}")
        return False
    for name in changed:
        path = os.path.join(top, os.fsdecode(name))
        if _in_scope(path, scope):
            analysis.add(path)
    return True


def _record_listed(
    analysis: Analysis, top: str, names: list[str], scope: list[str] | None, what: str
) -> None:
    """Paths git listed (relative to ``top``), counted against the limits."""
    taken = 0
    for name in names:
        path = os.path.join(top, name)
        if not _in_scope(path, scope):
            continue
        if name.endswith("/"):
            analysis.record_tree(path.rstrip("/"))
            continue
        try:
            size = os.lstat(path).st_size
        except OSError:
            size = 0
        if not analysis.take(size, what, taken):
            return
        taken += 1
        analysis.add(path)


def _in_scope(path: str, scope: list[str] | None) -> bool:
    if scope is None:
        return True
    import fnmatch  # only for a pathspec with a wildcard

    for pattern in scope:
        if path == pattern or path.startswith(pattern.rstrip("/") + "/"):
            return True
        if has_glob(pattern) and fnmatch.fnmatchcase(path, pattern):
            return True
    return False


def _ignored_names(status: bytes | None) -> list[str]:
    """The ignored paths (``!! path``) of ``git status --porcelain=v1 -z --ignored``."""
    names: list[str] = []
    fields = _null_separated(status)
    index = 0
    while index < len(fields):
        field = fields[index]
        index += 1
        if field.startswith("!! "):
            names.append(field[3:])
        elif "R" in field[:2] or "C" in field[:2]:
            index += 1  # a rename's or copy's original name
    return names


def _null_separated(output: bytes | None) -> list[str]:
    if not output:
        return []
    return [os.fsdecode(name) for name in output.split(b"\0") if name]


def _git_output(top: str, arguments: list[str]) -> bytes | None:
    """What ``git ARGUMENTS`` prints in ``top``, asked read-only; None if it fails."""
    from rewind.store.git_program import GitFailed, run_git

    try:
        completed = run_git(
            None,
            "--no-optional-locks",
            *arguments,
            what="asking git what a command may overwrite",
            cwd=top,
            timeout=60,
            check=False,
            repository_from_environment=True,  # the repository the command itself will use
        )
    except GitFailed:
        return None
    return completed.stdout if completed.returncode == 0 else None
