"""Where stores live: ``$REWIND_HOME``, else the per-user data directory."""

from __future__ import annotations

import os
import sys


def rewind_home() -> str:
    configured = os.environ.get("REWIND_HOME")
    if configured:
        return os.path.abspath(os.path.expanduser(configured))
    if sys.platform.startswith("linux"):
        # What platformdirs.user_data_dir("rewind") answers on Linux, without the 9 ms that
        # importing it costs every hook call.
        data_home = os.environ.get("XDG_DATA_HOME", "").strip()
        if not data_home or not os.path.isabs(data_home):
            data_home = os.path.join(os.path.expanduser("~"), ".local", "share")
        return os.path.join(data_home, "rewind")
    import platformdirs

    return platformdirs.user_data_dir("rewind", appauthor=False)


def store_dir_for(root: bytes) -> str:
    """One store per project root, named after the root so people can find it."""
    from rewind.store.digest import sha1_hex  # not for a hook handing its event over

    name = os.path.basename(root.rstrip(b"/")).decode("utf-8", "replace") or "root"
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:40]
    return os.path.join(rewind_home(), "stores", f"{safe}-{sha1_hex(root)[:12]}")


def state_log_dir() -> str:
    """The per-user state directory where hooks log when ``$REWIND_HOME`` cannot be written:
    ``$XDG_STATE_HOME/rewind``, else ``~/.local/state/rewind``."""
    state_home = os.environ.get("XDG_STATE_HOME", "").strip()
    if not state_home or not os.path.isabs(state_home):
        state_home = os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(state_home, "rewind")


def temporary_log_dir() -> str:
    """The last place hooks log: ``rewind-UID`` in ``$TMPDIR`` (else ``/tmp``), a directory only
    this user may enter (rewind.store.failure_log checks its owner and mode before using it)."""
    temporary = os.environ.get("TMPDIR", "").strip()
    if not temporary or not os.path.isabs(temporary):
        temporary = "/tmp"
    return os.path.join(temporary, f"rewind-{os.getuid()}")
