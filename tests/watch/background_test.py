"""``rewind watch --detach``, ``--stop`` and ``--status`` with real processes, and the Claude
Code hooks that start and stop a watcher when rewind.toml asks for it."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from tests.conftest import hook, ok, run_rewind, store_dir
from tests.support.agent_payloads import ClaudeCode
from tests.watch.conftest import SESSION, entries, recorded_with, wait_for


def watch_files(project: Path) -> tuple[Path, Path, Path]:
    state = store_dir(project) / "rewind"
    return state / "watch.json", state / "watch.lock", state / "watch.out"


def running_pid(project: Path) -> int:
    info, _, _ = watch_files(project)
    pid = json.loads(info.read_text())["pid"]
    assert isinstance(pid, int)
    return pid


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(") ")[1][0] != "Z"
    except FileNotFoundError:
        return False


@pytest.fixture
def stop_watchers(committed: Path) -> object:
    yield None
    run_rewind("watch", "--stop", cwd=committed)


def test_detach_status_and_stop(committed: Path, stop_watchers: object) -> None:
    started = ok("watch", "--detach", "--session", SESSION)
    assert "in the background" in started.stdout
    pid = running_pid(committed)
    assert alive(pid) and pid != os.getpid()
    assert f"pid {pid}, session {SESSION}" in ok("watch", "--status").stdout
    assert (
        f"watcher:  running (pid {pid}, session {SESSION}; rewind watch --stop)"
        in ok("status").stdout
    )

    again = ok("watch", "--detach")  # one watcher per project
    assert f"already running for this project (pid {pid}" in again.stdout
    assert "already running" in ok("watch").stdout  # in the foreground too

    (committed / "notes.txt").write_text("seen by the detached watcher\n")
    wait_for(lambda: recorded_with(committed, "notes.txt", b"seen by the detached watcher\n"), "")

    assert f"stopped the watcher (pid {pid})" in ok("watch", "--stop").stdout
    wait_for(lambda: not alive(pid), "the watcher to end")
    info, _, _ = watch_files(committed)
    assert not info.exists()
    status = run_rewind("watch", "--status")
    assert status.returncode == 1 and "no watcher is running" in status.stdout
    assert "no watcher is running" in ok("watch", "--stop").stdout
    assert "watcher:" not in ok("status").stdout
    # One started for no session follows the most recent: its id is named, not a phrase.
    ok("watch", "--detach")
    following = f"session {SESSION} (the most recent, which it follows)"
    assert following in ok("watch", "--status").stdout
    assert following in ok("status").stdout


def test_a_stale_pid_file_is_ignored(committed: Path, stop_watchers: object) -> None:
    """A watcher killed with SIGKILL leaves its pid file; nobody holds the lock, so it is stale."""
    ok("watch", "--detach", "--session", SESSION)
    pid = running_pid(committed)
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: not alive(pid), "the watcher to die")
    info, _, _ = watch_files(committed)
    assert info.exists()
    # A process the watcher was starting when it was killed can hold the lock a moment longer
    # (between its fork and its exec): once free, the pid file left behind counts for nothing.
    wait_for(lambda: run_rewind("watch", "--status").returncode == 1, "the lock to be free")
    assert info.exists()
    ok("watch", "--detach", "--session", SESSION)
    assert running_pid(committed) != pid


def test_session_start_starts_a_watcher_when_enabled_and_session_end_stops_it(
    committed: Path, stop_watchers: object
) -> None:
    (committed / "rewind.toml").write_text("watch_on_session_start = true\n")
    agent = ClaudeCode(committed)
    hook("claude-code", agent.session_start())
    info, _, _ = watch_files(committed)
    wait_for(lambda: info.exists() and json.loads(info.read_text()).get("ready"), "the watcher")
    assert json.loads(info.read_text())["session"] == agent.session
    pid = running_pid(committed)
    hook("claude-code", agent.session_start())  # a resumed session: still one watcher
    assert running_pid(committed) == pid

    hook("claude-code", agent.prompt("tidy up"))
    (committed / "notes.txt").write_text("changed by a formatter\n")
    wait_for(
        lambda: recorded_with(committed, "notes.txt", b"changed by a formatter\n", agent.session),
        "notes.txt",
    )
    hook("claude-code", {**agent.end(), "hook_event_name": "SessionEnd", "reason": "exit"})
    wait_for(lambda: not alive(pid), "SessionEnd to stop the watcher")
    assert not entries(committed, agent.session)[-1].is_open


def test_the_first_prompt_starts_nothing_by_default(committed: Path) -> None:
    agent = ClaudeCode(committed)
    hook("claude-code", agent.session_start())
    hook("claude-code", agent.prompt("start"))
    info, _, output = watch_files(committed)
    # the hook spawns before it returns: had it started one, its output file would exist
    assert not info.exists() and not output.exists()
    assert run_rewind("watch", "--status").returncode == 1


def test_the_prompt_only_spawns_the_watcher_and_loads_nothing_heavy(
    committed: Path, stop_watchers: object
) -> None:
    """The hook starts the watcher as a separate process: watchdog and pygit2 stay out of it."""
    from tests.import_hygiene_test import HEAVY, loaded_after

    (committed / "rewind.toml").write_text("watch_on_session_start = true\n")
    code, modules = loaded_after(
        "hook", "claude-code", stdin=json.dumps(ClaudeCode(committed).prompt("start"))
    )
    assert code == 0
    assert "rewind.watch.pidfile" in modules and "subprocess" in modules  # it did spawn
    assert not [name for name in HEAVY if name in modules]
    info, _, _ = watch_files(committed)
    wait_for(lambda: info.exists() and json.loads(info.read_text()).get("ready"), "the watcher")


def test_an_idle_watcher_ends_and_says_so_once(committed: Path) -> None:
    """What a hook-started watcher does after ``--idle-exit`` seconds without a hook's
    request; the steps of its last grace once logged the same line a dozen times."""
    import subprocess
    import sys

    watcher = subprocess.Popen(
        [sys.executable, "-m", "rewind", "watch", "--background", "--idle-exit", "0.3"],
        cwd=committed,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert watcher.wait(timeout=30) == 0
    finally:
        watcher.kill()
    log = (store_dir(committed) / "rewind" / "rewind.log").read_text()
    assert log.count("without an agent's request") == 1, log
