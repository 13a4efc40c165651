from __future__ import annotations

from rewind.commands.demo_script import run_demo


def run(*, no_tui: bool, keep: bool) -> int:
    return run_demo(tui=not no_tui, keep=keep)
