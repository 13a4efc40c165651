"""Claude Code's plugin, without ``rewind install``: the real client adds a marketplace rewind
ships (the repository, or the installed package's copy of hooks/), installs the plugin from it,
and the plugin's hooks record each prompt's turn."""

from __future__ import annotations

import subprocess
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from tests.clients.claude_code import ClaudeCode
from tests.clients.clients import CLAUDE_CODE
from tests.clients.scenario import Call, Prompt, Script, calls, done
from tests.clients.world import World, open_world
from tests.support.installed_wheel import Installed
from tests.support.paths import ROOT

NOTES = Script(
    [
        Prompt(
            "Start the notes",
            (calls(Call("Write", {"file_path": "{root}/notes.txt", "content": "one\n"})), done()),
        ),
        Prompt(
            "Polish the notes",
            (
                calls(
                    Call(
                        "Edit",
                        {"file_path": "{root}/notes.txt", "old_string": "one", "new_string": "1"},
                    )
                ),
                done(),
            ),
        ),
    ]
)


@pytest.fixture(scope="module")
def program() -> Any:
    return CLAUDE_CODE.program()


@pytest.mark.parametrize("where", ["the repository", "the installed package"])
def test_the_plugin_from_a_marketplace_records_each_turn(
    installed_wheel: Installed, tmp_path: Path, program: Any, where: str
) -> None:
    client = ClaudeCode(program)
    with ExitStack() as stack:
        world = open_world(stack, client, NOTES, tmp_path, installed_wheel, hooks=False)
        marketplace = (
            ROOT if where == "the repository" else installed_wheel.package() / "agent_configs"
        )
        claude(world, "plugin", "marketplace", "add", str(marketplace))
        claude(world, "plugin", "install", "rewind@rewind")
        assert "rewind@rewind" in claude(world, "plugin", "list")
        assert not (world.root / ".claude").exists()  # the plugin's hooks, not install's

        session = world.prompt("Start the notes")
        world.prompt("Polish the notes", session)
        assert (world.root / "notes.txt").read_text() == "1\n"
        world.check_every_turn_rewinds(session, ["Start the notes", "Polish the notes"])


def claude(world: World, *args: str) -> str:
    """``claude ARGS`` in the world's home, which must succeed; what it printed."""
    assert isinstance(world.client, ClaudeCode)
    done = subprocess.run(
        [str(world.client.program), *args],
        cwd=world.root,
        env=world.env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout
