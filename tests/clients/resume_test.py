"""``rewind resume``, proven with the real clients: after three prompts, the files go back to
before the second and the conversation is resumed from there with one more prompt. The model
then sees the first turn and the new prompt, nothing of the second or third; the agent's own
transcripts are byte for byte as before; the branch is a conversation of its own."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.clients.claude_code import ClaudeCode
from tests.clients.clients import CLAUDE_CODE, CODEX, COPILOT, GEMINI, OPENCODE, PI
from tests.clients.codex import FLAGS as CODEX_FLAGS
from tests.clients.codex import Codex
from tests.clients.conftest import MakeWorld
from tests.clients.copilot import Copilot, unpacked_program
from tests.clients.gemini import Gemini
from tests.clients.opencode import OpenCode, exported
from tests.clients.pi import MODEL as PI_MODEL
from tests.clients.pi import PROVIDER as PI_PROVIDER
from tests.clients.pi import Pi
from tests.clients.scenario import Call, Prompt, Script, calls, done
from tests.clients.world import Client, World

PROMPTS = ("First prompt alpha", "Second prompt beta", "Third prompt gamma")
FORK = "Fork prompt delta"


@dataclass(frozen=True)
class Case:
    """One client: how it is made, how its model writes a file, the arguments a resumed run
    takes for the tier (as ``rewind resume TURN -- ARGS``), and where its transcripts are."""

    make: Callable[[Path], Client]
    program: Callable[[], Path]
    write: Callable[[str, str], Call]
    arguments: tuple[str, ...]
    transcripts: str  # a glob under the home
    version: str  # the client's version, as its hooks let rewind tell it
    # A client whose conversations are in a database of its own: its session as it gives it
    # out (by id: a digest), instead of the transcripts' files.
    exported: Callable[[World, str], dict[str, str]] | None = None


CASES = {
    "claude-code": Case(
        ClaudeCode,
        CLAUDE_CODE.program,
        lambda path, text: Call("Write", {"file_path": "{root}/" + path, "content": text}),
        ("--output-format", "json", "--dangerously-skip-permissions"),
        ".claude/projects/*/*.jsonl",
        CLAUDE_CODE.version,
    ),
    "gemini": Case(
        Gemini,
        GEMINI.program,
        lambda path, text: Call("write_file", {"file_path": "{root}/" + path, "content": text}),
        ("--yolo", "--output-format", "json"),
        ".gemini/tmp/*/chats/*.jsonl",
        GEMINI.version,
    ),
    "codex": Case(
        Codex,
        CODEX.program,
        lambda path, text: Call("exec_command", {"cmd": f"printf '{text}' > {path}"}),
        CODEX_FLAGS,
        ".codex/sessions/*/*/*/*.jsonl",
        CODEX.version,
    ),
    "copilot": Case(
        Copilot,
        unpacked_program,
        lambda path, text: Call("create", {"path": "{root}/" + path, "file_text": text}),
        ("--allow-all-tools", "--output-format", "json"),
        ".copilot/session-state/*/events.jsonl",
        COPILOT.version,
    ),
    "pi": Case(
        Pi,
        PI.program,
        lambda path, text: Call("write", {"path": path, "content": text}),
        ("--provider", PI_PROVIDER, "--model", PI_MODEL, "--mode", "json"),
        ".pi/agent/sessions/*/*.jsonl",
        PI.version,
    ),
    "opencode": Case(
        OpenCode,
        OPENCODE.program,
        lambda path, text: Call("write", {"filePath": "{root}/" + path, "content": text}),
        (),
        "",
        OPENCODE.version,
        exported=exported,
    ),
}


def script(case: Case) -> Script:
    written = [
        Prompt(text, (calls(case.write(f"file{at}.txt", f"turn {at}\\n")), done(f"Reply {at}.")))
        for at, text in enumerate(PROMPTS, 1)
    ]
    return Script([*written, Prompt(FORK, (done("Reply fork."),))])


def digests(world: World, pattern: str) -> dict[Path, str]:
    return {
        path: hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(world.home.glob(pattern))
    }


def conversations(case: Case, world: World, session: str) -> dict[Path, str] | dict[str, str]:
    """The client's own record of its conversations, each as a digest."""
    if case.exported is not None:
        return case.exported(world, session)
    return digests(world, case.transcripts)


def resume(
    world: World, program: Path, turn: int, *arguments: str, options: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    """``rewind resume TURN OPTIONS --prompt FORK -- ARGUMENTS`` with the client on PATH."""
    env = world.env
    env["PATH"] = f"{program.parent}{os.pathsep}{env['PATH']}"
    return subprocess.run(
        [world.rewind.rewind, "resume", str(turn), *options, "--prompt", FORK, "--", *arguments],
        cwd=world.root,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        stdin=subprocess.DEVNULL,
    )


def sent_with(world: World, text: str) -> list[str]:
    """The bodies of the requests to the model that hold ``text``, as JSON text."""
    bodies = [json.dumps(request.body) for request in world.server.requests]
    return [body for body in bodies if text in body]


@pytest.mark.parametrize("agent", sorted(CASES))
def test_the_conversation_resumes_from_before_a_turn_with_the_files(
    make_world: MakeWorld, agent: str
) -> None:
    case = CASES[agent]
    program = case.program()
    world = make_world(case.make(program), script(case))
    session = world.prompt(PROMPTS[0])
    for text in PROMPTS[1:]:
        world.prompt(text, session)
    kept = conversations(case, world, session)
    assert kept, f"no transcript of {agent} under {case.transcripts}"
    turns = [entry for entry in world.log(session) if entry["agent"]]
    assert [entry["prompt"] for entry in turns] == list(PROMPTS)

    shown = json.loads(world.ok("show", str(turns[1]["turn"]), "--session", session, "--json"))
    assert shown["conversation"]["agent"] == agent
    assert shown["conversation"]["version"] == case.version  # checked against what rewind knows
    world.ok("restore", str(turns[1]["turn"]), "--yes", "--session", session)
    assert world.tree() == world.before[PROMPTS[1]]
    done_run = resume(world, program, turns[1]["turn"], *case.arguments)
    assert done_run.returncode == 0, (done_run.stdout[-2000:], done_run.stderr[-3000:])

    forked = sent_with(world, FORK)
    assert forked, "the resumed client sent the model nothing with the new prompt"
    for body in forked:
        assert PROMPTS[0] in body and "Reply 1." in body, body[-3000:]
        assert PROMPTS[1] not in body and PROMPTS[2] not in body, body[-3000:]
    after = conversations(case, world, session).items()
    assert {path: digest for path, digest in after if path in kept} == kept
    assert world.tree() == world.before[PROMPTS[1]]  # the branch changed no file
