"""The tests' two ways of running a command agree: the fresh lane (tests/support/fresh_lane.py)
runs every command of the grammar as a fresh interpreter, and a command forked from the tests'
server (tests/support/forked_rewind.py) answers exactly as a fresh interpreter does."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import threading
from pathlib import Path

import pytest

from rewind.commands.parsing.parser import build_parser
from tests.conftest import ok, run_rewind, store_dir
from tests.support.forked_rewind import ForkedRewind
from tests.support.fresh_lane import LANE, command_started
from tests.watch.conftest import SESSION, external, recorded_with, wait_for


def commands() -> set[str]:
    """The commands of the grammar (their first word)."""
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            return set(action.choices)
    raise AssertionError("the parser has no commands")


@pytest.mark.unit
def test_the_fresh_lane_runs_every_command_and_only_commands() -> None:
    named = {command for run in LANE.values() for command in run}
    assert sorted(commands() - named) == []
    assert sorted(named - commands()) == []


@pytest.mark.unit
def test_every_test_of_the_fresh_lane_is_there() -> None:
    """A test renamed or moved would leave the lane silently: each is looked up."""
    missing = []
    for test in LANE:
        path, name = test.split("::")
        module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
        if not callable(getattr(module, name, None)):
            missing.append(test)
    assert missing == []


@pytest.mark.unit
def test_the_command_a_program_starts_is_read_off_its_arguments() -> None:
    python = ["/usr/bin/python3", "-m", "rewind"]
    assert command_started([*python, "log", "--json"]) == "log"
    assert command_started([*python, "-C", "/somewhere", "show", "1"]) == "show"
    assert command_started(["setpriv", "--inh-caps=-all", *python, "restore", "1"]) == "restore"
    assert command_started(["git", "status"]) is None
    assert command_started(["/usr/bin/python3", "-c", "serve()"]) is None


def history(project: Path) -> None:
    """Two turns of session s over two files, a restore, a label, then a hand edit (a
    conflict for a restore to before turn 1)."""
    (project / "a.txt").write_text("one\n")
    for number, text in ((1, "two"), (2, "three")):
        ok("begin", "--session", "s", "--prompt", f"turn {number}")
        ok("track", "--session", "s", "a.txt", "b.txt")
        (project / "a.txt").write_text(f"{text}\n")
        (project / "b.txt").write_text(f"b {text}\n")
        ok("end", "--session", "s")
    ok("restore", "2", "--session", "s", "--yes")
    ok("label", "1", "first", "--session", "s")
    (project / "a.txt").write_text("by hand\n")


# Commands whose answer reads the history and changes nothing: each is run both ways.
REPRESENTATIVE = [
    ["log"],
    ["log", "--json"],
    ["show", "1"],
    ["show", "2", "--json"],
    ["diff", "1"],
    ["history", "a.txt"],
    ["blame", "b.txt"],
    ["status"],
    ["sessions", "--json"],
    ["restore", "1", "--dry-run"],  # a conflict: exit 1, the plan, one line on standard error
    ["undo", "--dry-run"],
    ["check"],
    ["help", "restore"],
    ["--version"],
    ["restore", "9"],  # a user's mistake
    ["lgo"],  # a mistyped command: argparse's usage and the closest command
    ["hook", "claude-code"],  # no event on standard input: nothing printed
]


def test_a_forked_command_answers_as_a_fresh_interpreter_does(project: Path) -> None:
    history(project)
    differ = {}
    for arguments in REPRESENTATIVE:
        forked = run_rewind(*arguments, fresh=False)
        fresh = run_rewind(*arguments, fresh=True)
        answers = [(done.returncode, done.stdout, done.stderr) for done in (forked, fresh)]
        if answers[0] != answers[1]:
            differ[" ".join(arguments)] = answers
    assert differ == {}
    assert run_rewind("restore", "1", "--dry-run").returncode == 1  # the answers were not empty


def watched(project: Path, server: ForkedRewind, env: dict[str, str]) -> set[bytes]:
    """Runs ``rewind watch`` in ``project`` forked from ``server`` with ``env``, makes three
    files while it watches, and returns the paths it recorded (once kept.txt is recorded, the
    watcher is stopped)."""
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "start"], cwd=project, env=env)
    ok("begin", "--session", SESSION, "--prompt", "work", cwd=project, env=env)
    answers: list[tuple[int, str, str]] = []
    arguments = ["watch", "--session", SESSION]
    running = threading.Thread(
        target=lambda: answers.append(server.run(arguments, str(project), env, None, 120.0))
    )
    running.start()
    try:
        info = store_dir(project) / "rewind" / "watch.json"
        wait_for(lambda: info.exists() and json.loads(info.read_text()).get("ready"), "ready")
        for name in ("a.log", "b.log", "kept.txt"):
            (project / name).write_text(f"{name}\n")
        wait_for(lambda: recorded_with(project, "kept.txt", b"kept.txt\n"), "kept.txt")
    finally:
        run_rewind("watch", "--stop", cwd=project, env=env)
        running.join(timeout=120)
    assert answers and answers[0][0] == 0, answers
    return set(external(project))


def test_each_forked_command_reads_the_git_configuration_of_its_own_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """libgit2 finds the person's git configuration (the global, the XDG one, the home ``~``
    means) when pygit2 is imported: a fresh interpreter reads them from its own environment, a
    forked command must too, not the server's. Each of two homes has a global ignore file
    (watch mode's ignore rules read it through libgit2); a server started in the first runs a
    watcher in each home, one after the other: each leaves out what its own home ignores."""
    homes = {}
    for name, ignored in (("first", "a.log"), ("second", "b.log")):
        home = tmp_path / name
        (home / ".config" / "git").mkdir(parents=True)
        (home / ".config" / "git" / "ignore").write_text(f"{ignored}\n")
        homes[name] = home
    monkeypatch.setenv("HOME", str(homes["first"]))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(homes["first"] / ".gitconfig"))
    server = ForkedRewind()
    try:
        seen = {}
        for name, home in homes.items():
            project = tmp_path / f"project-{name}"
            subprocess.run(["git", "init", "-q", str(project)], check=True)
            env = {**os.environ, "HOME": str(home), "GIT_CONFIG_GLOBAL": str(home / ".gitconfig")}
            seen[name] = watched(project, server, env)
    finally:
        server.close()
    assert seen == {"first": {b"b.log", b"kept.txt"}, "second": {b"a.log", b"kept.txt"}}
