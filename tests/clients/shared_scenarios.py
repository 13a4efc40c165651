"""What every client's scenarios share: the person's hand edit between two prompts, and two
sessions at once in one project, each writing then changing a file of its own (a restore of one
leaves the other's work alone)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from tests.clients.scenario import Call, Prompt, Script, calls, done
from tests.clients.world import World

SIDES = ("Left", "Right")


def two_at_once(
    write: Callable[[str, str], Call], change: Callable[[str, str, str], Call]
) -> Script:
    """The script, with the client's own calls: ``write(path, content)`` makes a file and
    ``change(path, old, new)`` replaces text in it."""
    prompts = []
    for step in ("write", "more"):
        for side in SIDES:
            name = f"{side.lower()}.txt"
            if step == "write":
                call = write(name, f"{side.lower()}\n")
                prompts.append(Prompt(f"{side}: write {name}", (calls(call), done())))
            else:
                call = change(name, side.lower(), side.upper())
                prompts.append(Prompt(f"{side}: more", (calls(call), done())))
    return Script(prompts)


def check_two_sessions_at_once(world: World) -> None:
    """Runs both sessions at once, each prompt after prompt; then each session's log holds its
    own prompts, and a restore (then ``undo``) of one touches nothing of the other's."""
    sessions: dict[str, str] = {}

    def side(name: str) -> None:
        sessions[name] = world.prompt(f"{name}: write {name.lower()}.txt")
        world.prompt(f"{name}: more", sessions[name])

    threads = [threading.Thread(target=side, args=(name,)) for name in SIDES]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert set(sessions) == set(SIDES) and sessions["Left"] != sessions["Right"]
    for name, session in sessions.items():
        turns = [entry["prompt"] for entry in world.log(session)]
        assert turns == [f"{name}: write {name.lower()}.txt", f"{name}: more"]
    world.ok("restore", "1", "--yes", "--session", sessions["Left"])
    assert not (world.root / "left.txt").exists()
    assert (world.root / "right.txt").read_text() == "RIGHT\n"  # the other session's work stays
    world.ok("undo", "--yes", "--session", sessions["Left"])
    assert (world.root / "left.txt").read_text() == "LEFT\n"


def edit_by_hand_then_change_the_config(world: World, session: str) -> None:
    """The person edits ``config.ini`` between two prompts; the next prompt ("Change the
    config") changes ``a=1`` to ``a=100`` and keeps the hand edit."""
    (world.root / "config.ini").write_text("a=1\nb=2 by hand\n")
    world.prompt("Change the config", session)
    assert (world.root / "config.ini").read_text() == "a=100\nb=2 by hand\n"


# The failing scenario's log for a client that runs its pre-tool hook before it checks a call:
# the call that failed and the one it refused leave their files in the turn, unchanged.
HOOKED_BEFORE_THE_CHECK = [
    {"config.ini": ("edit", "added")},
    {
        "config.ini": ("edit", "unchanged"),
        "half.txt": ("shell", "added"),
        "secret.txt": ("edit", "unchanged"),
    },
    {"config.ini": ("external", "modified")},
    {"config.ini": ("edit", "modified")},
]
