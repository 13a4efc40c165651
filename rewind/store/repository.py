"""A project's store: a bare git repository outside the work tree, plus rewind's own state.

Layout (see docs/store.md)::

    <store>/HEAD, config, objects/, refs/rewind/sessions/<session>   the git repository
    <store>/refs/rewind/labels/<session>/<label>                     labelled entries
    <store>/refs/rewind/conversations/<session>                      the conversation kept
    <store>/rewind/lock                                              serialises writers
    <store>/rewind/project.json                                      which root this store is for
    <store>/rewind/sessions/<session>.json                           cache of a session's head
    <store>/rewind/recent                                            the most recent session
    <store>/rewind/restore-journal.json                              a restore under way
    <store>/rewind/rewind.log                                        what went wrong, for people
    <store>/rewind/stats/                                            figures 'rewind stats' shows
"""

from __future__ import annotations

import fcntl
import os
import sys
import time

from rewind.errors import StoreError, UserError
from rewind.store.atomic import replace_file, write_text_atomically
from rewind.store.config import Config, load_config
from rewind.store.fastjson import dumps
from rewind.store.home import store_dir_for
from rewind.store.objects import ObjectReader, ObjectWriter
from rewind.store.root import Root

SESSIONS_REF_PREFIX = "refs/rewind/sessions/"
LABELS_REF_PREFIX = "refs/rewind/labels/"
# The conversation kept with each session ([conversation] keep): rewind.history.kept_conversation.
CONVERSATIONS_REF_PREFIX = "refs/rewind/conversations/"
STATE_DIR = "rewind"
JOURNAL = "restore-journal.json"

GIT_CONFIG = """[core]
\trepositoryformatversion = 0
\tfilemode = true
\tbare = true
\tlogallrefupdates = false
[gc]
\tauto = 0
"""


_HEX_DIGITS = frozenset(b"0123456789abcdef")


def _is_hex(text: bytes) -> bool:
    return all(byte in _HEX_DIGITS for byte in text)


class DamagedRef(StoreError):
    """A ref file that does not hold a commit id."""

    def __init__(self, message: str, ref: str) -> None:
        super().__init__(message)
        self.ref = ref


class StoreBusy(UserError):
    """The store lock could not be had in time."""


class StoreLock:
    """An exclusive lock on the whole store; the kernel releases it if the process dies.

    With a ``timeout`` (seconds), waiting longer raises :class:`StoreBusy` instead: a hook must
    answer its agent in time even while a long restore holds the store. The holder writes its
    pid and command into the lock file, so that a waiter can say what it is waiting for.
    """

    # Set by the command line for people's commands (rewind.cli): how long they wait at most,
    # and after how long they say that they are waiting. Hooks and the Python API keep None.
    default_timeout: float | None = None
    notify_after: float | None = None

    def __init__(self, path: str, timeout: float | None = None) -> None:
        self.path = path
        self.timeout = timeout if timeout is not None else self.default_timeout
        self.fd = -1

    def __enter__(self) -> StoreLock:
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            self._acquire()
        except BaseException:
            os.close(self.fd)
            self.fd = -1
            raise
        _write_holder(self.fd)
        return self

    def _acquire(self) -> None:
        if self.timeout is None and self.notify_after is None:
            fcntl.flock(self.fd, fcntl.LOCK_EX)
            return
        started = time.monotonic()
        notified = False
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                waited = time.monotonic() - started
                if self.timeout is not None and waited >= self.timeout:
                    raise StoreBusy(self._busy_message()) from None
                if not notified and self.notify_after is not None and waited >= self.notify_after:
                    notified = True
                    print(f"rewind: waiting for {self._holder()}...", file=sys.stderr)
                time.sleep(0.01)

    def _holder(self) -> str:
        try:
            text = os.pread(self.fd, 300, 0).decode("utf-8", "replace").strip()
        except OSError:
            text = ""
        pid, _, command = text.partition(" ")
        if not pid.isdigit():
            return "the store, which another rewind process is using"
        return f"the store, which process {pid} ({command or 'rewind'}) is using"

    def _busy_message(self) -> str:
        return (
            f"gave up after waiting {self.timeout:.0f} s for {self._holder()}; "
            "nothing was changed, try again when it is done."
        )

    def __exit__(self, *exc_info: object) -> None:
        os.close(self.fd)  # closing releases the lock
        self.fd = -1


def _write_holder(fd: int) -> None:
    """Names the process that holds the lock, for the ones waiting for it."""
    command = " ".join(["rewind", *sys.argv[1:3]]) if sys.argv and sys.argv[0] else "python"
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {command}\n".encode("utf-8", "replace"), 0)
    except OSError:
        pass  # only a courtesy to waiters


class ReadOnlyStore(UserError):
    """A writer was asked to change sessions fetched from a remote."""


class Store:
    __slots__ = (
        "config",
        "conversations_prefix",
        "fetched_from",
        "git_dir",
        "labels_prefix",
        "lock_timeout",
        "noted",
        "read_only",
        "reader",
        "root",
        "sessions_prefix",
        "state_root",
        "writer",
    )

    def __init__(self, git_dir: str, root: Root, config: Config) -> None:
        self.git_dir = git_dir
        self.root = root
        self.config = config
        # Where the sessions' refs, the labels' refs, the kept conversations' refs and rewind's own
        # files are: a project's
        # store has them at their usual places; a view of the sessions one machine pushed to a
        # remote (rewind.history.remote.fetched) has them under that machine's folder of the mirror.
        self.sessions_prefix = SESSIONS_REF_PREFIX
        self.labels_prefix = LABELS_REF_PREFIX
        self.conversations_prefix = CONVERSATIONS_REF_PREFIX
        self.state_root = os.path.join(git_dir, STATE_DIR)
        self.read_only = False  # a view of fetched sessions: nothing is recorded into it
        self.fetched_from = ""  # the remote such a view's sessions were fetched from
        self.writer = ObjectWriter(git_dir)
        self.reader = ObjectReader(git_dir)
        self.lock_timeout: float | None = None  # seconds; None waits as long as it takes
        # What this process could not do in full, by name (rewind.store.hook_calls): a hook
        # writes the counts into its line of the store's stats.
        self.noted: dict[str, int] = {}

    @classmethod
    def for_root(
        cls, root_path: bytes, create: bool = False, lock_timeout: float | None = None
    ) -> Store:
        """The store of the project at ``root_path``. ``lock_timeout`` is how long its writers
        wait for the store lock (None: as long as it takes). Commands open it through
        :mod:`rewind.history.restoring.opening`, which first finishes a restore that was
        interrupted."""
        git_dir = store_dir_for(root_path)
        config = load_config(root_path, git_dir)
        store = cls(git_dir, Root(root_path, config.extra_roots), config)
        store.lock_timeout = lock_timeout
        if create:
            store.ensure_layout()
        elif not os.path.exists(os.path.join(git_dir, "HEAD")):
            raise UserError(
                f"nothing is recorded for {os.fsdecode(root_path)} yet; let your agent "
                "record its turns with 'rewind install AGENT' (or record by hand with "
                "'rewind begin')."
            )
        return store

    @property
    def check_command(self) -> str:
        """The command that reads every entry and object of the store's sessions, and lists
        what is damaged: for a view of fetched sessions, the one for their remote."""
        return f"rewind check --remote {self.fetched_from}" if self.fetched_from else "rewind check"

    def state_path(self, *names: str) -> str:
        return os.path.join(self.state_root, *names)

    def lock(self) -> StoreLock:
        """The store lock, which every writer takes; a view of fetched sessions has none."""
        self.refuse_if_read_only()
        return StoreLock(self.state_path("lock"), self.lock_timeout)

    def refuse_if_read_only(self) -> None:
        """Refuses a writer a view of fetched sessions: nothing is recorded into it, not even
        what a writer stores before it takes the lock (the contents a record names)."""
        if self.read_only:
            raise ReadOnlyStore(
                "sessions fetched from a remote are read-only; 'rewind apply' brings a turn's "
                "changes into this project instead."
            )

    def ensure_layout(self) -> None:
        if os.path.exists(os.path.join(self.git_dir, "HEAD")):
            return
        os.makedirs(self.state_path("sessions"), exist_ok=True)
        with self.lock():
            if os.path.exists(os.path.join(self.git_dir, "HEAD")):
                return
            for directory in ("objects/info", "objects/pack", "refs/rewind/sessions", "refs/heads"):
                os.makedirs(os.path.join(self.git_dir, directory), exist_ok=True)
            write_text_atomically(os.path.join(self.git_dir, "config"), GIT_CONFIG)
            project = {"root": os.fsdecode(self.root.path), "created": time.time()}
            write_text_atomically(self.state_path("project.json"), dumps(project))
            write_text_atomically(os.path.join(self.git_dir, "description"), "rewind store\n")
            # HEAD last: its presence says the layout is complete.
            write_text_atomically(os.path.join(self.git_dir, "HEAD"), "ref: refs/heads/main\n")

    # refs ---------------------------------------------------------------------------------

    def read_ref(self, name: str) -> str | None:
        """The commit a ref names, or None when there is no such ref.

        A ref file that exists but does not hold a commit id (empty, truncated, garbage) is an
        error, never "no ref": reading it as a missing session would restart the session at
        turn 1 over its history, which a later gc would then delete.
        """
        try:
            with open(os.path.join(self.git_dir, name), "rb") as handle:
                content = handle.read()
        except FileNotFoundError:
            return self._read_packed_ref(name)
        except IsADirectoryError:
            return None  # a folder of refs (labels of a session), not a ref
        oid = content.strip()
        if len(oid) != 40 or not _is_hex(oid):
            raise DamagedRef(
                f"the store's ref {name} is damaged (it holds {content[:60]!r}, not a commit "
                f"id), so nothing is recorded into that session until it is repaired; "
                f"run 'rewind check' to see how.",
                name,
            )
        return oid.decode("ascii")

    def _read_packed_ref(self, name: str) -> str | None:
        return self._packed_refs().get(name)

    def _packed_refs(self) -> dict[str, str]:
        """``packed-refs`` (written only if someone ran git's own gc here): name -> id."""
        found: dict[str, str] = {}
        try:
            path = os.path.join(self.git_dir, "packed-refs")
            with open(path, encoding="utf-8", errors="replace") as handle:
                for line in handle:  # comments, peeled tags and damaged lines name no ref
                    oid, _, ref = line.strip().partition(" ")
                    if ref and len(oid) == 40 and _is_hex(oid.encode("ascii", "replace")):
                        found[ref] = oid
        except FileNotFoundError:
            pass
        return found

    def write_ref(self, name: str, oid: str) -> None:
        path = os.path.join(self.git_dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_text_atomically(path, oid + "\n")

    def delete_ref(self, name: str) -> None:
        try:
            os.unlink(os.path.join(self.git_dir, name))
        except FileNotFoundError:
            pass
        packed = os.path.join(self.git_dir, "packed-refs")
        try:
            with open(packed, encoding="utf-8", errors="surrogateescape") as handle:
                lines = handle.readlines()
        except FileNotFoundError:
            return
        kept = [line for line in lines if line.strip().partition(" ")[2] != name]
        if kept != lines:
            data = "".join(kept).encode("utf-8", "surrogateescape")
            replace_file(os.fsencode(packed), data, 0o644)

    def ref_names(self, prefix: str) -> list[str]:
        """The refs directly in the folder ``prefix`` (loose or packed)."""
        return [name for name in self.all_ref_names(prefix) if "/" not in name[len(prefix) :]]

    def all_ref_names(self, prefix: str) -> list[str]:
        """The refs under ``prefix``, in its sub-folders too (loose or packed)."""
        names = {ref for ref in self._packed_refs() if ref.startswith(prefix)}
        top = os.path.join(self.git_dir, prefix)
        for folder, _, files in os.walk(top):
            relative = os.path.relpath(folder, top).replace(os.sep, "/")
            inside = "" if relative == "." else relative + "/"
            names.update(prefix + inside + name for name in files if not name.startswith("."))
        return sorted(names)

    def disk_usage(self) -> int:
        """Bytes the store takes on disk, but for what was fetched from remotes (its own
        repositories, under ``rewind/remotes/``: see :meth:`fetched_usage`)."""
        return _usage(self.git_dir, skip=os.path.join(self.git_dir, STATE_DIR, "remotes"))

    def fetched_usage(self) -> int:
        """Bytes what was fetched from remotes takes on disk."""
        return _usage(os.path.join(self.git_dir, STATE_DIR, "remotes"))

    def note(self, name: str, count: int = 1) -> None:
        """Counts ``count`` more of ``name`` in :attr:`noted`."""
        self.noted[name] = self.noted.get(name, 0) + count

    def log_problem(self, message: str) -> None:
        """Appends to the store's log, which 'rewind status' points at; when it cannot be
        written, to the first fallback log that can (rewind.store.failure_log). Never raises."""
        from rewind.store.failure_log import STORE_LOG, log_hook_problem

        log_hook_problem(message, self.state_path(STORE_LOG))


def _usage(top: str, skip: str = "") -> int:
    """Bytes the files under ``top`` take on disk, but for those under ``skip``."""
    total = 0
    for folder, folders, names in os.walk(top):
        folders[:] = [name for name in folders if os.path.join(folder, name) != skip]
        for name in names:
            try:
                total += os.lstat(os.path.join(folder, name)).st_blocks * 512
            except OSError:
                pass
    return total
