"""What the programs an agent runs change, recorded by default (``capture_programs``): the
hooks start the project's watcher and tell it when each shell call begins and ends, the
watcher gives what changed in between to the call's turn (source ``program``), and a restore
to before that turn puts every file back byte for byte without ``--force``, untracked files and
files with uncommitted changes included. Real hook processes, a real background watcher, real
programs."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import files_by_path, hook, log_json, ok, run_rewind, snapshot, store_dir
from tests.support.agent_payloads import ClaudeCode
from tests.support.watchers import alive
from tests.watch.conftest import wait_for

SESSION = "s1"
GEN = """import os
open("src/calc.py", "w").write("def add(a, b):\\n    return a + b  # generated\\n")
open("src/generated.py", "w").write("X = 1\\n")
os.remove("notes.txt")
"""

pytestmark = pytest.mark.usefixtures("capture_on")


@pytest.fixture
def repository(project: Path) -> Path:
    """A committed script that rewrites a file, makes one and deletes one; a file with
    uncommitted changes; the person's own untracked file, never committed."""
    (project / "src").mkdir()
    (project / "src" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (project / "notes.txt").write_text("todo\n")
    (project / "gen.py").write_text(GEN)
    (project / "build.sh").write_text("echo bundle > bundle.txt\nchmod +x src/calc.py\n")
    subprocess.run(["git", "add", "-A"], cwd=project, check=True)
    subprocess.run(["git", "commit", "-qm", "start"], cwd=project, check=True)
    (project / "notes.txt").write_text("todo\nand an uncommitted line\n")
    (project / "scratch.txt").write_text("mine, nowhere else\n")
    return project


def watcher_info(project: Path) -> dict[str, Any]:
    try:
        data: dict[str, Any] = json.loads(
            (store_dir(project) / "rewind" / "watch.json").read_text()
        )
        return data
    except (OSError, ValueError):
        return {}


def watching(project: Path) -> int:
    """Waits until the project's watcher is ready (and has taken its first snapshot); its pid."""
    wait_for(lambda: watcher_info(project).get("ready"), "the watcher to be ready")
    pid = watcher_info(project)["pid"]
    assert isinstance(pid, int)
    return pid


class Agent:
    """Claude Code's hooks around prompts and shell calls, run as the agent runs them."""

    def __init__(self, project: Path, session: str = SESSION) -> None:
        self.project = project
        self.payloads = ClaudeCode(project, session=session)

    def prompt(self, text: str) -> None:
        hook("claude-code", self.payloads.prompt(text))

    def run(self, command: str) -> None:
        """A Bash call: its before-event, the command, its after-event."""
        before, after = self.payloads.shell(command)
        hook("claude-code", before)
        subprocess.run(["bash", "-c", command], cwd=self.project, check=True)
        hook("claude-code", after)

    def stop(self) -> None:
        hook("claude-code", {**self.payloads.prompt(""), "hook_event_name": "Stop"})


def write(name: str, text: str) -> str:
    """A command whose program writes ``name`` (the quicksave reads no file in it)."""
    return f"{sys.executable} -c \"open('{name}', 'w').write('{text}')\""


def sources(entry: dict[str, Any]) -> dict[str, str]:
    return {path: item.get("source", "edit") for path, item in files_by_path(entry).items()}


def test_what_programs_change_comes_back_without_force(repository: Path) -> None:
    agent = Agent(repository)
    start = snapshot(repository)
    agent.prompt("regenerate the code")
    watching(repository)
    agent.run(f"{sys.executable} gen.py")
    agent.stop()
    after_one = snapshot(repository)
    agent.prompt("build it")
    agent.run("sh build.sh && echo more >> scratch.txt")
    agent.stop()
    after_two = snapshot(repository)
    agent.prompt("rewrite scratch, drop the bundle")
    script = "open('scratch.txt','w').write('rewritten'); import os; os.remove('bundle.txt')"
    agent.run(f'{sys.executable} -c "{script}"')
    agent.stop()
    turns = log_json("--session", SESSION)
    assert sources(turns[0]) == {
        "src/calc.py": "program",
        "src/generated.py": "program",
        "notes.txt": "program",
    }
    assert set(sources(turns[1])) == {"bundle.txt", "src/calc.py", "scratch.txt"}
    # No --force: every change is the turn's own.
    for turn, state in ((3, after_two), (2, after_one), (1, start)):
        ok("restore", str(turn), "--session", SESSION, "--yes")
        assert snapshot(repository) == state, f"restore {turn}"
    for _ in range(3):
        ok("undo", "--session", SESSION, "--yes")
    assert (repository / "scratch.txt").read_text() == "rewritten"


def test_a_hand_edit_between_turns_is_still_a_conflict(repository: Path) -> None:
    agent = Agent(repository)
    agent.prompt("regenerate")
    watching(repository)
    agent.run(f"{sys.executable} gen.py")
    agent.stop()
    (repository / "src" / "calc.py").write_text("edited by hand\n")
    wait_for(
        lambda: any(e["agent"] == "watch" for e in log_json("--session", SESSION)),
        "the hand edit to be recorded",
    )
    refused = run_rewind("restore", "1", "--session", SESSION, "--yes")
    assert refused.returncode == 1 and "changed outside rewind" in refused.stderr
    assert (repository / "src" / "calc.py").read_text() == "edited by hand\n"


def test_a_hand_edit_before_a_prompt_a_slow_watcher_had_not_recorded_is_not_the_turns(
    repository: Path,
) -> None:
    # A loaded machine, made certain: the watcher is stopped between the hand edit and the
    # prompt for longer than a shell call's start waits; the prompt's start waits for it.
    agent = Agent(repository)
    agent.prompt("regenerate")
    pid = watching(repository)
    agent.run(f"{sys.executable} gen.py")
    agent.stop()
    (repository / "src" / "calc.py").write_text("edited by hand\n")
    os.kill(pid, signal.SIGSTOP)
    try:
        prompt = subprocess.Popen(
            [sys.executable, "-m", "rewind", "hook", "claude-code"],
            stdin=subprocess.PIPE,
            cwd=repository,
        )
        assert prompt.stdin is not None
        prompt.stdin.write(json.dumps(agent.payloads.prompt("next")).encode())
        prompt.stdin.close()
        time.sleep(1.5)
    finally:
        os.kill(pid, signal.SIGCONT)
    assert prompt.wait(timeout=30) == 0
    agent.run("true")
    agent.stop()
    entries = log_json("--session", SESSION)
    assert [entry["agent"] for entry in entries] == ["claude-code", "watch", "claude-code"]
    assert sources(entries[1]) == {"src/calc.py": "external"}
    assert "src/calc.py" not in sources(entries[2])


def test_a_sessions_end_after_its_last_turns_end_waits_for_no_watcher(repository: Path) -> None:
    """Nothing is left to close: the end of the session asks the watcher for no barrier (a
    stalled one, here stopped, would hold it up to its bound, 10 s)."""
    agent = Agent(repository)
    agent.prompt("regenerate")
    pid = watching(repository)
    agent.run(f"{sys.executable} gen.py")
    agent.stop()
    os.kill(pid, signal.SIGSTOP)
    try:
        ended = subprocess.run(
            [sys.executable, "-m", "rewind", "hook", "claude-code"],
            input=json.dumps(agent.payloads.session_end()),
            capture_output=True,
            text=True,
            cwd=repository,
            timeout=5,
        )
    finally:
        os.kill(pid, signal.SIGCONT)
    assert (ended.returncode, ended.stderr) == (0, "")
    [entry] = log_json("--session", SESSION)
    assert entry["ended"] is not None
    assert sources(entry)["src/generated.py"] == "program"


def test_each_session_gets_its_own_calls_changes(repository: Path) -> None:
    first, second = Agent(repository, "one"), Agent(repository, "two")
    first.prompt("first")
    second.prompt("second")
    watching(repository)
    first.run(write("a.txt", "a"))
    second.run(write("b.txt", "b"))
    first.stop()
    second.stop()
    assert sources(log_json("--session", "one")[0]) == {"a.txt": "program"}
    assert sources(log_json("--session", "two")[0]) == {"b.txt": "program"}


def test_a_killed_watcher_is_noticed_restarted_and_its_gap_logged(repository: Path) -> None:
    agent = Agent(repository)
    agent.prompt("one")
    pid = watching(repository)
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: not alive(pid), "the watcher to die")
    agent.prompt("two")  # the next hook notices, and starts another
    wait_for(
        lambda: watcher_info(repository).get("ready") and watcher_info(repository)["pid"] != pid,
        "another watcher to be ready",
    )
    logged = (store_dir(repository) / "rewind" / "rewind.log").read_text()
    assert "ended without stopping (killed?)" in logged and "were not seen" in logged
    agent.run(write("c.txt", "c"))
    agent.stop()
    assert sources(log_json("--session", SESSION)[-1]) == {"c.txt": "program"}


def test_a_program_left_running_never_holds_a_hook(repository: Path) -> None:
    agent = Agent(repository)
    agent.prompt("start a server")
    watching(repository)
    server = "(for i in 1 2 3; do sleep 0.3; echo $i >> server.log; done) > /dev/null 2>&1 &"
    started = time.monotonic()
    agent.run(server)
    agent.stop()
    assert time.monotonic() - started < 20
    wait_for(
        lambda: (
            (repository / "server.log").exists()
            and (repository / "server.log").read_text() == "1\n2\n3\n"
        ),
        "the server to write",
    )
    wait_for(
        lambda: "server.log" in json.dumps(log_json("--session", SESSION)),
        "the server's writes to be recorded",
    )


def test_capture_is_turned_off_in_rewind_toml(repository: Path) -> None:
    (repository / "rewind.toml").write_text("capture_programs = false\n")
    agent = Agent(repository)
    agent.prompt("no capture")
    agent.run(write("x.txt", "x"))
    agent.stop()
    assert watcher_info(repository) == {}
    assert files_by_path(log_json("--session", SESSION)[0]) == {}


def test_the_kernels_watch_limit_is_said_once_and_not_retried_at_every_event(
    repository: Path,
) -> None:
    """A watcher that meets the kernel's inotify limit (set low in a user namespace of its
    own, as a busy machine would have it) says what to raise in one sentence, logs it, and the
    hooks do not start another at every event."""
    if shutil.which("unshare") is None:
        pytest.skip("no unshare here")
    script = 'echo 20 > /proc/sys/user/max_inotify_watches && exec "$0" -m rewind watch'
    for index in range(30):  # more directories than the limit allows watches
        (repository / f"d{index}").mkdir()
    done = subprocess.run(
        ["unshare", "-U", "-r", "sh", "-c", script, sys.executable],
        cwd=repository,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode != 1 and "unshare" in done.stderr:
        pytest.skip(f"no user namespace here: {done.stderr.strip()}")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1, done
    assert "fs.inotify.max_user_watches (now 20), is reached" in lines[0], lines
    assert "sudo sysctl fs.inotify.max_user_watches=" in lines[0]
    assert (
        "max_user_watches (now 20)" in (store_dir(repository) / "rewind" / "rewind.log").read_text()
    )
    Agent(repository).prompt("work")  # a hook leaves the refused watcher alone for a while
    assert watcher_info(repository) == {}
    doctor = run_rewind("doctor").stdout
    assert "fail  rewind       capture  the kernel's inotify watches" in doctor, doctor


def test_a_program_the_api_runs_is_recorded_in_its_turn(repository: Path) -> None:
    import rewind

    project = rewind.Project(repository, session="api", agent="script")
    start = snapshot(repository)
    with project.turn("regenerate") as turn:
        turn.run([sys.executable, "gen.py"])
        turn.run("echo appended >> scratch.txt")
    assert sources(log_json("--session", "api")[0]) == {
        "src/calc.py": "program",
        "src/generated.py": "program",
        "notes.txt": "program",
        "scratch.txt": "program",
    }
    project.restore(1)
    assert snapshot(repository) == start
    counted = json.loads(ok("stats", "--json").stdout)["files"]["by_source"]
    assert counted["program"] == 4  # the turn's (a restore is no turn: not counted)


def test_barriers_asked_at_once_are_all_answered(repository: Path) -> None:
    """Many after-events at once (parallel tool calls, two sessions): the kernel would merge
    two markers sent back to back, and the second barrier never be answered; each is answered
    within moments."""
    import threading

    from rewind.watch.channel import ask

    Agent(repository).prompt("start")
    watching(repository)
    answered: list[float] = []

    def barrier(index: int) -> None:
        started = time.monotonic()
        ask(str(store_dir(repository)), {"op": "barrier", "session": f"s{index}"}, 20)
        answered.append(time.monotonic() - started)

    threads = [threading.Thread(target=barrier, args=(index,)) for index in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(answered) == 8 and max(answered) < 5, answered


def test_a_watcher_whose_project_is_gone_ends(repository: Path) -> None:
    """A throwaway project removed while its watcher runs (a demo, a test, a tool's scratch
    clone): the watcher ends within moments instead of idling for half an hour."""
    import shutil

    Agent(repository).prompt("work")
    pid = watching(repository)
    shutil.rmtree(repository)
    wait_for(lambda: not alive(pid), "the watcher to end", timeout=30)
