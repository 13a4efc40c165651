"""The one place rewind starts the git program, on a store or on the user's repository.

rewind reads and writes its objects itself; moving them between machines is git's transport
(``push``, ``fetch``, ``ls-remote``), with everything the user set up for it: ssh keys and
agents, ``~/.ssh/config``, credential helpers, ``url.<base>.insteadOf``, proxies. The user's
git configuration is therefore read, but anything that could run code or write somewhere
else because of the store is switched off on the command line (hooks, automatic gc and
maintenance, commit graphs). The user's own repository is only asked what git knows of it
(``git status``, ``ls-files``, ``check-ignore``, the hooks directory) or, by the installers,
given a setting.

Every run follows one recipe: C locale and no optional locks (git never refreshes the user's
index for rewind's questions), no prompt for a password nobody can type, standard input closed
(or given), and, without a terminal, a process group of its own so that a timeout or an
interruption ends git and what it started (ssh, a credential helper) together. Where the
repository is is said by rewind, by path, so the variables that point git at another one are
dropped from the environment (a git hook that runs rewind has ``GIT_DIR`` and
``GIT_INDEX_FILE`` set) -- except when the repository is the user's as their own git finds it
(``repository_from_environment``): the pre-commit safety net, the quicksave and the installers
ask about the repository the user's ``GIT_DIR`` and ``GIT_WORK_TREE`` name.

Only the standard library is imported (the quicksave and the pre-commit hook import this
module), and ``tests/gates_test.py`` checks that no other module starts git.
"""

from __future__ import annotations

import os
import signal
import subprocess

from rewind.errors import UserError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

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

Argument = str | bytes


class GitFailed(UserError):
    """The git program failed; the message is its last line of error output.

    ``cause`` is set when git did not run or did not finish (it is not on PATH, the directory
    is missing, no answer in time): a short phrase, for callers that say it their own way."""

    def __init__(self, message: str, output: str = "", cause: str = "") -> None:
        super().__init__(message)
        self.output = output
        self.cause = cause


class GitMissing(GitFailed):
    """The git program is not on PATH."""


def run_git(
    git_dir: str | None,
    *arguments: Argument,
    what: str,
    timeout: float | None = None,
    interactive: bool = False,
    cwd: Argument | None = None,
    check: bool = True,
    input: bytes | None = None,
    variables: Mapping[str, str | None] | None = None,
    repository_from_environment: bool = False,
) -> subprocess.CompletedProcess[bytes]:
    """Runs git on the store ``git_dir`` (None: no repository, or the one ``cwd`` or ``-C``
    names; with ``repository_from_environment``, the one the user's ``GIT_DIR`` names) and
    waits for it, giving it ``input`` on its standard input; ``variables`` are set in its
    environment (None: removed). A missing git program or a timeout raises :class:`GitFailed`
    naming ``what`` was being done; so does a failure, unless ``check=False``: then its exit
    status is returned."""
    command = _command(git_dir, arguments)
    environment = _environment(interactive, repository_from_environment, variables)
    process = _start(
        command,
        environment,
        what,
        interactive=interactive,
        cwd=cwd,
        stdin=subprocess.PIPE if input is not None else None,
        stdout=subprocess.PIPE,
    )
    try:
        stdout, stderr = process.communicate(input, timeout=timeout)
    except BaseException as error:
        _kill(process, group=not interactive)
        process.communicate()
        if isinstance(error, subprocess.TimeoutExpired):
            raise GitFailed(
                f"{what} gave up after {timeout:.0f} s without an answer; check the remote and "
                "try again.",
                cause=f"no answer after {timeout:.0f} s",
            ) from None
        raise
    completed = subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
    if check and completed.returncode != 0:
        raise GitFailed(f"{what} failed: {last_error_line(completed.stderr)}", _text(completed))
    return completed


def start_git(
    git_dir: str, *arguments: Argument, what: str, interactive: bool = False
) -> subprocess.Popen[bytes]:
    """Starts git on the store ``git_dir`` without waiting for it, for a caller that watches
    it run (a fetch, stopped when it grows too big): its output is discarded, its error
    output is a pipe to read. End it early with :func:`stop_git`."""
    return _start(
        _command(git_dir, arguments),
        _environment(interactive, False, None),
        what,
        interactive=interactive,
        stdout=subprocess.DEVNULL,
    )


def stop_git(process: subprocess.Popen[bytes], interactive: bool = False) -> None:
    """Kills git that :func:`start_git` started, and what it started, and waits for it."""
    _kill(process, group=not interactive)
    process.wait()


def _command(git_dir: str | None, arguments: tuple[Argument, ...]) -> list[Argument]:
    command: list[Argument] = ["git"]
    if git_dir is not None:
        command.append(f"--git-dir={git_dir}")
        for setting in _STORE_SETTINGS:
            command += ["-c", setting]
    return [*command, *arguments]


def _environment(
    interactive: bool,
    repository_from_environment: bool,
    variables: Mapping[str, str | None] | None,
) -> dict[str, str]:
    dropped = () if repository_from_environment else _REPOSITORY_VARIABLES
    environment = {key: value for key, value in os.environ.items() if key not in dropped}
    environment["LC_ALL"] = "C"
    environment["GIT_OPTIONAL_LOCKS"] = "0"
    if not interactive:  # never wait for a password nobody can type
        environment["GIT_TERMINAL_PROMPT"] = "0"
        environment.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    for key, value in (variables or {}).items():
        if value is None:
            environment.pop(key, None)
        else:
            environment[key] = value
    return environment


def _start(
    command: list[Argument],
    environment: dict[str, str],
    what: str,
    interactive: bool,
    stdout: int,
    cwd: Argument | None = None,
    stdin: int | None = None,
) -> subprocess.Popen[bytes]:
    try:
        # Without a terminal, git and what it starts (ssh, a credential helper) are a process
        # group of their own, so that a timeout ends them all: a stalled ssh left behind would
        # hold git's output open, and the wait for it would never end.
        return subprocess.Popen(
            command,
            env=environment,
            stdin=stdin if stdin is not None or interactive else subprocess.DEVNULL,
            stdout=stdout,
            stderr=subprocess.PIPE,
            cwd=cwd,
            start_new_session=not interactive,
        )
    except OSError as error:
        if isinstance(error, FileNotFoundError) and error.filename in ("git", b"git"):
            raise GitMissing(
                f"{what} needs the git program, which is not on PATH; install git and try again.",
                cause="the git program is not on PATH",
            ) from None
        raise GitFailed(
            f"{what} could not start git ({error.strerror}).", cause=str(error.strerror)
        ) from None


def _kill(process: subprocess.Popen[bytes], group: bool) -> None:
    """Kills git, and its process group when it has one of its own."""
    try:
        if group:
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
    except (ProcessLookupError, PermissionError):
        pass


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
