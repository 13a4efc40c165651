"""Hunks follow renames, as history and blame do: ``restore TURN --path P --hunks`` and ``show TURN
--path P`` take the file's name now for a turn that changed it under an older name, and the
name a turn changed for a file moved since; the hunks go into the file where it is now."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import error_line, ok, run_rewind
from tests.history.insight.file_history_test import SESSION_A, Agent

OLD = "src/arith.py"
NEW = "src/calc.py"


@pytest.fixture
def moved(project: Path) -> Path:
    """Turn 1 edits the top and bottom of src/arith.py, turn 2 moves it to src/calc.py (the
    shell quicksave reads the mv), turn 3 edits the middle under the new name."""
    (project / "src").mkdir()
    (project / OLD).write_text("".join(f"{n}\n" for n in range(1, 10)))
    agent = Agent(project, SESSION_A)
    agent.turn("Top and bottom", ("write", OLD, "ONE\n2\n3\n4\n5\n6\n7\n8\nNINE\n"))
    agent.turn("Rename", ("shell", f"mv {OLD} {NEW}", ""))
    agent.turn("Middle", ("write", NEW, "ONE\n2\n3\n4\nFIVE\n6\n7\n8\nNINE\n"))
    return project / NEW


def hunks(turn: str, path: str) -> list[int]:
    shown = json.loads(ok("show", turn, "--session", SESSION_A, "--path", path, "--json").stdout)
    return [hunk["number"] for hunk in shown["hunks"]]


def test_the_name_now_finds_the_hunks_a_turn_made_under_the_old_name(moved: Path) -> None:
    assert hunks("1", NEW) == [1, 2]
    done = run_rewind(
        "restore", "1", "--session", SESSION_A, "--path", NEW, "--hunks", "2", "--yes"
    )
    assert done.returncode == 0, done
    assert moved.read_text() == "ONE\n2\n3\n4\nFIVE\n6\n7\n8\n9\n"  # turn 3's middle kept
    assert not (moved.parent / "arith.py").exists()


def test_the_old_name_finds_the_file_where_it_is_now(moved: Path) -> None:
    assert hunks("1", OLD) == [1, 2]
    done = run_rewind(
        "restore", "1", "--session", SESSION_A, "--path", OLD, "--hunks", "1", "--yes"
    )
    assert done.returncode == 0, done
    assert moved.read_text() == "1\n2\n3\n4\nFIVE\n6\n7\n8\nNINE\n"
    assert not (moved.parent / "arith.py").exists()  # put back into the file, not its old name


def test_a_file_the_turn_never_touched_under_any_name_is_refused(moved: Path) -> None:
    (moved.parent / "other.py").write_text("x\n")
    refused = run_rewind(
        "restore", "1", "--session", SESSION_A, "--path", "src/other.py", "--hunks", "1"
    )
    assert error_line(refused) == (
        "rewind: turn 1 did not change src/other.py; 'rewind show 1' lists the files it changed."
    )
