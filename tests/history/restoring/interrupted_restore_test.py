"""A restore interrupted half-way is finished by the next rewind command, whatever ran it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import run_rewind


def store_of(project: Path) -> Path:
    result = run_rewind("status", cwd=project)
    return Path(result.stdout.split("store:", 1)[1].split()[0])


def record_turn(project: Path, names: list[str]) -> None:
    assert run_rewind("begin", "--session", "s", "--prompt", "edit all").returncode == 0
    assert run_rewind("track", "--session", "s", *names).returncode == 0
    for name in names:
        (project / name).write_text(f"changed {name}\n")
    assert run_rewind("end", "--session", "s").returncode == 0


def test_failed_write_is_finished_once_the_cause_is_gone(project: Path) -> None:
    (project / "a.txt").write_text("a before\n")
    (project / "sub").mkdir()
    (project / "sub" / "b.txt").write_text("b before\n")
    assert run_rewind("begin", "--session", "s").returncode == 0
    assert run_rewind("track", "--session", "s", "a.txt", "sub/b.txt").returncode == 0
    (project / "a.txt").write_text("a after\n")
    (project / "sub" / "b.txt").unlink()
    (project / "sub").rmdir()
    assert run_rewind("end", "--session", "s").returncode == 0
    journal = store_of(project) / "rewind" / "restore-journal.json"
    (project / "sub").write_text("a file where the directory was\n")  # blocks recreating sub/b

    result = run_rewind("restore", "1", "--yes", "--session", "s")
    assert result.returncode == 1
    assert "finished by the next rewind command" in result.stderr
    assert journal.exists()
    assert (project / "a.txt").read_text() == "a before\n"  # written before the failure

    still_blocked = run_rewind("status")
    assert "could not be finished yet (sub/b.txt" in still_blocked.stderr
    assert journal.exists()

    (project / "sub").unlink()
    status = run_rewind("status")
    assert "finished restore 2" in status.stderr
    assert (project / "sub" / "b.txt").read_text() == "b before\n"
    assert not journal.exists()


def test_killed_restore_is_finished_and_can_be_undone(project: Path) -> None:
    names = [f"f{i:04}.txt" for i in range(3000)]
    for name in names:
        (project / name).write_text(f"original {name}\n")
    record_turn(project, names)
    journal = store_of(project) / "rewind" / "restore-journal.json"

    process = subprocess.Popen(
        [sys.executable, "-m", "rewind", "restore", "1", "--yes", "--session", "s"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    first = project / names[0]
    deadline = time.monotonic() + 60
    while first.read_text() != f"original {names[0]}\n" and time.monotonic() < deadline:
        assert process.poll() is None, "the restore ended before it could be interrupted"
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert journal.exists()
    assert (project / names[-1]).read_text() != f"original {names[-1]}\n"  # really half-way

    run_rewind("status")  # any command finishes the restore
    assert not journal.exists()
    assert all((project / n).read_text() == f"original {n}\n" for n in names)
    entries = json.loads(run_rewind("log", "--json", "--session", "s").stdout)
    assert [entry["kind"] for entry in entries] == ["turn", "restore"]

    assert run_rewind("undo", "--yes", "--session", "s").returncode == 0
    assert all((project / n).read_text() == f"changed {n}\n" for n in names)


def test_journal_of_a_restore_never_recorded_is_dropped(project: Path) -> None:
    """Killed before the restore entry was committed: nothing was written, nothing to finish."""
    names = ["one.txt", "two.txt"]
    for name in names:
        (project / name).write_text("original\n")
    record_turn(project, names)
    journal = store_of(project) / "rewind" / "restore-journal.json"
    journal.write_text(json.dumps({"session": "s", "entry": "0123456789ab"}))

    assert run_rewind("status").returncode == 0
    assert not journal.exists()
    assert all((project / n).read_text() == f"changed {n}\n" for n in names)
