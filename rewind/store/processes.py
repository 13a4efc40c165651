"""Whether a process that left something behind (a restore's temporary files, a drill's
scratch directory) is still alive: its leftovers are removed only once it is gone."""

from __future__ import annotations

import os


def is_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (this process counts as alive)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process: alive
    return True
