"""Automatic backup: ``[remote] backup = "NAME"`` pushes every session after each closed entry.

Hooks only ask (rewind.store.backup_trigger); the push runs in one detached process at a time,
``rewind push --background``, which holds ``<store>/rewind/backup.lock`` while it works:

1. it waits :data:`BATCH_SECONDS`, so that entries closing together go in one push;
2. it pushes every session (rewind.history.remote.push: only what the remote lacks is sent);
3. if an entry closed meanwhile (``backup.requested`` is newer than its start), it goes again;
4. a failure (remote down, no network, a refusal) is written to ``backup.json`` and the store's
   log, and retried after 10 s, 30 s, 1, 2 and 5 min, or as soon as another entry closes; then
   it gives up until the next closed entry or a ``rewind push``. Nothing is lost meanwhile:
   every push sends whatever the remote lacks, however many turns that is.

``rewind status`` and ``rewind stats`` show ``backup.json``; ``rewind doctor`` checks that the
remote answers.
"""

from __future__ import annotations

import fcntl
import os
import time

from rewind.errors import UserError
from rewind.history.remote.push import plan_push, push
from rewind.history.remote.remote_setup import needs_confirmation
from rewind.store.atomic import write_text_atomically
from rewind.store.backup_trigger import BACKUP_LOCK, BACKUP_REQUESTED, BACKUP_STATE
from rewind.store.fastjson import dumps, load_object
from rewind.store.repository import Store

BATCH_SECONDS = 2.0
# A push that runs longer is ended and counts as a failure (retried like one): a remote that
# stalls (a server that stops answering, a hung network file system) must not hold the backup
# lock, and with it every later backup, forever.
PUSH_TIMEOUT_SECONDS = 30 * 60.0
RETRY_AFTER = (10.0, 30.0, 60.0, 120.0, 300.0)


class BackupState:
    """What the automatic backup last did (``<store>/rewind/backup.json``)."""

    __slots__ = ("error", "failures", "last_attempt", "last_success", "remote")

    def __init__(self, data: dict[str, object]) -> None:
        def number(key: str) -> float:
            value = data.get(key)
            return float(value) if isinstance(value, int | float) else 0.0

        remote, error = data.get("remote"), data.get("error")
        self.remote = remote if isinstance(remote, str) else ""
        self.last_attempt = number("last_attempt")
        self.last_success = number("last_success")
        self.failures = int(number("failures"))
        self.error = error if isinstance(error, str) else ""

    def to_json(self) -> dict[str, object]:
        return {
            "remote": self.remote,
            "last_attempt": self.last_attempt,
            "last_success": self.last_success,
            "failures": self.failures,
            "error": self.error or None,
        }


def backup_state(store: Store) -> BackupState | None:
    try:
        with open(store.state_path(BACKUP_STATE), encoding="utf-8") as handle:
            return BackupState(load_object(handle.read()))
    except (OSError, ValueError, RecursionError):
        return None


def pending_since(store: Store) -> float | None:
    """When the oldest entry not yet backed up closed (None: all are, as far as known)."""
    try:
        requested = os.stat(store.state_path(BACKUP_REQUESTED)).st_mtime
    except FileNotFoundError:
        return None
    state = backup_state(store)
    if state is not None and state.last_success >= requested:
        return None
    return requested


def run_backup(store: Store) -> int:
    """The detached pusher (see the module's doc). Exits 0 at once if one is at work."""
    remote = store.config.remote.backup
    if not remote:
        return 0
    while True:
        fd = os.open(store.state_path(BACKUP_LOCK), os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return 0  # another pusher is at work: it sees what was asked
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)  # who pushes, for people (and tests)
            started = _push_until_done(store, remote)
        finally:
            os.close(fd)
        # An entry that closed after the last check, while the lock was still held, found a
        # pusher at work and started none: it is pushed now, not at the next closed entry.
        if not _requested_since(store, started):
            return 0


def _push_until_done(store: Store, remote: str) -> float:
    """Pushes until nothing more was asked, or retrying is over; returns when the last
    attempt started."""
    attempt = 0
    while True:
        started = time.time()
        time.sleep(BATCH_SECONDS)
        if backup_once(store, remote):
            attempt = 0
            if not _requested_since(store, started):
                return started
            continue
        if attempt >= len(RETRY_AFTER):
            return time.time()  # the next closed entry, or 'rewind push', tries again
        _wait_to_retry(store, RETRY_AFTER[attempt], started)
        attempt += 1


def _wait_to_retry(store: Store, seconds: float, started: float) -> None:
    """Sleeps ``seconds``, or less: an entry closing meanwhile is a reason to try at once."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(min(0.5, max(0.0, deadline - time.monotonic())))
        if _requested_since(store, started + BATCH_SECONDS):
            return


def _requested_since(store: Store, started: float) -> bool:
    try:
        return os.stat(store.state_path(BACKUP_REQUESTED)).st_mtime > started
    except FileNotFoundError:
        return False


def backup_once(store: Store, remote: str) -> bool:
    """One push of every session to ``remote``; what happened goes to ``backup.json``."""
    try:
        plan = plan_push(store, remote, None)
        if plan.sessions and needs_confirmation(store, remote, plan.url):
            raise UserError(
                f"{remote} is the project's own remote; run 'rewind push {remote} --all --yes' "
                "once to confirm that sessions may go there."
            )
        result = push(store, plan, timeout=PUSH_TIMEOUT_SECONDS)
        for path, why in sorted(result.unjudged.items()):  # no one reads a backup's output
            store.log_problem(f"backup to {remote} held back {store.root.display(path)}: {why}")
        if result.rejected:
            session, why = result.rejected[0]
            raise UserError(f"{remote} refused session {session}: {why}")
    except (UserError, OSError) as error:
        note_backup(store, remote, str(error))
        return False
    note_backup(store, remote, "")
    if store.config.attribution_notes:
        _push_notes(store, plan.remote, plan.url)
    return True


def _push_notes(store: Store, remote: str, url: str) -> None:
    """The project's authorship notes go where its sessions went, as with 'rewind push'; a
    failure is logged (the sessions are backed up all the same)."""
    from rewind.history.attribution.notes_sync import SyncFailed, push_notes

    try:
        push_notes(store.root.path, remote, url)
    except SyncFailed as error:
        store.log_problem(f"backup to {remote}: the authorship notes were not pushed: {error}")


def note_backup(store: Store, remote: str, error: str) -> None:
    """Writes the outcome of a push of every session to the backup remote ("" : it worked)."""
    state = backup_state(store) or BackupState({})
    state.remote = remote
    state.last_attempt = time.time()
    if error:
        state.failures += 1
        state.error = error
        store.log_problem(f"backup to {remote} failed (attempt {state.failures}): {error}")
    else:
        state.failures = 0
        state.error = ""
        state.last_success = state.last_attempt
    _save(store, state)


def _save(store: Store, state: BackupState) -> None:
    write_text_atomically(store.state_path(BACKUP_STATE), dumps(state.to_json()))
