"""Automatic backup (``[remote] backup``): every closed entry is pushed by a detached pusher,
failures are shown and retried, and nothing is lost while the remote is down."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ok, run_rewind, store_dir

WAIT = 30.0  # seconds a background push may take on a loaded machine


@pytest.fixture
def backed_up(project: Path, tmp_path: Path) -> Iterator[Path]:
    """A committed project whose rewind.toml backs up to a bare repository on disk; any pusher
    still running at the end is stopped."""
    (project / "rewind.toml").write_text('[remote]\nbackup = "backup"\n')
    (project / "a.txt").write_text("one\n")
    subprocess.run(["git", "-C", str(project), "add", "."], check=True)
    subprocess.run(["git", "-C", str(project), "commit", "-qm", "start"], check=True)
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    ok("begin", "--session", "s", "--prompt", "set up")
    ok("remote", "add", "backup", str(remote))
    yield remote
    _stop_pusher(project)


def _stop_pusher(project: Path) -> None:
    lock = store_dir(project) / "rewind" / "backup.lock"
    try:
        pid = int(lock.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _turn(prompt: str, content: str) -> None:
    ok("begin", "--session", "s", "--prompt", prompt)
    ok("track", "--session", "s", "a.txt")
    Path("a.txt").write_text(content)
    ok("end", "--session", "s")


def _remote_session_tip(remote: Path) -> str | None:
    listed = subprocess.run(
        ["git", "--git-dir", str(remote), "for-each-ref", "--format=%(objectname) %(refname)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    tips = [line.split()[0] for line in listed if line.endswith("/sessions/s")]
    return tips[0] if tips else None


def _remote_prompts(remote: Path) -> list[str]:
    """The prompts of the entries the remote holds for session s, oldest first."""
    tip = _remote_session_tip(remote)
    if tip is None:
        return []
    commits = subprocess.run(
        ["git", "--git-dir", str(remote), "rev-list", "--reverse", tip],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    prompts = []
    for commit in commits:
        shown = subprocess.run(
            ["git", "--git-dir", str(remote), "show", f"{commit}:turn.json"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        prompts.append(json.loads(shown)["prompt"])
    return prompts


def _wait_for(condition: object, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if callable(condition) and condition():
            return
        time.sleep(0.2)
    raise AssertionError(f"waited {WAIT:.0f} s for {what}")


def _backup_state(project: Path) -> dict[str, object]:
    path = store_dir(project) / "rewind" / "backup.json"
    try:
        data: dict[str, object] = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data


def test_each_closed_turn_is_pushed_in_the_background(project: Path, backed_up: Path) -> None:
    _turn("first", "two\n")
    _wait_for(lambda: _remote_prompts(backed_up) == ["set up", "first"], "the first push")
    _turn("second", "three\n")
    _wait_for(lambda: _remote_prompts(backed_up)[-1:] == ["second"], "the second push")
    status = ok("status").stdout
    assert "backup:   to backup, last pushed" in status, status
    state = json.loads(ok("status", "--json").stdout)["backup"]
    assert state["remote"] == "backup" and state["failures"] == 0 and state["error"] is None


def test_a_remote_that_is_down_then_up_loses_nothing(project: Path, backed_up: Path) -> None:
    away = backed_up.with_name("away.git")
    backed_up.rename(away)  # the remote is down
    _turn("first", "two\n")
    _wait_for(lambda: int(str(_backup_state(project).get("failures", 0))) >= 1, "a failure")
    _turn("second", "three\n")  # hooks go on recording meanwhile, and exit 0
    status = ok("status")
    line = next(x for x in status.stdout.splitlines() if x.startswith("backup:"))
    assert "FAILING" in line and "'rewind push --all' tries again now" in line, line
    assert json.loads(ok("status", "--json").stdout)["backup"]["error"]
    stats = ok("stats").stdout
    assert "FAILING" in stats, stats
    doctor = run_rewind("doctor", "--json")
    findings = json.loads(doctor.stdout)["findings"]
    assert any(f["where"] == "backup" and f["level"] == "fail" for f in findings), findings

    away.rename(backed_up)  # the remote is back
    _turn("third", "four\n")  # the next closed entry retries at once, whatever the backoff
    expected = ["set up", "first", "second", "third"]
    _wait_for(lambda: _remote_prompts(backed_up) == expected, "every turn on the remote")
    _wait_for(lambda: _backup_state(project).get("error") is None, "the failure to clear")
    assert "FAILING" not in ok("status").stdout
    findings = json.loads(run_rewind("doctor", "--json").stdout)["findings"]
    assert any(f["where"] == "backup" and f["level"] == "ok" for f in findings), findings


def test_a_manual_push_of_everything_clears_a_failure(project: Path, backed_up: Path) -> None:
    away = backed_up.with_name("away.git")
    backed_up.rename(away)
    _turn("first", "two\n")
    _wait_for(lambda: _backup_state(project).get("error"), "a failure")
    _stop_pusher(project)  # no retry of its own: the person's push does it
    away.rename(backed_up)
    ok("push", "--all")
    assert _remote_prompts(backed_up) == ["set up", "first"]
    assert _backup_state(project).get("error") is None
    assert "FAILING" not in ok("status").stdout


def test_a_file_git_will_not_judge_is_named_in_the_log(project: Path, backed_up: Path) -> None:
    """A background push has no output to say it in: what it held back only because git
    would not judge it (beyond a folder since replaced by a symbolic link) goes to the log."""
    ok("track", "--session", "s", "docs/guide.md")
    (project / "docs").mkdir()
    (project / "docs" / "guide.md").write_text("the guide\n")
    ok("end", "--session", "s")
    _wait_for(lambda: _remote_prompts(backed_up) == ["set up"], "the first push")
    (project / "docs").rename(project.parent / "docs")
    (project / "docs").symlink_to(project.parent / "docs")
    _turn("first", "two\n")
    _wait_for(lambda: _remote_prompts(backed_up) == ["set up", "first"], "the second push")
    why = "git cannot judge it: docs is a symbolic link"
    said = f"backup to backup held back docs/guide.md: {why}"
    log = store_dir(project) / "rewind" / "rewind.log"
    # The push logs what it held back once it has pushed: the remote may have it first.
    _wait_for(lambda: log.exists() and said in log.read_text(), "the log's line")


def test_without_a_backup_setting_nothing_is_pushed(project: Path, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    (project / "a.txt").write_text("one\n")
    ok("begin", "--session", "s", "--prompt", "set up")
    ok("remote", "add", "backup", str(remote))
    _turn("first", "two\n")
    time.sleep(3)  # longer than a pusher's batching wait
    assert _remote_session_tip(remote) is None
    assert not (store_dir(project) / "rewind" / "backup.lock").exists()
    assert "backup:" not in ok("status").stdout


def test_the_backup_carries_the_authorship_notes(project: Path, backed_up: Path) -> None:
    (project / "rewind.toml").write_text(
        '[remote]\nbackup = "backup"\n\n[attribution]\nnotes = true\n'
    )
    _turn("write a", "agent's\n")
    subprocess.run(["git", "-C", str(project), "commit", "-qam", "a"], check=True)
    sha = subprocess.run(
        ["git", "-C", str(project), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    ok("hook", "git-post-commit", json.dumps({"commit": sha}))
    _turn("then more", "more\n")  # a closed entry: the backup runs, notes with it

    def remote_notes() -> str:
        return subprocess.run(
            ["git", "--git-dir", str(backed_up), "notes", "--ref=ai", "show", sha],
            capture_output=True,
            text=True,
        ).stdout

    _wait_for(lambda: "a.txt" in remote_notes(), "the notes on the backup remote")
