"""``rewind undo`` steps back through a session's restores one by one, ``rewind redo`` puts them
back, the way an editor does; every step is an entry, ``rewind log`` says where the session
stands (rewind.history.restoring.undo_stack)."""

from __future__ import annotations

from pathlib import Path

from rewind.history.entry import UNDO
from rewind.history.recording.turns import settled_head
from rewind.history.restoring.opening import open_current_store
from rewind.history.restoring.restore import apply_plan
from rewind.history.restoring.restore_plan import _reversal
from rewind.history.restoring.undo_stack import undo_stack
from tests.conftest import error_line, log_json, ok, run_rewind
from tests.history.restoring.restore_test import begin, end, restore, track, undo

SESSION = "s"


def redo(*args: str) -> str:
    done = run_rewind("redo", "--session", SESSION, "--yes", *args)
    assert done.returncode == 0, done
    return done.stdout


def three_turns(project: Path) -> Path:
    """Turns writing v1, v2, v3 into a.txt."""
    path = project / "a.txt"
    for number in (1, 2, 3):
        begin(f"turn {number}")
        track("a.txt")
        path.write_text(f"v{number}\n")
        end()
    return path


def two_restores(project: Path) -> Path:
    """Three turns, then restores 4 (to before turn 3: v2) and 5 (to before turn 2: v1)."""
    path = three_turns(project)
    assert restore("3").returncode == 0
    assert restore("2").returncode == 0
    assert path.read_text() == "v1\n"
    return path


def undone(project: Path) -> dict[int, bool]:
    return {entry["turn"]: entry["undone"] for entry in log_json("--session", SESSION)}


def test_undo_steps_back_through_every_restore_and_redo_forward_again(project: Path) -> None:
    path = two_restores(project)
    assert "Took back restore 5" in undo().stdout
    assert path.read_text() == "v2\n"
    assert "Took back restore 4" in undo().stdout
    assert path.read_text() == "v3\n"
    refused = undo()
    assert error_line(refused) == (
        "rewind: nothing left to undo in session s: its restores are all undone; 'rewind "
        "redo' puts restore 4 back."
    )
    assert "Put back restore 4" in redo()
    assert path.read_text() == "v2\n"
    assert "Put back restore 5" in redo()
    assert path.read_text() == "v1\n"
    refused = run_rewind("redo", "--session", SESSION, "--yes")
    assert error_line(refused).startswith("rewind: there is nothing to redo in session s")
    prompts = [entry["prompt"] for entry in log_json("--session", SESSION)][5:]
    assert prompts == ["undo restore 5", "undo restore 4", "redo restore 4", "redo restore 5"]


def test_the_log_marks_what_is_undone_and_says_what_redo_puts_back(project: Path) -> None:
    two_restores(project)
    undo()
    assert undone(project) == {1: False, 2: False, 3: False, 4: False, 5: True, 6: False}
    text = ok("log", "--session", SESSION).stdout
    assert "restore to before turn 2 (undone)" in text
    assert text.rstrip().endswith("'rewind redo' puts back restore 5 (taken back by undo 6)")
    redo()
    assert not any(undone(project).values())
    assert "'rewind redo'" not in ok("log", "--session", SESSION).stdout


def test_what_is_undone_is_one_rule_through_redos_and_new_restores(project: Path) -> None:
    """Restore 4, undo 5, redo 6, undo 7: restore 4's files are taken back, so restore 4 and
    the redo that had put it back are both undone, in the text and in --json; the next
    restore (8) leaves nothing to redo but restore 4 stays undone."""
    path = three_turns(project)
    assert restore("3").returncode == 0  # restore 4
    undo()  # 5
    redo()  # 6
    undo()  # 7
    assert path.read_text() == "v3\n"
    marked = {number for number, flag in undone(project).items() if flag}
    assert marked == {4, 6}
    text = ok("log", "--session", SESSION).stdout
    assert "restore to before turn 3 (undone)" in text and "redo restore 4 (undone)" in text
    assert text.rstrip().endswith("'rewind redo' puts back restore 4 (taken back by undo 7)")
    assert restore("1").returncode == 0  # restore 8
    assert {number for number, flag in undone(project).items() if flag} == {4, 6}
    assert "'rewind redo'" not in ok("log", "--session", SESSION).stdout


def test_a_new_restore_empties_what_redo_would_put_back(project: Path) -> None:
    path = two_restores(project)
    undo()
    assert restore("1").returncode == 0  # a new restore: a.txt did not exist before turn 1
    assert not path.exists()
    refused = run_rewind("redo", "--session", SESSION, "--yes")
    assert "nothing to redo" in error_line(refused)
    assert "Took back restore 7" in undo().stdout  # the newest, then on back
    assert path.read_text() == "v2\n"
    assert "Took back restore 4" in undo().stdout
    assert path.read_text() == "v3\n"


def test_new_work_after_an_undo_empties_redo_and_restoring_again_gets_there(
    project: Path,
) -> None:
    """As in an editor, a new turn after an undo leaves nothing to redo (the log stops offering
    it); what redo would have put back is a restore to the same turn again, which is undone
    like any restore."""
    path = two_restores(project)
    undo()  # takes back restore 5 (to before turn 2): a.txt is v2 again
    begin("turn after the undo")
    track("a.txt")
    path.write_text("agent's work\n")
    end()
    assert "'rewind redo'" not in ok("log", "--session", SESSION).stdout
    refused = run_rewind("redo", "--session", SESSION, "--yes")
    assert error_line(refused) == (
        "rewind: there is nothing to redo in session s: an undo can be redone until something "
        "else happens in the session, and none is left ('rewind undo' takes a restore back)."
    )
    assert path.read_text() == "agent's work\n"
    # Restore 5 is still undone: the new turn did not make it in effect again.
    assert undone(project)[5] is True
    assert restore("2").returncode == 0  # the turn's work is recorded: restore 8 takes it
    assert path.read_text() == "v1\n"
    assert "Took back restore 8" in undo().stdout
    assert path.read_text() == "agent's work\n"  # and undo gives it back


def test_redo_dry_run_json_names_the_undo_it_reverses(project: Path) -> None:
    two_restores(project)
    undo()
    done = run_rewind("redo", "--session", SESSION, "--dry-run", "--json")
    assert done.returncode == 0, done
    assert '"kind": "redo"' in done.stdout
    assert (project / "a.txt").read_text() == "v2\n"  # a dry run changes nothing


def test_an_undo_of_an_undo_recorded_by_an_older_rewind_counts_as_a_redo(project: Path) -> None:
    """Before undo stepped, a second undo reversed the first (the log filled with "undo undo
    N"): such an entry put the restore back, and is read as a redo."""
    path = two_restores(project)
    undo()
    store = open_current_store()
    head = settled_head(store, SESSION)
    stack = undo_stack(store, head)
    first_undo = stack.next_redo()
    assert first_undo is not None
    apply_plan(store, _reversal(store, UNDO, first_undo, first_undo))  # "undo undo 6"
    assert path.read_text() == "v1\n"
    stack = undo_stack(store, settled_head(store, SESSION))
    assert stack.next_redo() is None
    after = stack.next_undo()
    assert after is not None and after.number == 7
    assert "Took back restore 5" in undo().stdout
    assert path.read_text() == "v2\n"
