"""Partial rewinds: putting back some hunks, or lines, of a turn's edit of a file, merged into the
file as it is now (``rewind restore TURN --path P --hunks``/``--patch``, ``rewind show TURN
--path P``, ``rewind.Project.restore_hunks``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import rewind
from rewind.errors import ConflictError, UserError
from rewind.history.restoring.hunks import Selection, hunks_between, put_back_hunks
from rewind.history.restoring.partial import PartialRefused
from rewind.history.restoring.restore import apply_plan
from tests.conftest import error_line, hook, log_json, ok, run_rewind
from tests.support.agent_payloads import ClaudeCode

BEFORE = b"".join(f"line {n}\n".encode() for n in range(1, 21))
# The agent's turn: three separate changes (hunks 1, 2, 3).
AFTER = (
    BEFORE.replace(b"line 2\n", b"LINE TWO\n")
    .replace(b"line 10\n", b"ten\nten and a half\n")
    .replace(b"line 18\n", b"")
)


def agent_writes(root: Path, name: str, before: bytes, after: bytes) -> None:
    """A Claude Code turn (through its real hooks) that rewrites ``name`` from ``before``."""
    (root / name).write_bytes(before)
    agent = ClaudeCode(root)
    hook("claude-code", agent.session_start())
    hook("claude-code", agent.prompt(f"rewrite {name}"))
    pre, post = agent.write(name, after.decode())
    hook("claude-code", pre)
    (root / name).write_bytes(after)
    hook("claude-code", post)
    hook("claude-code", agent.end())


@pytest.fixture
def edited(project: Path) -> Path:
    agent_writes(project, "f.txt", BEFORE, AFTER)
    return project / "f.txt"


def test_show_numbers_the_hunks_and_their_changed_lines(edited: Path) -> None:
    shown = ok("show", "1", "--path", "f.txt").stdout
    assert "hunk 1/3 of f.txt  @@ -1,5 +1,5 @@" in shown
    assert "  1  -line 2\n  2  +LINE TWO\n" in shown
    assert "  1  -line 10\n  2  +ten\n  3  +ten and a half\n      line 11\n" in shown
    assert "hunk 3/3" in shown
    data = json.loads(ok("show", "1", "--path", "f.txt", "--json").stdout)
    assert data["format"] == 1 and data["path"] == "f.txt" and data["entry"]["number"] == 1
    second = data["hunks"][1]
    assert (second["number"], second["removed"], second["added"]) == (2, 1, 2)
    changed = [line for line in second["lines"] if line["number"] is not None]
    assert [(line["number"], line["origin"]) for line in changed] == [(1, "-"), (2, "+"), (3, "+")]


def test_a_hunk_is_put_back_and_a_later_edit_elsewhere_survives(edited: Path) -> None:
    now = AFTER.replace(b"line 15\n", b"line 15, edited by hand\n")
    edited.write_bytes(now)

    result = ok("restore", "1", "--path", "f.txt", "--hunks", "2")

    assert edited.read_bytes() == now.replace(b"ten\nten and a half\n", b"line 10\n")
    assert "Restored 1 file(s)" in result.stdout
    assert "-ten\n-ten and a half\n+line 10\n" in result.stdout  # the diff against the file now
    newest = log_json()[-1]
    assert newest["kind"] == "restore"
    assert newest["prompt"] == "put back hunks of turn 1: f.txt 2"
    ok("undo")
    assert edited.read_bytes() == now


def test_every_hunk_put_back_gives_the_before_state(edited: Path) -> None:
    ok("restore", "1", "--path", "f.txt", "--hunks", "1-3")
    assert edited.read_bytes() == BEFORE


def test_a_hunk_that_no_longer_applies_is_refused_and_nothing_is_written(edited: Path) -> None:
    now = AFTER.replace(b"ten and a half\n", b"ten and three quarters\n")
    edited.write_bytes(now)

    result = run_rewind("restore", "1", "--path", "f.txt", "--hunks", "1,2")

    line = error_line(result)
    assert "f.txt hunk 2" in line and "no longer apply" in line and "nothing was written" in line
    assert "hunk 2/3 of f.txt" in result.stdout  # the refused hunk is shown
    assert "(no longer applies: its lines were changed since)" in result.stdout
    assert edited.read_bytes() == now  # hunk 1 applied neither: all or nothing
    assert len(log_json()) == 1


def test_a_change_right_next_to_a_hunk_refuses_it(edited: Path) -> None:
    now = AFTER.replace(b"line 11\n", b"line 11 by hand\n")
    edited.write_bytes(now)
    result = run_rewind("restore", "1", "--path", "f.txt", "--hunks", "2")
    assert "the lines next to it were changed since" in error_line(result)
    assert edited.read_bytes() == now


def test_single_lines_of_a_hunk_are_put_back(edited: Path) -> None:
    # Hunk 2 is: 1 -line 10, 2 +ten, 3 +ten and a half. Line 3: take out "ten and a half" only.
    ok("restore", "1", "--path", "f.txt", "--hunks", "2:3")
    assert edited.read_bytes() == AFTER.replace(b"ten and a half\n", b"")
    ok("undo")
    # Lines 1-2: put back "line 10" and take out "ten"; "ten and a half" stays.
    ok("restore", "1", "--path", "f.txt", "--hunks", "2:1-2", "--hunks", "3")
    expected = AFTER.replace(b"ten\nten and a half\n", b"line 10\nten and a half\n")
    assert edited.read_bytes() == expected.replace(b"line 17\n", b"line 17\nline 18\n")


def test_undo_gives_back_the_exact_bytes(project: Path) -> None:
    before = b"a\r\nb\r\nc\r\nd\r\ne\r\nf\r\ng"
    after = b"a\r\nB\r\nc\r\nd\r\ne\r\nf\r\nG"
    agent_writes(project, "crlf.txt", before, after)
    now = after.replace(b"d\r\n", b"d, mine\r\n")
    (project / "crlf.txt").write_bytes(now)
    os.chmod(project / "crlf.txt", 0o640)

    ok("restore", "1", "--path", "crlf.txt", "--hunks", "2")
    assert (project / "crlf.txt").read_bytes() == now[: now.rindex(b"\n") + 1] + b"g"
    assert os.stat(project / "crlf.txt").st_mode & 0o777 == 0o640
    ok("undo")
    assert (project / "crlf.txt").read_bytes() == now


def test_binary_files_and_symlinks_have_no_hunks(project: Path) -> None:
    (project / "data.bin").write_bytes(b"\0\1\2\n")
    os.symlink("data.bin", project / "link")
    ok("begin", "--session", "s", "--prompt", "odd files")
    ok("track", "data.bin", "link")
    (project / "data.bin").write_bytes(b"\0\1\3\n")
    os.unlink(project / "link")
    os.symlink("elsewhere", project / "link")
    ok("end")

    binary = error_line(run_rewind("restore", "1", "--path", "data.bin", "--hunks", "1"))
    assert "binary file" in binary and "restore the whole file" in binary
    link = error_line(run_rewind("restore", "1", "--path", "link", "--hunks", "1"))
    assert "symlink" in link
    assert (project / "data.bin").read_bytes() == b"\0\1\3\n"
    assert "binary file" in error_line(run_rewind("show", "1", "--path", "data.bin"))


def test_hunk_choices_that_do_not_exist_are_refused(edited: Path) -> None:
    def refused(choice: str) -> str:
        return error_line(run_rewind("restore", "1", "--path", "f.txt", "--hunks", choice))

    assert "has 3 hunk(s), not 4" in refused("4")
    assert "hunk 2 of f.txt has 3 changed line(s), not 5" in refused("2:5")
    assert "is not a hunk choice" in refused("two")
    assert "is not a hunk choice" in refused("3-1")
    assert edited.read_bytes() == AFTER


def test_dry_run_shows_the_diff_and_json_gives_the_plan(edited: Path) -> None:
    shown = ok("restore", "1", "--path", "f.txt", "--hunks", "1", "--dry-run").stdout
    assert "put back hunks of turn 1" in shown and "-LINE TWO\n+line 2\n" in shown
    data = json.loads(
        ok("restore", "1", "--path", "f.txt", "--hunks", "1,2:2", "--dry-run", "--json").stdout
    )
    assert edited.read_bytes() == AFTER
    assert data["format"] == 1 and data["kind"] == "restore"
    assert data["target"]["turn"] == 1 and data["changes"] == 1 and data["conflicts"] == 0
    [item] = data["files"]
    assert item["path"] == "f.txt" and item["action"] == "restore" and item["hunks"] == "1,2:2"
    assert "-LINE TWO\n+line 2\n" in item["diff"] and "-ten\n" in item["diff"]
    assert item["after"]["size"] == len(AFTER) - len(b"LINE TWO\nten\n") + len(b"line 2\n")


def patch_on_a_terminal(edited: Path, answers: bytes) -> tuple[int, str]:
    """``rewind restore 1 --path f.txt --patch`` on a pseudo-terminal given ``answers``: its
    exit code and what it showed."""
    import pty

    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "rewind", "restore", "1", "--path", "f.txt", "--patch"],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        cwd=edited.parent,
    )
    os.close(follower)
    os.write(leader, answers)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    return process.wait(timeout=60), b"".join(chunks).decode().replace("\r\n", "\n")


def test_patch_asks_for_each_hunk_on_a_terminal_then_to_confirm(edited: Path) -> None:
    # Hunk 1 yes; help, then hunk 2 no; hunk 3 yes; then the summary is confirmed.
    code, shown = patch_on_a_terminal(edited, b"y\n?\nn\ny\ny\n")
    assert code == 0, shown
    assert shown.count("Put back this hunk [y,n,q,a,d,?]? ") == 4
    assert "a - put back this hunk and all later hunks in the file" in shown
    asked = shown.index("Change these 1 file(s)? [y/N]")
    assert shown.rindex("Put back this hunk") < shown.index("put back hunks of turn 1") < asked
    expected = AFTER.replace(b"LINE TWO\n", b"line 2\n").replace(
        b"line 17\n", b"line 17\nline 18\n"
    )
    assert edited.read_bytes() == expected


def test_patch_changes_nothing_when_its_summary_is_not_confirmed(edited: Path) -> None:
    code, shown = patch_on_a_terminal(edited, b"y\nn\ny\nn\n")
    assert code == 1 and "Nothing was changed." in shown, shown
    assert edited.read_bytes() == AFTER


def test_patch_reads_answers_from_standard_input_file_by_file(project: Path) -> None:
    (project / "g.txt").write_bytes(b"x\ny\nz\n")
    agent_writes(project, "f.txt", BEFORE, AFTER)
    ok("begin", "--prompt", "two files")
    ok("track", "f.txt", "g.txt")
    (project / "f.txt").write_bytes(AFTER + b"more\n")
    (project / "g.txt").write_bytes(b"X\ny\nZ\n")
    ok("end")

    # f.txt: its one hunk, no. g.txt: a = both hunks.
    result = run_rewind(
        "restore", "2", "--path", "f.txt", "--path", "g.txt", "--patch", input="n\na\n"
    )
    assert result.returncode == 0, result
    assert result.stdout.count("Put back this hunk") == 2
    assert (project / "g.txt").read_bytes() == b"x\ny\nz\n"
    assert (project / "f.txt").read_bytes() == AFTER + b"more\n"

    nothing = run_rewind("restore", "2", "--path", "f.txt", "--patch", input="")
    assert nothing.returncode == 1 and "No hunk was chosen; nothing was changed." in nothing.stdout


def test_a_file_changed_after_the_merge_was_computed_is_not_overwritten(project: Path) -> None:
    """The merge is computed against the file as it was read; a change made after that (an
    editor saving while the plan was shown) must not be overwritten with a merge that lacks it:
    the restore re-checks the file under the store lock and writes nothing."""
    api = rewind.Project(project, session="api")
    (project / "f.txt").write_bytes(BEFORE)
    with api.turn("edit") as turn:
        turn.write_bytes("f.txt", AFTER)
    plan = api.plan_hunks(1, "f.txt", "1")
    saved_meanwhile = AFTER.replace(b"line 15\n", b"line 15, saved meanwhile\n")
    (project / "f.txt").write_bytes(saved_meanwhile)

    with pytest.raises(ConflictError, match="changed while the restore was being prepared"):
        apply_plan(api.store, plan, force=True)

    assert (project / "f.txt").read_bytes() == saved_meanwhile
    assert [entry.kind for entry in api.log()] == ["turn"]


def test_the_api_puts_back_hunks_and_lines(project: Path) -> None:
    api = rewind.Project(project, session="api")
    (project / "f.txt").write_bytes(BEFORE)
    with api.turn("edit") as turn:
        turn.write_bytes("f.txt", AFTER)
    assert [len(hunk.changed) for hunk in api.hunks(1, "f.txt")] == [2, 3, 1]

    api.restore_hunks(1, "f.txt", {1: None, 2: frozenset({1})})
    expected = AFTER.replace(b"LINE TWO\n", b"line 2\n").replace(b"ten\n", b"line 10\nten\n")
    assert (project / "f.txt").read_bytes() == expected
    with pytest.raises(PartialRefused) as refused:
        api.restore_hunks(1, "f.txt", "1")  # already put back: its lines are not there
    assert [refusal.hunk.number for _, refusal in refused.value.refused] == [1]
    with pytest.raises(UserError, match="did not change"):
        api.hunks(1, "g.txt")
    api.undo()
    assert (project / "f.txt").read_bytes() == AFTER


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (b"", b"new\nfile\n"),
        (b"gone\nfile\n", b""),
        (b"no newline", b"no newline\n"),
        (b"a\nb\nc\n", b"c\nb\na\n"),
        (b"x\n" * 5, b"x\n" * 3 + b"y\n" + b"x\n" * 4),
    ],
)
def test_putting_back_every_hunk_into_the_after_state_gives_the_before_state(
    before: bytes, after: bytes
) -> None:
    hunks = hunks_between(before, after)
    every: Selection = {hunk.number: None for hunk in hunks}
    assert put_back_hunks(after, after, hunks, every) == before
