"""Running the git program on a store, for what only it does: talking to remotes.

rewind reads and writes its objects itself; moving them between machines is git's transport
(``push``, ``fetch``, ``ls-remote``), with everything the user set up for it: ssh keys and
agents, ``~/.ssh/config``, credential helpers, ``url.<base>.insteadOf``, proxies. The user's
git configuration is therefore read, but anything that could run code or write somewhere
else because of the store is switched off on the command line (hooks, automatic gc and
maintenance, commit graphs), and variables that point git at another repository are dropped
from the environment (a git hook that runs rewind has ``GIT_DIR`` and ``GIT_INDEX_FILE`` set).
"""

from __future__ import annotations

import os
import signal
import subprocess

from rewind.errors import UserError

# Variables that would make git read or write another repository than the one named.
_REPOSITORY_VARIABLES = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_SHALLOW_FILE",
    "GIT_QUARANTINE_PATH",
    "GIT_REPLACE_REF_BASE",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
)

# Set on every run on a store: nothing of the user's that runs code or rewrites the store.
_STORE_SETTINGS = (
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "gc.auto=0",
    "maintenance.auto=false",
    "fetch.writeCommitGraph=false",
    "fetch.recurseSubmodules=false",
    "transfer.fsckObjects=true",
    "advice.pushUpdateRejected=false",
    "color.ui=false",
)


class GitFailed(UserError):
    """The git program failed; the message is its last line of error output."""

    def __init__(self, message: str, output: str = "") -> None:
        super().__init__(message)
        self.output = output


def git_environment(interactive: bool) -> dict[str, str]:
    environment = {
        key: value for key, value in os.environ.items() if key not in _REPOSITORY_VARIABLES
    }
    environment["LC_ALL"] = "C"
    environment["GIT_OPTIONAL_LOCKS"] = "0"
    if not interactive:  # never wait for a password nobody can type
        environment["GIT_TERMINAL_PROMPT"] = "0"
        environment.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    return environment


def git_command(git_dir: str | None, *arguments: str) -> list[str]:
    command = ["git"]
    if git_dir is not None:
        command.append(f"--git-dir={git_dir}")
        for setting in _STORE_SETTINGS:
            command += ["-c", setting]
    return [*command, *arguments]


def run_git(
    git_dir: str | None,
    *arguments: str,
    what: str,
    timeout: float | None = None,
    interactive: bool = False,
    cwd: str | None = None,
    check: bool = True,
) -> subprocess.CompletedProcess[bytes]:
    """Runs git on ``git_dir`` (None: no repository, or the one ``cwd`` is in). A failure,
    a missing git program or a timeout raises :class:`GitFailed` naming ``what`` was being
    done; with ``check=False`` a non-zero exit is returned instead."""
    command = git_command(git_dir, *arguments)
    try:
        # Without a terminal, git and what it starts (ssh, a credential helper) are a process
        # group of their own, so that a timeout ends them all: a stalled ssh left behind would
        # hold git's output open, and the wait for it would never end.
        process = subprocess.Popen(
            command,
            env=git_environment(interactive),
            stdin=None if interactive else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            start_new_session=not interactive,
        )
    except FileNotFoundError:
        raise GitFailed(
            f"{what} needs the git program, which is not on PATH; install git and try again."
        ) from None
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except BaseException as error:
        _end(process, group=not interactive)
        if isinstance(error, subprocess.TimeoutExpired):
            raise GitFailed(
                f"{what} gave up after {timeout:.0f} s without an answer; check the remote and "
                "try again."
            ) from None
        raise
    completed = subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
    if check and completed.returncode != 0:
        raise GitFailed(f"{what} failed: {last_error_line(completed.stderr)}", _text(completed))
    return completed


def _end(process: subprocess.Popen[bytes], group: bool) -> None:
    """Kills git (and its process group when it has one of its own) and reaps it."""
    try:
        if group:
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
    except (ProcessLookupError, PermissionError):
        pass
    process.communicate()


def last_error_line(stderr: bytes) -> str:
    """git's most telling line of error output, as one sentence."""
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines()]
    lines = [line for line in lines if line and not line.startswith(("hint:", "remote: "))]
    for line in reversed(lines):
        if line.startswith(("fatal:", "error:")):
            return line.partition(":")[2].strip().rstrip(".") + "."
    return (lines[-1].rstrip(".") + ".") if lines else "git exited with an error."


def _text(completed: subprocess.CompletedProcess[bytes]) -> str:
    return completed.stderr.decode("utf-8", "replace")
