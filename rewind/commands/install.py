from __future__ import annotations

from rewind.errors import UserError
from rewind.installers import Change, Context
from rewind.installers.mcp_registration import registration_of, require_server_package
from rewind.installers.registry import get_target


def run(*, agent: str, scope: str | None, mcp: bool = False) -> int:
    """Adds the agent's hooks and, with ``mcp``, registers rewind's MCP server with it."""
    target = get_target(agent)
    chosen = target.check_scope(scope)
    context = Context.current()
    if mcp:
        require_utf8(context)
        registration, _ = registration_of(target, chosen)
        require_server_package()
        registration.check(chosen, context)
    change = target.install(chosen, context)
    want_resident()
    if not change.changed:
        print(f"{agent}: already installed in {change.path}; nothing changed.")
        for note in change.notes:
            if note.startswith("warning: "):
                print(f"  {note}")
    else:
        print_change(agent, change)
    if not mcp:
        return 0
    changes = registration.install(chosen, context)
    for one in changes:
        print_mcp_change(agent, one)
    if not any(one.changed for one in changes):
        where = ", ".join(one.path for one in changes)
        print(f"{agent} MCP: rewind's server already registered in {where}; nothing changed.")
    elif registration.advice:
        print(f"  next: {registration.advice}.")
    return 0


def want_resident() -> None:
    """Lets the hooks of this rewind home hand their events to a resident recorder
    (rewind.resident.address.wanted_path); a home that cannot be written is said by the hooks,
    not here."""
    import os

    from rewind.resident.address import wanted_path

    path = wanted_path()
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError:
        pass


def require_utf8(context: Context) -> None:
    """Refuses a project or rewind path that is not UTF-8: the agents' settings files are
    UTF-8 text, and the server's entry names them."""
    for path in (context.project, context.rewind):
        try:
            path.encode("utf-8")
        except UnicodeEncodeError:
            raise UserError(
                f"{path!r} is not UTF-8, so no agent's settings file can name it; rename it, "
                "then run the command again."
            ) from None


def print_change(agent: str, change: Change) -> None:
    print(f"{agent}: {'created' if change.created else 'updated'} {change.path}")
    for action, what in change.items:
        print(f"  {action:<8} {what}")
    for note in change.notes:
        print(f"  {note}")


def print_mcp_change(agent: str, change: Change) -> None:
    """What the MCP server's registration changed in one file, or what it left and why."""
    if change.changed:
        print_change(f"{agent} MCP", change)
        return
    for note in change.notes:
        print(f"{agent} MCP: {note}")
