"""The real agents' tier: each test runs one client from npm, with its own home, against a
scripted model server on 127.0.0.1, in a project where ``rewind install AGENT`` wrote the
hooks. Every test here is marked ``clients``."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.clients.scenario import Script
from tests.clients.world import Client, World
from tests.installed_wheel import Installed

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.clients)


MakeWorld = Callable[[Client, Script], World]


@pytest.fixture
def make_world(installed_wheel: Installed, tmp_path: Path) -> Iterator[MakeWorld]:
    """A factory: a project (a git work tree with one commit) and a home for ``client``, rewind's
    hooks installed there, and the client's model server answering ``script`` (``{root}`` in
    the script's arguments is the project's path)."""
    with ExitStack() as stack:
        made = 0

        def make(client: Client, script: Script) -> World:
            nonlocal made
            made += 1
            base = tmp_path / f"world-{made}"
            home = base / "home"
            root = base / "project"
            home.mkdir(parents=True)
            root.mkdir()
            rewind = installed_wheel.with_home(home)
            git = ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com"]
            subprocess.run([*git, "init", "-q", str(root)], check=True, env=rewind.env)
            (root / "README.md").write_text("# project\n")
            subprocess.run([*git, "add", "."], cwd=root, check=True, env=rewind.env)
            subprocess.run([*git, "commit", "-qm", "start"], cwd=root, check=True, env=rewind.env)
            server = stack.enter_context(client.server(script.at(root)))
            world = World(client=client, rewind=rewind, root=root, server=server, home=home)
            world.ok("install", client.agent)
            client.prepare(world)
            return world

        yield make
