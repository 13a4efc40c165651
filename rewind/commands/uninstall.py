from __future__ import annotations

from rewind.commands.install import print_change
from rewind.installers import Context, get_target


def run(*, agent: str, scope: str | None) -> int:
    target = get_target(agent)
    change = target.uninstall(target.check_scope(scope), Context.current())
    if not change.changed:
        print(f"{agent}: no rewind hooks in {change.path}; nothing changed.")
        return 0
    print_change(agent, change)
    return 0
