from __future__ import annotations

from rewind.installers import Change, Context, get_target


def run(*, agent: str, scope: str | None) -> int:
    target = get_target(agent)
    change = target.install(target.check_scope(scope), Context.current())
    if not change.changed:
        print(f"{agent}: already installed in {change.path}; nothing changed.")
        for note in change.notes:
            if note.startswith("warning: "):
                print(f"  {note}")
        return 0
    print_change(agent, change)
    return 0


def print_change(agent: str, change: Change) -> None:
    print(f"{agent}: {'created' if change.created else 'updated'} {change.path}")
    for action, what in change.items:
        print(f"  {action:<8} {what}")
    for note in change.notes:
        print(f"  {note}")
