"""Where hooks write what went wrong: a hook never reports to its agent, so a problem that is
not written down is never seen. Each line goes to the first log that takes it:

1. the store's ``rewind/rewind.log`` (when the event's store could be opened);
2. ``$REWIND_HOME/hooks.log``;
3. ``hooks.log`` in the per-user state directory (``$XDG_STATE_HOME/rewind``, else
   ``~/.local/state/rewind``);
4. ``hooks.log`` in ``rewind-UID`` under ``$TMPDIR`` (else ``/tmp``): a directory made with mode
   0700 and used only while this user owns it and nobody else may enter it, the file opened
   without following symbolic links (others can create names in ``/tmp``).

A line written to 3 or 4 says which log could not be written, and why. Nothing here raises:
logging that a hook failed must not fail the hook. ``rewind status`` and ``rewind doctor`` read
every one of these logs (:func:`problem_logs`). This module is on the hook path: keep its
imports light.
"""

from __future__ import annotations

import errno
import os
import stat
import time

from rewind.store.home import rewind_home, state_log_dir, temporary_log_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

HOOKS_LOG = "hooks.log"
STORE_LOG = "rewind.log"  # in the store's state directory
# A log past this size is renamed to NAME.old (replacing the previous one) before a hook adds
# to it, so that a home that stays unusable for weeks does not fill the disk it falls back to.
ROTATE_AT = 1024 * 1024
DAY = 86400.0
# Read at most this much of the end of a log for the recent problems.
TAIL_BYTES = 256 * 1024

_NO_SPACE = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
_READ_ONLY = frozenset({errno.EROFS})
_NOT_ALLOWED = frozenset({errno.EACCES, errno.EPERM})
_NOT_A_DIRECTORY = frozenset({errno.ENOTDIR, errno.EEXIST})
# Errors of the place rewind writes to, not of rewind: logged in one line, without a traceback.
STORAGE_ERRORS = _NO_SPACE | _READ_ONLY | _NOT_ALLOWED | _NOT_A_DIRECTORY | {errno.EIO}


def log_hook_problem(message: str, store_log: str | None = None) -> str | None:
    """Appends ``message`` (one line, with the time and pid) to the first log that takes it;
    returns that log's path, or None when none could be written. Never raises."""
    try:
        return _log(message, store_log)
    except Exception:
        return None


def _log(message: str, store_log: str | None) -> str | None:
    line = time.strftime("%Y-%m-%dT%H:%M:%S") + f" [{os.getpid()}] {message}"
    # The store's log is written only where the store is: a missing folder is not remade.
    primary = [(store_log, _open_in_place)] if store_log else []
    primary.append((os.path.join(rewind_home(), HOOKS_LOG), _open_shared))
    refused: tuple[str, OSError] | None = None
    for path, opener in primary:
        error = _append(path, line, opener)
        if error is None:
            return path
        refused = (path, error)
    if refused is not None:
        path, error = refused
        line += f" (logged here because {path} could not be written: {_reason(error)})"
    fallbacks = ((state_log_dir(), _open_shared), (temporary_log_dir(), _open_private))
    for directory, opener in fallbacks:
        path = os.path.join(directory, HOOKS_LOG)
        if _append(path, line, opener) is None:
            return path
    return None


def _append(path: str, line: str, opener: Callable[[str], int]) -> OSError | None:
    """Appends ``line`` to ``path`` (opened by ``opener``) in one write; the error that stopped
    it, or None."""
    data = (line + "\n").encode("utf-8", "backslashreplace")
    try:
        fd = opener(path)
    except OSError as error:
        return error
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    except OSError as error:
        return error
    finally:
        os.close(fd)
    return None


# O_NONBLOCK: a FIFO in a log's place fails at once rather than hang the hook.
_APPEND = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK


def _open_shared(path: str) -> int:
    """A log in a directory of rewind's (its parents are made if missing)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    return _open_in_place(path)


def _open_in_place(path: str) -> int:
    _rotate_if_large(path)
    fd = os.open(path, _APPEND, 0o644)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file", path)
    return fd


def _open_private(path: str) -> int:
    """A log in a directory others may create names next to (``/tmp``): the directory must be
    this user's and closed to others, and no symbolic link is followed."""
    directory, name = os.path.split(path)
    try:
        os.mkdir(directory, 0o700)
    except FileExistsError:
        pass
    directory_fd = open_private_directory(directory)
    try:
        _rotate_if_large(name, directory_fd)
        fd = os.open(name, _APPEND, 0o600, dir_fd=directory_fd)
    finally:
        os.close(directory_fd)
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
        os.close(fd)
        raise OSError(errno.EPERM, "not a file of this user", path)
    return fd


def open_private_directory(directory: str) -> int:
    """``directory`` opened (not through a symbolic link), checked to be this user's own and
    closed to everyone else; raises OSError otherwise."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    info = os.fstat(fd)
    if info.st_uid != os.getuid() or info.st_mode & 0o077:
        os.close(fd)
        raise OSError(errno.EPERM, "not a private directory of this user", directory)
    return fd


def _rotate_if_large(path: str, directory_fd: int | None = None) -> None:
    try:
        info = os.stat(path, dir_fd=directory_fd, follow_symlinks=False)
    except OSError:
        return
    if stat.S_ISREG(info.st_mode) and info.st_size > ROTATE_AT:
        os.replace(path, path + ".old", src_dir_fd=directory_fd, dst_dir_fd=directory_fd)


# what to say -------------------------------------------------------------------------------


def describe_hook_failure(event: str, error: BaseException) -> str:
    """The log line for an event a hook could not handle: why, and what to do when the cause is
    the place rewind writes to; a traceback when it is a bug in rewind."""
    if isinstance(error, OSError) and error.errno in STORAGE_ERRORS:
        return f"event {event} not recorded: {error}{_advice_for(error)}"
    from rewind.errors import UserError

    if isinstance(error, UserError | ValueError):
        return f"event {event} ignored: {error}"
    import traceback

    details = "".join(traceback.format_exception(error)).rstrip()
    return f"event {event} failed (a bug in rewind): {details}"


DOCTOR = "run 'rewind doctor'"


def _reason(error: OSError) -> str:
    if error.errno in _NOT_A_DIRECTORY:
        return "a folder above it is not a directory"
    return error.strerror or str(error)


def _advice_for(error: OSError) -> str:
    home = rewind_home()
    filename = error.filename if isinstance(error.filename, str) else ""
    if error.errno in _NO_SPACE:
        return f"; {storage_advice(error.errno, filename or home, DOCTOR)}"
    if filename == home or filename.startswith(home.rstrip("/") + "/"):
        return f"; {storage_advice(error.errno or 0, nearest_existing(filename), DOCTOR)}"
    return ""


def storage_advice(error_number: int, path: str, then: str = "") -> str:
    """What is wrong with ``path`` (rewind's home or a store) and what to do, in a sentence that
    ends with ``then`` when given."""
    elsewhere = "or set REWIND_HOME to another directory" + (f", then {then}." if then else ".")
    if error_number in _NO_SPACE:
        limit = "(or a quota or file size limit was hit)"
        return f"the disk of {path} is full {limit}; free space {elsewhere}"
    if error_number in _READ_ONLY:
        return f"{path} is on a read-only file system; remount it read-write {elsewhere}"
    if error_number in _NOT_ALLOWED:
        return f"{path} is not writable by this user; fix its permissions {elsewhere}"
    if error_number in _NOT_A_DIRECTORY:
        path = not_a_directory(path)
        return f"{path} is not a directory; move it away {elsewhere}"
    return f"{path} cannot be written ({os.strerror(error_number)}); fix it {elsewhere}"


def nearest_existing(path: str) -> str:
    """``path`` if it exists, else the nearest of its parents that does."""
    here = os.path.abspath(path)
    while not os.path.lexists(here):
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    return here


def not_a_directory(path: str) -> str:
    """The nearest of ``path`` and its parents that exists but is not a directory (``path``
    itself when there is none): what stands where rewind needs a directory."""
    here = path
    while not (os.path.lexists(here) and not os.path.isdir(here)):
        parent = os.path.dirname(here)
        if parent == here:
            return path
        here = parent
    return here


# reading -----------------------------------------------------------------------------------


class ProblemLog:
    """A log hooks may write: ``holds`` says what goes there; ``fallback`` is true for the
    logs used when nothing under ``$REWIND_HOME`` could be written."""

    __slots__ = ("fallback", "holds", "path")

    def __init__(self, path: str, holds: str, fallback: bool = False) -> None:
        self.path = path
        self.holds = holds
        self.fallback = fallback


def problem_logs(store_dir: str | None) -> list[ProblemLog]:
    """Every log a hook may have written, in the order they are tried: the store's (when a
    store is known), ``$REWIND_HOME/hooks.log``, then the fallbacks."""
    logs = []
    if store_dir is not None:
        logs.append(ProblemLog(os.path.join(store_dir, "rewind", STORE_LOG), "this project"))
    logs.append(ProblemLog(os.path.join(rewind_home(), HOOKS_LOG), "hook events of no project"))
    unusable = "hook problems that could not be logged under REWIND_HOME"
    for directory in (state_log_dir(), temporary_log_dir()):
        logs.append(ProblemLog(os.path.join(directory, HOOKS_LOG), unusable, fallback=True))
    return logs


def recent_problems(path: str, seconds: float = DAY) -> list[str] | None:
    """The lines ``path`` got in the last ``seconds``, oldest first; None when it cannot be read
    (a log in the temporary directory is read only when it is this user's, as it is written)."""
    try:
        private = os.path.dirname(path) == temporary_log_dir()
        text = _read_tail(path, private)
    except OSError:
        return None
    since = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(time.time() - seconds))
    return [line for line in text.splitlines() if line[:1].isdigit() and line[:19] >= since]


def _read_tail(path: str, private: bool) -> str:
    directory_fd = open_private_directory(os.path.dirname(path)) if private else None
    try:
        fd = os.open(
            os.path.basename(path) if private else path,
            os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC,
            dir_fd=directory_fd,
        )
    finally:
        if directory_fd is not None:
            os.close(directory_fd)
    try:
        info = os.fstat(fd)
        if private and info.st_uid != os.getuid():
            raise OSError(errno.EPERM, "not a file of this user", path)
        start = max(0, info.st_size - TAIL_BYTES)
        data = os.pread(fd, TAIL_BYTES, start)
    finally:
        os.close(fd)
    text = data.decode("utf-8", "replace")
    return text.split("\n", 1)[1] if start else text  # the first line may be cut
