"""git commands that overwrite work-tree files: ``checkout``, ``restore``, ``reset``, ``clean``,
``stash``, ``switch``, ``rm``, ``mv``, ``apply`` (``-C DIR`` and ``--work-tree`` too); what each
may overwrite, from its options and pathspecs (``apply``: from its patch)."""

from __future__ import annotations

import os

from rewind.quicksave.copy_move import mv
from rewind.quicksave.git_risk import GitRisk, record_git_risk
from rewind.quicksave.options import any_of, first_of, split_options
from rewind.quicksave.patch_commands import git_apply
from rewind.quicksave.removal import rm
from rewind.quicksave.shell import directory_named
from rewind.quicksave.words import has_glob, is_dynamic

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from rewind.quicksave.analysis import Analysis
    from rewind.quicksave.shell import Shell

_GLOBAL_VALUES = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix"}
)


def git(analysis: Analysis, arguments: list[str], shell: Shell) -> None:
    place = _global_options(analysis, arguments, shell.cwd)
    if place is None:
        return
    index, directory, work_tree = place
    if index >= len(arguments):
        return
    subcommand, rest = arguments[index], arguments[index + 1 :]
    if subcommand not in _SUBCOMMANDS and subcommand != "apply":
        return
    if directory is None:
        analysis.warn(f"git {subcommand}: run in a directory only the shell knows; not recorded")
        return
    git_shell = shell.copy()
    git_shell.cwd = directory
    top = work_tree or _repository_top(directory)
    if subcommand == "apply":  # outside a repository, it applies like patch
        git_apply(analysis, rest, git_shell, top or directory)
        return
    if top is None:
        return
    risk = _SUBCOMMANDS[subcommand](analysis, rest, git_shell)
    if risk is not None:
        record_git_risk(analysis, top, risk, f"git {subcommand}")


def _global_options(
    analysis: Analysis, arguments: list[str], directory: str | None
) -> tuple[int, str | None, str | None] | None:
    """git's options before the subcommand: where the subcommand is, the directory it runs
    in (``-C``) and the work tree (``--work-tree``); None: nothing to record."""
    work_tree: str | None = None
    index = 0
    while index < len(arguments) and arguments[index].startswith("-"):
        option, equals, value = arguments[index].partition("=")
        index += 1
        if option in _GLOBAL_VALUES and not equals:
            if index >= len(arguments):
                return None
            value = arguments[index]
            index += 1
        if option == "-C":
            directory = directory_named(value, directory)
        elif option == "--work-tree":
            work_tree = directory_named(value, directory)
        elif option == "--git-dir":
            analysis.warn("git --git-dir: not read; nothing recorded for it")
            return None
    return index, directory, work_tree


def _repository_top(directory: str) -> str | None:
    """The nearest directory, going up, that holds a ``.git`` entry."""
    current = os.path.realpath(directory)
    while True:
        if os.path.lexists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _pathspecs(words: list[str], shell: Shell) -> list[str] | None:
    """Absolute pathspecs, symlinks resolved as in git's paths; None (the whole work tree)
    for magic (``:/``, ``:!x``) or paths only the running shell knows."""
    if shell.cwd is None:
        return None
    base = os.path.realpath(shell.cwd)
    scope: list[str] = []
    for word in words:
        if is_dynamic(word) or word.startswith(":"):
            return None
        scope.append(os.path.normpath(os.path.join(base, word)))
    return scope


def _git_options(
    arguments: list[str], takes_value: str, long_values: tuple[str, ...]
) -> tuple[dict[str, str], list[str], list[str] | None]:
    """Options, the operands before ``--``, and those after it (None: there is no ``--``)."""
    if "--" in arguments:
        split = arguments.index("--")
        options, operands = split_options(arguments[:split], takes_value, long_values)
        return options, operands, arguments[split + 1 :]
    options, operands = split_options(arguments, takes_value, long_values)
    return options, operands, None


# the subcommands ------------------------------------------------------------------------------


def _checkout(analysis: Analysis, arguments: list[str], shell: Shell) -> GitRisk | None:
    options, operands, after_dashes = _git_options(
        arguments, "bBU", ("--orphan", "--conflict", "--pathspec-from-file")
    )
    if after_dashes is not None:
        ref = operands[0] if operands else None
        paths = after_dashes
    elif operands and not _names_paths(operands[0], shell):
        ref, paths = operands[0], operands[1:]
    else:
        ref, paths = None, operands
    if paths or "--pathspec-from-file" in options:
        scope = None if "--pathspec-from-file" in options else _pathspecs(paths, shell)
        return GitRisk(scope, ref)
    if any_of(options, "-f", "--force", "-m", "--merge", "-p", "--patch"):
        return GitRisk(None, ref)
    return None  # a branch switch: git refuses to overwrite local changes


def _names_paths(word: str, shell: Shell) -> bool:
    """Whether ``git checkout WORD`` names paths (not a branch or commit)."""
    if is_dynamic(word) or word.startswith(":") or has_glob(word) or shell.cwd is None:
        return True
    return os.path.lexists(os.path.join(shell.cwd, word))


def _restore(analysis: Analysis, arguments: list[str], shell: Shell) -> GitRisk | None:
    options, operands, after = _git_options(
        arguments, "s", ("--source", "--conflict", "--pathspec-from-file")
    )
    if any_of(options, "-S", "--staged") and not any_of(options, "-W", "--worktree"):
        return None  # the index only
    paths = operands + (after or [])
    whole = not paths or "--pathspec-from-file" in options
    return GitRisk(None if whole else _pathspecs(paths, shell), first_of(options, "-s", "--source"))


def _reset(analysis: Analysis, arguments: list[str], shell: Shell) -> GitRisk | None:
    options, operands, _ = _git_options(arguments, "", ("--pathspec-from-file",))
    if not any_of(options, "--hard", "--merge", "--keep"):
        return None  # --soft, --mixed: the index only
    return GitRisk(None, operands[0] if operands else None)


def _clean(analysis: Analysis, arguments: list[str], shell: Shell) -> GitRisk | None:
    options, operands, after = _git_options(arguments, "e", ("--exclude",))
    if any_of(options, "-n", "--dry-run"):
        return None
    paths = operands + (after or [])
    return GitRisk(_pathspecs(paths, shell) if paths else None, ignored=any_of(options, "-x", "-X"))


def _stash(analysis: Analysis, arguments: list[str], shell: Shell) -> GitRisk | None:
    action = arguments[0] if arguments and not arguments[0].startswith("-") else "push"
    rest = arguments[1:] if arguments and arguments[0] == action else arguments
    if action in ("pop", "apply"):
        _, operands = split_options(rest)
        return GitRisk(stash=operands[0] if operands else "stash@{0}", changed=False)
    if action not in ("push", "save"):
        return None  # list, show, drop, clear, branch, create, store
    options, operands, after = _git_options(rest, "m", ("--message", "--pathspec-from-file"))
    paths = (operands if action == "push" else []) + (after or [])
    scope = _pathspecs(paths, shell) if paths else None
    return GitRisk(scope, ignored=any_of(options, "-a", "--all"))


def _switch(analysis: Analysis, arguments: list[str], shell: Shell) -> GitRisk | None:
    options, operands, _ = _git_options(arguments, "cC", ("--orphan", "--conflict"))
    if not any_of(options, "-f", "--force", "--discard-changes", "-m", "--merge"):
        return None
    return GitRisk(None, operands[0] if operands else None)


def _rm(analysis: Analysis, arguments: list[str], shell: Shell) -> GitRisk | None:
    options, operands, after = _git_options(arguments, "", ("--pathspec-from-file",))
    if not any_of(options, "--cached", "-n", "--dry-run"):
        recursive = ["-r"] if "-r" in options else []
        rm(analysis, [*recursive, "--", *operands, *(after or [])], shell)
    return None


def _mv(analysis: Analysis, arguments: list[str], shell: Shell) -> GitRisk | None:
    options, operands, after = _git_options(arguments, "", ())
    if not any_of(options, "-n", "--dry-run"):
        mv(analysis, ["--", *operands, *(after or [])], shell)
    return None


_SUBCOMMANDS: dict[str, Callable[[Analysis, list[str], Shell], GitRisk | None]] = {
    "checkout": _checkout,
    "restore": _restore,
    "reset": _reset,
    "clean": _clean,
    "stash": _stash,
    "switch": _switch,
    "rm": _rm,
    "mv": _mv,
}
