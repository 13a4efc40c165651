"""'rewind label' while gc's retention cuts the same session: a label that 'rewind label' said
gc keeps is never dropped with its turn. Retention plans its cuts without the store lock and
makes them under it; each test runs the steps in the order that lost the label before its fix."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import rewind
from rewind.history.upkeep import retention
from rewind.store.repository import Store
from tests.conftest import RewindResult, error_line, log_json, ok


def sessions(project: Path) -> Store:
    """Session ``old`` of 12 turns, then session ``new`` (retention keeps the newest whole),
    under a policy that keeps the last 2 turns of any other session; the store, policy read."""
    for session, turns in (("old", 12), ("new", 2)):
        recorded = rewind.Project(project, session=session, agent="tester")
        for number in range(1, turns + 1):
            with recorded.turn(f"{session} {number}") as turn:
                turn.write_text(f"{session}.txt", f"{session} {number}\n")
    (project / "rewind.toml").write_text("[retention]\nkeep_days = 0\nkeep_last = 2\n")
    return rewind.Project(project, session="old").store


def old_turns() -> dict[int, list[str]]:
    return {entry["turn"]: entry["labels"] for entry in log_json("--session", "old")}


def test_a_label_given_between_the_plan_and_the_cut_keeps_its_turn(project: Path) -> None:
    store = sessions(project)
    cuts = retention.plan(store, store.config.retention)
    assert [(cut.session, cut.keep_from) for cut in cuts] == [("old", 11)]

    said = ok("label", "--session", "old", "9", "keep-me").stdout
    assert "'rewind gc' keeps it" in said
    made = retention.apply(store, cuts)

    assert [(cut.session, cut.keep_from, cut.dropped) for cut in made] == [("old", 9, 8)]
    assert old_turns() == {9: ["keep-me"], 10: [], 11: [], 12: []}
    assert "entries before 9 (8," in Path(store.state_path("rewind.log")).read_text()
    ok("restore", "--session", "old", "9", "--yes", "--force")
    assert (project / "old.txt").read_text() == "old 8\n"


def test_a_label_waiting_for_the_lock_while_its_turn_is_cut_is_refused(project: Path) -> None:
    """``rewind label`` finds turn 5, then waits for the store lock, which a gc holds while it
    cuts turns 1 to 10: once it has the lock, it finds that turn 5 is gone and says so."""
    store = sessions(project)
    with store.lock():
        label = subprocess.Popen(
            [sys.executable, "-m", "rewind", "label", "--session", "old", "5", "late"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert label.stderr is not None
        waiting = label.stderr.readline()  # after 1 s of waiting for the lock
        assert waiting.startswith("rewind: waiting for the store"), waiting
        label.send_signal(signal.SIGSTOP)  # parked there while the cut is made
        _, status = os.waitpid(label.pid, os.WUNTRACED)
        assert os.WIFSTOPPED(status)
    made = retention.apply(store, retention.plan(store, store.config.retention))
    assert [(cut.session, cut.keep_from) for cut in made] == [("old", 11)]
    label.send_signal(signal.SIGCONT)
    stdout, stderr = label.communicate(timeout=60)

    refused = subprocess.CompletedProcess(label.args, label.returncode, stdout, stderr)
    line = error_line(RewindResult.of(refused))
    assert "turn 5 of session old was just dropped by gc's retention" in line
    assert old_turns() == {11: [], 12: []}
    assert not list(Path(store.git_dir, "refs", "rewind", "labels").rglob("late"))
