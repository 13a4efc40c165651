"""``rewind resume TURN`` for OpenCode: its server (``opencode serve``) lists the session's
messages and forks it at the turn's user message; the command continues the fork. Here the
client on PATH is a script that answers as OpenCode 1.18.33 does and notes what it was asked;
the real client runs it in tests/clients/resume_test.py."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.conftest import error_line, hook, ok, run_rewind
from tests.support.agent_payloads import OpenCode

# OpenCode as far as a resume asks it: its version, and a server that checks its password,
# lists a session's messages and forks it. ``SESSIONS`` (a JSON file) holds each session's
# user message ids; every request is noted in ``requests``, every other start in ``runs``.
CLIENT = """\
#!{python}
import base64, json, os, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

folder = os.path.dirname(os.path.abspath(__file__))
if sys.argv[1:] == ["--version"]:
    print("{version}")
    sys.exit(0)
if sys.argv[1:2] != ["serve"]:
    with open(os.path.join(folder, "runs"), "a") as runs:
        run = {{"cwd": os.getcwd(), "pwd": os.environ.get("PWD"), "argv": sys.argv[1:]}}
        runs.write(json.dumps(run) + "\\n")
    sys.exit(0)
sessions = json.load(open(os.path.join(folder, "sessions.json")))
login = "rewind:" + os.environ["OPENCODE_SERVER_PASSWORD"]
expected = "Basic " + base64.b64encode(login.encode()).decode()


class Handler(BaseHTTPRequestHandler):
    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.serve(None)

    def do_POST(self):
        self.serve(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))

    def serve(self, body):
        with open(os.path.join(folder, "requests"), "a") as noted:
            noted.write(json.dumps([self.command, self.path, body, os.getcwd()]) + "\\n")
        if self.headers.get("Authorization") != expected:
            return self.answer(401, {{"name": "Unauthorized"}})
        parts = self.path.split("?")[0].split("/")
        session = parts[2]
        if session not in sessions:
            missing = {{"message": "Session not found: " + session}}
            return self.answer(404, {{"name": "NotFoundError", "data": missing}})
        if parts[3] == "message":
            listed = []
            for message in sessions[session]:
                listed.append({{"info": {{"id": message, "role": "user"}}, "parts": []}})
                listed.append({{"info": {{"id": message + "-reply", "role": "assistant"}}}})
            return self.answer(200, listed)
        return self.answer(200, {{"id": "ses_forked", "title": "x (fork #1)"}})

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print("Warning: OPENCODE_SERVER_PASSWORD is not set; server is unsecured.", flush=True)
print("opencode server listening on http://127.0.0.1:%d" % server.server_port, flush=True)
server.serve_forever()
"""


@pytest.fixture
def client(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """OpenCode 1.18.33 on PATH (its folder returned), its session holding the three turns'
    user messages, after three prompts were recorded."""
    import sys

    folder = project.parent / "bin"
    folder.mkdir()
    program = folder / "opencode"
    program.write_text(CLIENT.format(python=sys.executable, version="1.18.33"))
    program.chmod(0o755)
    agent = OpenCode(project)
    messages = []
    for text in ("one", "two", "three"):
        prompt = agent.prompt(text)
        messages.append(prompt["message_id"])
        hook("opencode", prompt)
        if text == "two":
            before, after = agent.write("notes.txt", "two\n")
            hook("opencode", before)
            (project / "notes.txt").write_text("two\n")
            hook("opencode", after)
        hook("opencode", agent.end())
    (folder / "sessions.json").write_text(json.dumps({agent.session: messages}))
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    return folder


def noted(folder: Path, name: str) -> list[Any]:
    path = folder / name
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_turn_resumes_in_the_session_opencode_forks_at_its_message(
    project: Path, client: Path
) -> None:
    session = OpenCode(project).session
    found = json.loads(ok("resume", "2", "--print", "--json").stdout)
    assert found["argv"] == [str(client / "opencode"), "-s", "ses_forked"]
    assert found["session"] == "ses_forked" and found["cwd"] == str(project)
    [listed, forked] = noted(client, "requests")
    where = "?directory=" + quote(str(project), safe="")
    assert listed[:2] == ["GET", f"/session/{session}/message{where}"]
    message = json.loads((client / "sessions.json").read_text())[session][1]
    assert forked[:2] == ["POST", f"/session/{session}/fork{where}"]
    assert forked[2] == {"messageID": message} and forked[3] == str(project)
    assert "OpenCode forked its session before turn 2 as ses_forked" in found["notes"][0]


def test_a_resume_with_a_prompt_runs_it_in_the_fork(project: Path, client: Path) -> None:
    """Started from a folder below the root, the client runs in the root, and its ``PWD`` (where
    OpenCode takes its project from) says so."""
    below = project / "src"
    below.mkdir()
    done = run_rewind(
        "resume",
        "3",
        "--prompt",
        "and now?",
        "--",
        "--model",
        "p/m",
        cwd=below,
        env={"PWD": str(below)},
    )
    assert done.returncode == 0, done
    [run] = noted(client, "runs")
    assert run == {
        "cwd": str(project),
        "pwd": str(project),
        "argv": ["run", "-s", "ses_forked", "--model", "p/m", "and now?"],
    }


def test_the_turn_that_began_the_session_starts_a_new_one(project: Path, client: Path) -> None:
    found = json.loads(ok("resume", "1", "--print", "--json").stdout)
    assert found["argv"] == [str(client / "opencode")] and found["session"] is None
    assert "turn 1 began the conversation" in found["notes"][0]
    assert [request[0] for request in noted(client, "requests")] == ["GET"]  # no fork


def test_a_message_the_session_no_longer_holds_is_refused_before_any_file_changes(
    project: Path, client: Path
) -> None:
    session = OpenCode(project).session
    (client / "sessions.json").write_text(json.dumps({session: ["msg_other"]}))
    line = error_line(run_rewind("resume", "2"))
    assert f"OpenCode's session {session} has no message" in line
    assert "restore the files alone with 'rewind restore 2'" in line
    (client / "sessions.json").write_text("{}")
    line = error_line(run_rewind("restore", "2", "--yes", "--conversation"))
    assert f"OpenCode's server refused it: Session not found: {session}" in line
    assert (project / "notes.txt").read_text() == "two\n"
    assert [request[0] for request in noted(client, "requests")] == ["GET", "GET"]
    assert not noted(client, "runs")


def test_an_opencode_version_rewind_does_not_know_is_refused(project: Path, client: Path) -> None:
    program = client / "opencode"
    program.write_text(program.read_text().replace('print("1.18.33")', 'print("1.19.0")'))
    line = error_line(run_rewind("resume", "2"))
    assert "the installed client is OpenCode 1.19.0" in line and "1.18.x" in line
    assert not noted(client, "requests")
