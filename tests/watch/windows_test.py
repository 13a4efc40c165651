"""Which shell call a change belongs to (rewind.watch.windows), by the watcher's clock."""

from __future__ import annotations

import pytest

from rewind.watch.windows import LONGEST_CALL, ShellCalls

pytestmark = pytest.mark.unit


def test_a_change_belongs_to_the_call_its_events_overlap() -> None:
    calls = ShellCalls()
    calls.begin("s", "c1", "codex", 10.0)
    calls.end("s", "c1", 20.0)
    assert calls.covering(12.0, 13.0) is not None
    assert calls.covering(5.0, 9.0) is None  # before the call
    assert calls.covering(21.0, 22.0) is None  # after it
    assert calls.covering(5.0, 11.0) is not None  # a change that ran into it


def test_overlapping_calls_of_two_sessions_give_it_to_the_one_that_began_last() -> None:
    calls = ShellCalls()
    calls.begin("one", "a", "claude-code", 10.0)
    calls.begin("two", "b", "claude-code", 11.0)
    found = calls.covering(12.0, 12.0)
    assert found is not None and found.session == "two"


def test_a_turn_ends_only_the_calls_that_began_before_it_said_so() -> None:
    """A turn's start, queued behind a call that began after it was told (Cline's CLI opens its
    turn and its first call at once), must not end that call."""
    calls = ShellCalls()
    calls.begin("s", "old", "cline", 1.0)
    calls.begin("s", "new", "cline", 5.0)
    calls.end_all("s", 6.0, began_before=4.0)
    found = calls.covering(7.0, 7.0)
    assert found is not None and found.call == "new"
    assert calls.any_open()


def test_a_call_whose_after_event_never_came_stops_covering() -> None:
    calls = ShellCalls()
    calls.begin("s", "refused", "copilot", 0.0)
    assert calls.covering(LONGEST_CALL + 1.0, LONGEST_CALL + 1.0) is None
