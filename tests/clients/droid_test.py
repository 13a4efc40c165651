"""Droid itself, from npm, driven by a scripted model: what rewind records of what the real
client does. The scenarios every client runs are in scenarios_test.py; here, Droid's own: the
hooks installed in both of the files Droid reads them from (it runs both), and a continued run
that calls no tool."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.clients.clients import DROID
from tests.clients.conftest import MakeWorld
from tests.clients.droid import Droid, shell, write
from tests.clients.scenario import Prompt, Script, calls, done


@pytest.fixture(scope="module")
def program() -> Path:
    return DROID.program()


def test_installed_twice_each_run_is_one_turn_named_by_its_prompt(
    make_world: MakeWorld, program: Path
) -> None:
    prompts = ["Write the plan and a copy", "Just say it is done"]
    script = Script(
        [
            Prompt(
                prompts[0],
                (calls(write("plan.txt", "draft\n")), calls(shell("cp plan.txt copy.txt")), done()),
            ),
            Prompt(prompts[1], (done("It is done."),)),
        ]
    )
    world = make_world(Droid(program), script)
    world.ok("install", "droid", "--user")  # the project's is there already
    session = world.prompt(prompts[0])
    assert world.prompt(prompts[1], session) == session  # -s: the same session
    assert world.changes(session) == [
        {"plan.txt": ("edit", "added"), "copy.txt": ("shell", "added")},
        {},
    ]
    assert [entry["prompt"] for entry in world.log(session)] == prompts
    final = world.tree()
    world.ok("restore", "1", "--yes", "--session", session)
    assert world.tree() == world.before[prompts[0]]
    world.ok("undo", "--yes", "--session", session)
    assert world.tree() == final
    for scope in ("--user", "--project"):
        world.ok("uninstall", "droid", scope)
    assert not (world.home / ".factory" / "hooks.json").exists()
    assert not (world.root / ".factory").exists()
