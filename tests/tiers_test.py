"""Every test is of exactly one tier (unit, integration, tui, faults, clients: tests/conftest.py),
so that ``-m`` selects each test once and no test falls between the tiers; and the unit tier
keeps its promise of starting no program."""

from __future__ import annotations

import subprocess
import threading

import pytest

from tests.conftest import COLLECTED, programs_started, tiers_of


@pytest.mark.unit
def test_every_collected_test_has_exactly_one_tier(request: pytest.FixtureRequest) -> None:
    """Over what this run collected (everything, run as ``pytest``), before ``-k`` or ``-m``
    chose: a module marked unit in a folder of its own tier (tests/tui, say), or a test marked
    integration in a unit module, has two tiers."""
    collected = request.config.stash[COLLECTED]
    assert request.node in collected
    wrong = {item.nodeid: sorted(tiers_of(item)) for item in collected if len(tiers_of(item)) != 1}
    assert wrong == {}


@pytest.mark.integration
def test_a_program_started_is_noted_but_not_from_another_thread() -> None:
    """What makes a unit test that starts a program fail (the check of every unit test)."""
    with programs_started() as started:
        subprocess.run(["true"], check=True)
    assert len(started) == 1 and "'true'" in started[0], started
    with programs_started() as started:
        elsewhere = threading.Thread(target=subprocess.run, args=(["true"],))
        elsewhere.start()
        elsewhere.join()
    assert started == []
    subprocess.run(["true"], check=True)  # outside the block: nowhere to note it
    assert started == []
