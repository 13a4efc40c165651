"""The resident recorder (rewind.resident): Claude Code's after-events posted over HTTP, as
Claude Code 2.1.332 posts them, to the process the command hooks keep listening; a resident
killed mid-session (SIGKILL) loses no record; requests that are not rewind's hooks' are
refused or left alone; a port another program holds is never taken."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import files_by_path, hook, ok, store_dir
from tests.import_hygiene_test import loaded_after
from tests.support.agent_payloads import ClaudeCode, Codex, Qwen
from tests.support.watchers import alive


def port() -> int:
    return int(os.environ["REWIND_RESIDENT_PORT"])


def info() -> Path:
    return Path(os.environ["REWIND_HOME"]) / "resident" / f"{port()}.json"


def resident_pid() -> int:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            written = json.loads(info().read_text())
        except (OSError, ValueError):
            written = {}
        pid = written.get("pid")
        if written.get("ready") and isinstance(pid, int) and alive(pid) and listening():
            return pid
        time.sleep(0.02)
    raise AssertionError("no resident recorder listens")


def listening() -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port())) == 0


def headers(**values: str) -> dict[str, str]:
    """The headers Claude Code sends, its variables interpolated (unset ones as "")."""
    names = {"X-Rewind-Home": "REWIND_HOME", "X-Rewind-Xdg-Data-Home": "XDG_DATA_HOME"}
    names["X-Rewind-User-Home"] = "HOME"
    return {header: values.get(name, os.environ.get(name, "")) for header, name in names.items()}


def post(
    payload: dict[str, Any],
    sent: dict[str, str] | None = None,
    path: str = "claude-code",
    timeout: float = 30,
) -> tuple[int, str]:
    """One HTTP hook's POST; (status, body), or (0, reason) when nothing answered, which
    Claude Code reports and goes on from."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port()}/rewind/hook/{path}",
        data=json.dumps(payload).encode(),
        headers={"Content-Type": "application/json", **(headers() if sent is None else sent)},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()
    except OSError as error:
        return 0, str(error)


def log(project: Path) -> list[dict[str, Any]]:
    entries = json.loads(ok("log", "--json", cwd=project).stdout)
    assert isinstance(entries, list)
    return entries


def stats(project: Path) -> list[str]:
    [path] = Path(os.environ["REWIND_HOME"]).glob("stores/*/rewind/stats/hook-calls.log")
    return path.read_text().splitlines()


@pytest.fixture
def claude(project: Path) -> ClaudeCode:
    """Claude Code's hooks installed as 'rewind install claude-code' writes them."""
    ok("install", "claude-code", "--local")
    return ClaudeCode(project)


def send(agent: ClaudeCode, payload: dict[str, Any] | None) -> None:
    """An event as Claude Code sends it: a process for a command hook, a POST otherwise."""
    assert payload is not None
    if payload["hook_event_name"] in ("UserPromptSubmit", "PreToolUse"):
        hook("claude-code", payload, env={"CLAUDE_PROJECT_DIR": str(agent.root)})
    else:
        assert post(payload) == (200, "{}")


def test_the_after_events_posted_to_the_resident_are_recorded(
    project: Path, claude: ClaudeCode
) -> None:
    (project / "a.txt").write_text("one\n")
    send(claude, claude.prompt("change a"))
    resident_pid()  # the prompt's hook started it
    before, after = claude.edit("a.txt", "one", "two")
    send(claude, before)
    (project / "a.txt").write_text("two\n")
    send(claude, after)
    send(claude, claude.end())
    [turn] = log(project)
    assert turn["prompt"] == "change a" and turn["ended"] is not None
    assert list(files_by_path(turn)) == ["a.txt"]
    calls = [line.split()[2:] for line in stats(project)]
    assert [call[1:] for call in calls] == [
        ["event=UserPromptSubmit"],  # handled by its process, which started the resident
        ["event=PreToolUse", "via=forwarded"],  # its process handed it to the resident
        ["event=PostToolUse", "via=http"],
        ["event=Stop", "via=http"],
    ]
    ok("restore", "1", "--yes", cwd=project)
    assert (project / "a.txt").read_text() == "one\n"


def test_a_resident_killed_mid_turn_loses_no_record(project: Path, claude: ClaudeCode) -> None:
    """SIGKILL of the resident between a tool call and its after-event: the after-event finds
    nobody (Claude Code goes on), the next tool call's hook starts a resident again, and every
    file comes back exactly by a restore before the turn."""
    (project / "a.txt").write_text("a, first\n")
    (project / "b.txt").write_text("b, first\n")
    send(claude, claude.prompt("change both"))
    before, after = claude.edit("a.txt", "first", "second")
    send(claude, before)
    (project / "a.txt").write_text("a, second\n")
    os.kill(resident_pid(), signal.SIGKILL)
    assert post(after)[0] == 0  # refused: nothing listens
    before, after = claude.write("b.txt", "b, second\n")
    send(claude, before)  # starts the resident again
    (project / "b.txt").write_text("b, second\n")
    send(claude, after)
    send(claude, claude.end())
    [turn] = log(project)
    assert sorted(files_by_path(turn)) == ["a.txt", "b.txt"] and turn["ended"] is not None
    ok("restore", "1", "--yes", cwd=project)
    assert (project / "a.txt").read_text() == "a, first\n"
    assert (project / "b.txt").read_text() == "b, first\n"


def test_a_turn_whose_end_was_lost_is_ended_by_the_next_prompt(
    project: Path, claude: ClaudeCode
) -> None:
    """SIGKILL of the resident before the Stop: the turn is closed, with its files'
    after-states, by the next prompt's hook; both turns restore exactly."""
    (project / "a.txt").write_text("1\n")
    send(claude, claude.prompt("first"))
    before, after = claude.write("a.txt", "2\n")
    send(claude, before)
    (project / "a.txt").write_text("2\n")
    send(claude, after)
    os.kill(resident_pid(), signal.SIGKILL)
    assert post(claude.end())[0] == 0
    send(claude, claude.prompt("second"))
    before, after = claude.write("a.txt", "3\n")
    send(claude, before)
    (project / "a.txt").write_text("3\n")
    send(claude, after)
    send(claude, claude.end())
    first, second = log(project)
    assert first["prompt"] == "first" and first["ended"] and second["ended"]
    ok("restore", "2", "--yes", cwd=project)
    assert (project / "a.txt").read_text() == "2\n"
    ok("restore", "1", "--yes", cwd=project)
    assert (project / "a.txt").read_text() == "1\n"


def test_requests_that_are_not_rewinds_hooks_are_refused_or_left_alone(
    project: Path, claude: ClaudeCode, tmp_path: Path
) -> None:
    (project / "a.txt").write_text("1\n")
    send(claude, claude.prompt("first"))
    resident_pid()
    stop = claude.end()
    assert post(stop, sent={})[0] == 403  # a web page's request has no such headers
    assert post(stop, path="codex")[0] == 404
    elsewhere = headers(REWIND_HOME=str(tmp_path / "another-home"))
    assert post(stop, sent=elsewhere) == (200, "{}")  # another rewind home's: not recorded
    [turn] = log(project)
    assert turn["ended"] is None
    assert post(stop) == (200, "{}")
    [turn] = log(project)
    assert turn["ended"] is not None


def test_a_port_another_program_holds_is_not_taken(project: Path, claude: ClaudeCode) -> None:
    """The events still reach the store: the after-states at the turn's end, by the next
    prompt; the conflict is logged once."""
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", port()))
        squatter.listen(8)
        (project / "a.txt").write_text("1\n")
        send(claude, claude.prompt("first"))
        before, _ = claude.write("a.txt", "2\n")
        send(claude, before)
        (project / "a.txt").write_text("2\n")
        send(claude, claude.prompt("second"))
    assert not info().exists()
    first, _ = log(project)
    assert first["ended"] is not None and list(files_by_path(first)) == ["a.txt"]
    [store_log] = Path(os.environ["REWIND_HOME"]).glob("stores/*/rewind/rewind.log")
    assert store_log.read_text().count("is held by another program") == 1


def test_sigterm_ends_the_resident_and_its_file(project: Path, claude: ClaudeCode) -> None:
    send(claude, claude.prompt("first"))
    pid = resident_pid()
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not alive(pid) and not info().exists() and not listening()


def test_a_forwarded_event_is_handled_with_its_hooks_environment(
    project: Path, claude: ClaudeCode, tmp_path: Path
) -> None:
    """One resident serves two projects' sessions: each event lands in its own project's store,
    as the CLAUDE_PROJECT_DIR and working directory of its hook process say; the process that
    handed it over loaded none of the recording."""
    other = tmp_path / "other"
    other.mkdir()
    (other / ".git").mkdir()
    ok("install", "claude-code", "--local", cwd=other)
    (project / "a.txt").write_text("here\n")
    (other / "b.txt").write_text("there\n")
    send(claude, claude.prompt("in project"))
    resident_pid()
    elsewhere = ClaudeCode(other, session="0199aaaa-0000-7000-8000-000000000002")
    send(elsewhere, elsewhere.prompt("in other"))
    before, _ = elsewhere.write("b.txt", "changed\n")
    assert before is not None
    code, modules = loaded_after(
        "hook", "claude-code", stdin=json.dumps(before), cwd=other, project=other
    )
    assert code == 0 and "rewind.resident.forward" in modules
    assert not [name for name in modules if name.startswith("rewind.history")], modules
    [turn] = log(other)
    assert turn["prompt"] == "in other" and list(files_by_path(turn)) == ["b.txt"]
    [turn] = log(project)
    assert turn["prompt"] == "in project" and turn["files"] == []


def test_an_event_without_the_residents_secret_is_refused(
    project: Path, claude: ClaudeCode
) -> None:
    """A forwarded event must carry the secret of the resident's file (this user's alone); a
    file someone changed is written again by the resident."""
    (project / "a.txt").write_text("1\n")
    send(claude, claude.prompt("first"))
    pid = resident_pid()
    written = json.loads(info().read_text())
    body = b"\n".join((b"", os.getcwd().encode().hex().encode(), b"{}"))
    forged = headers()
    forged.update({"Host": f"127.0.0.1:{port()}", "X-Rewind-Secret": "not-it"})
    forged["X-Rewind-Deadline"] = str(time.time() + 10)
    request = urllib.request.Request(
        f"http://127.0.0.1:{port()}/rewind/forward/claude-code", data=body, headers=forged
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 403
    info().write_text(json.dumps({**written, "secret": "not-it"}))
    before, _ = claude.write("a.txt", "2\n")
    send(claude, before)
    [turn] = log(project)
    assert list(files_by_path(turn)) == ["a.txt"]
    assert resident_pid() == pid and json.loads(info().read_text())["secret"] == written["secret"]


def test_doctor_says_whether_the_resident_runs(project: Path, claude: ClaudeCode) -> None:
    def said() -> str:
        lines = ok("doctor", cwd=project).stdout.splitlines()
        [line] = [line for line in lines if " resident " in line and "claude-code" in line]
        return line

    assert said().startswith("ok") and "the next event starts it" in said()
    send(claude, claude.prompt("first"))
    assert f"runs (pid {resident_pid()})" in said()
    os.kill(resident_pid(), signal.SIGKILL)
    with socket.socket() as squatter:
        deadline = time.monotonic() + 10
        while listening() and time.monotonic() < deadline:
            time.sleep(0.02)
        squatter.bind(("127.0.0.1", port()))
        squatter.listen(1)
        assert said().startswith("warn") and "held by another program" in said()


def test_another_agents_command_hooks_hand_their_events_over(project: Path) -> None:
    """Codex has no HTTP hooks: once 'rewind install' has run under this rewind home, the first
    event its hooks handle themselves starts the resident, and the next are handed to it; they
    record what a process would (a quicksave before 'rm', restored byte for byte)."""
    ok("install", "codex")
    codex = Codex(project)
    (project / "keep.txt").write_text("a day's work\n")
    hook("codex", codex.prompt("tidy up"))
    pid = resident_pid()
    before, after = codex.shell("rm keep.txt")
    hook("codex", before)
    (project / "keep.txt").unlink()
    hook("codex", after)
    hook("codex", codex.end())
    calls = [line.split()[3:] for line in stats(project)]
    assert calls[0] == ["event=UserPromptSubmit"]  # handled by its process, which started it
    assert calls[1:] == [
        ["event=PreToolUse", "via=forwarded"],
        ["event=PostToolUse", "via=forwarded"],
        ["event=Stop", "via=forwarded"],
    ]
    assert resident_pid() == pid
    ok("restore", "1", "--yes", cwd=project)
    assert (project / "keep.txt").read_text() == "a day's work\n"


def test_without_an_install_no_resident_is_started(project: Path) -> None:
    """Hooks that run where 'rewind install' never ran (a settings file committed by someone
    else) record their events themselves and start nothing."""
    codex = Codex(project)
    hook("codex", codex.prompt("tidy up"))
    assert not info().exists()
    assert stats(project)[0].split()[3:] == ["event=UserPromptSubmit"]


def test_qwens_after_events_are_posted_too(project: Path) -> None:
    """Qwen Code runs HTTP hooks to 127.0.0.1 as Claude Code does: its after-events are posted
    to the resident, its prompt and before-events handed over by their processes."""
    ok("install", "qwen")
    qwen = Qwen(project)
    env = {"QWEN_PROJECT_DIR": str(project)}
    (project / "a.txt").write_text("one\n")
    hook("qwen", qwen.prompt("change a"), env=env)
    resident_pid()
    before, after = qwen.write("a.txt", "two\n")
    hook("qwen", before, env=env)
    (project / "a.txt").write_text("two\n")
    assert post(after, path="qwen") == (200, "{}")
    assert post(qwen.end(), path="qwen") == (200, "{}")
    calls = [line.split()[3:] for line in stats(project)]
    assert calls == [
        ["event=UserPromptSubmit"],
        ["event=PreToolUse", "via=forwarded"],
        ["event=PostToolUse", "via=http"],
        ["event=Stop", "via=http"],
    ]
    [turn] = log(project)
    assert turn["ended"] is not None and list(files_by_path(turn)) == ["a.txt"]
    ok("restore", "1", "--yes", cwd=project)
    assert (project / "a.txt").read_text() == "one\n"


@pytest.mark.usefixtures("capture_on")
def test_a_tool_calls_end_is_answered_at_once_and_the_turns_end_waits_for_it(
    project: Path, claude: ClaudeCode
) -> None:
    """A shell call's PostToolUse is answered as soon as it is queued (the agent goes on while
    the watcher's barrier for it is awaited); Stop, queued behind it, is answered only once
    both are recorded. The watcher, stopped here (SIGSTOP), holds the barrier as long as the
    test wants."""
    (project / "a.txt").write_text("one\n")
    send(claude, claude.prompt("change a"))
    resident_pid()
    before, after = claude.shell("echo two > a.txt")
    send(claude, before)  # the watcher is running once this is answered
    (project / "a.txt").write_text("two\n")
    watcher = json.loads((store_dir(project) / "rewind" / "watch.json").read_text())["pid"]
    ended: list[tuple[int, str]] = []
    os.kill(watcher, signal.SIGSTOP)
    try:
        assert post(after, timeout=5) == (200, "{}")  # while its barrier cannot pass
        stop = threading.Thread(target=lambda: ended.append(post(claude.end())))
        stop.start()
        stop.join(1.0)
        assert stop.is_alive() and not ended  # the turn's end waits for it
    finally:
        os.kill(watcher, signal.SIGCONT)
    stop.join(30)
    assert ended == [(200, "{}")]
    [turn] = log(project)  # recorded by the time the turn's end was answered
    assert turn["ended"] is not None and list(files_by_path(turn)) == ["a.txt"]
    ok("restore", "1", "--yes", cwd=project)
    assert (project / "a.txt").read_text() == "one\n"


@pytest.mark.usefixtures("capture_on")
def test_a_handed_over_tool_calls_end_ends_its_process_before_it_is_recorded(
    project: Path,
) -> None:
    """Codex's command hooks: a shell call's PostToolUse, handed over, is answered (with
    nothing) as soon as the resident knows it for a tool call's end, so its process ends while
    the watcher's barrier for it is awaited; recorded all the same. The watcher, stopped here
    (SIGSTOP), holds that barrier as long as the test wants."""
    ok("install", "codex")
    codex = Codex(project)
    (project / "keep.txt").write_text("a day's work\n")
    hook("codex", codex.prompt("tidy up"))
    resident_pid()
    before, after = codex.shell("rm keep.txt")
    hook("codex", before)  # handed over; the watcher is running once this is answered
    (project / "keep.txt").unlink()
    watcher = json.loads((store_dir(project) / "rewind" / "watch.json").read_text())["pid"]
    os.kill(watcher, signal.SIGSTOP)
    try:
        ended = subprocess.run(
            [sys.executable, "-m", "rewind", "hook", "codex"],
            input=json.dumps(after),
            capture_output=True,
            text=True,
            cwd=project,
            timeout=5,  # its barrier waits for the watcher for up to 10 s
        )
    finally:
        os.kill(watcher, signal.SIGCONT)
    assert (ended.returncode, ended.stdout, ended.stderr) == (0, "", "")
    hook("codex", codex.end())
    calls = [line.split()[3:] for line in stats(project)]
    assert calls[1:] == [
        ["event=PreToolUse", "via=forwarded"],
        ["event=PostToolUse", "via=forwarded"],
        ["event=Stop", "via=forwarded"],
    ]
    ok("restore", "1", "--yes", cwd=project)
    assert (project / "keep.txt").read_text() == "a day's work\n"


def test_the_installed_runner_hands_an_event_over_without_the_site(project: Path) -> None:
    """The command ``rewind install`` writes (``PYTHON -S .../rewind/__main__.py hook
    AGENT``): an event the resident takes costs no site processing (no ``site``, nothing of
    site-packages imported); one recorded in its own process (no resident) processes the site
    first, and records."""
    ok("install", "codex", "--user")  # this machine's scope: its interpreter, its path
    settings = Path(os.environ["HOME"]) / ".codex" / "hooks.json"
    [command] = {
        hook["command"]
        for groups in json.loads(settings.read_text())["hooks"].values()
        for group in groups
        for hook in group["hooks"]
    }
    assert " -S " in command and command.endswith("__main__.py hook codex")
    codex = Codex(project)
    (project / "a.txt").write_text("one\n")

    def run(event: dict[str, Any]) -> set[str]:
        done = subprocess.run(
            ["sh", "-c", command.replace(" -S ", " -X importtime -S ", 1)],
            input=json.dumps(event),
            capture_output=True,
            text=True,
            cwd=project,
            timeout=30,
        )
        assert (done.returncode, done.stdout) == (0, "")
        return {line.split("|")[-1].strip() for line in done.stderr.splitlines() if "|" in line}

    alone = run(codex.prompt("first"))  # no resident yet: this process records it
    assert {"site", "xxhash"} <= alone
    resident_pid()
    before, _after = codex.edit("a.txt", "one", "two")
    assert before is not None
    handed = run(before)
    assert "rewind.resident.forward" in handed
    assert not {"site", "xxhash", "rewind.hooks"} & handed
    calls = [line.split()[3:] for line in stats(project)]
    assert calls == [["event=UserPromptSubmit"], ["event=PreToolUse", "via=forwarded"]]
    (project / "a.txt").write_text("two\n")
    hook("codex", codex.end())
    ok("restore", "1", "--yes", cwd=project)
    assert (project / "a.txt").read_text() == "one\n"


def test_a_resident_whose_home_is_removed_ends(project: Path, claude: ClaudeCode) -> None:
    """Its file gone (its rewind home deleted, a CI runner's say): it ends at its next look,
    and never writes the home again."""
    send(claude, claude.prompt("first"))
    pid = resident_pid()
    info().unlink()
    try:
        with socket.create_connection(("127.0.0.1", port())):
            pass  # wakes it: it looks at its file after each connection
    except ConnectionRefusedError:
        pass  # it looked on its own (it looks every few seconds) and has ended already
    deadline = time.monotonic() + 10
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not alive(pid) and not info().exists()


def test_doctor_starts_no_resident(project: Path, claude: ClaudeCode) -> None:
    """doctor's probe runs the hooks in a throwaway rewind home: a resident started there
    would hold the port of the real one for half an hour."""
    ok("install", "claude-code", "--user")  # the probe's hooks find the port there
    ok("doctor", cwd=project)
    assert not listening()
    assert not list(Path(os.environ["REWIND_HOME"]).glob("**/resident/*.json"))
