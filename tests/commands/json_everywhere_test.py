"""Every command that reports has ``--json``, and what it prints carries ``"format"`` (each element
of the two list outputs, ``log --json`` and ``sessions --json``, carries it). The parser is
walked, so that a new command is either run here or named, with why, among those that report
nothing to parse."""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path
from typing import Any

from rewind.commands.parsing.parser import build_parser
from tests.commands.resume_test import SESSION as AGENT_SESSION
from tests.commands.resume_test import Transcript, claude_prompt, claude_turn
from tests.conftest import ok, run_rewind

# The commands (with their sub-commands: "remote list") that report nothing a program would
# parse, and why.
NOT_REPORTS = {
    "begin": "records: prints nothing",
    "track": "records: prints nothing",
    "end": "records: prints nothing",
    "hook": "an agent's hook: prints nothing, or what the agent reads",
    "extract": "writes files into a directory, and names them",
    "remote add": "changes the settings; 'remote list --json' reports",
    "remote remove": "changes the settings; 'remote list --json' reports",
    "forget": "deletes a session; 'sessions --json' reports",
    "completion": "prints a shell script",
    "demo": "a tour for a person",
    "install": "edits an agent's settings; 'doctor --json' reports",
    "uninstall": "edits an agent's settings; 'doctor --json' reports",
    "watch": "runs until stopped; 'status --json' reports the watcher",
    "help": "prints the documentation",
    "tui": "a terminal interface",
    "mcp": "a server: its tools answer JSON (structured content) themselves",
}

# What each reporting command is run with, in the project the test builds (session "s": three
# turns, two restores, one undo; session c1: Claude Code's turns; a remote "backup").
RUNS = {
    "log": ["log", "--session", "s"],
    "history": ["history", "a.txt"],
    "blame": ["blame", "a.txt"],
    "show": ["show", "2", "--session", "s"],
    "diff": ["diff", "1", "--session", "s"],
    "restore": ["restore", "1", "--session", "s", "--dry-run"],
    "resume": ["resume", "2", "--session", AGENT_SESSION, "--print"],
    "undo": ["undo", "--session", "s", "--dry-run"],
    "redo": ["redo", "--session", "s", "--dry-run"],
    "apply": ["apply", "s", "1", "--into", AGENT_SESSION, "--dry-run"],
    "label": ["label", "1", "first", "--session", "s"],
    "sessions": ["sessions"],
    "remote list": ["remote", "list"],
    "push": ["push", "backup", "--session", "s", "--dry-run"],
    "fetch": ["fetch", "backup"],
    "status": ["status"],
    "stats": ["stats"],
    "check": ["check"],
    "gc": ["gc"],
    "doctor": ["doctor"],
}
# More runs of the same commands: the other shapes they print.
MORE_RUNS = [
    ["check", "--drill"],
    ["gc", "--dry-run"],
    ["stats", "--all"],
    ["sessions", "--remote", "backup"],
    ["push", "backup", "--session", "s"],
]


def commands(
    parser: argparse.ArgumentParser, prefix: str = ""
) -> dict[str, argparse.ArgumentParser]:
    """Every command and sub-command, by its words."""
    found = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                words = f"{prefix} {name}".strip()
                inner = commands(sub, words)
                found.update(inner or {words: sub})
    return found


def has_json(parser: argparse.ArgumentParser) -> bool:
    return any("--json" in action.option_strings for action in parser._actions)


def test_every_command_either_reports_with_json_or_says_why_not() -> None:
    found = commands(build_parser())
    assert set(found) == set(NOT_REPORTS) | set(RUNS)
    assert not [name for name in RUNS if not has_json(found[name])]
    assert not [name for name in NOT_REPORTS if has_json(found[name])]


def build(project: Path, tmp_path: Path) -> None:
    path = project / "a.txt"
    for number in (1, 2, 3):
        ok("begin", "--session", "s", "--prompt", f"turn {number}")
        ok("track", "--session", "s", "a.txt")
        path.write_text(f"v{number}\n")
        ok("end", "--session", "s")
    ok("restore", "3", "--session", "s", "--yes")
    ok("restore", "2", "--session", "s", "--yes")
    ok("undo", "--session", "s", "--yes")
    transcript = Transcript(tmp_path / "agent" / f"{AGENT_SESSION}.jsonl")
    transcript.path.parent.mkdir()
    for text in ("one", "two"):
        claude_prompt(project, transcript.path, text)
        claude_turn(transcript, text)
    ok("end", "--session", AGENT_SESSION)
    bare = tmp_path / "backup.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    ok("remote", "add", "backup", str(bare))
    (project / "rewind.toml").write_text('project_id = "calc"\n')
    ok("push", "backup", "--session", "s")  # for fetch and 'sessions --remote' to read


def formatted(printed: Any) -> bool:
    """An object with "format": 1, or a non-empty list of such objects."""
    if isinstance(printed, list):
        return bool(printed) and all(formatted(element) for element in printed)
    return isinstance(printed, dict) and printed.get("format") == 1


def test_every_json_output_carries_its_format(project: Path, tmp_path: Path) -> None:
    build(project, tmp_path)
    wrong = {}
    for arguments in [*RUNS.values(), *MORE_RUNS]:
        done = run_rewind(*arguments, "--json")
        try:
            printed = json.loads(done.stdout)
        except ValueError:
            wrong[" ".join(arguments)] = f"exit {done.returncode}: {done.stderr or done.stdout}"
            continue
        if not formatted(printed):
            wrong[" ".join(arguments)] = done.stdout[:300]
    assert not wrong, wrong
