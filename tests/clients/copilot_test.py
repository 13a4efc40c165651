"""The GitHub Copilot CLI itself, from npm, driven by a scripted model: what rewind records of
what the real client does, prompt by prompt, resumed with ``--resume`` as a person continues a
session. The scenarios every client runs are in scenarios_test.py; here, Copilot's own.

Copilot offers the model ``create``, ``edit`` and ``view`` (absolute paths) and ``bash`` (a
command line run in a persistent shell); its camelCase hooks name them so. A command that exits
non-zero is no failed call for it (``postToolUse``, the exit code in the result); a call its
permission rules refuse has a ``preToolUse`` and no event after it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.clients.conftest import MakeWorld
from tests.clients.copilot import Copilot, create, unpacked_program
from tests.clients.scenario import Prompt, Script, calls, done


@pytest.fixture(scope="module")
def program() -> Any:
    return unpacked_program()


def test_hooks_load_only_where_copilot_reads_trust(make_world: MakeWorld, program: Any) -> None:
    """The folder listed in ``trustedFolders`` of ``settings.json`` instead of ``config.json``:
    Copilot runs the prompt and the tool, but loads no repository hook, so nothing is recorded;
    ``rewind doctor`` must say so rather than tell the person the hooks run."""
    script = Script([Prompt("Untrusted: write a.txt", (calls(create("a.txt", "a\n")), done()))])
    world = make_world(Copilot(program, trust_file="settings.json"), script)
    world.prompt("Untrusted: write a.txt")
    assert (world.root / "a.txt").read_text() == "a\n"
    assert world.log() == []
    [trust] = [
        line
        for line in world.ok("doctor").splitlines()
        if line.split()[1:3] == ["copilot", "project"] and "trustedFolders" in line
    ]
    assert trust.startswith("warn") and "reads trustedFolders only from config.json" in trust
