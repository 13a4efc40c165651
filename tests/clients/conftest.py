"""The real agents' tier: each test runs one client from npm, with its own home, against a
scripted model server on 127.0.0.1, in a project where ``rewind install AGENT`` wrote the
hooks. Every test here is marked ``clients`` (by tests/conftest.py, as each folder's tier)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.clients.scenario import Script
from tests.clients.world import AnyClient, World, open_world
from tests.support.installed_wheel import Installed

MakeWorld = Callable[[AnyClient, Script], World]


@pytest.fixture
def make_world(installed_wheel: Installed, tmp_path: Path) -> Iterator[MakeWorld]:
    """A factory of worlds (see :func:`open_world`), each in a folder of its own."""
    with ExitStack() as stack:
        made = 0

        def make(client: AnyClient, script: Script) -> World:
            nonlocal made
            made += 1
            return open_world(stack, client, script, tmp_path / f"world-{made}", installed_wheel)

        yield make
