"""``rewind tui``: the terminal user interface (the only command that imports textual)."""

from __future__ import annotations

import os


def run(*, session: str | None) -> int:
    from rewind.tui.app import RewindApp

    RewindApp(os.getcwd(), session).run()
    return 0
