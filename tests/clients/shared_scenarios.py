"""The scenarios every client runs (tests/clients/scenarios_test.py), each written once over
the client's own tool calls (:class:`~tests.clients.scenario.Tools`): a working session; calls
that fail or that the person's rules refuse, then a hand edit between two prompts; what programs
change; and two sessions at once in one project, each writing then changing a file of its own
(a restore of one leaves the other's work alone)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from tests.clients.scenario import Call, Prompt, Script, Tools, calls, done
from tests.clients.world import World

# A working session: a new file and a second one in one model message, a read then an edit,
# then the shell removes, moves, edits in place, redirects and changes a mode.
WORKING_PROMPTS = ["Start the notes", "Polish the notes", "Tidy up with the shell"]
TIDY = (
    "rm draft.txt && mv notes.txt NOTES.txt && sed -i 's/one/ONE/' NOTES.txt"
    " && echo new > made.txt && echo more >> NOTES.txt"
)
MAKE_A_SCRIPT = "printf '#!/bin/sh\\n' > run.sh && chmod +x run.sh"


def working(tools: Tools, shells_at_once: bool = False) -> Script:
    """The working session, with the client's own calls; ``shells_at_once``: its shell part
    is two calls in one model message (a client that may run them at once), else one."""
    if shells_at_once:
        tidy = calls(tools.shell(TIDY), tools.shell(MAKE_A_SCRIPT))
    else:
        tidy = calls(tools.shell(f"{TIDY} && {MAKE_A_SCRIPT}"))
    notes = tools.write("notes.txt", "one\ntwo\n")
    return Script(
        [
            Prompt(WORKING_PROMPTS[0], (calls(notes, tools.write("draft.txt", "draft\n")), done())),
            Prompt(
                WORKING_PROMPTS[1],
                (
                    calls(tools.read("notes.txt")),
                    calls(tools.edit("notes.txt", "two", "TWO")),
                    done(),
                ),
            ),
            Prompt(WORKING_PROMPTS[2], (tidy, done())),
        ]
    )


def check_working(world: World) -> None:
    """Runs the working session; then each turn rewinds."""
    session = world.prompt(WORKING_PROMPTS[0])
    for text in WORKING_PROMPTS[1:]:
        world.prompt(text, session)
    assert (world.root / "NOTES.txt").read_text() == "ONE\nTWO\nmore\n"
    assert not (world.root / "draft.txt").exists()
    world.check_every_turn_rewinds(session, WORKING_PROMPTS)


# Calls that fail, and calls the person's rules refuse.
FAILING_PROMPTS = ["Write the config", "Try what fails", "Change the config"]


def failing(tools: Tools, refused: tuple[Call, ...]) -> Script:
    """The failing session, with the client's own calls; ``refused``, the calls the person's
    rules refuse (each in a model message of its own)."""
    return Script(
        [
            Prompt(FAILING_PROMPTS[0], (calls(tools.write("config.ini", "a=1\n")), done())),
            Prompt(
                FAILING_PROMPTS[1],
                (
                    calls(*tools.editing("config.ini", "missing", "x")),  # refused: no such text
                    calls(tools.shell("echo half > half.txt; exit 3")),  # fails after a write
                    *(calls(call) for call in refused),
                    done(),
                ),
            ),
            Prompt(
                FAILING_PROMPTS[2], (calls(*tools.editing("config.ini", "a=1", "a=100")), done())
            ),
        ]
    )


SIDES = ("Left", "Right")


def two_at_once(tools: Tools) -> Script:
    """The script, with the client's own calls: ``tools.write`` makes a file and
    ``tools.editing`` replaces text in it."""
    prompts = []
    for step in ("write", "more"):
        for side in SIDES:
            name = f"{side.lower()}.txt"
            if step == "write":
                call = tools.write(name, f"{side.lower()}\n")
                prompts.append(Prompt(f"{side}: write {name}", (calls(call), done())))
            else:
                change = tools.editing(name, side.lower(), side.upper())
                prompts.append(Prompt(f"{side}: more", (calls(*change), done())))
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
        log = world.log(session)
        turns = [entry["prompt"] for entry in log]
        assert turns == [f"{name}: write {name.lower()}.txt", f"{name}: more"], (name, log)
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


# What programs change: a committed script that rewrites a tracked file, makes one and deletes
# one; a shell script file that makes a file, appends to the person's untracked file and makes a
# file executable; inline Python that uppercases the README (which has uncommitted changes), then
# rewrites the untracked file and deletes what the build made. No call here names a file the
# quicksave could read: only the watcher sees these changes.
GEN = """import os
open("src/calc.py", "w").write("def add(a, b):\\n    return a + b  # generated\\n")
open("src/generated.py", "w").write("X = 1\\n")
os.remove("notes.txt")
"""
BUILD = "echo bundle > bundle.txt\necho built >> scratch.txt\nchmod +x src/calc.py\n"
UPPERCASE = "python3 -c \"t=open('README.md').read(); open('README.md','w').write(t.upper())\""
REWRITE = (
    "python3 -c \"import os; open('scratch.txt','w').write('rewritten\\n'); "
    "os.remove('bundle.txt')\""
)
PROGRAM_PROMPTS = ["Regenerate", "Build it", "Shout the readme", "Rewrite the scratch file"]


def programs(shell: Callable[[str], Call]) -> Script:
    """The script, with the client's own shell call: ``shell(command)``."""
    commands = ["python3 gen.py", "sh build.sh", UPPERCASE, REWRITE]
    return Script(
        [
            Prompt(text, (calls(shell(command)), done()))
            for text, command in zip(PROGRAM_PROMPTS, commands, strict=True)
        ]
    )


def prepare_programs(world: World) -> None:
    """The committed scripts and files the programs change, then what git does not hold: a
    README with uncommitted changes and the person's own untracked file."""
    import subprocess

    root = world.root
    (root / "src").mkdir()
    (root / "src" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "notes.txt").write_text("todo\n")
    (root / "gen.py").write_text(GEN)
    (root / "build.sh").write_text(BUILD)
    git = ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com"]
    subprocess.run([*git, "add", "-A"], cwd=root, check=True, env=world.rewind.env)
    subprocess.run([*git, "commit", "-qm", "scripts"], cwd=root, check=True, env=world.rewind.env)
    (root / "README.md").write_text("# project\nan uncommitted line\n")
    (root / "scratch.txt").write_text("mine, nowhere else\n")


def check_programs_rewind(world: World) -> None:
    """Runs the four prompts in one session, fast (the scripted model answers at once); each
    change is the program's, in its turn, and a restore to before each turn gives back the
    tree byte for byte without --force, then undo the end."""
    prepare_programs(world)
    session = world.prompt(PROGRAM_PROMPTS[0])
    for text in PROGRAM_PROMPTS[1:]:
        world.prompt(text, session)
    assert (world.root / "scratch.txt").read_text() == "rewritten\n"
    assert (world.root / "README.md").read_text() == "# PROJECT\nAN UNCOMMITTED LINE\n"
    changed = [
        {path for path, (source, _) in entry.items() if source == "program"}
        for entry in world.changes(session)
        if entry
    ]
    assert changed == [
        {"src/calc.py", "src/generated.py", "notes.txt"},
        {"bundle.txt", "scratch.txt", "src/calc.py"},
        {"README.md"},
        {"scratch.txt", "bundle.txt"},
    ], world.changes(session)
    world.check_every_turn_rewinds(session, PROGRAM_PROMPTS)
