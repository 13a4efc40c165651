"""Every ``--json`` output, parsed, with the keys docs/cli.md documents; and "nothing recorded
yet" as a normal answer (exit 0, ``[]`` or nulls)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from rewind import Project
from tests.conftest import run_rewind

ENTRY_KEYS = {
    "session",
    "turn",
    "id",
    "kind",
    "prompt",
    "agent",
    "time",
    "ended",
    "labels",
    "target",
    "files",
    "unrecorded",
}
DIFF_KEYS = {"path", "status", "added", "removed", "binary", "before", "after", "diff"}
SESSION_KEYS = {
    "format",
    "session",
    "agent",
    "entries",
    "started",
    "last_active",
    "files",
    "recent",
}
STATUS_KEYS = {
    "format",
    "project",
    "store",
    "last_gc",
    "backup",
    "session",
    "turn",
    "watcher",
    "interrupted_restore",
    "problems",
    "logs",
}
PLAN_KEYS = {"format", "kind", "session", "target", "changes", "conflicts", "skipped", "files"}
PLANNED_KEYS = {"path", "action", "conflict", "reason", "before", "after"}
ISO_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def json_of(*args: str) -> Any:
    result = run_rewind(*args)
    assert result.returncode == 0, result
    return json.loads(result.stdout)


@pytest.fixture
def history(project: Path) -> Path:
    """Session ``s``: turn 1 changes a.txt and creates b.txt, turn 2 changes a.txt again."""
    (project / "a.txt").write_text("one\n")
    history = Project(session="s", agent="claude-code")
    with history.turn("first") as turn:
        turn.write_text("a.txt", "two\n")
        turn.write_text("b.txt", "new\n")
    with history.turn("second") as turn:
        turn.write_text("a.txt", "three\n")
    return project


def test_status_json_without_a_store_is_nulls_and_exit_0(project: Path) -> None:
    shown = json_of("status", "--json")
    assert set(shown) == STATUS_KEYS
    assert shown["format"] == 1
    assert shown["project"] == str(project)
    assert shown["store"]["exists"] is False
    assert shown["store"]["size"] is None
    assert (shown["session"], shown["turn"], shown["last_gc"], shown["watcher"]) == (None,) * 4
    assert shown["problems"] == []
    text = run_rewind("status")
    assert text.returncode == 0, text
    assert "none yet" in text.stdout


def test_log_and_sessions_json_without_a_store_are_empty_lists(project: Path) -> None:
    for command in (("log", "--json"), ("sessions", "--json"), ("log", "--json", "--path", "a")):
        result = run_rewind(*command)
        assert (result.returncode, result.stdout, result.stderr) == (0, "[]\n", ""), command
    assert run_rewind("sessions").stdout.startswith("no sessions yet; let your agent record")


def test_log_json_of_a_store_without_sessions_is_an_empty_list(project: Path) -> None:
    Project(session="s")  # makes the store, records nothing
    result = run_rewind("log", "--json")
    assert (result.returncode, result.stdout) == (0, "[]\n"), result
    assert json_of("sessions", "--json") == []
    unknown = run_rewind("log", "--json", "--session", "nope")
    assert unknown.returncode == 1 and "no session 'nope'" in unknown.stderr


def test_status_json_names_the_session_and_its_newest_turn(history: Path) -> None:
    shown = json_of("status", "--json")
    assert set(shown) == STATUS_KEYS
    assert shown["store"]["exists"] is True
    assert isinstance(shown["store"]["size"], int) and shown["store"]["size"] > 0
    assert shown["session"] == "s"
    assert shown["turn"] == {
        "turn": 2,
        "id": shown["turn"]["id"],
        "kind": "turn",
        "open": False,
        "files": 1,
    }
    assert set(shown["logs"][0]) == {"path", "holds", "recent_problems"}


def test_sessions_json_has_start_time_and_file_count(history: Path) -> None:
    (session,) = json_of("sessions", "--json")
    assert set(session) == SESSION_KEYS
    assert session["session"] == "s"
    assert session["agent"] == "claude-code"
    assert session["entries"] == 2
    assert session["files"] == 2
    assert ISO_UTC.match(session["started"]) and ISO_UTC.match(session["last_active"])
    assert session["recent"] is True


def test_show_json_is_the_log_entry_with_its_diffs(history: Path) -> None:
    shown = json_of("show", "1", "--json")
    assert set(shown) == ENTRY_KEYS | {"format", "conversation", "reply"}
    assert shown["format"] == 1
    assert shown["conversation"] is None  # a turn with no agent's transcript
    assert shown["reply"] is None  # nothing kept: [conversation] keep is off
    logged = json_of("log", "--json")[0]
    assert {key: shown[key] for key in ENTRY_KEYS - {"files"}} == {
        key: logged[key] for key in ENTRY_KEYS - {"files"}
    }
    assert [file["path"] for file in shown["files"]] == ["a.txt", "b.txt"]
    a_txt = shown["files"][0]
    assert set(a_txt) == DIFF_KEYS | {"source"}
    assert "-one\n+two\n" in a_txt["diff"]
    assert a_txt["status"] == "modified"


def test_diff_json_to_disk_and_between_checkpoints(history: Path) -> None:
    (history / "a.txt").write_text("by hand\n")
    to_disk = json_of("diff", "1", "--json")
    assert set(to_disk) == {"format", "session", "from", "to", "files"}
    assert to_disk["from"]["turn"] == 1 and to_disk["to"] is None
    by_path = {file["path"]: file for file in to_disk["files"]}
    assert set(by_path) == {"a.txt", "b.txt"}
    assert all(set(file) == DIFF_KEYS for file in by_path.values())
    assert "+by hand\n" in by_path["a.txt"]["diff"]
    between = json_of("diff", "2", "1", "--json")
    assert (between["from"]["turn"], between["to"]["turn"]) == (1, 2)
    assert "+two\n" in {file["path"]: file for file in between["files"]}["a.txt"]["diff"]


def test_restore_dry_run_json_is_the_plan_and_changes_nothing(history: Path) -> None:
    before = {name: (history / name).read_bytes() for name in ("a.txt", "b.txt")}
    log_before = json_of("log", "--json")
    plan = json_of("restore", "1", "--dry-run", "--json")
    assert set(plan) == PLAN_KEYS
    assert (plan["format"], plan["kind"], plan["session"]) == (1, "restore", "s")
    assert plan["target"]["turn"] == 1
    assert (plan["changes"], plan["conflicts"], plan["skipped"]) == (2, 0, 0)
    actions = {file["path"]: file["action"] for file in plan["files"]}
    assert actions == {"a.txt": "restore", "b.txt": "delete"}
    assert all(set(file) == PLANNED_KEYS for file in plan["files"])
    assert {name: (history / name).read_bytes() for name in before} == before
    assert json_of("log", "--json") == log_before


def test_restore_json_needs_dry_run(history: Path) -> None:
    result = run_rewind("restore", "1", "--json")
    assert result.returncode == 1 and "--dry-run" in result.stderr
    assert (history / "a.txt").read_text() == "three\n"


def test_restore_dry_run_json_of_a_conflict_exits_1_with_the_plan(history: Path) -> None:
    (history / "a.txt").write_text("by hand\n")
    result = run_rewind("restore", "1", "--dry-run", "--json")
    assert result.returncode == 1
    plan = json.loads(result.stdout)
    assert plan["conflicts"] == 1
    (a_txt,) = [file for file in plan["files"] if file["path"] == "a.txt"]
    assert a_txt["conflict"] is True and "changed outside rewind" in a_txt["reason"]


def test_undo_dry_run_json(history: Path) -> None:
    assert run_rewind("restore", "2", "--yes").returncode == 0
    plan = json_of("undo", "--dry-run", "--json")
    assert set(plan) == PLAN_KEYS
    assert plan["kind"] == "undo"
    assert plan["target"]["kind"] == "restore"
    assert [file["path"] for file in plan["files"]] == ["a.txt"]
    assert (history / "a.txt").read_text() == "two\n"


def test_label_json_prints_the_labelled_entry(history: Path) -> None:
    shown = json_of("label", "1", "good", "--json")
    assert set(shown) == {"format", "label", "removed", "entry"}
    assert (shown["format"], shown["label"], shown["removed"]) == (1, "good", False)
    assert set(shown["entry"]) == ENTRY_KEYS
    assert shown["entry"]["turn"] == 1 and shown["entry"]["labels"] == ["good"]
    removed = json_of("label", "1", "good", "--remove", "--json")
    assert removed["removed"] is True and removed["entry"]["labels"] == []


def test_text_outputs_print_no_json(history: Path) -> None:
    for command in (("status",), ("show", "1"), ("diff", "1"), ("sessions",)):
        result = run_rewind(*command)
        assert result.returncode == 0, result
        assert not result.stdout.lstrip().startswith(("{", "[")), command
