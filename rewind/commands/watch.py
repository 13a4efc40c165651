"""``rewind watch``: record changes made outside the tracked edit tools (docs/watch.md)."""

from __future__ import annotations

import os
import signal
import sys
import time

from rewind.actions.stores import open_current_store
from rewind.errors import UserError
from rewind.history.session import recent_session
from rewind.store.repository import Store
from rewind.watch.limits import clear_refusal, kernel_limit_reached
from rewind.watch.pidfile import OUTPUT_NAME, WatchLock, note_gap, running_info, spawn, stop

READY_TIMEOUT = 120.0  # seconds: git status on a very large work tree can take a while


def run(
    *,
    session: str | None,
    detach: bool,
    stop_it: bool,
    status: bool,
    background: bool,
    idle_exit: float | None = None,
) -> int:
    store = open_current_store(create=True)
    if stop_it:
        _, message = stop(store)
        print(message)
        return 0
    if status:
        return _status(store)
    if detach:
        return _detach(store, session)
    return _watch(store, session, quiet=background, idle_exit=idle_exit)


def _describe(store: Store, info: dict[str, object]) -> str:
    started = info.get("started")
    since = ""
    if isinstance(started, int | float):
        since = ", since " + time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(started))
    return f"pid {info.get('pid', '?')}, {followed_session(store, info)}{since}"


def followed_session(store: Store, info: dict[str, object]) -> str:
    """The session a running watcher records into, by its id: the one it was started for, else
    the project's most recent one (which it follows, batch by batch)."""
    session = info.get("session")
    if isinstance(session, str) and session:
        return f"session {session}"
    now = recent_session(store)
    if not now:
        return "the most recent session (none yet)"
    return f"session {now} (the most recent, which it follows)"


def _status(store: Store) -> int:
    info = running_info(store)
    if info is None:
        print("no watcher is running for this project")
        return 1
    print(f"a watcher is running ({_describe(store, info)})")
    return 0


def _detach(store: Store, session: str | None) -> int:
    info = running_info(store)
    if info is not None:
        print(f"a watcher is already running for this project ({_describe(store, info)})")
        return 0
    process = spawn(store, session)
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        info = running_info(store)
        if info and info.get("ready") and info.get("pid") == process.pid:
            described = _describe(store, info)
            print(f"watching {os.fsdecode(store.root.path)} in the background ({described})")
            return 0
        code = process.poll()
        if code is not None:
            if code == 0 and info:  # another watcher won the race
                print(f"a watcher is already running for this project ({_describe(store, info)})")
                return 0
            raise UserError(
                f"the watcher exited at start (code {code}); see "
                f"{store.state_path(OUTPUT_NAME)} and {store.state_path('rewind.log')}."
            )
        time.sleep(0.05)
    raise UserError(
        f"the watcher did not get ready within {READY_TIMEOUT:.0f} s; "
        f"see {store.state_path(OUTPUT_NAME)}."
    )


def _watch(store: Store, session: str | None, quiet: bool, idle_exit: float | None = None) -> int:
    lock = WatchLock(store)
    if not lock.acquire():
        info = running_info(store) or {}
        print(f"a watcher is already running for this project ({_describe(store, info)})")
        return 0
    try:
        note_gap(store)  # the pid file of a watcher that ended without stopping
        lock.write_info(session, ready=False)
        from rewind.watch.observer import Watcher, stderr_reporter

        try:
            reporter = None if quiet else stderr_reporter()
            watcher = Watcher(store, session, reporter, idle_exit=idle_exit)
        except Exception as error:
            store.log_problem(f"watch: could not start: {error!r}")
            raise

        def ask_to_stop(signum: int, frame: object) -> None:
            watcher.request_stop()

        import faulthandler

        # 'kill -USR1 PID' prints where every thread of the watcher is (for bug reports).
        faulthandler.register(signal.SIGUSR1, all_threads=True)
        signal.signal(signal.SIGTERM, ask_to_stop)
        signal.signal(signal.SIGINT, ask_to_stop)
        try:
            watcher.start()
        except OSError as error:
            refused = kernel_limit_reached(store, error)
            if refused:
                raise UserError(refused) from None
            raise
        clear_refusal(store)
        lock.write_info(session, ready=True)
        following = f"session {session}" if session else "the most recent session"
        print(
            f"watching {os.fsdecode(store.root.path)} into {following}; "
            + ("'rewind watch --stop' ends it" if quiet else "Ctrl+C stops"),
            file=sys.stderr,
            flush=True,
        )
        try:
            watcher.run()
        except Exception as error:
            import traceback

            details = "".join(traceback.format_exception(error)).rstrip()
            store.log_problem(f"watch: stopped by an error (a bug in rewind): {details}")
            raise
        print(f"stopped watching ({watcher.recorded} change(s) recorded)", file=sys.stderr)
    finally:
        lock.release()
    return 0
