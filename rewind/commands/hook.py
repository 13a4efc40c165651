from __future__ import annotations

from rewind.hooks import handle_event


def run(*, agent: str, argument: str | None) -> int:
    """Always 0: a hook never breaks the agent (problems go to the store's log)."""
    handle_event(agent, argument)
    return 0
