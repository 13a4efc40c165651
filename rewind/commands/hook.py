from __future__ import annotations

import sys


def run(*, agent: str, argument: str | None, started: float) -> int:
    """Always 0: a hook never breaks the agent (problems go to the store's log). ``started``
    is when the command began (time.perf_counter), where the call's latency runs from."""
    unreadable: Exception | None = None
    resident = _resident(agent)
    if resident is not None:
        from rewind.resident.forward import forwarded
        from rewind.store.input_limits import read_hook_event

        try:
            argument = read_hook_event() if argument is None else argument
        except ValueError as error:
            argument, unreadable = "", error
        else:
            try:
                output = forwarded(agent, argument, *resident)
            except Exception:  # never worth the event: this process handles it
                output = None
            if output is not None:
                if output:
                    sys.stdout.write(output)
                    sys.stdout.flush()
                return 0
    with_site_packages()
    from rewind.hooks import handle_event

    handle_event(agent, argument, started, unreadable)
    return 0


def with_site_packages() -> None:
    """A hook started without the interpreter's site processing (``python -S``: the command
    ``rewind install`` writes, rewind/__main__.py) processes it now, before recording in this
    process imports anything from site-packages: the hand-over needed none of it."""
    if sys.flags.no_site and "site" not in sys.modules:
        import site

        site.main()


def _resident(agent: str) -> tuple[int, str] | None:
    """The port and secret of the resident this hook hands its event to, when it has one and
    it runs (rewind.resident.address.port_for, rewind.resident.reach); else None: the process
    records the event itself, and loads none of the forwarding."""
    try:
        from rewind.resident.address import port_for

        port = port_for(agent)
        if port is None:
            return None
        from rewind.resident.reach import running

        found = running(port)
    except Exception:  # never worth the event: this process handles it
        return None
    return (port, found[1]) if found is not None else None
