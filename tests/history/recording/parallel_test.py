"""Agents run hooks in parallel and sessions share projects: no record may be lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import run_rewind


def start(*arguments: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "rewind", *arguments],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(processes: list[subprocess.Popen[str]]) -> None:
    for process in processes:
        _, errors = process.communicate(timeout=120)
        assert process.returncode == 0, errors


def log_of(session: str) -> list[dict[str, object]]:
    result = run_rewind("log", "--json", "--session", session)
    assert result.returncode == 0, result.stderr
    entries: list[dict[str, object]] = json.loads(result.stdout)
    return entries


def paths_of(entry: dict[str, object]) -> set[str]:
    files = entry["files"]
    assert isinstance(files, list)
    return {item["path"] for item in files}


def test_parallel_tracks_in_one_turn_all_recorded(project: Path) -> None:
    names = [f"file{i}.txt" for i in range(24)]
    for name in names:
        (project / name).write_text(f"original {name}\n")
    assert run_rewind("begin", "--session", "s", "--prompt", "p").returncode == 0
    finish([start("track", "--session", "s", name) for name in names])
    for name in names:
        (project / name).write_text("changed\n")
    assert run_rewind("end", "--session", "s").returncode == 0

    [turn] = log_of("s")
    assert paths_of(turn) == set(names)
    assert run_rewind("restore", "1", "--yes", "--session", "s").returncode == 0
    for name in names:
        assert (project / name).read_text() == f"original {name}\n"


def test_parallel_sessions_each_keep_their_turns(project: Path) -> None:
    sessions = [f"session-{i}" for i in range(6)]
    finish([start("begin", "--session", s, "--prompt", f"prompt of {s}") for s in sessions])
    processes = []
    for session in sessions:
        for index in range(3):
            path = project / f"{session}-{index}.txt"
            path.write_text(f"{session} {index}\n")
            processes.append(start("track", "--session", session, path.name))
    finish(processes)
    finish([start("begin", "--session", s, "--prompt", "second") for s in sessions])

    for session in sessions:
        first, second = log_of(session)
        assert first["prompt"] == f"prompt of {session}"
        assert paths_of(first) == {f"{session}-{i}.txt" for i in range(3)}
        assert second["turn"] == 2 and paths_of(second) == set()


def test_same_path_tracked_at_once_keeps_one_pre_image(project: Path) -> None:
    target = project / "shared.txt"
    target.write_text("before\n")
    assert run_rewind("begin", "--session", "s").returncode == 0
    finish([start("track", "--session", "s", "shared.txt") for _ in range(10)])
    target.write_text("after\n")
    [turn] = log_of("s")
    files = turn["files"]
    assert isinstance(files, list) and len(files) == 1
    assert run_rewind("restore", "1", "--yes", "--session", "s").returncode == 0
    assert target.read_text() == "before\n"


def test_store_stays_consistent_for_git(project: Path) -> None:
    names = [f"f{i}" for i in range(12)]
    assert run_rewind("begin", "--session", "s").returncode == 0
    finish([start("track", "--session", "s", name) for name in names])
    store = run_rewind("status").stdout.split("store:", 1)[1].split()[0]
    fsck = subprocess.run(
        ["git", "--git-dir", store, "fsck", "--no-dangling"],
        capture_output=True,
        text=True,
        env={**os.environ},
    )
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr
