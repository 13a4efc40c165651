"""Snapshots (SVG, under __snapshots__/) of every screen at 120x40 and 80x24 (a terminal as it
opens, and a large one: nothing cut that the screen has room for),
and of a 1,000-file restore's timeline at 80, 100 and 120 columns (counts whole, ellipses).

After a deliberate change of the look: ``pytest tests/tui --snapshot-update``, then look at the
new SVGs before committing them. Times are frozen and shown in UTC so the pictures are stable.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from textual.pilot import Pilot

import rewind.history.recording.turns
import rewind.history.restoring.restore
from rewind.history.insight.labels import add_label
from rewind.history.restoring.opening import open_current_store
from rewind.history.session import load_head
from rewind.tui.app import RewindApp
from tests.tui.conftest import SESSION, record_demo, turn
from tests.tui.polish_test import record_thousand_then_restore

SnapCompare = Callable[..., bool]
SIZES = [pytest.param((120, 40), id="120x40"), pytest.param((80, 24), id="80x24")]
FROZEN = 1_768_471_200.0  # 2026-01-15 10:00:00 UTC


@pytest.fixture
def frozen_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The demo session recorded at fixed times, a minute apart, shown in UTC."""
    ticks = iter(FROZEN + 20.0 * step for step in range(1000))
    monkeypatch.setattr(
        rewind.history.recording.turns, "time", SimpleNamespace(time=lambda: next(ticks))
    )
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    record_demo()
    yield project
    monkeypatch.undo()
    time.tzset()


async def settled(pilot: Pilot[None]) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


@pytest.fixture
def thousand_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A long prompt with long labels, a 1,000-file turn and its restore, at frozen times."""
    ticks = itertools.count(FROZEN, 20.0)
    clock = SimpleNamespace(time=lambda: next(ticks))
    monkeypatch.setattr(rewind.history.recording.turns, "time", clock)
    monkeypatch.setattr(rewind.history.restoring.restore, "time", clock)
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    store = open_current_store(create=True)
    turn(store, "Rename every parser entry point and update the callers", {"p.py": "x = 1\n"})
    entry = load_head(store, SESSION).current
    assert entry is not None
    for name in ("parser-rename", "before-release-candidate"):
        add_label(store, SESSION, entry, name)
    record_thousand_then_restore(store)
    yield project
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize(
    "size",
    [
        pytest.param((80, 24), id="80x24"),
        pytest.param((100, 30), id="100x30"),
        pytest.param((120, 30), id="120x30"),
    ],
)
def test_thousand_file_restore(
    thousand_project: Path, snap_compare: SnapCompare, size: tuple[int, int]
) -> None:
    app = RewindApp(str(thousand_project), SESSION, watch=False)
    assert snap_compare(app, terminal_size=size, run_before=settled)


@pytest.mark.parametrize("size", SIZES)
def test_timeline(frozen_project: Path, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    app = RewindApp(str(frozen_project), SESSION, watch=False)
    assert snap_compare(app, terminal_size=size, run_before=settled)


@pytest.mark.parametrize("size", SIZES)
def test_diff_view(frozen_project: Path, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    async def select_turn_two(pilot: Pilot[None]) -> None:
        await pilot.press("up", "enter", "enter")
        await settled(pilot)

    app = RewindApp(str(frozen_project), SESSION, watch=False)
    assert snap_compare(app, terminal_size=size, run_before=select_turn_two)


@pytest.mark.parametrize("size", SIZES)
def test_diff_to_now(
    frozen_project: Path, snap_compare: SnapCompare, size: tuple[int, int]
) -> None:
    (frozen_project / "calc.py").write_text("print('changed outside the agent')\n")

    async def select_turn_two_to_now(pilot: Pilot[None]) -> None:
        await pilot.press("up", "d")
        await settled(pilot)

    app = RewindApp(str(frozen_project), SESSION, watch=False)
    assert snap_compare(app, terminal_size=size, run_before=select_turn_two_to_now)


@pytest.mark.parametrize("size", SIZES)
def test_side_by_side(
    frozen_project: Path, snap_compare: SnapCompare, size: tuple[int, int]
) -> None:
    async def select_turn_two_split(pilot: Pilot[None]) -> None:
        await pilot.press("up", "v")
        await settled(pilot)

    app = RewindApp(str(frozen_project), SESSION, watch=False)
    assert snap_compare(app, terminal_size=size, run_before=select_turn_two_split)


# The other screens, at the size a terminal opens at: the keys that open each from the
# timeline (each group pressed at once: Esc Esc must come within half a second).
# (The sessions screen shows the refs' times, which no clock can freeze: tested for its fit in
# tests/tui/polish_test.py.)
OPENED_BY = {
    "help": [("question_mark",)],
    "label-dialog": [("l", *"works")],
    "search": [("slash", *"calc")],
    "choose-files": [("escape", "escape"), ("enter",), ("down",), ("enter",)],
}


def _opened(
    frozen_project: Path, snap_compare: SnapCompare, screen: str, size: tuple[int, int]
) -> bool:
    async def open_it(pilot: Pilot[None]) -> None:
        await settled(pilot)
        for keys in OPENED_BY[screen]:
            await pilot.press(*keys)
            await settled(pilot)

    app = RewindApp(str(frozen_project), SESSION, watch=False)
    return bool(snap_compare(app, terminal_size=size, run_before=open_it))


@pytest.mark.parametrize("screen", sorted(OPENED_BY))
def test_screens_at_80x24(frozen_project: Path, snap_compare: SnapCompare, screen: str) -> None:
    assert _opened(frozen_project, snap_compare, screen, (80, 24))


@pytest.mark.parametrize("screen", sorted(OPENED_BY))
def test_screens_at_120x40(frozen_project: Path, snap_compare: SnapCompare, screen: str) -> None:
    assert _opened(frozen_project, snap_compare, screen, (120, 40))


def test_empty_state_at_80x24(snap_compare: SnapCompare) -> None:
    from rewind.installers.registry import targets
    from rewind.tui.empty_state import NothingRecorded

    agents = [name for name, target in targets().items() if target.hook_agent]
    app = NothingRecorded("/home/ada/calc", agents)
    assert snap_compare(app, terminal_size=(80, 24))


SHAPES = "".join(f"def shape_{n}():\n    return {n}\n\n\n" for n in range(1, 6))


@pytest.fixture
def hunks_project(project: Path) -> Path:
    """One turn making three changes to shapes.py; the third was edited by hand since."""
    (project / "shapes.py").write_text(SHAPES)
    store = open_current_store(create=True)
    after = (
        SHAPES.replace("return 1\n", "return 1.0  # a float now\n")
        .replace("def shape_3():\n    return 3\n", "def shape_3(scale):\n    return 3 * scale\n")
        .replace("return 5\n", "return five\n")
    )
    turn(store, "Refactor the shapes", {"shapes.py": after})
    (project / "shapes.py").write_text(after.replace("return five\n", "return FIVE\n"))
    return project


async def choose_hunks(pilot: Pilot[None]) -> None:
    """The picker: hunk 1 whole; of hunk 2, changed lines 1 and 3 (the old ``def`` line back,
    the new one out), the cursor on line 3."""
    await pilot.press("p")
    await settled(pilot)
    await pilot.press("space", "down", "enter", "space", "down", "down", "space")
    await settled(pilot)


@pytest.mark.parametrize("size", SIZES)
def test_hunk_picker(hunks_project: Path, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    app = RewindApp(str(hunks_project), SESSION, watch=False)
    assert snap_compare(app, terminal_size=size, run_before=choose_hunks)


@pytest.mark.parametrize("size", SIZES)
def test_put_back_confirmation(
    hunks_project: Path, snap_compare: SnapCompare, size: tuple[int, int]
) -> None:
    async def confirm(pilot: Pilot[None]) -> None:
        await choose_hunks(pilot)
        await pilot.press("r")
        await settled(pilot)

    app = RewindApp(str(hunks_project), SESSION, watch=False)
    assert snap_compare(app, terminal_size=size, run_before=confirm)


@pytest.fixture
def pinned_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The demo session at frozen times (as ``frozen_project``) with pinned entry ids
    (``0015eed00000`` for the first entry, ``0025eed00000`` for the second...), for the
    screens that show versions."""
    ticks = iter(FROZEN + 20.0 * step for step in range(1000))
    ids = (f"{n:03x}5eed00000" for n in itertools.count(1))
    monkeypatch.setattr(
        rewind.history.recording.turns, "time", SimpleNamespace(time=lambda: next(ticks))
    )
    monkeypatch.setattr(rewind.history.recording.turns, "new_entry_id", lambda: next(ids))
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    record_demo()
    yield project
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize("size", SIZES)
def test_file_history(
    pinned_project: Path, snap_compare: SnapCompare, size: tuple[int, int]
) -> None:
    async def history_of_calc(pilot: Pilot[None]) -> None:
        await pilot.press("up", "h")  # turn 2 changed calc.py
        await settled(pilot)

    app = RewindApp(str(pinned_project), SESSION, watch=False)
    assert snap_compare(app, terminal_size=size, run_before=history_of_calc)


@pytest.mark.parametrize("size", SIZES)
def test_blame_view(pinned_project: Path, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    async def blame_of_calc(pilot: Pilot[None]) -> None:
        await pilot.press("up", "b")
        await settled(pilot)
        await pilot.press("down", "down")  # line 3: the first that turn 2 wrote
        await settled(pilot)

    app = RewindApp(str(pinned_project), SESSION, watch=False)
    assert snap_compare(app, terminal_size=size, run_before=blame_of_calc)
