"""The real git, run by the tests themselves: to set up a work tree (commits, a bare remote, a
clone) and to read what rewind wrote with git's own eyes (a store, a remote).

One way to run it, so that every test's git fails alike: with the command, where it ran and
git's own message, after at most a minute instead of hanging the suite. ``cwd`` is the work tree
(None: the current directory); ``git_dir`` names a repository without a work tree, a store or a
bare remote, as ``--git-dir`` (so git never goes looking for one above it). ``input`` is the
standard input, as text or bytes; ``env`` is added to the environment.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

TIMEOUT = 60


def _run(
    arguments: tuple[str, ...],
    cwd: Path | str | None,
    git_dir: Path | str | None,
    input: str | bytes | None,
    env: Mapping[str, str] | None,
) -> subprocess.CompletedProcess[bytes]:
    command = ["git", *([f"--git-dir={git_dir}"] if git_dir is not None else []), *arguments]
    return subprocess.run(
        command,
        cwd=cwd,
        input=input.encode() if isinstance(input, str) else input,
        capture_output=True,
        env={**os.environ, **(env or {})},
        timeout=TIMEOUT,
        check=False,
    )


def git_outcome(
    *arguments: str,
    cwd: Path | str | None = None,
    git_dir: Path | str | None = None,
    input: str | bytes | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``git ARGUMENTS`` whatever its exit code, its output as text: for the tests that look at
    the exit code or at what git printed on standard error (``git fsck``, ``git cat-file -e``)."""
    done = _run(arguments, cwd, git_dir, input, env)
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
    )


def git_bytes(
    *arguments: str,
    cwd: Path | str | None = None,
    git_dir: Path | str | None = None,
    input: str | bytes | None = None,
    env: Mapping[str, str] | None = None,
) -> bytes:
    """``git ARGUMENTS``, which must exit 0: its standard output as git wrote it (a stored
    version's bytes, which need not be text)."""
    done = _run(arguments, cwd, git_dir, input, env)
    where = f"--git-dir={git_dir}" if git_dir is not None else f"in {cwd or os.getcwd()}"
    assert done.returncode == 0, (
        f"git {' '.join(arguments)} ({where}): exit {done.returncode}\n{done.stderr.decode()}"
    )
    return done.stdout


def git(
    *arguments: str,
    cwd: Path | str | None = None,
    git_dir: Path | str | None = None,
    input: str | bytes | None = None,
    env: Mapping[str, str] | None = None,
) -> str:
    """``git ARGUMENTS``, which must exit 0: its standard output as text, as git wrote it (the
    last newline included: ``.strip()`` it for an object id)."""
    return git_bytes(*arguments, cwd=cwd, git_dir=git_dir, input=input, env=env).decode()
