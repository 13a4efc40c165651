"""``rewind install git-hook`` / ``rewind uninstall git-hook``: the pre-commit hook file.

The installed hook is a POSIX sh script marked with :data:`MARKER` and a version, so that
uninstall and later installs recognise it. It runs ``rewind hook git`` with the interpreter that
installed it (falling back to ``rewind`` on PATH when that interpreter is gone or no longer has
rewind), ignores how that went, then hands over to the hook that was there before, kept as
``pre-commit.legacy``, whose exit status decides the commit. rewind itself never blocks one.

Only the hooks directory is written: ``core.hooksPath`` when set, else ``.git/hooks`` of the
repository (the common one for a linked work tree), as ``git rev-parse --git-path hooks`` says.
A directory that git tracks (the team's ``.githooks``) is refused: writing there would change or
litter what the team commits; :mod:`rewind.installers.precommit_private` installs beside it instead.
"""

from __future__ import annotations

import os
from typing import NamedTuple

from rewind.errors import UserError
from rewind.store.git_program import GitFailed, run_git

MARKER = "# rewind-git-hook v"
VERSION = 1
HOOK = "pre-commit"
LEGACY = "pre-commit.legacy"
# After each commit, and after an amend or a rebase: authorship notes
# (rewind.history.attribution), when rewind.toml turns them on.
POST_COMMIT = "post-commit"
POST_REWRITE = "post-rewrite"
AFTER_HOOKS = (POST_COMMIT, POST_REWRITE)

_SCRIPT = """#!/bin/sh
{marker}{version}
{about}interpreter={interpreter}
status=127
if [ -x "$interpreter" ]; then
    "$interpreter" -P -m rewind hook git </dev/null >/dev/null 2>&1
    status=$?
fi
if [ "$status" -eq 1 ] || [ "$status" -eq 127 ]; then
    # The interpreter that installed this hook is gone or no longer has rewind.
    if command -v rewind >/dev/null 2>&1; then
        rewind hook git </dev/null >/dev/null 2>&1 || true
    else
        echo "rewind: this commit's files were not recorded: neither $interpreter -m rewind" \\
            "nor rewind on PATH could run; reinstall with 'rewind install git-hook'" >&2
    fi
fi
{chain}"""

# What the hook says about itself, and how it hands over, in a shared hooks directory.
_ABOUT = """\
# Installed by 'rewind install git-hook'; 'rewind uninstall git-hook' removes it.
# Before each commit, rewind records the files git reports changed as a turn of the session
# "git" ('rewind log --session git'), so that 'rewind restore N --session git' can bring them
# back. rewind never blocks a commit: the hook that was here before, kept as pre-commit.legacy,
# runs afterwards and its exit status decides.
"""
_CHAIN = """\
# Named after this file, so that as another tool's legacy hook it does not run itself again.
legacy="$0.legacy"
if [ -x "$legacy" ]; then
    exec "$legacy" "$@"
fi
exit 0
"""

# The post-commit hook: the commit's id as the hook sees HEAD (and, in a cherry-pick, the commit
# picked), handed to rewind in the background (a commit never waits for its note), in one git
# process; then the hook that was there before, as for pre-commit.
_POST_COMMIT = """#!/bin/sh
{marker}{version}
# Installed by 'rewind install git-hook'; 'rewind uninstall git-hook' removes it.
# After each commit, when rewind.toml says [attribution] notes = true, rewind writes the
# commit's authorship note (refs/notes/ai: which recorded prompt wrote which of its lines) in
# the background; the commit does not wait for it. Nothing is written while notes are off.
interpreter={interpreter}
newline='
'
found=$(git rev-parse HEAD --git-dir 2>/dev/null)
commit=${{found%%"$newline"*}}
gitdir=${{found#*"$newline"}}
picked=
if [ -f "$gitdir/CHERRY_PICK_HEAD" ]; then
    read -r picked < "$gitdir/CHERRY_PICK_HEAD"
fi
# A rebase makes a commit per pick: its post-rewrite hook notes them all at the end, in one
# process, instead of one here for each.
if [ -d "$gitdir/rebase-merge" ] || [ -d "$gitdir/rebase-apply" ]; then
    commit=
fi
case $commit$picked in
*[!0-9a-f]* | '') ;;
*)
    payload='{{"commit": "'"$commit"'", "picked": "'"$picked"'"}}'
    if [ -x "$interpreter" ]; then
        ("$interpreter" -P -m rewind hook git-post-commit "$payload" </dev/null >/dev/null 2>&1 &)
    elif command -v rewind >/dev/null 2>&1; then
        (rewind hook git-post-commit "$payload" </dev/null >/dev/null 2>&1 &)
    fi
    ;;
esac
{chain}"""

# The post-rewrite hook (after an amend or a rebase): git's OLD NEW lines handed to rewind in the
# background, and to the hook that was there before, which decides nothing (git ignores it).
_POST_REWRITE = """#!/bin/sh
{marker}{version}
# Installed by 'rewind install git-hook'; 'rewind uninstall git-hook' removes it.
# After an amend or a rebase, when rewind.toml says [attribution] notes = true, rewind carries
# the authorship notes of the rewritten commits onto the new ones, in the background.
interpreter={interpreter}
pairs=$(cat)
if [ -z "$pairs" ]; then
    :
elif [ -x "$interpreter" ]; then
    (printf '%s\\n' "$pairs" | "$interpreter" -P -m rewind hook git-post-rewrite &) \\
        >/dev/null 2>&1
elif command -v rewind >/dev/null 2>&1; then
    (printf '%s\\n' "$pairs" | rewind hook git-post-rewrite &) >/dev/null 2>&1
fi
{chain}"""
_REWRITE_CHAIN = """\
# Named after this file, so that as another tool's legacy hook it does not run itself again.
legacy="$0.legacy"
if [ -x "$legacy" ] && [ -n "$pairs" ]; then
    printf '%s\\n' "$pairs" | "$legacy" "$@"
    exit $?
elif [ -x "$legacy" ]; then
    exec "$legacy" "$@" </dev/null
fi
exit 0
"""

WHAT_IT_DOES = (
    "Each commit attempt records the files git reports changed as a turn of the session 'git': "
    "'rewind log --session git' lists them, 'rewind restore N --session git' brings them back."
)


class Outcome(NamedTuple):
    """What an install or uninstall did to the hooks directory: ``items`` are (action, what)
    pairs in the order they happened, none when nothing changed."""

    path: str
    created: bool
    items: list[tuple[str, str]]
    notes: list[str]


def hook_script(interpreter: str, about: str = _ABOUT, chain: str = _CHAIN) -> str:
    """rewind's pre-commit: a comment ``about`` it, the lines that run ``interpreter -m rewind
    hook git``, then the ``chain`` of sh lines that hand over to the next hook."""
    return _SCRIPT.format(
        marker=MARKER, version=VERSION, about=about, interpreter=quoted(interpreter), chain=chain
    )


def post_commit_script(interpreter: str, chain: str = _CHAIN) -> str:
    """rewind's post-commit: the authorship note of the commit, in the background, then the
    ``chain`` of sh lines that hand over to the next hook."""
    return _POST_COMMIT.format(
        marker=MARKER, version=VERSION, interpreter=quoted(interpreter), chain=chain
    )


def post_rewrite_script(interpreter: str, chain: str = _REWRITE_CHAIN) -> str:
    """rewind's post-rewrite: the notes carried onto the rewritten commits, in the background,
    then the ``chain`` of sh lines that hand git's lines over to the next hook."""
    return _POST_REWRITE.format(
        marker=MARKER, version=VERSION, interpreter=quoted(interpreter), chain=chain
    )


def quoted(text: str) -> str:
    """``text`` as one sh word."""
    return "'" + text.replace("'", "'\\''") + "'"


def installed_version(path: str) -> int | None:
    """The version of rewind's hook in ``path``; None when it is not rewind's (or absent)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(4096).decode("utf-8", "replace")
    except (FileNotFoundError, IsADirectoryError):
        return None
    except OSError as error:
        raise UserError(f"{path} could not be read ({error.strerror}).") from None
    for line in head.splitlines()[:5]:
        if line.startswith(MARKER):
            number = line[len(MARKER) :].strip()
            return int(number) if number.isdigit() else 0
    return None


def installed_interpreter(path: str) -> str:
    """The interpreter an installed hook runs (the ``interpreter=`` line), or ""."""
    for line in read_text(path).splitlines():
        if line.startswith("interpreter='") and line.endswith("'"):
            return line[len("interpreter='") : -1].replace("'\\''", "'")
    return ""


def hooks_directory(directory: str) -> tuple[str, str]:
    """The top of the work tree that holds ``directory`` and the directory git runs its hooks
    from (``core.hooksPath`` honoured), both absolute."""
    done = run_git_in(directory, "rev-parse", "--show-toplevel", "--git-path", "hooks")
    lines = done.stdout.splitlines()
    if done.returncode != 0 or len(lines) != 2:
        message = done.stderr.strip().splitlines()
        detail = message[-1] if message else "no work tree"
        raise UserError(
            f"{directory} is not in a git work tree ({detail}); run this in the repository "
            "whose commits rewind should record, or name it with -C DIR."
        )
    top, hooks = lines
    return top, os.path.normpath(os.path.join(directory, hooks))


def install(directory: str, interpreter: str) -> Outcome:
    """Installs the hooks into the repository that holds ``directory``; they run
    ``interpreter -P -m rewind hook git`` (pre-commit) and ``... git-post-commit`` (post-commit;
    ``-P``: the work tree's top, where git runs hooks, is not put on ``sys.path``, so a
    ``rewind/`` folder of the repository is never run in rewind's place).
    A hooks directory that git tracks is refused."""
    top, hooks = hooks_directory(directory)
    hook = os.path.join(hooks, HOOK)
    version = installed_version(hook)
    if tracked_files(hooks):
        raise UserError(_tracked_message(top, hooks, version is not None))
    if _manager_of(hook):
        raise UserError(
            f"{hook} is a hook manager's ({_manager_of(hook)}), which finds what to run from "
            "its file's name and would break once moved aside: run 'rewind install git-hook "
            "--local' instead, which runs it as it is after rewind's."
        )
    notes = [WHAT_IT_DOES, *_configured_path_note(top, hooks)]
    afters = {
        name: script
        for name, script in after_scripts(interpreter).items()
        if not _managed(os.path.join(hooks, name), notes)
    }
    for slot in (hook, *(os.path.join(hooks, name) for name in afters)):
        _refuse_two_to_keep(slot)  # before anything is written: never half an install
    outcome = _install_one(hook, hook_script(interpreter), interpreter, notes)
    written = [hook]
    for name, script in afters.items():
        written.append(os.path.join(hooks, name))
        after = _install_one(written[-1], script, interpreter, notes)
        outcome = Outcome(outcome.path, outcome.created, outcome.items + after.items, notes)
    for path in written:
        if outcome.items and _committable(top, path):
            notes.append(
                f"{path} is in the work tree and not ignored, so 'git add -A' would commit "
                "it: list it in .git/info/exclude, or install with --local instead."
            )
    return outcome


def after_scripts(interpreter: str) -> dict[str, str]:
    """rewind's hooks after a commit or a rewrite, by name, as a shared directory holds them."""
    return {
        POST_COMMIT: post_commit_script(interpreter),
        POST_REWRITE: post_rewrite_script(interpreter),
    }


# Hook managers find what to run from their own file's name: renamed NAME.legacy, the hook they
# installed would run the wrong hooks, or none (the pre-commit framework: its generated scripts,
# which then refuse every commit; husky: its "h" beside them, which then runs nothing). rewind
# never moves them: the install asks for --local for a pre-commit of theirs, and leaves their
# hooks after a commit alone.


def _manager_of(hook: str) -> str:
    """The hook manager whose file ``hook`` is ("the pre-commit framework", "husky"), or ""."""
    if installed_version(hook) is not None or not os.path.lexists(hook):
        return ""
    try:
        with open(hook, "rb") as handle:
            head = handle.read(4096)
    except OSError:
        return ""
    if b"File generated by pre-commit" in head:
        return "the pre-commit framework"
    if os.path.isfile(os.path.join(os.path.dirname(hook), "h")) or b"husky" in head:
        return "husky"
    return ""


def _managed(hook: str, notes: list[str]) -> bool:
    """Whether ``hook`` (a hook after a commit) is a hook manager's, which rewind must not move;
    says so in ``notes``."""
    if not _manager_of(hook):
        return False
    name = os.path.basename(hook)
    notes.append(
        f"{hook} is a hook manager's: rewind left it alone, so its {name} (commit labels and "
        "authorship notes) does not run; 'rewind install git-hook --local' runs both."
    )
    return True


def _refuse_two_to_keep(hook: str) -> None:
    """Refuses an install that would have to move a hook onto a ``.legacy`` that exists."""
    name = os.path.basename(hook)
    legacy = f"{hook}.legacy"
    if installed_version(hook) is None and os.path.lexists(hook) and os.path.lexists(legacy):
        raise UserError(
            f"{hook} and {name}.legacy both exist already, and rewind would have to replace "
            f"one of them: move {legacy} away (or merge it into {name}) and run this again."
        )


def _install_one(hook: str, script: str, interpreter: str, notes: list[str]) -> Outcome:
    version = installed_version(hook)
    if version is not None:
        return _update(hook, script, version, interpreter, notes)
    return _add(hook, script, notes)


def _update(hook: str, script: str, version: int, interpreter: str, notes: list[str]) -> Outcome:
    """Rewrites rewind's hook (of hook version ``version``) when it is not ``script``."""
    name = os.path.basename(hook)
    if version > VERSION:
        raise UserError(
            f"{hook} was installed by a newer rewind (hook version {version}); left as it is."
        )
    if read_text(hook) == script:
        return Outcome(hook, False, [], notes)
    write_hook(hook, script)
    if version < VERSION:
        upgraded = f"{name} hook version {version} to {VERSION}"
        return Outcome(hook, False, [("upgraded", upgraded)], notes)
    return Outcome(hook, False, [("updated", f"the {name} hook now runs {interpreter}")], notes)


def _add(hook: str, script: str, notes: list[str]) -> Outcome:
    """Writes rewind's hook, moving the one that was there (if any) to ``NAME.legacy``."""
    hooks, name = os.path.split(hook)
    legacy_name = f"{name}.legacy"
    legacy = os.path.join(hooks, legacy_name)
    items = []
    moved = os.path.lexists(hook)
    if moved:
        if os.path.lexists(legacy):
            raise UserError(
                f"{hook} and {legacy_name} both exist already, and rewind would have to replace "
                f"one of them: move {legacy} away (or merge it into {name}) and run this again."
            )
        os.rename(hook, legacy)
        items.append(("moved", f"the {name} hook that was there to {legacy_name}"))
        notes.append(f"{legacy} runs after rewind's hook; its verdict still decides each commit.")
    else:
        os.makedirs(hooks, exist_ok=True)
    write_hook(hook, script)
    items.append(("added", f"rewind's {name} hook"))
    return Outcome(hook, not moved, items, notes)


def tracked_files(hooks: str) -> list[str]:
    """The files in the directory ``hooks`` that git tracks: in this repository, or in another
    one that holds the directory (a dotfiles repository for a global ``core.hooksPath``)."""
    if not os.path.isdir(hooks):
        return []
    # In .git/hooks (no work tree) ls-files would list the whole index.
    inside = run_git_in(hooks, "rev-parse", "--is-inside-work-tree").stdout.strip()
    done = run_git_in(hooks, "--literal-pathspecs", "ls-files", "-z", "--", ".")
    if inside != "true" or done.returncode != 0:
        return []
    return [name for name in done.stdout.split("\0") if name]


def _tracked_message(top: str, hooks: str, ours: bool) -> str:
    if ours:
        return (
            f"{os.path.join(hooks, HOOK)} is rewind's hook in place of the one git tracks, put "
            "there by an earlier rewind: run 'rewind uninstall git-hook' to give the team's hook "
            "back, then 'rewind install git-hook --local'."
        )
    shown = os.path.relpath(hooks, top) if _inside(hooks, top) else hooks
    return (
        f"core.hooksPath names {shown}, a directory git tracks, and rewind does not change "
        "tracked hooks: run 'rewind install git-hook --local' to install into a private "
        "hooks directory in .git that runs rewind's hook, then these."
    )


def _committable(top: str, path: str) -> bool:
    """Whether ``path`` is an untracked file of this work tree that no ignore rule covers."""
    done = run_git_in(
        top, "--literal-pathspecs", "ls-files", "-z", "--others", "--exclude-standard", "--", path
    )
    return done.returncode == 0 and bool(done.stdout)


def uninstall(directory: str) -> Outcome:
    """Removes rewind's hooks and puts back the ones they chained."""
    _, hooks = hooks_directory(directory)
    outcome = _uninstall_one(os.path.join(hooks, HOOK))
    for name in AFTER_HOOKS:
        after = _uninstall_one(os.path.join(hooks, name))
        notes = outcome.notes + [n for n in after.notes if after.items]
        outcome = Outcome(outcome.path, False, outcome.items + after.items, notes)
    return outcome


def _uninstall_one(hook: str) -> Outcome:
    name = os.path.basename(hook)
    legacy = f"{hook}.legacy"
    if installed_version(hook) is not None:
        os.unlink(hook)
        items = [("removed", f"rewind's {name} hook")]
        if os.path.lexists(legacy):
            os.rename(legacy, hook)
            items.append(("restored", f"the earlier hook from {name}.legacy"))
        return Outcome(hook, False, items, [])
    if installed_version(legacy) is not None:
        # Another hook manager (the pre-commit framework, say) moved rewind's hook aside and
        # runs it as its legacy hook: removing that file takes rewind out of the chain.
        os.unlink(legacy)
        note = f"{hook} is not rewind's; it was left as it is."
        return Outcome(legacy, False, [("removed", "rewind's hook, chained as legacy")], [note])
    if os.path.lexists(hook):
        return Outcome(hook, False, [], [f"{hook} is not rewind's hook; it was left as it is."])
    return Outcome(hook, False, [], [])


def describe(outcome: Outcome, installing: bool) -> list[str]:
    """The lines ``rewind install git-hook`` / ``uninstall git-hook`` print."""
    if outcome.items:
        done = "; ".join(f"{action} {what}" for action, what in outcome.items)
        lines = [f"{outcome.path}: {done}."]
    elif installing:
        lines = [f"rewind's pre-commit hook is already installed: {outcome.path}"]
    else:
        lines = [f"rewind's pre-commit hook is not installed; nothing to remove ({outcome.path})."]
    return lines + [note for note in outcome.notes if outcome.items or note != WHAT_IT_DOES]


def _configured_path_note(top: str, hooks: str) -> list[str]:
    """A word on where the hook went when ``core.hooksPath`` chose the place."""
    configured = run_git_in(top, "config", "--get", "core.hooksPath").stdout.strip()
    if not configured:
        return []
    note = f"core.hooksPath is set ({configured}): git runs hooks from {hooks}, so it is there."
    if not _inside(hooks, top):
        note += (
            " That directory is outside this repository: every repository that uses it records "
            "its commits too, each in its own rewind store."
        )
    return [note]


def _inside(path: str, directory: str) -> bool:
    real, top = os.path.realpath(path), os.path.realpath(directory)
    return real == top or real.startswith(top.rstrip("/") + "/")


class GitAnswer(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


def run_git_in(directory: str, *arguments: str) -> GitAnswer:
    """git in ``directory``, on the repository the user's git finds there (their ``GIT_DIR``
    and ``GIT_WORK_TREE`` count), whatever its exit status."""
    try:
        done = run_git(
            None,
            *arguments,
            what="git",
            cwd=directory,
            timeout=60,
            check=False,
            repository_from_environment=True,
        )
    except GitFailed as error:
        raise UserError(
            f"git could not run in {directory} ({error.cause}); is git installed?"
        ) from None
    return GitAnswer(done.returncode, os.fsdecode(done.stdout), os.fsdecode(done.stderr))


def read_text(path: str) -> str:
    with open(path, encoding="utf-8", errors="replace") as handle:
        return handle.read()


def write_hook(path: str, script: str) -> None:
    """Writes the hook executable, atomically (a commit running meanwhile sees old or new)."""
    from rewind.store.atomic import replace_file

    try:
        replace_file(os.fsencode(path), script.encode("utf-8"), 0o755)
    except OSError as error:
        raise UserError(f"{path} could not be written ({error.strerror}).") from None
