"""``rewind blame PATH``: every line of a file as it is now, and the prompt that last changed it;
compared with ``git blame`` on the same versions committed to git."""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path
from typing import Any

import rewind
from rewind.history.restoring.opening import open_current_store
from tests.conftest import error_line, log_json, ok, run_rewind, store_dir
from tests.history.insight.file_history_test import SESSION_A, SESSION_B, Agent, entry_ids


def blame(path: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(ok("blame", "--json", path).stdout)
    return data


def per_line(data: dict[str, Any]) -> list[tuple[str, str | None]]:
    """(status, version) of every line, from the runs."""
    found = []
    for run in data["runs"]:
        origin = run["origin"]
        found += [(run["status"], origin["version"] if origin else None)] * run["count"]
    assert len(found) == data["lines"]
    return found


def test_lines_before_the_record_by_prompt_and_changed_by_hand(project: Path) -> None:
    (project / "app.py").write_text("one\ntwo\nthree\nfour\n")
    agent = Agent(project, SESSION_A)
    agent.turn("Shout two", ("write", "app.py", "one\nTWO\nthree\nfour\n"))
    agent.turn("Add five", ("write", "app.py", "one\nTWO\nthree\nfour\nfive\n"))
    (project / "app.py").write_text("one\nTWO\nthree, by hand\nfour\nfive\n")
    shout, add = entry_ids(SESSION_A)

    data = blame("app.py")
    assert (data["format"], data["path"], data["lines"]) == (1, "app.py", 5)
    assert per_line(data) == [
        ("before-record", None),
        ("recorded", shout),
        ("outside", None),
        ("before-record", None),
        ("recorded", add),
    ]
    assert [(run["start"], run["count"]) for run in data["runs"]] == [
        (1, 1),
        (2, 1),
        (3, 1),
        (4, 1),
        (5, 1),
    ]
    origin = data["runs"][1]["origin"]
    assert origin == {
        "version": shout,
        "entry": shout,
        "side": "after",
        "session": SESSION_A,
        "turn": 1,
        "kind": "turn",
        "agent": "claude-code",
        "prompt": "Shout two",
        "source": "edit",
        "time": origin["time"],
        "path": "app.py",
        "moved_from": None,
        "state": origin["state"],
        "added": None,  # blame does not count lines against the version before
        "removed": None,
        "binary": False,
        "same_as": None,
    }
    # The same record as the version in 'rewind history --json' (one shape for a version).
    versions = json.loads(ok("history", "app.py", "--json").stdout)["versions"]
    [same] = [version for version in versions if version["version"] == shout]
    assert {**same, "added": None, "removed": None} == origin

    lines = ok("blame", "app.py").stdout.splitlines()
    assert lines[0] == "app.py: 5 lines, by the prompt that last changed each"
    assert f"{add}  aaaaaaaa-0000-4000-8000-000000000001 #2  Add five" in lines
    body = lines[lines.index("") + 1 :]
    assert body[0].startswith("before the record") and body[0].endswith(" 1| one")
    assert body[1].startswith(f"{shout}  (#1    claude-code") and body[1].endswith(" 2| TWO")
    assert body[2].startswith("changed outside rewind") and body[2].endswith("3| three, by hand")
    assert all(len(line) <= 100 for line in body)


def test_blame_across_sessions_a_rename_and_a_change_seen_outside(project: Path) -> None:
    (project / "old.py").write_text("a\nb\nc\n")
    first, second = Agent(project, SESSION_A), Agent(project, SESSION_B)
    first.turn("Change a", ("write", "old.py", "A\nb\nc\n"))
    first.turn("Move it", ("shell", "mv old.py new.py", ""))
    (project / "new.py").write_text("A\nb\nc\nd by hand\n")
    second.turn("Change c", ("write", "new.py", "A\nb\nC\nd by hand\n"))
    changed, _ = entry_ids(SESSION_A)
    (seen,) = entry_ids(SESSION_B)

    assert per_line(blame("new.py")) == [
        ("recorded", changed),
        ("before-record", None),
        ("recorded", seen),
        ("outside", seen + "^"),  # noticed when session B's turn first touched the file
    ]
    text = ok("blame", "new.py").stdout
    assert f"{seen}^ (#1    outside" in text
    assert f"{seen}^ bbbbbbbb-0000-4000-8000-000000000002 #1  changed outside rewind" in text


def test_a_restore_hands_the_lines_it_brought_back_their_first_origin(project: Path) -> None:
    (project / "a.txt").write_text("one\ntwo\n")
    agent = Agent(project, SESSION_A)
    agent.turn("Change two", ("write", "a.txt", "one\nTWO\n"))
    agent.turn("Change one", ("write", "a.txt", "ONE\nTWO\n"))
    ok("restore", "2", "--session", SESSION_A, "--yes")
    first, _, _ = entry_ids(SESSION_A)
    assert per_line(blame("a.txt")) == [("before-record", None), ("recorded", first)]


def test_blame_sees_through_a_restore_and_undo_round_trip(project: Path) -> None:
    """Lines written by a prompt, taken away by a restore and brought back by its undo (and by
    a redo after another undo) are the prompt's, before and after the index keeps a blame."""
    (project / "app.py").write_text("import os\n")
    agent = Agent(project, SESSION_A)
    agent.turn("Add main", ("write", "app.py", "import os\ndef main():\n    pass\n"))
    agent.turn(
        "Write usage docs", ("write", "app.py", "import os\n# usage: app\ndef main():\n    pass\n")
    )
    main, docs = entry_ids(SESSION_A)
    expected = [
        ("before-record", None),
        ("recorded", docs),
        ("recorded", main),
        ("recorded", main),
    ]
    assert per_line(blame("app.py")) == expected  # kept in the index from here
    ok("restore", "2", "--session", SESSION_A, "--yes")
    assert per_line(blame("app.py")) == [
        ("before-record", None),
        ("recorded", main),
        ("recorded", main),
    ]
    ok("undo", "--session", SESSION_A, "--yes")
    assert per_line(blame("app.py")) == expected
    assert run_rewind("undo", "--session", SESSION_A, "--yes").returncode == 1  # none left
    ok("restore", "2", "--session", SESSION_A, "--yes")
    ok("undo", "--session", SESSION_A, "--yes")
    ok("redo", "--session", SESSION_A, "--yes")
    ok("undo", "--session", SESSION_A, "--yes")
    assert per_line(blame("app.py")) == expected
    fresh = store_dir(project) / "rewind" / "index.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{fresh}{suffix}").unlink(missing_ok=True)
    assert per_line(blame("app.py")) == expected


def test_what_a_partial_restore_merged_anew_is_its_own(project: Path) -> None:
    """Content no recorded version held (hunks put back into a file changed since) is the
    restore's where the diff from the version before says so."""
    (project / "a.txt").write_text("1\n2\n3\n4\n5\n6\n7\n8\n9\n")
    agent = Agent(project, SESSION_A)
    agent.turn("Top and bottom", ("write", "a.txt", "ONE\n2\n3\n4\n5\n6\n7\n8\nNINE\n"))
    agent.turn("Middle", ("write", "a.txt", "ONE\n2\n3\n4\nFIVE\n6\n7\n8\nNINE\n"))
    ok("restore", "1", "--session", SESSION_A, "--path", "a.txt", "--hunks", "2", "--yes")
    assert (project / "a.txt").read_text() == "ONE\n2\n3\n4\nFIVE\n6\n7\n8\n9\n"
    top, middle, restore = entry_ids(SESSION_A)
    lines = per_line(blame("a.txt"))
    assert lines[0] == ("recorded", top) and lines[4] == ("recorded", middle)
    assert lines[8] == ("recorded", restore)


def test_files_blame_cannot_read_are_refused_in_one_line(project: Path) -> None:
    (project / "logo.bin").write_bytes(b"\x89PNG\0\0")
    ok("begin", "--session", "s", "--prompt", "logo")
    ok("track", "--session", "s", "logo.bin")
    ok("end", "--session", "s")
    assert "is a binary file" in error_line(run_rewind("blame", "logo.bin"))
    assert "does not exist now" in error_line(run_rewind("blame", "gone.txt"))
    os.symlink("logo.bin", project / "link")
    assert "is a symbolic link" in error_line(run_rewind("blame", "link"))
    (project / "never.txt").write_text("x\n")
    assert error_line(run_rewind("blame", "never.txt")) == (
        "rewind: nothing is recorded for never.txt; 'rewind log' lists the turns and the files "
        "each changed."
    )


def test_the_kept_blame_is_extended_by_later_turns_and_agrees_with_a_fresh_one(
    project: Path,
) -> None:
    (project / "a.txt").write_text("".join(f"line {i}\n" for i in range(20)))
    project_api = rewind.Project(project, session="s", agent="api")
    with project_api.turn("first") as turn:
        turn.edit("a.txt", "line 3\n", "line three\n")
    blame("a.txt")  # keeps what it found in the index
    with project_api.turn("second") as turn:
        turn.edit("a.txt", "line 7\n", "line seven\nand more\n")
    extended = blame("a.txt")
    index = store_dir(project) / "rewind" / "index.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{index}{suffix}").unlink(missing_ok=True)
    assert blame("a.txt") == extended
    first, second = (e["id"] for e in log_json("--session", "s"))
    lines = per_line(extended)
    assert lines[3] == ("recorded", first) and lines[7:9] == [("recorded", second)] * 2
    assert lines.count(("before-record", None)) == 18


def test_the_same_as_git_blame_on_the_same_versions(project: Path, tmp_path: Path) -> None:
    """Forty versions of a file, each replacing, inserting or deleting a few lines, recorded
    as turns and committed to another repository: each line has the same origin."""
    chance = random.Random(3)
    lines = [f"original {i}\n" for i in range(60)]
    (project / "f.txt").write_text("".join(lines))
    reference = tmp_path / "reference"
    reference.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=reference, check=True)

    def commit(message: str) -> None:
        (reference / "f.txt").write_text("".join(lines))
        subprocess.run(["git", "add", "f.txt"], cwd=reference, check=True)
        subprocess.run(["git", "commit", "-q", "-m", message], cwd=reference, check=True)

    commit("0")
    api = rewind.Project(project, session="s", agent="api")
    for number in range(1, 41):
        where = chance.randrange(len(lines))
        action = chance.choice(["replace", "insert", "delete"])
        if action == "replace":
            lines[where] = f"turn {number} replaced\n"
        elif action == "insert":
            lines[where:where] = [f"turn {number} inserted {k}\n" for k in range(2)]
        elif len(lines) > 10:
            del lines[where : where + 2]
        with api.turn(f"turn {number}") as turn:
            turn.write_text("f.txt", "".join(lines))
        commit(str(number))

    porcelain = subprocess.run(
        ["git", "blame", "--line-porcelain", "f.txt"],
        cwd=reference,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    expected = [
        line.split(" ", 1)[1] for line in porcelain.splitlines() if line.startswith("summary ")
    ]
    numbers = {entry["id"]: str(entry["turn"]) for entry in log_json("--session", "s")}
    got = [
        "0" if status == "before-record" else numbers[str(version)]
        for status, version in per_line(blame("f.txt"))
    ]
    assert got == expected


def test_blame_api_gives_runs_and_versions(project: Path) -> None:
    from rewind.history.insight.blame import BEFORE_RECORD, RECORDED, blame_file

    (project / "a.txt").write_text("x\ny\n")
    api = rewind.Project(project, session="s", agent="api")
    with api.turn("change y") as turn:
        turn.edit("a.txt", "y", "Y")
    result = blame_file(open_current_store(), b"a.txt")
    assert result.lines == [b"x", b"Y"]
    assert [(run.start, run.count, run.status) for run in result.runs] == [
        (1, 1, BEFORE_RECORD),
        (2, 1, RECORDED),
    ]
    assert result.runs[1].version is result.versions[0]


def test_a_tampered_version_is_refused_not_blamed(project: Path) -> None:
    """Blame reads its versions without libgit2's SHA-1 (most of its time): each content is
    checked against the fingerprint recorded with it instead, so a loose object whose content
    was replaced under its own name is still caught."""
    import zlib

    (project / "a.txt").write_text("one\ntwo\nthree\n")
    api = rewind.Project(project, session="s", agent="api")
    with api.turn("change two") as turn:
        turn.edit("a.txt", "two", "TWO")
    with api.turn("change three") as turn:
        turn.edit("a.txt", "three", "THREE")
    [entry] = [e for e in log_json("--session", "s") if e["turn"] == 1]
    oid = entry["files"][0]["after"]["oid"]
    loose = store_dir(project) / "objects" / oid[:2] / oid[2:]
    forged = b"one\nTWO\nthree and more\n"
    loose.chmod(0o644)
    loose.write_bytes(zlib.compress(b"blob %d\0" % len(forged) + forged))
    line = error_line(run_rewind("blame", "a.txt"))
    assert line == (
        f"rewind: object {oid} in the store does not hold what was recorded; run 'rewind check' "
        "to see what it affects."
    )
