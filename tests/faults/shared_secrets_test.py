"""A shared conversation never pushes a private file's secret (issue 33).

The finding: ``.env`` is ignored by git (its contents are held back from ``rewind push``), the
conversation is kept and shared (``[conversation] keep = true, share = true``), and the agent
read ``.env``: its transcript and its reply held ``SECRET_TOKEN=...``, and the push put both on
the remote under ``conversations/``. Each test pushes a real Claude Code session (its hooks as
processes, its transcript written as the client writes it: the Read tool's output with line
numbers, the file's content beside its path, a shell command's output) to a bare repository,
then searches every object the remote holds for what must never reach it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from tests.commands.resume_test import Transcript
from tests.conftest import hook
from tests.faults.privacy_test import every_object
from tests.support.git import git
from tests.support.remote_servers import REMOTE_NAME, Machine, bare_repository, clone, new_project

SESSION = "s33"
SHARE = "[conversation]\nkeep = true\nshare = true\n"
TOKEN = "tok_9f8e7d6c5b4a39281706f5e4d3c2b1a0"
PASSWORD = "correct-horse-battery-staple-42"
ENV = f"SECRET_TOKEN={TOKEN}\nDATABASE_PASSWORD={PASSWORD}\nDEBUG=1\n"
CREDENTIALS = '{\n  "client_secret": "cs-5d41402abc4b2a76b9719d911017c592",\n  "user": "ci"\n}\n'
# High-confidence secrets of the common providers (made-up values of the real shapes).
AWS_KEY = "AKIAZ7QWERTY12345678"
GITHUB_TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
URL_PASSWORD = "s3cretPassw0rd"
PRIVATE_KEY = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "QyNTUxOQAAACDm0xaQkF8bq1rnRWqzVvzq3C1QjX4hZ5l0r8mU2aWb7QAAAJgN1o2VDdaN\n"
    "-----END OPENSSH PRIVATE KEY-----"
)
# Ordinary text of a session: none of it is touched.
ORDINARY = (
    "def total(values):\n    return sum(values)  # 3f9a2c1e8b7d6f5a4e3d2c1b0a9f8e7d6c5b4a39\n"
    "id 123e4567-e89b-12d3-a456-426614174000 see https://example.com/docs?q=1 DEBUG=1\n"
)


@pytest.fixture
def bare(tmp_path: Path) -> Path:
    return bare_repository(tmp_path / "served" / REMOTE_NAME)


@pytest.fixture
def laptop(tmp_path: Path, bare: Path) -> Machine:
    root = new_project(tmp_path / "laptop" / "calc")
    (root / ".gitignore").write_text("*.log\n.env\nlocal/\n")
    (root / ".env").write_text(ENV)
    (root / "local").mkdir()
    (root / "local" / "credentials.json").write_text(CREDENTIALS)
    machine = Machine(root, tmp_path / "l-home", "laptop")
    machine.ok("remote", "add", "backup", str(bare))
    (root / "rewind.toml").write_text(SHARE)
    return machine


def numbered(text: str) -> str:
    """A file as Claude Code's Read tool shows it to the model."""
    return "".join(f"{n:6d}\t{line}\n" for n, line in enumerate(text.splitlines(), 1))


def read_records(root: Path, path: str, content: str, number: int) -> list[dict[str, Any]]:
    """What Claude Code writes of one Read of ``path``: the call, then its result (the text the
    model sees, and the file's content beside its path)."""
    call: dict[str, Any] = {"type": "tool_use", "id": f"toolu_{number}", "name": "Read"}
    call["input"] = {"file_path": str(root / path)}
    result = {"type": "tool_result", "tool_use_id": f"toolu_{number}", "content": numbered(content)}
    file = {"filePath": str(root / path), "content": content, "numLines": content.count("\n")}
    return [
        {"type": "assistant", "uuid": f"a{number}", "version": "2.1.332", "cwd": str(root),
         "message": {"role": "assistant", "content": [call]}},
        {"type": "user", "uuid": f"u{number}", "version": "2.1.332", "cwd": str(root),
         "message": {"role": "user", "content": [result]},
         "toolUseResult": {"type": "text", "file": file}},
    ]  # fmt: skip


def shell_records(
    command: str, output: str, number: int, cwd: Path | None = None
) -> list[dict[str, Any]]:
    """What Claude Code writes of one shell command (run in ``cwd``, when given)."""
    call: dict[str, Any] = {"type": "tool_use", "id": f"toolu_{number}", "name": "Bash"}
    call["input"] = {"command": command}
    result = {"type": "tool_result", "tool_use_id": f"toolu_{number}", "content": output}
    where = {"cwd": str(cwd)} if cwd else {}
    return [
        {"type": "assistant", "uuid": f"a{number}", "version": "2.1.332", **where,
         "message": {"role": "assistant", "content": [call]}},
        {"type": "user", "uuid": f"u{number}", "version": "2.1.332", **where,
         "message": {"role": "user", "content": [result]}, "toolUseResult": {"stdout": output}},
    ]  # fmt: skip


def session(
    machine: Machine, turns: list[tuple[list[dict[str, Any]], str]], cwd: Path | None = None
) -> Transcript:
    """Claude Code's session on ``machine`` (started in ``cwd``, by default the project's root):
    for each turn, the prompt event, what the agent wrote in its transcript during the turn,
    and the reply at its end."""
    folder = machine.home / ".claude" / "projects" / "calc"
    folder.mkdir(parents=True, exist_ok=True)
    transcript = Transcript(folder / f"{SESSION}.jsonl")
    for number, (records, reply) in enumerate(turns, 1):
        event = {"session_id": SESSION, "cwd": str(cwd or machine.root)}
        prompt = {"transcript_path": str(transcript.path), "prompt": f"turn {number}"}
        send(machine, {**event, **prompt, "prompt_id": f"p{number}"}, "UserPromptSubmit")
        user = {"type": "user", "uuid": f"p{number}", "version": "2.1.332"}
        transcript.append({**user, "message": {"content": f"turn {number}"}}, *records)
        send(machine, {**event, "last_assistant_message": reply}, "Stop")
    return transcript


def send(machine: Machine, payload: dict[str, Any], event: str) -> None:
    hook("claude-code", {**payload, "hook_event_name": event}, cwd=machine.root, env=machine.env)


def test_a_private_file_the_agent_read_never_reaches_the_remote_in_its_conversation(
    laptop: Machine, bare: Path, tmp_path: Path
) -> None:
    """The finding: .env read with line numbers, quoted in the reply, printed by ``cat``."""
    root = laptop.root
    transcript = session(
        laptop,
        [
            (read_records(root, ".env", ENV, 1), "Read it."),
            (shell_records("cat .env local/credentials.json", ENV + CREDENTIALS, 2), "Done."),
            ([], f"The token is {TOKEN}; the password is {PASSWORD}."),
            ([], "Nothing else."),
        ],
    )
    assert TOKEN.encode() in transcript.path.read_bytes()  # what the agent wrote, unchanged
    laptop.ok("push", "backup", "--session", SESSION)
    held = every_object(bare)
    assert b"/conversations/" not in held  # objects, not refs: the chain is there...
    assert b"[redacted: .env]" in held and b"[redacted: local/credentials.json]" in held
    for secret in (TOKEN, PASSWORD, "cs-5d41402abc4b2a76b9719d911017c592"):
        assert secret.encode() not in held, secret
    # ... and on the other machine, what was fetched resumes, from the redacted copy.
    other = Machine(clone(root, tmp_path / "w" / "calc"), tmp_path / "w-home", "workstation")
    other.ok("remote", "add", "backup", str(bare))
    other.ok("fetch", "backup")
    found = other.json("resume", "4", "--remote", "backup", "--session", SESSION, "--print")
    assert isinstance(found, dict)
    copy = Path(found["argv"][2]).read_text()
    assert TOKEN not in copy and PASSWORD not in copy and "[redacted: .env]" in copy
    assert all(json.loads(line) for line in copy.splitlines())  # every line still JSON
    assert copy.count("\n") == transcript.path.read_text().count("\n") - 1  # no line lost
    shown = other.json("show", "3", "--remote", "backup", "--session", SESSION)
    assert isinstance(shown, dict)
    assert shown["reply"] == "The token is [redacted: .env]; the password is [redacted: .env]."


def test_provider_tokens_keys_and_url_credentials_are_redacted_and_the_dry_run_counts_them(
    laptop: Machine, bare: Path
) -> None:
    output = (
        f"aws_access_key_id = {AWS_KEY}\nexport GH={GITHUB_TOKEN}\n{PRIVATE_KEY}\n"
        f"remote: https://deploy:{URL_PASSWORD}@git.example.com/calc.git\n"
    )
    session(laptop, [(shell_records("./show-config", output, 1), "Shown."), ([], "Done.")])
    dry = laptop.json("push", "backup", "--session", SESSION, "--dry-run")
    assert isinstance(dry, dict)
    [planned] = dry["sessions"]
    assert planned["conversation"] == "sent"
    assert planned["redacted"] == {
        "files": {},
        "secrets": {
            "AWS Access Key": 2,  # the command's output, and its copy beside it
            "Basic Auth Credentials": 2,
            "GitHub Token": 2,
            "Private Key": 2,
        },
    }
    text = laptop.ok("push", "backup", "--session", SESSION, "--dry-run")
    assert "redacted from it: AWS Access Key (2), Basic Auth Credentials (2)" in text
    for secret in (AWS_KEY, GITHUB_TOKEN, URL_PASSWORD, "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE"):
        assert secret not in json.dumps(dry) and secret not in text  # never the secret itself
    laptop.ok("push", "backup", "--session", SESSION)
    held = every_object(bare)
    for secret in (AWS_KEY, GITHUB_TOKEN, URL_PASSWORD, "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE"):
        assert secret.encode() not in held, secret
    assert b"[redacted: GitHub Token]" in held and b"https://deploy:[redacted:" in held


def test_ordinary_text_is_left_alone_and_the_chain_is_sent_as_it_is(
    laptop: Machine, bare: Path
) -> None:
    """A short line of .env (``DEBUG=1``, from a file the conversation names) and ordinary
    code, hashes, ids and URLs are not secrets: a conversation with nothing to redact goes as it
    was kept, byte for byte."""
    session(
        laptop,
        [
            (shell_records("cat notes.txt", ORDINARY, 1), "Read."),
            (shell_records("grep DEBUG .env", "DEBUG=1\n", 2), "DEBUG=1 is set."),
            ([], "Done."),
        ],
    )
    dry = laptop.json("push", "backup", "--session", SESSION, "--dry-run")
    assert isinstance(dry, dict)
    assert dry["sessions"][0]["redacted"] == {"files": {}, "secrets": {}}
    assert "nothing in it found to redact" in laptop.ok(
        "push", "backup", "--session", SESSION, "--dry-run"
    )
    laptop.ok("push", "backup", "--session", SESSION)
    [theirs] = [
        line.split()[0]
        for line in git("for-each-ref", cwd=bare).splitlines()
        if "/conversations/" in line
    ]
    mine = git("rev-parse", f"refs/rewind/conversations/{SESSION}", git_dir=laptop.store())
    assert mine.strip() == theirs


def test_a_private_file_read_from_a_subfolder_is_found_where_the_command_ran(
    laptop: Machine, bare: Path
) -> None:
    """``cat .env`` names ``sub/.env`` when Claude Code was started in ``sub/`` (the records'
    ``cwd``), and ``api/.env`` after a ``cd api`` earlier in the same command."""
    root = laptop.root
    sub_env = "SUB_PASSWORD=sub-9c1e7a5b3d2f4e6a8b0c\n"
    api_env = "API_PASSWORD=api-4d6f8a0c2e1b3a5c7e9d\n"
    for folder, content in (("sub", sub_env), ("api", api_env)):
        (root / folder).mkdir()
        (root / folder / ".env").write_text(content)
    turns = [
        (shell_records("cat .env", sub_env, 1, cwd=root / "sub"), "Read it."),
        (shell_records("cd ../api && cat .env", api_env, 2, cwd=root / "sub"), "And this one."),
        ([], "Done."),
    ]
    session(laptop, turns, cwd=root / "sub")
    laptop.ok("push", "backup", "--session", SESSION)
    held = every_object(bare)
    assert b"[redacted: sub/.env]" in held and b"[redacted: api/.env]" in held
    for secret in ("sub-9c1e7a5b3d2f4e6a8b0c", "api-4d6f8a0c2e1b3a5c7e9d"):
        assert secret.encode() not in held, secret


def test_a_private_file_reached_through_a_link_is_redacted_with_what_the_link_leads_to(
    laptop: Machine, bare: Path, tmp_path: Path
) -> None:
    """``.env`` is a link to a file kept outside the project (read to be looked for, never
    sent), and the tracked ``config/app.json`` a link to the ignored
    ``local/credentials.json``."""
    root = laptop.root
    kept = tmp_path / "secrets" / "calc.env"
    kept.parent.mkdir()
    kept.write_text(ENV)
    (root / ".env").unlink()
    (root / ".env").symlink_to(kept)
    (root / "config").mkdir()
    (root / "config" / "app.json").symlink_to("../local/credentials.json")
    turns = [
        (shell_records("cat .env", ENV, 1), "Read it."),
        (read_records(root, "config/app.json", CREDENTIALS, 2), "And the config."),
        ([], "Done."),
    ]
    session(laptop, turns)
    laptop.ok("push", "backup", "--session", SESSION)
    held = every_object(bare)
    assert b"[redacted: .env]" in held and b"[redacted: local/credentials.json]" in held
    for secret in (TOKEN, PASSWORD, "cs-5d41402abc4b2a76b9719d911017c592"):
        assert secret.encode() not in held, secret


def test_a_long_private_line_is_redacted_when_the_read_tool_cut_it(
    laptop: Machine, bare: Path
) -> None:
    """Claude Code's Read shows a line of more than 2,000 characters cut at 2,000: neither the
    whole line nor its value is in the transcript, only their start."""
    root = laptop.root
    key = "".join(hashlib.sha256(b"%d" % n).hexdigest() for n in range(50))  # 3,200 characters
    config = f"apiVersion: v1\nusers:\n- name: admin\n  user:\n    client-key-data: {key}\n"
    (root / "local" / "kubeconfig").write_text(config)
    records = read_records(root, "local/kubeconfig", config, 1)
    shown = "".join(line[:2000] + "\n" for line in config.splitlines())
    records[1]["message"]["content"][0]["content"] = numbered(shown)
    records[1]["toolUseResult"]["file"]["content"] = shown
    session(laptop, [(records, "Read it."), ([], "Done.")])
    laptop.ok("push", "backup", "--session", SESSION)
    held = every_object(bare)
    assert b"\\t    [redacted: local/kubeconfig]\\n" in held  # the line as far as it was shown
    assert key[:1900].encode() not in held and key[40:80].encode() not in held
