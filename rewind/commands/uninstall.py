from __future__ import annotations

from rewind.commands.install import print_change, print_mcp_change
from rewind.errors import UserError
from rewind.installers import Context
from rewind.installers.mcp_registration import McpRegistration, registration_of
from rewind.installers.registry import get_target


def run(*, agent: str, scope: str | None, mcp: bool = False) -> int:
    """Removes rewind's MCP server and the agent's hooks at the scope; with ``mcp``, the
    server only. The server goes first: install added it after the hooks, to files the hooks'
    install may have created, which the hooks' uninstall then deletes when nothing else is in
    them."""
    target = get_target(agent)
    context = Context.current()
    registration: McpRegistration | None
    if mcp:
        registration, chosen = registration_of(target, scope)
    else:
        chosen = target.check_scope(scope)
        registration = target.mcp if target.mcp and chosen in target.mcp.scopes else None
    if registration is not None:
        try:
            changes = registration.uninstall(chosen, context, recorded_only=not mcp)
        except UserError as error:
            if mcp:
                raise
            print(f"{agent} MCP: left as it is: {error}")  # the hooks still go
            changes = []
        for one in changes:
            print_mcp_change(agent, one)
        if mcp and not any(one.changed or one.notes for one in changes):
            where = ", ".join(one.path for one in changes)
            print(f"{agent} MCP: no rewind MCP server in {where}; nothing changed.")
    if mcp:
        return 0
    change = target.uninstall(chosen, context)
    if not change.changed:
        print(f"{agent}: no rewind hooks in {change.path}; nothing changed.")
        for note in change.notes:  # what it left, and why
            print(f"  {note}")
    else:
        print_change(agent, change)
    return 0
