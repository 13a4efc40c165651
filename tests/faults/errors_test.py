"""Hostile environments and damaged stores: each refusal is one line that starts ``rewind: ``
(exit 1), never a traceback or an 'unexpected error', and nothing recorded is lost."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rewind.objects import ObjectReader, ObjectWriter
from tests.conftest import RewindResult, error_line, log_json, ok, run_rewind, store_dir

SESSION = "s"
DROPPED = "-dac_override,-dac_read_search,-fowner"


def three_turns(project: Path) -> None:
    """a.txt goes 0 -> 1 -> 2 -> 3 over turns 1 to 3 of SESSION."""
    (project / "a.txt").write_text("0\n")
    for number in (1, 2, 3):
        ok("begin", "--session", SESSION, "--prompt", f"turn {number}")
        ok("track", "--session", SESSION, "a.txt")
        (project / "a.txt").write_text(f"{number}\n")
        ok("end", "--session", SESSION)


def assert_clean(result: RewindResult) -> str:
    """Exit 1 with one line; not a crash."""
    line = error_line(result)
    assert "Traceback" not in result.stderr and "unexpected error" not in line, result
    return line


def as_unprivileged(*arguments: str, **limits: int) -> RewindResult:
    """``rewind ARGS`` without root's power to ignore permissions, under ``limits``
    (``fsize``: RLIMIT_FSIZE in bytes)."""
    command = [sys.executable, "-m", "rewind", *arguments]
    if os.geteuid() == 0 and not limits:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root and setpriv (util-linux) is not installed")
        command = ["setpriv", f"--inh-caps={DROPPED}", f"--bounding-set={DROPPED}", *command]

    def limit() -> None:
        if "fsize" in limits:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limits["fsize"], limits["fsize"]))

    done = subprocess.run(command, capture_output=True, text=True, timeout=60, preexec_fn=limit)
    return RewindResult(done)


# damaged entries -------------------------------------------------------------------------------


def damage_entry(project: Path, number: int, record: bytes) -> None:
    """Rewrites SESSION's history with ``record`` as the turn.json of entry ``number``."""
    git_dir = str(store_dir(project))
    reader, writer = ObjectReader(git_dir), ObjectWriter(git_dir)
    ref = os.path.join(git_dir, "refs", "rewind", "sessions", SESSION)
    chain = []
    commit: str | None = Path(ref).read_text().strip()
    while commit:
        tree, parent = reader.read_commit(commit)
        chain.append(tree)
        commit = parent
    chain.reverse()
    parent = None
    for index, tree in enumerate(chain):
        if index == number - 1:
            items = [
                (name, mode, writer.write_blob(record) if name == b"turn.json" else oid)
                for name, mode, oid in reader.read_tree(tree)
            ]
            tree = writer.write_tree(items)
        parent = writer.write_commit(tree, parent, f"entry {index + 1}\n", 0)
    Path(ref).write_text(f"{parent}\n")


DAMAGED_RECORDS = {
    "not JSON": b"{garbage",
    "not UTF-8": b'{"prompt": "caf\xe9"}',
    "not an object": b"[1, 2]",
    "nested 100,000 levels": b"[" * 100_000 + b"]" * 100_000,
    "a files entry without a path": b'{"number": 2, "files": [{"before": null}]}',
    "a files entry that is not an object": b'{"number": 2, "files": [3]}',
    "files that are not a list": b'{"number": 2, "files": {"a.txt": 1}}',
    "a state that is not an object": b'{"number": 2, "files": [{"path": "a.txt", "before": []}]}',
    "a huge number": b'{"number": 2, "started": 1' + b"0" * 400 + b"}",
}


@pytest.mark.parametrize("record", DAMAGED_RECORDS.values(), ids=DAMAGED_RECORDS.keys())
def test_a_damaged_entry_is_shown_by_log_and_listed_by_check(project: Path, record: bytes) -> None:
    three_turns(project)
    damage_entry(project, 2, record)
    result = ok("log", "--session", SESSION)
    assert error_line(result, 0).endswith("'rewind check' says why.")
    lines = result.stdout.splitlines()
    assert any(line.split()[:1] == ["2"] and "damaged entry" in line for line in lines), result
    assert [entry["prompt"] for entry in log_json("--session", SESSION)][::2] == [
        "turn 1",
        "turn 3",
    ]
    checked = run_rewind("check")
    assert checked.returncode == 1 and "Traceback" not in checked.stderr, checked
    assert "session s entry 2 (commit " in checked.stderr and "damaged entry" in checked.stderr


def test_check_lists_every_damaged_entry(project: Path) -> None:
    three_turns(project)
    damage_entry(project, 1, b"{garbage")
    damage_entry(project, 2, b"[]")
    checked = run_rewind("check")
    assert checked.returncode == 1, checked
    assert "entry 1 (commit" in checked.stderr and "entry 2 (commit" in checked.stderr
    assert "2 problem(s)" in checked.stdout


def test_a_restore_after_a_damaged_entry_works(project: Path) -> None:
    three_turns(project)
    damage_entry(project, 2, b"{garbage")
    ok("restore", "3", "--session", SESSION, "--yes")
    assert (project / "a.txt").read_text() == "2\n"


@pytest.mark.parametrize(
    "command", [["restore", "1", "--yes"], ["restore", "2", "--yes"], ["diff", "1"]]
)
def test_nothing_crosses_a_damaged_entry(project: Path, command: list[str]) -> None:
    three_turns(project)
    damage_entry(project, 2, b"{garbage")
    line = assert_clean(run_rewind(*command, "--session", SESSION))
    assert "damaged entry 2" in line and "'rewind check'" in line
    assert (project / "a.txt").read_text() == "3\n"


def test_show_of_a_damaged_entry_says_so(project: Path) -> None:
    three_turns(project)
    damage_entry(project, 2, b"{garbage")
    assert "cannot be shown" in assert_clean(run_rewind("show", "2", "--session", SESSION))


def test_undo_does_not_skip_a_damaged_restore(project: Path) -> None:
    three_turns(project)
    ok("restore", "3", "--session", SESSION, "--yes")
    ok("begin", "--session", SESSION, "--prompt", "after")
    ok("end", "--session", SESSION)
    damage_entry(project, 4, b"{garbage")
    assert "damaged entry 4" in assert_clean(run_rewind("undo", "--session", SESSION, "--yes"))
