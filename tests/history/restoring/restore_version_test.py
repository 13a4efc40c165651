"""Restoring one version of one file: ``rewind restore --path P --version ID[^]`` and
``rewind.Project.restore_version``, over histories recorded by real hooks and commands."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from rewind.errors import ConflictError, UserError
from tests.conftest import error_line, hook, log_json, ok, run_rewind
from tests.support.agent_payloads import ClaudeCode

SESSION = "s"


def agent_deletes(agent: ClaudeCode, root: Path, name: str) -> None:
    """One turn in which the agent runs ``rm NAME`` through its shell tool."""
    hook("claude-code", agent.prompt(f"remove {name}"))
    before, after = agent.shell(f"rm {name}")
    hook("claude-code", before)
    subprocess.run(["rm", name], cwd=root, check=True)
    hook("claude-code", after)
    hook("claude-code", agent.end())


def agent_edits(agent: ClaudeCode, root: Path, name: str, old: str, new: str) -> None:
    hook("claude-code", agent.prompt(f"edit {name}"))
    before, after = agent.edit(name, old, new)
    hook("claude-code", before)
    path = root / name
    path.write_text(path.read_text().replace(old, new, 1))
    hook("claude-code", after)
    hook("claude-code", agent.end())


def entry_ids(*args: str) -> list[str]:
    return [entry["id"] for entry in log_json(*args)]


def test_a_file_the_agent_deleted_comes_back_as_it_was_before(project: Path) -> None:
    (project / "config.yaml").write_bytes(b"port: 8080\nhost: example\n")
    (project / "other.txt").write_bytes(b"other\n")
    agent = ClaudeCode(project)
    hook("claude-code", agent.session_start())
    agent_edits(agent, project, "other.txt", "other", "changed")
    agent_deletes(agent, project, "config.yaml")
    assert not (project / "config.yaml").exists()
    deleting = entry_ids()[-1]

    result = ok("restore", "--path", "config.yaml", "--version", deleting[:6] + "^")

    assert (project / "config.yaml").read_bytes() == b"port: 8080\nhost: example\n"
    assert (project / "other.txt").read_bytes() == b"changed\n"  # only the one file
    assert f"to version {deleting}^" in result.stdout
    newest = log_json()[-1]
    assert newest["kind"] == "restore"
    assert newest["prompt"] == f"restore config.yaml to version {deleting}^"
    ok("undo")
    assert not (project / "config.yaml").exists()


def test_a_version_is_the_file_as_that_entry_left_it(project: Path) -> None:
    (project / "a.txt").write_bytes(b"v1\n")
    ok("begin", "--session", SESSION, "--prompt", "two")
    ok("track", "a.txt")
    (project / "a.txt").write_bytes(b"v2\n")
    ok("begin", "--prompt", "three")
    ok("track", "a.txt")
    (project / "a.txt").write_bytes(b"v3\n")
    ok("end")
    first, second = entry_ids()

    ok("restore", "--path", "a.txt", "--version", first)
    assert (project / "a.txt").read_bytes() == b"v2\n"
    ok("restore", "--path", "a.txt", "--version", first + "^")
    assert (project / "a.txt").read_bytes() == b"v1\n"
    ok("restore", "--path", "a.txt", "--version", second.upper())
    assert (project / "a.txt").read_bytes() == b"v3\n"


def test_a_version_from_another_session_is_recorded_in_the_current_one(project: Path) -> None:
    (project / "a.txt").write_bytes(b"from before\n")
    ok("begin", "--session", "one", "--prompt", "edit a")
    ok("track", "--session", "one", "a.txt")
    (project / "a.txt").write_bytes(b"session one's\n")
    ok("end", "--session", "one")
    (project / "b.txt").write_bytes(b"b\n")
    ok("begin", "--session", "two", "--prompt", "edit b")
    ok("track", "--session", "two", "b.txt")
    (project / "b.txt").write_bytes(b"b2\n")
    ok("end", "--session", "two")
    [from_one] = entry_ids("--session", "one")

    ok("restore", "--session", "two", "--path", "a.txt", "--version", from_one + "^")

    assert (project / "a.txt").read_bytes() == b"from before\n"
    two = log_json("--session", "two")
    assert [entry["kind"] for entry in two] == ["turn", "restore"]
    assert len(log_json("--session", "one")) == 1
    ok("undo", "--session", "two")
    assert (project / "a.txt").read_bytes() == b"session one's\n"


def test_a_file_changed_since_rewind_saw_it_is_refused_then_forced_then_undone(
    project: Path,
) -> None:
    (project / "a.txt").write_bytes(b"one\n")
    ok("begin", "--session", SESSION, "--prompt", "edit")
    ok("track", "a.txt")
    (project / "a.txt").write_bytes(b"two\n")
    ok("end")
    [entry] = entry_ids()
    (project / "a.txt").write_bytes(b"my own edit\n")

    refused = run_rewind("restore", "--path", "a.txt", "--version", entry + "^")
    assert "changed outside rewind" in error_line(refused)
    assert "rewind history a.txt" in error_line(refused)
    assert (project / "a.txt").read_bytes() == b"my own edit\n"
    assert len(log_json()) == 1

    ok("restore", "--path", "a.txt", "--version", entry + "^", "--force")
    assert (project / "a.txt").read_bytes() == b"one\n"
    ok("undo")
    assert (project / "a.txt").read_bytes() == b"my own edit\n"


def test_dry_run_json_is_the_plan_with_the_version(project: Path) -> None:
    (project / "a.txt").write_bytes(b"one\n")
    ok("begin", "--session", SESSION, "--prompt", "edit")
    ok("track", "a.txt")
    (project / "a.txt").write_bytes(b"two\n")
    ok("end")
    [entry] = entry_ids()

    shown = json.loads(
        ok("restore", "--path", "a.txt", "--version", entry[:5] + "^", "--dry-run", "--json").stdout
    )

    assert (project / "a.txt").read_bytes() == b"two\n"
    assert shown["format"] == 1 and shown["kind"] == "restore" and shown["session"] == SESSION
    assert shown["target"] == {"turn": 1, "id": entry, "kind": "turn"}
    assert (shown["changes"], shown["conflicts"], shown["skipped"]) == (1, 0, 0)
    [item] = shown["files"]
    assert item["path"] == "a.txt" and item["action"] == "restore" and not item["conflict"]
    version = shown["version"]
    assert version["version"] == entry + "^" and version["side"] == "before"
    assert (version["entry"], version["session"], version["number"]) == (entry, SESSION, 1)
    assert version["state"]["size"] == 4 and item["after"] == version["state"]


def test_version_mistakes_say_what_to_do(project: Path) -> None:
    (project / "a.txt").write_bytes(b"one\n")
    (project / "b.txt").write_bytes(b"b\n")
    ok("begin", "--session", SESSION, "--prompt", "edit")
    ok("track", "a.txt")
    (project / "a.txt").write_bytes(b"two\n")
    ok("end")
    [entry] = entry_ids()

    def refused(*args: str) -> str:
        return error_line(run_rewind("restore", *args))

    assert "did not change b.txt" in refused("--path", "b.txt", "--version", entry)
    assert "no entry of this project" in refused("--path", "a.txt", "--version", "ffff0000")
    assert "is not a version" in refused("--path", "a.txt", "--version", "1")
    assert "exactly one --path" in refused("--version", entry)
    both = ("--path", "a.txt", "--path", "b.txt", "--version", entry)
    assert "exactly one --path" in refused(*both)
    assert "either TURN or --version" in refused("1", "--path", "a.txt", "--version", entry)
    assert "give the TURN" in refused("--path", "a.txt")
    assert (project / "a.txt").read_bytes() == b"two\n"


def test_the_api_restores_a_version_and_refuses_an_ambiguous_prefix(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import rewind.history.recording.turns

    ids = iter(["abcd00000001", "abcd00000002"])
    monkeypatch.setattr(rewind.history.recording.turns, "new_entry_id", lambda: next(ids))
    api = rewind.Project(project, session="api")
    with api.turn("create") as turn:
        turn.write_text("a.txt", "first\n")
    with api.turn("edit") as turn:
        turn.write_text("a.txt", "second\n")

    with pytest.raises(UserError, match="more than one entry"):
        api.restore_version("a.txt", "abcd")
    result = api.restore_version("a.txt", "abcd00000001")
    assert (project / "a.txt").read_text() == "first\n"
    assert result.entry is not None and result.entry.target is not None
    assert result.entry.target["version"] == "abcd00000001"
    api.restore_version("a.txt", "abcd00000001^")
    assert not (project / "a.txt").exists()

    (project / "a.txt").write_text("by hand\n")
    with pytest.raises(ConflictError):
        api.restore_version("a.txt", "abcd00000002")
    assert (project / "a.txt").read_text() == "by hand\n"
    api.restore_version("a.txt", "abcd00000002", force=True)
    assert (project / "a.txt").read_text() == "second\n"
    api.undo()
    assert (project / "a.txt").read_text() == "by hand\n"


def agent_runs(agent: ClaudeCode, root: Path, command: str) -> None:
    """One turn in which the agent runs ``command`` through its shell tool."""
    hook("claude-code", agent.prompt(f"run {command}"))
    before, after = agent.shell(command)
    hook("claude-code", before)
    subprocess.run(command, shell=True, cwd=root, check=True)
    hook("claude-code", after)
    hook("claude-code", agent.end())


def test_a_version_from_before_a_rename_is_restored_at_the_new_name(project: Path) -> None:
    (project / "old.py").write_bytes(b"x = 1\n")
    agent = ClaudeCode(project)
    hook("claude-code", agent.session_start())
    agent_edits(agent, project, "old.py", "x = 1", "x = 2")
    agent_runs(agent, project, "mv old.py new.py")
    agent_edits(agent, project, "new.py", "x = 2", "x = 2\ny = 3")
    changed, moved, added = entry_ids()
    listed = json.loads(ok("history", "--json", "new.py").stdout)["versions"]
    assert [(v["version"], v["path"]) for v in listed] == [
        (added, "new.py"),
        (moved, "new.py"),
        (changed, "old.py"),
        (changed + "^", "old.py"),
    ]

    shown = json.loads(
        ok("restore", "--path", "new.py", "--version", changed + "^", "--dry-run", "--json").stdout
    )
    [item] = shown["files"]
    assert (item["path"], item["action"], item["conflict"]) == ("new.py", "restore", False)
    assert (shown["version"]["path"], shown["version"]["side"]) == ("old.py", "before")

    result = ok("restore", "--path", "new.py", "--version", changed[:6] + "^")
    assert "restore new.py to version " + changed + "^" in result.stdout
    assert "then named old.py" in result.stdout
    assert (project / "new.py").read_bytes() == b"x = 1\n"
    assert not (project / "old.py").exists()  # the old name is left as it is
    assert log_json()[-1]["prompt"] == f"restore new.py to version {changed}^"
    ok("restore", "--path", "new.py", "--version", changed)
    assert (project / "new.py").read_bytes() == b"x = 2\n"
    ok("undo")
    assert (project / "new.py").read_bytes() == b"x = 1\n"


def test_an_entry_that_touched_the_file_without_a_version_of_its_own_still_names_it(
    project: Path,
) -> None:
    (project / "a.txt").write_bytes(b"one\n")
    ok("begin", "--session", SESSION, "--prompt", "edit")
    ok("track", "a.txt")
    (project / "a.txt").write_bytes(b"two\n")
    ok("begin", "--prompt", "again")
    ok("track", "a.txt")
    (project / "a.txt").write_bytes(b"three\n")
    ok("end")
    _, second = entry_ids()
    listed = [v["version"] for v in json.loads(ok("history", "--json", "a.txt").stdout)["versions"]]
    assert second + "^" not in listed  # the same state as the first entry's

    ok("restore", "--path", "a.txt", "--version", second + "^")
    assert (project / "a.txt").read_bytes() == b"two\n"
