"""The scenarios every client runs, each one test over the five clients (tests/clients/
drivers.py says what is each client's own): a working session; calls that fail or that the
person's rules refuse, then a hand edit between two prompts; what programs change; two sessions
at once in one project. Each client's own scenarios are in its module (claude_code_test.py...)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.clients.conftest import MakeWorld
from tests.clients.drivers import DRIVERS, Driver
from tests.clients.shared_scenarios import (
    FAILING_PROMPTS,
    check_programs_rewind,
    check_two_sessions_at_once,
    check_working,
    edit_by_hand_then_change_the_config,
    failing,
    programs,
    two_at_once,
    working,
)


@pytest.fixture(scope="module", params=list(DRIVERS.values()), ids=list(DRIVERS))
def driver(request: pytest.FixtureRequest) -> Driver:
    found: Driver = request.param
    return found


@pytest.fixture(scope="module")
def program(driver: Driver) -> Path:
    """The client's program, installed from npm once for its tests."""
    return driver.program()


def test_files_written_edited_and_changed_by_the_shell_rewind(
    make_world: MakeWorld, driver: Driver, program: Path
) -> None:
    world = make_world(driver.client(program), working(driver.tools, driver.shells_at_once))
    check_working(world)
    driver.offered(world)


def test_failing_and_refused_calls_and_a_hand_edit_rewind(
    make_world: MakeWorld, driver: Driver, program: Path
) -> None:
    world = make_world(driver.refusing(program), failing(driver.tools, driver.refused))
    session = world.prompt(FAILING_PROMPTS[0])
    world.prompt(FAILING_PROMPTS[1], session)
    driver.answers(world, session)
    assert (world.root / "half.txt").read_text() == "half\n"
    assert (world.root / "config.ini").read_text() == "a=1\n"
    assert not (world.root / "secret.txt").exists()
    edit_by_hand_then_change_the_config(world, session)
    driver.recorded(world, session)
    world.check_every_turn_rewinds(session, FAILING_PROMPTS, force=True)


def test_what_programs_change_rewinds_by_default(
    make_world: MakeWorld, driver: Driver, program: Path
) -> None:
    check_programs_rewind(make_world(driver.client(program), programs(driver.tools.shell)))


def test_two_sessions_at_once_in_one_project(
    make_world: MakeWorld, driver: Driver, program: Path
) -> None:
    client, tools = driver.two_at_once or (driver.client, driver.tools)
    check_two_sessions_at_once(make_world(client(program), two_at_once(tools)))
