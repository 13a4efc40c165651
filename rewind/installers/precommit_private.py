"""``rewind install git-hook --local``: rewind's pre-commit in a hooks directory of this clone's
own, for repositories whose hooks directory git tracks (``core.hooksPath`` = ``.githooks``).

rewind never changes the team's hooks. It makes ``rewind-hooks`` in the repository's git
directory (the common one, which linked work trees share) and points ``core.hooksPath`` in
``.git/config`` at it. There:

- ``pre-commit`` runs ``rewind hook git``, then the team's ``pre-commit``, whose exit status
  decides the commit; it warns when the team has added a hook that has no wrapper here yet;
- every other hook in the team's directory gets a wrapper of the same name that ``exec``\\ s the
  team's, with the same arguments and input;
- :data:`STATE` keeps the values ``core.hooksPath`` had in ``.git/config``, for uninstall.

The team's directory goes into the scripts as ``core.hooksPath`` named it: a relative one stays
relative, so each work tree still runs its own checkout of it, as git would (git resolves it
from the directory it runs hooks in, the top of the work tree).
"""

from __future__ import annotations

import json
import os
from typing import NamedTuple

from rewind.errors import UserError
from rewind.installers.precommit_hook import (
    AFTER_HOOKS,
    HOOK,
    POST_COMMIT,
    POST_REWRITE,
    WHAT_IT_DOES,
    Outcome,
    hook_script,
    hooks_directory,
    installed_version,
    post_commit_script,
    post_rewrite_script,
    quoted,
    read_text,
    run_git_in,
    write_hook,
)
from rewind.store.fastjson import loads

PRIVATE = "rewind-hooks"
STATE = "rewind-state.json"
KEY = "core.hooksPath"
WRAPPER_MARKER = "# rewind-git-hook-wrapper v1"

_ABOUT = """\
# Installed by 'rewind install git-hook --local' in this clone's own hooks directory, which
# core.hooksPath in .git/config names; 'rewind uninstall git-hook' removes the directory and
# sets core.hooksPath back. Before each commit, rewind records the files git reports changed as a
# turn of the session "git" ('rewind log --session git'). rewind never blocks a commit: the
# team's pre-commit, from the directory core.hooksPath named before, runs afterwards and its
# exit status decides.
"""
_CHAIN = """\
here=$(dirname -- "$0")
for hook in "$team"/*; do
    name=${hook##*/}
    case $name in *.*) continue ;; esac
    if [ -f "$hook" ] && [ ! -e "$here/$name" ]; then
        echo "rewind: git does not run $hook from $here;" \\
            "run 'rewind install git-hook --local' again to add it" >&2
    fi
done
if [ -x "$team/pre-commit" ]; then
    exec "$team/pre-commit" "$@"
fi
exit 0
"""
# After rewind's post-commit: the team's post-commit, with the same arguments; after its
# post-rewrite, the team's, with git's lines too.
_POST_CHAIN = """\
if [ -x "$team/post-commit" ]; then
    exec "$team/post-commit" "$@"
fi
exit 0
"""
_REWRITE_CHAIN = """\
if [ -x "$team/post-rewrite" ] && [ -n "$pairs" ]; then
    printf '%s\\n' "$pairs" | "$team/post-rewrite" "$@"
    exit $?
elif [ -x "$team/post-rewrite" ]; then
    exec "$team/post-rewrite" "$@" </dev/null
fi
exit 0
"""
_WRAPPER = """#!/bin/sh
{marker}
# Written by 'rewind install git-hook --local'; 'rewind uninstall git-hook' removes it.
# Runs the team's hook of the same name, from the directory core.hooksPath named before.
hook={hook}
if [ -x "$hook" ]; then
    exec "$hook" "$@"
fi
exit 0
"""


class Place(NamedTuple):
    """The top of the work tree, and the private hooks directory (absolute)."""

    top: str
    private: str


def place(directory: str) -> Place:
    top, _ = hooks_directory(directory)
    common = run_git_in(top, "rev-parse", "--git-common-dir").stdout.strip()
    return Place(top, os.path.join(os.path.normpath(os.path.join(top, common)), PRIVATE))


def installed(private: str) -> bool:
    """Whether ``rewind install git-hook --local`` made ``private`` (and no uninstall since)."""
    return os.path.isfile(os.path.join(private, STATE))


def pre_commit_script(interpreter: str, team: str) -> str:
    return hook_script(interpreter, _ABOUT, f"team={quoted(team)}\n" + _CHAIN)


def after_private_scripts(interpreter: str, team: str) -> dict[str, str]:
    """rewind's hooks after a commit or a rewrite, by name, each then running the team's."""
    return {
        POST_COMMIT: post_commit_script(interpreter, f"team={quoted(team)}\n" + _POST_CHAIN),
        POST_REWRITE: post_rewrite_script(interpreter, f"team={quoted(team)}\n" + _REWRITE_CHAIN),
    }


def wrapper_script(team: str, name: str) -> str:
    return _WRAPPER.format(marker=WRAPPER_MARKER, hook=quoted(f"{team}/{name}"))


def install(directory: str, interpreter: str) -> Outcome:
    """Makes (or brings up to date) the private hooks directory and points ``core.hooksPath``
    in ``.git/config`` at it."""
    top, private = place(directory)
    current = local_values(top)
    previous = _previous(private, current)
    team = team_directory(top, private, previous)
    created = not os.path.isdir(private)
    os.makedirs(private, exist_ok=True)
    items = _write_scripts(private, top, team, interpreter)
    _write_state(private, previous)
    items += _point_config(top, private, current)
    _check_in_force(top, private, current, created)
    notes = [
        WHAT_IT_DOES,
        f"The hooks in {team} still run, from {private}; when one is added there, commits warn "
        "until this install runs again.",
    ]
    return Outcome(private, created, items, notes)


def uninstall(directory: str) -> Outcome | None:
    """Puts ``core.hooksPath`` in ``.git/config`` back as it was and removes the private
    directory; None when there is none."""
    top, private = place(directory)
    if not installed(private):
        return None
    previous = read_state(private)
    current = local_values(top)
    items, notes = [], []
    if len(current) == 1 and is_ours(current[0], private):
        _restore_config(top, previous)
        if previous:
            items.append(("restored", f"{KEY} in .git/config to {previous[0]}"))
        else:
            items.append(("unset", f"{KEY} in .git/config, which it was not before"))
    else:
        now = current[-1] if current else "not set there"
        notes.append(f"{KEY} in .git/config no longer names {private} ({now}); left as it is.")
    items.append(("removed", f"{private} and its hooks"))
    if not _remove(private):
        notes.append(f"{private} holds files rewind did not write; it was left with them.")
    return Outcome(private, False, items, notes)


# core.hooksPath ---------------------------------------------------------------------------------


def local_values(top: str) -> list[str]:
    """The values of ``core.hooksPath`` written in ``.git/config`` itself, in order."""
    done = run_git_in(top, "config", "--local", "-z", "--get-all", KEY)
    if done.returncode == 1:  # not set
        return []
    if done.returncode != 0:
        detail = (done.stderr.strip().splitlines() or ["git config failed"])[-1]
        raise UserError(f".git/config could not be read ({detail}); fix it and run this again.")
    return done.stdout.split("\0")[:-1]


def is_ours(value: str, private: str) -> bool:
    """Whether ``value`` names ``private``, or where it was before the repository moved (an
    absolute path, named like it, that is gone)."""
    if not os.path.isabs(value) or os.path.basename(os.path.normpath(value)) != PRIVATE:
        return False
    if not os.path.exists(value):
        return True
    return os.path.exists(private) and os.path.samefile(value, private)


def team_directory(top: str, private: str, previous: list[str]) -> str:
    """Where git ran hooks from before rewind's directory: ``core.hooksPath`` as ``.git/config``
    had it, else as the global or system config has it, else the repository's own hooks."""
    if previous:
        return os.path.expanduser(previous[-1])
    done = run_git_in(top, "config", "--show-scope", "--type=path", "-z", "--get-all", KEY)
    fields = done.stdout.split("\0")[:-1] if done.returncode == 0 else []
    for scope, value in reversed(list(zip(fields[::2], fields[1::2], strict=True))):
        if scope in ("system", "global"):
            return value
    return os.path.join(os.path.dirname(private), "hooks")


def _previous(private: str, current: list[str]) -> list[str]:
    """What ``core.hooksPath`` was in ``.git/config`` before rewind's directory: as remembered
    when rewind's value is there, else as it is now."""
    if len(current) > 1:
        raise UserError(
            f"{KEY} is set {len(current)} times in .git/config and git uses the last: keep that "
            f"one ('git config --local --replace-all {KEY} VALUE') and run this again."
        )
    if current and is_ours(current[0], private):
        if not installed(private):
            raise UserError(
                f"{KEY} in .git/config names {current[0]}, but rewind's record of its earlier "
                f"value is gone: set it back ('git config --local {KEY} VALUE', or "
                f"'git config --local --unset {KEY}') and run this again."
            )
        return read_state(private)
    return current


def _point_config(top: str, private: str, current: list[str]) -> list[tuple[str, str]]:
    if current == [private]:
        return []
    _git_config(top, "--replace-all", KEY, private)
    was = f"it was {current[0]}" if current else "it was not set there"
    return [("set", f"{KEY} in .git/config to {private} ({was})")]


def _restore_config(top: str, values: list[str]) -> None:
    if values:
        _git_config(top, "--replace-all", KEY, values[0])
    else:
        _git_config(top, "--unset-all", KEY)


def _git_config(top: str, *arguments: str) -> None:
    done = run_git_in(top, "config", "--local", *arguments)
    if done.returncode != 0:
        detail = (done.stderr.strip().splitlines() or ["git config failed"])[-1]
        raise UserError(f".git/config could not be written ({detail}); fix it and run this again.")


def _check_in_force(top: str, private: str, before: list[str], created: bool) -> None:
    """Undoes the install when git still runs its hooks from elsewhere: a value of
    ``core.hooksPath`` that git reads after ``.git/config`` (``config.worktree``, an include)."""
    hooks = hooks_directory(top)[1]
    if os.path.isdir(hooks) and os.path.samefile(hooks, private):
        return
    _restore_config(top, before)
    if created:
        _remove(private)
    done = run_git_in(top, "config", "--show-origin", "--get", KEY)
    origin = done.stdout.split("\t", 1)[0].removeprefix("file:") or "another config file"
    raise UserError(
        f"{KEY} is also set in {origin}, which git reads after .git/config, so git would not "
        "run rewind's hooks: remove it there and run this again."
    )


# the private directory --------------------------------------------------------------------------


def team_hooks(top: str, team: str) -> list[str]:
    """The names of the hooks in the team's directory other than rewind's own (``pre-commit``,
    ``post-commit``, ``post-rewrite``, which run the team's): its files without a dot in their
    name (no ``.sample``, ``.md`` or ``.sh``)."""
    directory = os.path.join(top, team)
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    return sorted(
        name
        for name in names
        if "." not in name
        and name not in (HOOK, *AFTER_HOOKS)
        and os.path.isfile(os.path.join(directory, name))
    )


def wrappers(private: str) -> list[str]:
    """The names of the wrappers rewind wrote in ``private``."""
    try:
        names = os.listdir(private)
    except OSError:
        return []
    return sorted(name for name in names if _is_wrapper(os.path.join(private, name)))


def _write_scripts(private: str, top: str, team: str, interpreter: str) -> list[tuple[str, str]]:
    items = []
    pre_commit = os.path.join(private, HOOK)
    if _replace(pre_commit, pre_commit_script(interpreter, team)):
        action = "updated" if installed(private) else "added"
        items.append((action, f"rewind's {HOOK} hook, which then runs {team}/{HOOK}"))
    for name, script in after_private_scripts(interpreter, team).items():
        path = os.path.join(private, name)
        existed = os.path.exists(path)
        if _replace(path, script):
            action = "updated" if existed else "added"
            items.append((action, f"rewind's {name} hook, which then runs {team}/{name}"))
    names = team_hooks(top, team)
    written = [n for n in names if _replace(os.path.join(private, n), wrapper_script(team, n))]
    if written:
        items.append(("added", f"{', '.join(written)}: each runs the team's hook of that name"))
    stale = [name for name in wrappers(private) if name not in names]
    for name in stale:
        os.unlink(os.path.join(private, name))
    if stale:
        items.append(("removed", f"{', '.join(stale)}: no such hook in {team} any more"))
    return items


def _replace(path: str, script: str) -> bool:
    """Writes ``script`` to ``path`` unless it holds it already; whether it wrote."""
    if os.path.isfile(path) and read_text(path) == script:
        return False
    if os.path.lexists(path) and installed_version(path) is None and not _is_wrapper(path):
        raise UserError(f"{path} is not rewind's; move it away and run this again.")
    write_hook(path, script)
    return True


def _is_wrapper(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            head = handle.read(200).decode("utf-8", "replace")
    except OSError:
        return False
    return WRAPPER_MARKER in head.splitlines()[:3]


def read_state(private: str) -> list[str]:
    """The values ``core.hooksPath`` had in ``.git/config`` before the install."""
    path = os.path.join(private, STATE)
    try:
        values = loads(read_text(path)).get(KEY)  # type: ignore[attr-defined]
    except (OSError, ValueError, AttributeError):  # ValueError: not JSON, or nested too deep
        values = None
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise UserError(f"{path} is damaged; set {KEY} as it should be and delete {private}.")
    return values


def _write_state(private: str, previous: list[str]) -> None:
    from rewind.store.atomic import write_text_atomically

    write_text_atomically(os.path.join(private, STATE), json.dumps({KEY: previous}) + "\n")


def _remove(private: str) -> bool:
    """Removes what rewind wrote in ``private``, then the directory if that empties it."""
    for name in os.listdir(private):
        path = os.path.join(private, name)
        if name == STATE or _is_wrapper(path) or installed_version(path) is not None:
            os.unlink(path)
    try:
        os.rmdir(private)
    except OSError:
        return False
    return True
