from __future__ import annotations

from rewind.hooks import handle_event


def run(*, agent: str, argument: str | None, started: float) -> int:
    """Always 0: a hook never breaks the agent (problems go to the store's log). ``started``
    is when the command began (time.perf_counter), where the call's latency runs from."""
    handle_event(agent, argument, started)
    return 0
