"""Reading the last prompt and reply of a Droid transcript from its end
(rewind.hooks.droid_transcript), on files written the way Droid 0.225.2 writes them."""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from pathlib import Path

import pytest

from rewind.hooks.droid_transcript import BLOCK, Exchange, last_exchange

pytestmark = pytest.mark.unit


def line(
    role: str, content: object, stamp: str = "2026-12-07T06:03:42.972Z", **more: object
) -> str:
    record = {
        "type": "message",
        "id": more.pop("id", "m"),
        "timestamp": stamp,
        "message": {"role": role, "content": content, **more},
    }
    return json.dumps(record, separators=(",", ":")) + "\n"


def text(value: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": value}]


def write(path: Path, *lines: str) -> str:
    path.write_text("".join(lines))
    return str(path)


def test_the_last_prompt_and_the_reply_after_it(tmp_path: Path) -> None:
    """Hook records, tool results and the context Droid adds are no prompts, wherever they
    stand; the reply is the last assistant text."""
    path = write(
        tmp_path / "s.jsonl",
        '{"type":"session_start","id":"s","title":"First","version":2}\n',
        line("user", text("First"), "2026-12-07T06:00:00.000Z"),
        line("assistant", text("One.")),
        line("user", text("Second"), "2026-12-07T06:03:42.972Z", interactionMode="auto"),
        line("assistant", [{"type": "tool_use", "id": "t", "name": "Create", "input": {}}]),
        line("user", [], visibility="user_only", hookEventName="PreToolUse"),
        line("user", [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]),
        line("user", text("<system-reminder>\nTools</system-reminder>"), id="context-1"),
        line("user", text("Injected by a hook"), visibility="llm_only"),
        line("assistant", text("Two.")),
        line("user", [], visibility="user_only", hookEventName="Stop"),
        '{"type":"agent_turn_outcome","turnId":"m","reason":"completed"}\n',
    )
    assert last_exchange(path) == Exchange("Second", 1796623422.972, "Two.")


def test_a_prompt_before_lines_longer_than_a_block_is_found(tmp_path: Path) -> None:
    """A tool's result longer than a block of the backwards reading, after the prompt."""
    big = "x" * (BLOCK * 2 + 17)
    path = write(
        tmp_path / "s.jsonl",
        line("user", text("Read the big file")),
        line("user", [{"type": "tool_result", "tool_use_id": "t", "content": big}]),
        line("assistant", text("Read.")),
    )
    assert last_exchange(path).prompt == "Read the big file"
    assert last_exchange(path).reply == "Read."


def test_nothing_past_the_limit_or_unreadable_is_read(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.jsonl",
        line("user", text("Far back")),
        line("user", [{"type": "tool_result", "tool_use_id": "t", "content": "y" * 5000}]),
    )
    assert last_exchange(path, limit=4000) == Exchange()
    assert last_exchange(path, limit=6000).prompt == "Far back"
    assert last_exchange(str(tmp_path / "missing.jsonl")) == Exchange()
    assert last_exchange(f"{tmp_path}/nul\0.jsonl") == Exchange()  # no file can be named so
    assert last_exchange(f"{tmp_path}/surrogate\ud800.jsonl") == Exchange()
    assert last_exchange(write(tmp_path / "torn.jsonl", '{"type":"message","mess')) == Exchange()


def test_a_transcript_that_is_not_a_regular_file_is_not_waited_for(tmp_path: Path) -> None:
    """A fifo in the transcript's place would block the hook in opening it, until a writer
    came; a device or a directory is no transcript either. (The writer opened after a while
    here only unblocks a reader that waits.)"""
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    os.symlink("/dev/zero", tmp_path / "zero.jsonl")

    def unblock() -> None:
        if not done.wait(10):
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))

    done = threading.Event()
    writer = threading.Thread(target=unblock)
    writer.start()
    started = time.monotonic()
    try:
        assert last_exchange(str(fifo)) == Exchange()
    finally:
        done.set()
        writer.join()
    assert time.monotonic() - started < 5
    assert last_exchange(str(tmp_path / "zero.jsonl")) == Exchange()
    assert last_exchange(str(tmp_path)) == Exchange()
