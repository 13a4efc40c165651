"""Hooks fired at once: 16 streams in one session, two sessions of one project, and restores,
undos and gc running while hooks fire. No pre-image may be lost, no after-state may be wrong,
and no record may be given up on (the store's log says so when one is).

Each stream owns its files and edits them again and again, so that the first record of a file
(its pre-image) and the last one (its after-state) are known exactly. The time of 16 streams is
measured against one stream doing the same number of events and printed (speed belongs to the
benchmarks: nothing is asserted about it).

``REWIND_FAULTS=long`` runs 16 streams x 500 real hook processes; the default sample runs fewer
hook processes, and 16 x 500 events through :mod:`rewind.history.recording.turns` from 16 real
processes.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from rewind.history.entry import Entry
from rewind.history.filestate import ABSENT, FileState
from rewind.history.recording.turns import record_after_states, track
from rewind.history.restoring import opening
from rewind.history.session import load_head
from rewind.history.sessions import read_entries
from rewind.store.repository import Store
from rewind.store.root import find_root
from tests.faults.fault_support import (
    LONG,
    give_ups,
    hook,
    must,
    rewind_argv,
    seeded_rng,
    store_log,
)
from tests.support.agent_payloads import ClaudeCode

STREAMS = 16
FILES_PER_STREAM = 5
# Hook processes per stream (a PreToolUse and a PostToolUse per edit).
HOOK_EVENTS = 500 if LONG else 8
# Events per stream driven through rewind.history.recording.turns from 16 processes (cheap: no
# interpreter start-up per event), in the sample too.
RECORDING_EVENTS = 500


class Versions:
    """Every content each file had, in order: the first is its pre-image, the last its
    after-state."""

    def __init__(self) -> None:
        self.seen: dict[str, list[bytes | None]] = {}
        self.lock = threading.Lock()

    def write(self, root: Path, name: str, data: bytes) -> None:
        path = root / name
        with self.lock:
            if name not in self.seen:
                self.seen[name] = [path.read_bytes() if path.exists() else None]
            self.seen[name].append(data)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def open_store(root: Path) -> Store:
    return opening.open_store(find_root(os.fsencode(root)))


def content_of(store: Store, state: FileState | None) -> bytes | str | None:
    """The content a state records (None for absent); a string naming anything else."""
    if state is None:
        return "no state"
    if state.kind == ABSENT:
        return None
    if state.oid is None:
        return f"a state of kind {state.kind}"
    return store.reader.read_blob(state.oid)


def check_records(root: Path, session: str, seen: dict[str, list[bytes | None]]) -> None:
    """Across the session's entries (the open turn's journal merged): each file's first
    before-state is its content before its stream first touched it, its last after-state its
    final content, and every state recorded is one the file had."""
    store = open_store(root)
    entries: list[Entry] = read_entries(store, load_head(store, session))
    first: dict[str, bytes | str | None] = {}
    last: dict[str, bytes | str | None] = {}
    strange = []
    for entry in entries:
        for change in entry.files:
            name = os.fsdecode(change.path)
            before, after = content_of(store, change.before), content_of(store, change.after)
            first.setdefault(name, before)
            last[name] = after
            for state in (before, after):
                if name in seen and state not in seen[name]:
                    side = "before" if state is before else "after"
                    strange.append(
                        f"{name} in entry {entry.number} ({entry.kind}, "
                        f"{'open' if entry.is_open else 'closed'}), {side}: {state!r:.60}"
                    )
    lost = [name for name, versions in seen.items() if first.get(name, "none") != versions[0]]
    wrong = [name for name, versions in seen.items() if last.get(name, "none") != versions[-1]]
    assert (lost, wrong, strange) == ([], [], []), (
        f"session {session}: {len(lost)} lost pre-image(s) {lost[:5]}, {len(wrong)} wrong "
        f"after-state(s) {wrong[:5]}, {len(strange)} state(s) the file never had {strange[:5]}"
    )


def no_give_ups(root: Path) -> None:
    assert give_ups(root) == [], store_log(root)


def in_parallel(work: list[Callable[[], None]]) -> float:
    """Runs each function in a thread of its own, all at once; returns the wall time."""
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(work))

    def run(function: Callable[[], None]) -> None:
        try:
            barrier.wait()
            function()
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=run, args=(function,)) for function in work]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    if errors:
        raise errors[0]
    return elapsed


# streams of real hook processes ------------------------------------------------------------


def hook_stream(
    root: Path, agent: ClaudeCode, versions: Versions, names: list[str], events: int, tag: str
) -> Callable[[], None]:
    """Edits ``names`` in turn through the Write tool: a PreToolUse hook, the write, a
    PostToolUse hook (two events per edit)."""

    def stream() -> None:
        for index in range(events // 2):
            name = names[index % len(names)]
            data = f"{name} {tag} edit {index}\n".encode() * (1 + index % 7)
            pre, post = agent.write(name, data.decode())
            assert pre is not None
            hook(pre, root)
            versions.write(root, name, data)
            hook(post, root)

    return stream


def stream_names(stream: int, prefix: str = "s") -> list[str]:
    return [f"{prefix}{stream:02d}/f{index}.txt" for index in range(FILES_PER_STREAM)]


def seed_files(root: Path, names: list[str]) -> None:
    for name in names[::2]:  # half exist at first, half are created by the stream
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(f"{name} original\n")


def test_sixteen_hook_streams_in_one_session(project: Path) -> None:
    agent = ClaudeCode(project, session="streams")
    names = [stream_names(stream) for stream in range(STREAMS)]
    seed_files(project, [name for group in names for name in group])
    versions = Versions()
    hook(agent.prompt("sixteen streams"), project)
    elapsed = in_parallel(
        [
            hook_stream(project, agent, versions, group, HOOK_EVENTS, f"stream {stream}")
            for stream, group in enumerate(names)
        ]
    )
    check_records(project, "streams", versions.seen)  # as the hooks recorded it, before Stop
    hook(agent.end(), project)
    check_records(project, "streams", versions.seen)
    no_give_ups(project)
    events = STREAMS * HOOK_EVENTS
    figure = f"{STREAMS} hook streams x {HOOK_EVENTS} events: {elapsed:.1f} s"
    figure += f" ({events / elapsed:.0f} events/s)"
    if LONG:  # one stream doing as many events, for comparison
        single = ClaudeCode(project, session="single")
        alone = Versions()
        group = [f"single/f{index}.txt" for index in range(FILES_PER_STREAM * STREAMS)]
        hook(single.prompt("one stream"), project)
        one = in_parallel([hook_stream(project, single, alone, group, events, "single")])
        hook(single.end(), project)
        check_records(project, "single", alone.seen)
        figure += f"; one stream, same events: {one:.1f} s ({events / one:.0f} events/s)"
    print(figure)


# streams of real processes calling rewind.history.recording.turns ---------------------------


def recording_stream(root: str, session: str, names: list[str], events: int, tag: str) -> None:
    """One process: ``track`` before each write and ``record_after_states`` after it."""
    store = opening.open_store(find_root(os.fsencode(root)))
    for index in range(events // 2):
        name = names[index % len(names)]
        path = name.encode()
        track(store, session, [path])
        with open(os.path.join(root, name), "wb") as handle:
            handle.write(f"{name} {tag} edit {index}\n".encode() * (1 + index % 7))
        record_after_states(store, session, [path])


def expected_versions(root: Path, names: list[str], events: int, tag: str) -> Versions:
    versions = Versions()
    for name in names:
        path = root / name
        versions.seen[name] = [path.read_bytes() if path.exists() else None]
    for index in range(events // 2):
        name = names[index % len(names)]
        versions.seen[name].append(f"{name} {tag} edit {index}\n".encode() * (1 + index % 7))
    return versions


def run_processes(
    root: Path, session: str, groups: list[list[str]], events: int, tags: list[str]
) -> float:
    context = multiprocessing.get_context("fork")
    processes = [
        context.Process(target=recording_stream, args=(str(root), session, group, events, tag))
        for group, tag in zip(groups, tags, strict=True)
    ]
    started = time.monotonic()
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=600)
    elapsed = time.monotonic() - started
    assert [process.exitcode for process in processes] == [0] * len(processes)
    return elapsed


def test_sixteen_recording_processes_in_one_session(project: Path) -> None:
    groups = [stream_names(stream) for stream in range(STREAMS)]
    seed_files(project, [name for group in groups for name in group])
    tags = [f"stream {stream}" for stream in range(STREAMS)]
    expected: dict[str, list[bytes | None]] = {}
    for group, tag in zip(groups, tags, strict=True):
        expected.update(expected_versions(project, group, RECORDING_EVENTS, tag).seen)
    must(rewind_argv("begin", "--session", "many", "--prompt", "16 processes"), project)
    elapsed = run_processes(project, "many", groups, RECORDING_EVENTS, tags)
    check_records(project, "many", expected)  # before the turn ends: what the journal holds
    must(rewind_argv("end", "--session", "many"), project)
    check_records(project, "many", expected)

    # One process doing as many events, on as many files.
    single = [name for group in stream_names_single() for name in group]
    seed_files(project, single)
    alone = expected_versions(project, single, STREAMS * RECORDING_EVENTS, "single").seen
    must(rewind_argv("begin", "--session", "one", "--prompt", "1 process"), project)
    one = run_processes(project, "one", [single], STREAMS * RECORDING_EVENTS, ["single"])
    must(rewind_argv("end", "--session", "one"), project)
    check_records(project, "one", alone)
    no_give_ups(project)
    events = STREAMS * RECORDING_EVENTS
    print(
        f"{STREAMS} recording processes x {RECORDING_EVENTS} events: {elapsed:.1f} s "
        f"({events / elapsed:.0f} events/s); one process, same events: {one:.1f} s "
        f"({events / one:.0f} events/s)"
    )


def stream_names_single() -> list[list[str]]:
    return [stream_names(stream, prefix="one") for stream in range(STREAMS)]


# two sessions, and restores while hooks fire -------------------------------------------------


def test_two_sessions_of_one_project_at_once(project: Path) -> None:
    turns = 6 if LONG else 2
    streams = 6 if LONG else 3
    events = 40 if LONG else 4
    everything = []
    for session in ("left", "right"):
        for stream in range(streams):
            everything += stream_names(stream, prefix=f"{session}-")
    seed_files(project, everything)
    seen: dict[str, dict[str, list[bytes | None]]] = {}

    def session_driver(session: str) -> Callable[[], None]:
        agent = ClaudeCode(project, session=session)
        versions = Versions()
        seen[session] = versions.seen

        def drive() -> None:
            for turn in range(turns):
                hook(agent.prompt(f"{session} turn {turn}"), project)
                in_parallel(
                    [
                        hook_stream(
                            project,
                            agent,
                            versions,
                            stream_names(stream, prefix=f"{session}-"),
                            events,
                            f"{session} turn {turn} stream {stream}",
                        )
                        for stream in range(streams)
                    ]
                )
                hook(agent.end(), project)

        return drive

    elapsed = in_parallel([session_driver("left"), session_driver("right")])
    for session, versions_seen in seen.items():
        check_records(project, session, versions_seen)
    no_give_ups(project)
    print(f"2 sessions x {turns} turns x {streams} streams x {events} events: {elapsed:.1f} s")


def test_restores_undos_and_gc_while_hooks_fire(project: Path) -> None:
    """Hooks stream into a session while the same session restores and undoes other files
    (each restore closes the open turn under the hooks' feet) and gc packs the store."""
    rng, seed = seeded_rng("restores while hooks fire")
    session = "busy"
    agent = ClaudeCode(project, session=session)
    restored = [f"r/f{index:02d}.txt" for index in range(40)]
    for name in restored:
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(f"{name} original\n")
    original = {name: (project / name).read_bytes() for name in restored}
    must(rewind_argv("begin", "--session", session, "--prompt", "change r/"), project)
    must(rewind_argv("track", "--session", session, *restored), project)
    for name in restored:
        (project / name).write_text(f"{name} changed {rng.random()}\n")
    changed = {name: (project / name).read_bytes() for name in restored}
    must(rewind_argv("end", "--session", session), project)

    streams = 8
    events = 60 if LONG else 8
    groups = [stream_names(stream) for stream in range(streams)]
    seed_files(project, [name for group in groups for name in group])
    versions = Versions()
    done = threading.Event()
    operations: list[str] = []

    def restorer() -> None:
        paths = [argument for name in restored for argument in ("--path", name)]
        while not done.is_set() or len(operations) < 4:
            must(rewind_argv("restore", "1", "--yes", "--session", session, *paths), project)
            assert {n: (project / n).read_bytes() for n in restored} == original, f"seed {seed}"
            must(rewind_argv("undo", "--yes", "--session", session), project)
            assert {n: (project / n).read_bytes() for n in restored} == changed, f"seed {seed}"
            operations.extend(["restore", "undo"])
            if rng.random() < 0.3:
                must(rewind_argv("gc", "--quiet"), project)
                operations.append("gc")

    def hooks() -> None:
        try:
            in_parallel(
                [
                    hook_stream(project, agent, versions, group, events, f"stream {stream}")
                    for stream, group in enumerate(groups)
                ]
            )
        finally:
            done.set()

    elapsed = in_parallel([hooks, restorer])
    hook(agent.end(), project)
    check_records(project, session, versions.seen)
    no_give_ups(project)
    must(rewind_argv("check"), project)
    print(
        f"{streams} hook streams x {events} events with {len(operations)} restores, undos and "
        f"gcs in the same session: {elapsed:.1f} s"
    )
    assert json.loads(must(rewind_argv("log", "--json", "--session", session), project))


def test_a_turn_opened_while_a_restore_is_planned_is_closed_by_it(project: Path) -> None:
    """A restore closes the open turn, plans without the store lock, then takes the lock again
    to carry the plan out. A hook that opens a turn in between (the agent goes on working) must
    not leave that turn open under the restore, without the after-states of its files."""
    from rewind.api import Project
    from rewind.history.restoring.restore import apply_plan

    (project / "restored.txt").write_text("one\n")
    (project / "edited.txt").write_text("edited one\n")
    history = Project(project, session="planned")
    history.track("restored.txt")
    (project / "restored.txt").write_text("two\n")
    history.end()
    plan = history.plan_restore(1)
    agent = ClaudeCode(project, session="planned")
    pre, post = agent.write("edited.txt", "edited two\n")
    assert pre is not None
    hook(pre, project)  # opens turn 2
    (project / "edited.txt").write_text("edited two\n")
    apply_plan(history.store, plan)
    hook(post, project)
    hook(agent.end(), project)
    assert (project / "restored.txt").read_text() == "one\n"
    assert [entry.is_open for entry in history.log()] == [False] * len(history.log())
    check_records(project, "planned", {"edited.txt": [b"edited one\n", b"edited two\n"]})
