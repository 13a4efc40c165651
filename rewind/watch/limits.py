"""The kernel's limits on watching: ``fs.inotify.max_user_watches`` (one watch per directory)
and ``fs.inotify.max_user_instances``. A watcher that meets one cannot see the project; it says
so in one sentence (what to raise, and how), in the store's log, and in a refusal record that
keeps the hooks from starting another one at every event for a while, and that ``rewind
doctor`` reports. Imported by the hooks: light.
"""

from __future__ import annotations

import errno
import os
import time

from rewind.store.atomic import write_text_atomically
from rewind.store.fastjson import dumps, load_object
from rewind.store.repository import Store

REFUSED_NAME = "watch-refused.json"
# Seconds the hooks leave a refused watcher alone before trying again.
RETRY_AFTER = 600.0
# errno -> the sysctl's name, what it counts, a value to suggest, and where the limit in force
# for this process's user namespace is read.
_SETTINGS = {
    errno.ENOSPC: (
        "max_user_watches",
        "watches (one per directory)",
        524288,
        "max_inotify_watches",
    ),
    errno.EMFILE: ("max_user_instances", "instances", 1024, "max_inotify_instances"),
}


def kernel_limit_reached(store: Store, error: OSError) -> str:
    """The sentence for an ``error`` that is the kernel's inotify limit ("" for another), once
    it is logged and recorded as the watcher's refusal."""
    found = _SETTINGS.get(error.errno or 0)
    if found is None:
        return ""
    name, what, suggested, in_force = found
    now = _read_setting(in_force)
    shown = f" (now {now})" if now else ""
    message = (
        f"the kernel's limit on inotify {what}, fs.inotify.{name}{shown}, is reached, so no "
        f"watcher can see this project's changes: raise it (sudo sysctl fs.inotify.{name}="
        f"{suggested}), then the next prompt starts the watcher again"
    )
    store.log_problem(f"watch: {message}")
    try:
        write_text_atomically(
            store.state_path(REFUSED_NAME), dumps({"time": time.time(), "reason": message})
        )
    except OSError:
        pass
    return message + "."


def clear_refusal(store: Store) -> None:
    try:
        os.unlink(store.state_path(REFUSED_NAME))
    except FileNotFoundError:
        pass


def recent_refusal(store: Store, within: float = RETRY_AFTER) -> str:
    """Why the last watcher could not start, when that was less than ``within`` seconds ago
    ("" otherwise)."""
    try:
        with open(store.state_path(REFUSED_NAME), encoding="utf-8") as handle:
            data = load_object(handle.read())
    except (OSError, ValueError):
        return ""
    when, reason = data.get("time"), data.get("reason")
    if not isinstance(when, int | float) or not isinstance(reason, str):
        return ""
    return reason if time.time() - when < within else ""


def _read_setting(name: str) -> str:
    try:
        with open(f"/proc/sys/user/{name}", encoding="ascii") as handle:
            return handle.read().strip()
    except OSError:
        return ""
