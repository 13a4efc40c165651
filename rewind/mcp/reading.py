"""The tools that read: each runs the command line's own command with ``--json`` in the
project (a process of its own, so every call sees the store as it is then, through the same
history layer as ``rewind log``), and answers with the JSON as structured content and a
short text the model can use, bounded (what is cut says how to get the rest).

Every argument is checked first (rewind.mcp.arguments) and reaches the command as data: an
option's value joined to it (``--grep=VALUE``), the other values after ``--``, so that no
value, whatever it starts with, is read as an option."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass

from rewind.mcp.arguments import count as checked_count
from rewind.mcp.arguments import optional_text
from rewind.mcp.arguments import path as checked_path
from rewind.mcp.arguments import session as checked_session
from rewind.mcp.arguments import turn as checked_turn

# The most characters of text one answer holds (a large diff is cut, with a note).
TEXT_LIMIT = 20_000
# The most entries one log answer lists.
LOG_LIMIT = 200
COMMAND_TIMEOUT = 120.0


class CommandFailed(Exception):
    """The command refused or failed; its message is the command's one sentence."""


@dataclass(frozen=True)
class Answer:
    """What a tool answers: text for the model, and the command's JSON."""

    text: str
    data: dict[str, object]


def run_json(
    root: str,
    command: str,
    options: dict[str, str | None] | None = None,
    values: tuple[str, ...] = (),
) -> object:
    """``rewind -C ROOT COMMAND --OPTION=VALUE... --json -- VALUES...``'s JSON (an option
    whose value is None is left out); CommandFailed with the command's sentence otherwise."""
    given = [f"--{name}={value}" for name, value in (options or {}).items() if value is not None]
    after = ["--", *values] if values else []
    words = [sys.executable, "-m", "rewind", "-C", root, command, *given, "--json", *after]
    try:
        done = subprocess.run(
            words,
            capture_output=True,
            timeout=COMMAND_TIMEOUT,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "NO_COLOR": "1"},
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise CommandFailed(
            f"rewind {command} took longer than {COMMAND_TIMEOUT:.0f} s and was stopped; ask "
            "for less (fewer entries, one file)."
        ) from None
    except (OSError, ValueError) as error:  # arguments the system cannot pass to a program
        raise CommandFailed(
            f"rewind {command} could not be started with these arguments ({error}); make them "
            "shorter."
        ) from None
    try:
        return json.loads(done.stdout)
    except ValueError:
        raise CommandFailed(_sentence(done.stderr, done.returncode)) from None


def _sentence(stderr: bytes, returncode: int) -> str:
    """The command's refusal: what it said from its first ``rewind: `` on, on one line (a
    name it quotes may hold a newline)."""
    said = stderr.decode("utf-8", "replace")
    start = said.find("rewind: ")
    if start < 0:
        return f"the command failed (exit code {returncode})"
    return " ".join(said[start + len("rewind: ") :].split())


def dicts(value: object) -> list[dict[str, object]]:
    """The objects of a JSON list (nothing for anything else)."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def bounded(text: str, how_to_see_more: str) -> str:
    """``text`` cut at :data:`TEXT_LIMIT` characters, saying so and how to see the rest."""
    if len(text) <= TEXT_LIMIT:
        return text
    cut = text[:TEXT_LIMIT]
    return f"{cut}\n[cut: {len(text) - TEXT_LIMIT} more characters; {how_to_see_more}]"


def _files(entry: dict[str, object]) -> str:
    shown = []
    for item in dicts(entry.get("files")):
        counts = f" +{item.get('added', 0)} -{item.get('removed', 0)}"
        shown.append(f"{item.get('status', '?')} {item.get('path')}{counts}")
    return "; ".join(shown)


def log(
    root: str,
    count: int = 20,
    since: str | None = None,
    grep: str | None = None,
    path: str | None = None,
    session: str | None = None,
) -> Answer:
    options = {
        "max-count": str(checked_count(count, "count", LOG_LIMIT)),
        "since": optional_text(since, "since"),
        "grep": optional_text(grep, "grep"),
        "path": None if path is None else checked_path(path),
        "session": checked_session(session),
    }
    entries = run_json(root, "log", options)
    if not isinstance(entries, list):
        raise CommandFailed("rewind log gave no list of entries")
    lines = []
    for entry in dicts(entries):
        kind = "" if entry.get("kind") == "turn" else f"[{entry.get('kind')}] "
        undone = " (undone)" if entry.get("undone") else ""
        prompt = str(entry.get("prompt") or "").splitlines()[0:1]
        lines.append(
            f"turn {entry.get('turn')} ({entry.get('id')}, {entry.get('time')}): {kind}"
            f"{prompt[0] if prompt else ''}{undone}\n    {_files(entry)}"
        )
    text = "\n".join(lines) or "nothing recorded matches."
    more = "ask for fewer entries (count) or filter them (since, grep, path)"
    return Answer(bounded(text, more), {"entries": entries})


def show(root: str, turn: str, path: str | None = None, session: str | None = None) -> Answer:
    options = {
        "path": None if path is None else checked_path(path),
        "session": checked_session(session),
    }
    shown = run_json(root, "show", options, (checked_turn(turn),))
    if not isinstance(shown, dict):
        raise CommandFailed("rewind show gave no object")
    if path:
        hunks = dicts(shown.get("hunks"))
        parts = [f"{path} in turn {turn}: {len(hunks)} hunk(s)"]
        for hunk in hunks:
            body = "".join(
                f"{line.get('origin')}{line.get('text')}" for line in dicts(hunk.get("lines"))
            )
            parts.append(f"hunk {hunk.get('number')} {hunk.get('header')}\n{body}")
        text = "\n".join(parts)
    else:
        diffs = [
            str(item.get("diff") or f"{item.get('path')}: {item.get('status')}")
            for item in dicts(shown.get("files"))
        ]
        text = f"turn {turn}: {shown.get('prompt')}\n" + "".join(
            diff if diff.endswith("\n") else diff + "\n" for diff in diffs
        )
    more = "call rewind_show with path set to one file"
    return Answer(bounded(text, more), shown)


def diff(
    root: str, turn: str | None = None, turn2: str | None = None, session: str | None = None
) -> Answer:
    turns = tuple(
        checked_turn(value, name) for value, name in ((turn, "turn"), (turn2, "turn2")) if value
    )
    found = run_json(root, "diff", {"session": checked_session(session)}, turns)
    if not isinstance(found, dict):
        raise CommandFailed("rewind diff gave no object")
    text = "".join(
        str(item.get("diff") or f"{item.get('path')}: {item.get('status')}\n")
        for item in dicts(found.get("files"))
    )
    more = "diff fewer turns (turn and turn2 closer together)"
    return Answer(bounded(text or "no difference.", more), found)


def history(root: str, path: str, count: int = 20) -> Answer:
    found = run_json(
        root,
        "history",
        {"max-count": str(checked_count(count, "count", LOG_LIMIT))},
        (checked_path(path),),
    )
    if not isinstance(found, dict):
        raise CommandFailed("rewind history gave no object")
    lines = []
    for version in dicts(found.get("versions")):
        if version:
            counts = ""
            if version.get("added") is not None:
                counts = f" +{version.get('added')} -{version.get('removed')}"
            back = f" (back to {version.get('same_as')})" if version.get("same_as") else ""
            prompt = str(version.get("prompt") or "").splitlines()[0:1]
            lines.append(
                f"{version.get('version')}: turn {version.get('turn')} of session "
                f"{version.get('session')}, {version.get('source')}{counts}{back}: "
                f"{prompt[0] if prompt else ''}"
            )
    text = "\n".join(lines) or f"rewind has recorded no version of {path}."
    return Answer(bounded(text, "ask for fewer versions (count)"), found)


def blame(root: str, path: str, start_line: int = 1, end_line: int | None = None) -> Answer:
    found = run_json(root, "blame", values=(checked_path(path),))
    if not isinstance(found, dict):
        raise CommandFailed("rewind blame gave no object")
    try:
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError as error:
        raise CommandFailed(f"{path} cannot be read ({error.strerror or error}).") from None
    last = end_line if end_line is not None else len(lines)
    shown = []
    for run in dicts(found.get("runs")):
        start, count = int(str(run.get("start", 1))), int(str(run.get("count", 0)))
        origin = run.get("origin")
        if isinstance(origin, dict):
            prompt = str(origin.get("prompt") or "").splitlines()[0:1]
            first = prompt[0] if prompt else ""
            who = f"turn {origin.get('turn')} ({origin.get('version')}): {first}"
        else:
            who = str(run.get("status"))
        for number in range(start, start + count):
            if start_line <= number <= last and number <= len(lines):
                shown.append(f"{number}: [{who}] {lines[number - 1]}")
    more = "ask for a smaller line range (start_line, end_line)"
    return Answer(bounded("\n".join(shown), more), found)


def status(root: str) -> Answer:
    found = run_json(root, "status")
    if not isinstance(found, dict):
        raise CommandFailed("rewind status gave no object")
    return Answer(json.dumps(found, indent=1), found)
