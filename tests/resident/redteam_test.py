"""A red-team pass over the resident recorder (rewind.resident): each test failed on the code
as it was first written; what a hostile or a stalled peer may do, and the hook's own limits."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
import time
from pathlib import Path

from tests.conftest import ok, run_rewind
from tests.resident.resident_test import (
    headers,
    info,
    log,
    port,
    post,
    resident_pid,
    send,
    stats,
)
from tests.support.agent_payloads import ClaudeCode
from tests.support.watchers import alive, stop_residents


def raw(data: bytes, timeout: float = 15.0) -> bytes:
    """``data`` sent as is to the resident's port; all it answers (b"" if it closed at once)."""
    with socket.create_connection(("127.0.0.1", port()), timeout=timeout) as connection:
        connection.sendall(data)
        chunks = []
        try:
            while chunk := connection.recv(65536):
                chunks.append(chunk)
        except OSError:
            pass
        return b"".join(chunks)


def head(lines: list[str], body: bytes = b"") -> bytes:
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def home_lines() -> list[str]:
    return [f"{name}: {value}" for name, value in headers().items()]


def gone(pid: int, wait: float = 5.0) -> bool:
    deadline = time.monotonic() + wait
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    return not alive(pid)


def run_hook(agent: ClaudeCode, payload: dict[str, object], **env: str) -> str:
    """A command hook's process; what it printed (it must exit 0)."""
    done = run_rewind(
        "hook",
        "claude-code",
        input=json.dumps(payload),
        env={"CLAUDE_PROJECT_DIR": str(agent.root), **env},
    )
    assert done.returncode == 0, done
    return done.stdout


# 1. One request with a Content-Length that str.isdigit() accepts but int() does not ----------


def test_a_superscript_content_length_does_not_kill_the_resident(
    project: Path, claude: ClaudeCode
) -> None:
    """'Content-Length: ²' (latin-1 0xB2) passes isdigit() and makes int() raise ValueError,
    which nothing catches: the resident exits (and unlinks its file), so any local process can
    end it with one request and then take its port."""
    send(claude, claude.prompt("first"))
    pid = resident_pid()
    raw(head(["POST /rewind/hook/claude-code HTTP/1.0", "Content-Length: \xb2"]), timeout=3)
    assert not gone(pid, 2.0), "one malformed request ended the resident"


# 2. A forwarded request whose secret is not ASCII --------------------------------------------


def test_a_non_ascii_secret_does_not_kill_the_resident(project: Path, claude: ClaudeCode) -> None:
    """hmac.compare_digest raises TypeError on a str holding non-ASCII: a request to
    /rewind/forward/ with the (guessable) home headers and 'X-Rewind-Secret: é' ends the
    resident; no secret is needed."""
    send(claude, claude.prompt("first"))
    pid = resident_pid()
    lines = ["POST /rewind/forward/claude-code HTTP/1.0", *home_lines()]
    raw(head([*lines, "X-Rewind-Secret: \xe9", "Content-Length: 0"]), timeout=3)
    assert not gone(pid, 2.0), "an unauthenticated request ended the resident"


# 3. A forwarded event whose answer is late is taken as recorded --------------------------------


def test_a_stalled_resident_does_not_record_a_before_state_after_the_change(
    project: Path, claude: ClaudeCode
) -> None:
    """A client that connects and sends nothing holds the one-at-a-time resident for
    READ_TIMEOUT (30 s; a byte every 29 s holds it for ever). A PreToolUse hook forwarded
    meanwhile gets no answer in ANSWER_TIMEOUT (8 s) and returns as if recorded; the tool then
    changes the file, and the resident records the 'before' state after the change: the
    original text is lost, and a restore brings back the changed one."""
    (project / "a.txt").write_text("original\n")
    send(claude, claude.prompt("change a"))
    resident_pid()
    before, after = claude.write("a.txt", "changed\n")
    assert before is not None
    with socket.create_connection(("127.0.0.1", port())):
        time.sleep(0.3)  # the resident is now reading it
        started = time.monotonic()
        run_hook(claude, before)
        assert time.monotonic() - started < 5  # the stalled client holds nothing
        (project / "a.txt").write_text("changed\n")  # the tool runs once the hook returned
    time.sleep(1.0)
    assert post(after)[0] == 200
    assert post(claude.end())[0] == 200
    ok("restore", "1", "--yes", cwd=project)
    assert (project / "a.txt").read_text() == "original\n"


# 4. A connect that times out is taken as "sent" ---------------------------------------------


def test_a_forwarded_event_that_could_not_connect_is_not_lost(
    project: Path, claude: ClaudeCode
) -> None:
    """forward.forwarded wraps connect() in the same ``except TimeoutError: return ""`` as the
    wait for the answer: when the resident's listen queue is full (it serves one request at a
    time; one silent client and ~130 connections fill it), connect() times out after 0.2 s and
    the hook returns as if the event had been handed over. The PreToolUse of an 'rm' is never
    recorded by anyone and the deleted file cannot be restored."""
    (project / "precious.txt").write_text("a day's work\n")
    send(claude, claude.prompt("clean up"))
    resident_pid()
    before, after = claude.shell("rm precious.txt")
    assert before is not None
    stall = socket.create_connection(("127.0.0.1", port()))
    time.sleep(0.3)
    flood = []
    try:
        for _ in range(300):
            client = socket.socket()
            client.setblocking(False)
            client.connect_ex(("127.0.0.1", port()))
            flood.append(client)
        time.sleep(0.5)
        started = time.monotonic()
        run_hook(claude, before)
        took = time.monotonic() - started
    finally:
        stall.close()
        for client in flood:
            client.close()
    (project / "precious.txt").unlink()  # the tool runs once the hook returned
    time.sleep(1.0)
    assert post(after)[0] == 200
    assert post(claude.end())[0] == 200
    events = [line.split()[3] for line in stats(project)]
    assert "event=PreToolUse" in events, (events, f"the hook returned after {took:.1f} s")
    ok("restore", "1", "--yes", cwd=project)
    assert (project / "precious.txt").read_text() == "a day's work\n"


# 5. The resident's home and home_for() disagree on a path that is not normalised ------------


def test_an_unnormalised_xdg_data_home_loses_no_forwarded_event(
    project: Path, tmp_path: Path, monkeypatch: object
) -> None:
    """Without REWIND_HOME, rewind_home() joins XDG_DATA_HOME as given ('/x/./data/rewind'),
    while address.home_for() normalises it ('/x/data/rewind'): the resident answers every event
    '200 {}' as "another rewind home's". An HTTP event is then recorded late, but a forwarded
    one is lost for good: the hook takes the 200 as handled (and prints '{}'). Here the quicksave
    of an 'rm' never reaches the store."""
    data = tmp_path / "data"
    data.mkdir()
    monkeypatch.delenv("REWIND_HOME")  # type: ignore[attr-defined]
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path) + "/./data")  # type: ignore[attr-defined]
    ok("install", "claude-code", "--local")
    agent = ClaudeCode(project)
    (project / "precious.txt").write_text("a day's work\n")
    try:
        run_hook(agent, agent.prompt("clean up"))  # handled here; starts the resident
        deadline = time.monotonic() + 10
        infos: list[Path] = []
        while not infos and time.monotonic() < deadline:
            infos = [p for p in (data / "rewind" / "resident").glob("*.json")]
            infos = [p for p in infos if json.loads(p.read_text() or "{}").get("ready")]
            time.sleep(0.05)
        assert infos, "no resident started"
        before, _ = agent.shell("rm precious.txt")
        assert before is not None
        printed = run_hook(agent, before)
        (project / "precious.txt").unlink()
        [calls] = data.glob("rewind/stores/*/rewind/stats/hook-calls.log")
        events = [line.split()[3] for line in calls.read_text().splitlines()]
        assert "event=PreToolUse" in events, (events, printed)
    finally:
        stop_residents(data / "rewind")


# 6. A port the settings name that is not one rewind's installer writes ---------------------


def test_settings_naming_port_0_do_not_start_a_resident_per_hook(project: Path) -> None:
    """port_in() takes any digits (here 0, which url_pattern's \\d{4,5} would never take):
    connect() to port 0 always fails, so each hook binds port 0 (a random port) and starts
    another resident, each living 30 minutes. A project's committed .claude/settings.json
    decides it."""
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    url = "http://127.0.0.1:0/rewind/hook/claude-code"
    settings.write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "http", "url": url}]}]}})
    )
    agent = ClaudeCode(project)
    (project / "a.txt").write_text("1\n")
    run_hook(agent, agent.prompt("first"))
    for index in range(3):
        before, _ = agent.write("a.txt", f"{index}\n")
        assert before is not None
        run_hook(agent, before)
    time.sleep(1.0)
    home = Path(os.environ["REWIND_HOME"])
    pids = {json.loads(p.read_text())["pid"] for p in home.glob("resident/*.json")}
    residents = [pid for pid in pids if alive(pid)]
    assert len(residents) <= 1, f"{len(residents)} residents started by 4 hooks"


# 7. DNS rebinding: a web page's same-origin request carries any header it likes -------------


def test_a_request_for_another_host_is_refused(project: Path, claude: ClaudeCode) -> None:
    """The headers are the only defence against web pages, but a page whose name is rebound to
    127.0.0.1 (DNS rebinding) posts same-origin, with any header and no preflight; its HOME is
    easy to guess. The resident checks neither Host nor Origin: here such a page ends the
    user's turn (a forged Stop)."""
    (project / "a.txt").write_text("1\n")
    send(claude, claude.prompt("first"))
    resident_pid()
    body = json.dumps(claude.end()).encode()
    origin = f"rebound.attacker.example:{port()}"
    lines = ["POST /rewind/hook/claude-code HTTP/1.1", f"Host: {origin}"]
    lines += [f"Origin: http://{origin}", "Content-Type: text/plain", *home_lines()]
    answer = raw(head([*lines, f"Content-Length: {len(body)}"], body))
    [turn] = log(project)
    assert turn["ended"] is None, answer


# 8. The unauthenticated HTTP endpoint takes command-hook events, and runs git for them ------


def test_the_http_endpoint_runs_no_program_for_a_posted_event(
    project: Path, claude: ClaudeCode, tmp_path: Path
) -> None:
    """Claude Code posts only the after-events, yet /rewind/hook/ (no secret) handles any event
    in any directory the payload's cwd names: a posted PreToolUse of 'git checkout .' makes the
    resident run git there (git status), which runs what that repository's config says
    (core.fsmonitor here)."""
    send(claude, claude.prompt("first"))
    resident_pid()
    elsewhere = tmp_path / "elsewhere"
    marker = tmp_path / "ran"
    os.system(f"git init -q {elsewhere}")
    script = tmp_path / "fsmonitor.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
    script.chmod(0o755)
    os.system(f"git -C {elsewhere} config core.fsmonitor {script}")
    (elsewhere / "f.txt").write_text("x\n")
    forged = ClaudeCode(elsewhere, session="0199aaaa-0000-7000-8000-0000000000ff")
    before, _ = forged.shell("git checkout .")
    assert before is not None
    assert not marker.exists()
    assert post(before)[0] == 403  # Claude Code posts only the after-events
    assert not marker.exists(), "an unauthenticated POST made rewind run a program"


# 9. A stale file naming a live pid of someone else's program ---------------------------------


def test_a_forwarded_event_goes_only_to_rewinds_resident(project: Path, claude: ClaudeCode) -> None:
    """running() trusts any live pid of this user in $REWIND_HOME/resident/PORT.json (a
    SIGKILLed resident's file survives it, and a reboot; the pid is then reused). Whatever
    listens on the port then (another user's program, which docs say may take it) receives the
    hook's whole environment (API keys and all) and the secret."""
    (project / "a.txt").write_text("1\n")
    from rewind.store.fastjson import dumps

    info().parent.mkdir(exist_ok=True)
    reused = subprocess.Popen(["sleep", "60"])  # any process of this user's, holding the pid
    stale = {"pid": reused.pid, "port": port(), "secret": "s3cret", "started": 1.0, "ready": True}
    info().write_text(dumps(stale))
    received: list[bytes] = []
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", port()))
        squatter.listen(8)

        def take() -> None:
            squatter.settimeout(10)
            connection, _ = squatter.accept()
            with connection:
                connection.settimeout(2)
                try:
                    while chunk := connection.recv(65536):
                        received.append(chunk)
                        if len(b"".join(received)) > 4096:
                            break
                except OSError:
                    pass

        thread = threading.Thread(target=take, daemon=True)
        thread.start()
        before, _ = claude.write("a.txt", "2\n")
        assert before is not None
        run_hook(claude, before, ANTHROPIC_API_KEY="sk-ant-very-secret")
        thread.join(10)
    reused.kill()
    reused.wait()
    got = b"".join(received)
    assert b"s3cret" not in got and b"sk-ant-very-secret".hex().encode() not in got
