"""The Codex CLI itself, from npm, driven by a scripted model: what rewind records of what the
real client does, prompt by prompt, resumed with ``codex exec resume`` as a person continues a
session. The scenarios every client runs are in scenarios_test.py; here, Codex's own.

Codex offers this provider's model ``exec_command`` (a command line, run by a shell) and, for a
model its catalog knows, the freeform ``apply_patch``; its hooks report both shells and patches
(``Bash``, ``apply_patch``)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.clients.clients import CODEX
from tests.clients.codex import (
    KNOWN_MODEL,
    UNKNOWN_MODEL,
    Codex,
    add,
    patch,
    patch_text,
    shell,
    update,
)
from tests.clients.conftest import MakeWorld
from tests.clients.openai_responses import tool_outputs, tools_offered
from tests.clients.scenario import Call, Prompt, Script, calls, done


@pytest.fixture(scope="module")
def program() -> Any:
    return CODEX.program()


THE_PATCH = (
    add("added.txt", "new\n"),
    update("notes.txt", "one", "ONE"),
    "*** Delete File: gone.txt\n",
    "*** Update File: old.txt\n*** Move to: moved.txt\n@@\n-a\n+A\n",
)
PATCHED = {  # what rewind's log says the patch did
    "added.txt": "added",
    "notes.txt": "modified",
    "gone.txt": "deleted",
    "old.txt": "deleted",
    "moved.txt": "added",
}
THROUGH_THE_SHELL = shell(f"apply_patch <<'PATCH'\n{patch_text(*THE_PATCH)}PATCH")
MAKE_THE_FILES = shell("echo one > notes.txt && echo a > old.txt && echo gone > gone.txt")


@pytest.mark.parametrize(
    ("model", "call"),
    [(KNOWN_MODEL, patch(*THE_PATCH)), (UNKNOWN_MODEL, THROUGH_THE_SHELL)],
    ids=["freeform-tool", "through-the-shell"],
)
def test_a_patch_that_adds_updates_deletes_and_moves_rewinds(
    make_world: MakeWorld, program: Any, model: str, call: Call
) -> None:
    """The same patch, by both ways Codex applies one. A model Codex knows calls its freeform
    ``apply_patch`` tool; a model it does not know has no such tool, and is told to run
    ``apply_patch`` in the shell: Codex intercepts that command and applies the patch itself,
    and its hooks see only a ``PreToolUse`` of ``Bash`` whose command is the heredoc (no
    ``PostToolUse``), so the files the patch names must be read off the command line."""
    script = Script(
        [
            Prompt("Make the files", (calls(MAKE_THE_FILES), done())),
            Prompt("Patch them", (calls(call), done())),
        ]
    )
    world = make_world(Codex(program, model=model), script)
    session = world.prompt("Make the files")
    world.prompt("Patch them", session)
    assert ("apply_patch" in tools_offered(world.server.requests[0])) == (model == KNOWN_MODEL)
    assert "Success. Updated the following files" in tool_outputs(world.server.requests)[1]
    found = {path.name: path.read_text() for path in world.root.glob("*.txt")}
    assert found == {"added.txt": "new\n", "notes.txt": "ONE\n", "moved.txt": "A\n"}, found
    patched = {file["path"]: file["status"] for file in world.log(session)[1]["files"]}
    assert patched == PATCHED, patched
    world.check_every_turn_rewinds(session, ["Make the files", "Patch them"])
