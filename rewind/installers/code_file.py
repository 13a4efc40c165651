"""An agent that loads rewind as code (Pi's extensions, OpenCode's plugins): install writes
rewind's module, shipped in ``rewind/agent_configs/AGENT/`` (the repository's ``hooks/``), into
the folder the agent loads modules from, with the one line that names the hook command
(``const COMMAND = "rewind hook AGENT";``) made this install's command; uninstall deletes it.

The module's first line names rewind, so a file of that name someone else wrote is never
overwritten or deleted (rewind.installers.owned_file); one edited since rewind wrote it is
kept, and said so.
"""

from __future__ import annotations

import json
import os

from rewind.installers import Change, Inspection, owned_file

SHIPPED = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "agent_configs")


def shipped_path(agent: str, name: str) -> str:
    """Where the installed package (else the checkout) keeps ``name`` of ``agent``."""
    packaged = os.path.join(SHIPPED, agent, name)
    if os.path.exists(packaged):
        return packaged
    checkout = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return os.path.join(checkout, "hooks", agent, name)


def command_line(command: str) -> str:
    return f"const COMMAND = {json.dumps(command)};"


def module_text(agent: str, name: str, command: str) -> str:
    """The shipped module with its hook command made ``command``."""
    with open(shipped_path(agent, name), encoding="utf-8") as handle:
        text = handle.read()
    default = command_line(f"rewind hook {agent}")
    if default not in text:
        raise ValueError(f"rewind's {agent} module has no line {default!r}")
    return text.replace(default, command_line(command), 1)


def command_of(text: str, agent: str) -> str | None:
    """The hook command a module install wrote names, or None when it names none."""
    for line in text.splitlines():
        if line.startswith("const COMMAND = ") and line.endswith(";"):
            try:
                found = json.loads(line[len("const COMMAND = ") : -1])
            except ValueError:
                return None
            if isinstance(found, str) and found.endswith(f" hook {agent}"):
                return found
    return None


def install(path: str, wanted: str) -> Change:
    """Writes the module; one edited since rewind wrote it is kept, with a warning that says
    what to do to get this rewind's."""
    change = owned_file.install(path, wanted)
    change.notes = [
        f"warning: {note}; delete it, then install again, to have this rewind's"
        if note.startswith("kept ")
        else note
        for note in change.notes
    ]
    return change


def uninstall(path: str, wanted: str) -> Change:
    return owned_file.uninstall(path, wanted)


def inspect(path: str, wanted: str, agent: str, what: str) -> Inspection:
    """Doctor's view of the module at ``path``: installed (``what``) when rewind's, different
    when it is not as this rewind writes it."""
    found = Inspection(path, os.path.exists(path))
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        found.missing.append(what)
        return found
    except (OSError, UnicodeDecodeError) as error:
        found.problem = getattr(error, "strerror", None) or str(error)
        return found
    if text.split("\n", 1)[0] != wanted.split("\n", 1)[0]:
        found.missing.append(what)
        found.notes.append(("warn", f"{path} is not rewind's"))
        return found
    found.installed.append(what)
    command = command_of(text, agent)
    found.commands = [command] if command else []
    if text != wanted:
        found.different.append(what)
    return found


# Seconds Node.js may take to load a module for doctor.
LOAD_TIMEOUT = 20.0


def loads(path: str, program: str, events: tuple[str, ...]) -> tuple[str, str]:
    """Doctor's finding on whether the agent would load the module at ``path``: Node.js runs
    ``program`` (JavaScript, the module's ``file:`` URL its first argument), which loads it
    with a stand-in of the agent and prints the JSON list of what it subscribed to; each of
    ``events`` must be there."""
    import json
    import shutil
    import subprocess
    from pathlib import Path

    node = shutil.which("node")
    if node is None:
        return "info", "Node.js is not on PATH: whether the agent loads it was not checked"
    try:
        done = subprocess.run(
            [node, "--input-type=module", "-e", program, Path(path).resolve().as_uri()],
            capture_output=True,
            text=True,
            timeout=LOAD_TIMEOUT,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        found = json.loads(done.stdout) if done.returncode == 0 else None
    except (OSError, ValueError, subprocess.TimeoutExpired) as error:
        return "fail", f"Node.js could not load {path} ({error}); reinstall it"
    if not isinstance(found, list):
        reason = (done.stderr.strip().splitlines() or ["no output"])[-1][:200]
        return "fail", f"Node.js could not load {path} ({reason}); reinstall it"
    missing = [event for event in events if event not in found]
    if missing:
        return "fail", f"{path} does not subscribe to {', '.join(missing)}; reinstall it"
    return "ok", f"Node.js loads {os.path.basename(path)}: it subscribes to {', '.join(events)}"
