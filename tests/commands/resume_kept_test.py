"""``[conversation] keep``: each prompt hook keeps the transcript's slice since the last one it
kept, each end of turn the agent's final reply; ``rewind resume`` rebuilds a transcript the
agent removed from those slices, and ``rewind show`` prints the reply. Real hook processes,
real files; the transcripts are written the way the clients write them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from rewind.history.kept_conversation import KeptMissing, chain, drop_entries, kept_prefix
from rewind.history.restoring.opening import open_current_store
from rewind.history.session import conversation_ref, kept_cut_path
from tests.commands.resume_test import (
    SESSION,
    Transcript,
    claude_prompt,
    claude_turn,
    copied,
    plan,
)
from tests.conftest import error_line, hook, ok, run_rewind, store_dir

KEEP = "[conversation]\nkeep = true\n"


def claude_stop(project: Path, reply: str) -> None:
    payload = {
        "hook_event_name": "Stop",
        "session_id": SESSION,
        "cwd": str(project),
        "last_assistant_message": reply,
    }
    hook("claude-code", payload)


def cuts(project: Path) -> list[int]:
    """The offset of each turn's cut point, as its record keeps it."""
    done = ok("log", "--json", "--session", SESSION)
    entries = sorted(json.loads(done.stdout), key=lambda entry: entry["turn"])
    offsets = []
    for entry in entries:
        shown = json.loads(ok("show", str(entry["turn"]), "--session", SESSION, "--json").stdout)
        offsets.append(shown["conversation"]["offset"])
    return offsets


def three_turns(project: Path, transcript: Transcript, keep: list[bool]) -> None:
    """Three prompts of Claude Code, each with a reply; ``keep`` says whether rewind.toml keeps
    the conversation at each."""
    for text, keeping in zip(("one", "two", "three"), keep, strict=True):
        (project / "rewind.toml").write_text(KEEP if keeping else "")
        claude_prompt(project, transcript.path, text)
        claude_turn(transcript, text)
        claude_stop(project, f"Reply {text}.")


@pytest.fixture
def kept(project: Path, tmp_path: Path) -> Transcript:
    transcript = Transcript(tmp_path / "agent" / f"{SESSION}.jsonl")
    transcript.path.parent.mkdir()
    three_turns(project, transcript, [True, True, True])
    return transcript


def test_the_slices_concatenate_to_the_transcript_up_to_each_cut(
    project: Path, kept: Transcript
) -> None:
    store = open_current_store()
    commits = chain(store, SESSION)
    assert [commit.name.rsplit(".", 1)[1] for commit in commits] == ["jsonl", "reply"] * 3
    data = kept.path.read_bytes()
    entries = [c.as_slice() for c in commits if c.as_slice() is not None]
    for entry, offset in zip(entries, cuts(project), strict=True):
        assert entry is not None
        rebuilt = kept_prefix(store, SESSION, entry.entry_id, str(kept.path), offset)
        assert rebuilt == (data[:offset], None)
    # Each prompt kept only what was new: the slices together are the transcript up to turn 3.
    slices = [store.reader.read_blob(e.blob) for e in entries if e is not None]
    assert b"".join(slices) == data[: cuts(project)[-1]]


def test_show_prints_the_kept_reply(project: Path, kept: Transcript) -> None:
    shown = ok("show", "2", "--session", SESSION).stdout.splitlines()
    assert shown[2:4] == ["reply:", "    Reply two."], shown
    assert json.loads(ok("show", "3", "--session", SESSION, "--json").stdout)["reply"] == (
        "Reply three."
    )


def test_resume_after_the_transcript_is_gone_reads_the_kept_slices(
    project: Path, kept: Transcript
) -> None:
    before = plan(3)
    lines = copied(before)
    kept.path.unlink()
    after = plan(3)
    assert copied(after) == lines
    assert after["argv"][-1] == "--fork-session"


def test_resume_after_the_transcript_was_rewritten_reads_the_kept_slices(
    project: Path, kept: Transcript
) -> None:
    lines = copied(plan(2))
    kept.path.write_text(kept.path.read_text().replace("one", "ONE"))
    assert copied(plan(2)) == lines


def test_a_slice_not_kept_is_refused_in_one_sentence(project: Path, tmp_path: Path) -> None:
    transcript = Transcript(tmp_path / "t.jsonl")
    three_turns(project, transcript, [True, False, True])
    transcript.path.unlink()
    line = error_line(run_rewind("resume", "2", "--session", SESSION, "--print"))
    assert "is gone" in line and "the part just before this turn was not kept" in line, line
    assert "'rewind restore 2'" in line
    # Turn 3's slice goes on from turn 1's: the conversation before it is whole.
    assert len(copied(plan(3))) == 6


def test_a_kept_part_that_is_missing_is_refused(project: Path, kept: Transcript) -> None:
    store = open_current_store()
    second = chain(store, SESSION)[2].as_slice()  # the slice before turn 2 (turn 1 is empty)
    third = chain(store, SESSION)[4].as_slice()
    assert second is not None and third is not None and third.start == second.end > 0
    blob = store.writer.path_of(second.blob)
    Path(blob).chmod(0o644)
    Path(blob).unlink()
    kept.path.unlink()
    line = error_line(run_rewind("resume", "3", "--session", SESSION, "--print"))
    assert "the copy kept with the history is not whole" in line, line


def test_without_keep_nothing_is_kept(project: Path, tmp_path: Path) -> None:
    transcript = Transcript(tmp_path / "t.jsonl")
    three_turns(project, transcript, [False, False, False])
    store = open_current_store()
    assert store.read_ref(conversation_ref(store, SESSION)) is None
    assert not Path(kept_cut_path(store, SESSION)).exists()
    assert json.loads(ok("show", "2", "--session", SESSION, "--json").stdout)["reply"] is None
    transcript.path.unlink()
    line = error_line(run_rewind("resume", "2", "--session", SESSION, "--print"))
    assert "no copy of it was kept ('[conversation] keep = true'" in line, line


def git_has(project: Path, oid: str) -> bool:
    command = ["git", "--git-dir", str(store_dir(project)), "cat-file", "-e", oid]
    return subprocess.run(command, capture_output=True).returncode == 0


def test_gc_keeps_the_kept_conversation_and_forget_lets_it_go(
    project: Path, kept: Transcript
) -> None:
    ok("begin", "--session", "other")  # forget needs another session to fall back on
    store = open_current_store()
    blobs = [commit.blob for commit in chain(store, SESSION)]
    ok("gc")
    assert all(git_has(project, blob) for blob in blobs)
    assert len(chain(open_current_store(), SESSION)) == 6
    ok("forget", SESSION, "--yes")
    assert store.read_ref(conversation_ref(store, SESSION)) is None
    assert not Path(kept_cut_path(store, SESSION)).exists()
    ok("gc")
    assert not any(git_has(project, blob) for blob in blobs)


def gemini_event(project: Path, transcript: Path, event: str, **fields: Any) -> None:
    payload = {
        "hook_event_name": event,
        "session_id": SESSION,
        "cwd": str(project),
        "transcript_path": str(transcript),
        **fields,
    }
    hook("gemini", payload)


def test_a_gemini_session_file_gone_resumes_from_the_kept_slices(
    project: Path, tmp_path: Path
) -> None:
    (project / "rewind.toml").write_text(KEEP)
    session = Transcript(tmp_path / "session-2026-12-03T12-15-c1.jsonl")
    session.append({"sessionId": SESSION, "projectHash": "h", "kind": "main"})
    for text in ("one", "two"):
        gemini_event(project, session.path, "BeforeAgent", prompt=text)
        session.append(
            {"id": f"u-{text}", "type": "user", "content": [{"text": text}]},
            {"id": f"g-{text}", "type": "gemini", "content": f"Reply {text}."},
            {"$set": {"lastUpdated": "now"}},
        )
        gemini_event(project, session.path, "AfterAgent", prompt_response=f"Reply {text}.")
    data = session.path.read_bytes()
    session.path.unlink()
    found = plan(2)
    copy = Path(found["argv"][found["argv"].index("--session-file") + 1])
    assert copy.read_bytes() == data[: cuts(project)[1]]
    shown = json.loads(ok("show", "1", "--session", SESSION, "--json").stdout)
    assert shown["reply"] == "Reply one."


def test_what_retention_drops_goes_from_the_kept_conversation(
    project: Path, kept: Transcript
) -> None:
    store = open_current_store()
    ids = [
        json.loads(ok("show", str(n), "--session", SESSION, "--json").stdout)["id"] for n in (1, 2)
    ]
    with store.lock():
        assert drop_entries(store, SESSION, set(ids)) == 4
    left = chain(store, SESSION)
    assert [commit.name for commit in left][-1].endswith(".reply") and len(left) == 2
    assert ok("show", "3", "--session", SESSION).stdout.count("Reply three.") == 1
    with pytest.raises(KeptMissing, match="was not kept"):
        kept_prefix(store, SESSION, left[0].name[:-6], str(kept.path), cuts(project)[2])
