"""kill -9 at random moments of every writer: hooks, track, end, restore, undo and gc.

Each test keeps one project of 300 small files and a ledger: for every entry recorded by a
process that was *not* killed, the work tree as it was just before that entry. Since every
change the test makes to the files is tracked first, ``rewind restore ENTRY`` must bring back
exactly that tree, and every before-state the entry recorded must be that tree's content.

Each round records some history, then starts one process of the kind under test and sends it
SIGKILL after a random delay drawn from that process's own duration (measured on its first
run), then runs the next command as an agent or a person would and checks that:

- ``rewind check`` and ``git fsck`` pass;
- no restore journal and no temporary file (``.NAME.rewind-PID-N.tmp``) is left;
- an interrupted restore or undo was finished or rolled back as a whole: the tree is entirely
  the one from before it or entirely the one it was putting back;
- every before-state of every ledger entry is still stored byte for byte, and a restore to a
  randomly chosen ledger entry brings its tree back byte for byte.

Every run also kills a 300-file restore and undo just before the rename of a chosen file, and
an object write just before its rename, so that those windows are hit whatever the timing.

The restore rounds also kill restores of a turn that deleted (or re-created) a file 1,100
folders deep, past Python's recursion limit, and pointed a symlink at targets of up to 4,000
bytes; and a command that was finishing an interrupted restore, killed in turn.

``REWIND_FAULTS=long`` kills each kind of process many more times (over 200 kills in all).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from rewind.history.entry import RESTORE, UNDO, Entry
from rewind.history.filestate import ABSENT, FILE
from rewind.history.filestate import LINK as LINK_KIND
from rewind.history.restoring import opening
from rewind.history.session import load_head
from rewind.history.sessions import read_entries
from rewind.store.repository import JOURNAL, Store
from rewind.store.root import find_root
from tests.conftest import store_dir
from tests.faults.fault_support import (
    LONG,
    Snapshot,
    check_store,
    difference,
    hook,
    hook_argv,
    make_deep,
    must,
    remove_tree,
    rewind_argv,
    run,
    run_and_kill,
    seeded_rng,
    snapshot,
    store_log,
    temporary_files,
    timed,
)
from tests.support.agent_payloads import ClaudeCode, Payload

SESSION = "killed"
FILES = 300
DEEP = 1100  # folders above the deep file: past Python's recursion limit
LINK = "links/far"
# Symlink targets the edge turns set, up to near the longest this system takes (4,095 bytes).
LINK_TARGET_LENGTHS = (1, 255, 3000, 4000)
NEW_FILES = 20  # names that do not exist at first: turns create them, restores delete them
# Kills per test (each kills several kinds of process): a sample for every run of the tests,
# and the long mode (over 200 kills in all). A round whose process ended before its kill
# counts no kill, so rounds go on until this many were killed (within a limit).
KILLS = 75 if LONG else 5


class World:
    """One project, its ledger of entries recorded by processes that were not killed, and the
    measured duration of each kind of process (the range its kill delay is drawn from)."""

    def __init__(self, root: Path, rng: random.Random, seed: int) -> None:
        self.root = root
        self.rng = rng
        self.seed = seed
        self.agent = ClaudeCode(root, session=SESSION)
        self.names = [f"src/m{i // 50}/f{i:03d}.txt" for i in range(FILES)]
        self.names += [f"new/d{i % 4}/n{i:02d}.txt" for i in range(NEW_FILES)]
        self.ledger: list[tuple[str, Snapshot]] = []  # (entry id, the tree just before it)
        self.durations: dict[str, float] = {}
        self.kills = 0
        self.outcomes: dict[str, int] = {}  # what the next command found after a killed restore
        self.rounds = 0
        self.version = 0
        for name in self.names[:FILES]:
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(self.content(name))
        (root / "deep").mkdir()
        self.deep = "deep/" + os.fsdecode(make_deep(root / "deep", DEEP, b"deep\n"))
        (root / LINK).parent.mkdir()
        (root / LINK).symlink_to("../src")

    # helpers --------------------------------------------------------------------------------

    @property
    def why(self) -> str:
        return f"[seed {self.seed}, round {self.rounds}, {self.kills} kills] "

    def content(self, name: str) -> bytes:
        self.version += 1
        filler = self.rng.randbytes(self.rng.randrange(0, 300)).hex()
        return f"{name} version {self.version}\n{filler}\n".encode()

    def tree(self) -> Snapshot:
        """The files' contents, the deep file's, and the symlink's target (as ``-> TARGET``)."""
        found = snapshot(self.root, [*self.names, self.deep])
        try:
            found[LINK] = b"-> " + os.readlink(os.fsencode(self.root / LINK))
        except FileNotFoundError:
            pass
        return found

    def rewind(self, *arguments: str) -> str:
        return must(rewind_argv(*arguments), self.root, why=self.why)

    def hook(self, payload: Payload | None) -> None:
        assert payload is not None
        hook(payload, self.root, why=self.why)

    def store(self) -> Store:
        assert not os.path.exists(store_dir(self.root) / "rewind" / JOURNAL), self.why
        return opening.open_store(find_root(os.fsencode(self.root)))

    def newest(self) -> Entry:
        entry = load_head(self.store(), SESSION).current
        assert entry is not None, self.why
        return entry

    def remember_newest(self, before: Snapshot) -> str:
        entry_id = self.newest().id
        if entry_id not in {known for known, _ in self.ledger}:
            self.ledger.append((entry_id, before))
        return entry_id

    def some_names(self, most: int) -> list[str]:
        return self.rng.sample(self.names, self.rng.randint(1, most))

    def change(self, name: str) -> None:
        """Writes a new content (or, now and then, deletes the file)."""
        path = self.root / name
        if path.exists() and self.rng.random() < 0.1:
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(self.content(name))

    def killed(self, kind: str, argv: list[str], stdin: str | None = None) -> None:
        """Runs ``argv`` to completion the first time (to measure it), then kills it at a
        random moment of that duration."""
        if kind not in self.durations:
            self.durations[kind] = timed(argv, self.root, stdin, self.why)
            return
        duration = self.durations[kind]
        delay = self.rng.uniform(0.1 * duration, 0.9 * duration)
        outcome = run_and_kill(argv, self.root, delay, stdin)
        if outcome.killed:
            self.kills += 1
        else:
            assert outcome.returncode == 0, f"{self.why}{kind}: {outcome.stderr}"

    # history recorded by processes that are not killed ---------------------------------------

    def turn_with_commands(self, names: list[str]) -> None:
        before = self.tree()
        self.rewind("begin", "--session", SESSION, "--prompt", f"turn {self.rounds}")
        self.remember_newest(before)
        self.rewind("track", "--session", SESSION, *names)
        for name in names:
            self.change(name)
        self.rewind("end", "--session", SESSION)

    def turn_with_hooks(self, names: list[str], end: bool = True) -> None:
        before = self.tree()
        self.hook(self.agent.prompt(f"turn {self.rounds}"))
        self.remember_newest(before)
        for name in names:
            self.edit(name)
        if end:
            self.hook(self.agent.end())

    def edit(self, name: str) -> None:
        pre, post = self.agent.write(name, self.content(name).decode())
        self.hook(pre)
        self.change(name)
        self.hook(post)

    def restore(self, entry_id: str, expected: Snapshot) -> None:
        before = self.tree()
        self.rewind("restore", entry_id, "--yes", "--session", SESSION)
        found = self.tree()
        assert found == expected, f"{self.why}restore {entry_id}: {difference(expected, found)}"
        self.remember_newest(before)

    # the next command, and the checks after a kill -------------------------------------------

    def next_command(self) -> None:
        """What runs after the kill: a person's command or the agent's next hook (which may
        say, as any command does, that it finished an interrupted restore)."""
        choice = self.rng.randrange(3)
        if choice == 0:
            self.rewind("status")
        elif choice == 1:
            self.rewind("log", "--session", SESSION)
        else:
            done = run(hook_argv(), self.root, json.dumps(self.agent.end()))
            notices = [line for line in done.stderr.splitlines() if "finished" not in line]
            assert (done.returncode, notices) == (0, []), f"{self.why}hook: {done.stderr}"

    def check(self) -> None:
        assert not (store_dir(self.root) / "rewind" / JOURNAL).exists(), self.why
        crashes = Path(os.environ["REWIND_HOME"]) / "crash.log"
        assert not crashes.exists(), f"{self.why}{crashes.read_text()}"
        assert "bug in rewind" not in store_log(self.root), f"{self.why}{store_log(self.root)}"
        assert temporary_files(self.root) == [], self.why
        check_store(self.root, self.why)
        self.check_ledger()
        self.rewind("end", "--session", SESSION)
        entry_id, expected = self.rng.choice(self.ledger)
        self.restore(entry_id, expected)

    def check_ledger(self) -> None:
        """Every before-state of every entry in the ledger is the content it had then."""
        store = self.store()
        entries = {entry.id: entry for entry in read_entries(store, load_head(store, SESSION))}
        for entry_id, before in self.ledger:
            assert entry_id in entries, f"{self.why}entry {entry_id} is gone"
            for change in entries[entry_id].files:
                name = os.fsdecode(change.path)
                state = change.before
                assert state is not None, f"{self.why}{entry_id} {name}: no before-state"
                if name not in before:
                    assert state.kind == ABSENT, f"{self.why}{entry_id} {name}: {state.kind}"
                    continue
                assert state.kind in (FILE, LINK_KIND) and state.oid, f"{self.why}{entry_id} {name}"
                data = store.reader.read_blob(state.oid)
                if state.kind == LINK_KIND:
                    data = b"-> " + data
                assert data == before[name], f"{self.why}{entry_id} {name}: wrong pre-image"

    # rounds, one per kind of process killed --------------------------------------------------

    def round(self, kind: str) -> None:
        self.rounds += 1
        getattr(self, "kill_" + kind.replace("-", "_"))()
        self.next_command()
        self.check()

    def kill_track(self) -> None:
        names = self.some_names(30)
        self.turn_with_commands(self.some_names(5))
        before = self.tree()
        self.rewind("begin", "--session", SESSION, "--prompt", f"turn {self.rounds}")
        self.remember_newest(before)
        self.killed("track", rewind_argv("track", "--session", SESSION, *names))
        # The agent goes on: the same paths again, then the change.
        self.rewind("track", "--session", SESSION, *names)
        for name in names:
            self.change(name)

    def kill_end(self) -> None:
        self.turn_with_commands(self.some_names(5))
        before = self.tree()
        self.rewind("begin", "--session", SESSION, "--prompt", f"turn {self.rounds}")
        self.remember_newest(before)
        names = self.some_names(40)
        self.rewind("track", "--session", SESSION, *names)
        for name in names:
            self.change(name)
        self.killed("end", rewind_argv("end", "--session", SESSION))

    def kill_hook_before_edit(self) -> None:
        self.turn_with_hooks(self.some_names(3), end=False)
        name = self.rng.choice(self.names)
        pre, post = self.agent.write(name, self.content(name).decode())
        self.killed("hook-before-edit", hook_argv(), json.dumps(pre))
        self.hook(pre)  # the agent's next call for the same file
        self.change(name)
        self.hook(post)

    def kill_hook_after_edit(self) -> None:
        self.turn_with_hooks(self.some_names(3), end=False)
        name = self.rng.choice(self.names)
        pre, post = self.agent.write(name, self.content(name).decode())
        self.hook(pre)
        self.change(name)
        self.killed("hook-after-edit", hook_argv(), json.dumps(post))
        self.edit(self.rng.choice(self.names))

    def kill_hook_prompt(self) -> None:
        self.turn_with_hooks(self.some_names(3), end=False)
        self.killed("hook-prompt", hook_argv(), json.dumps(self.agent.prompt("killed")))
        self.turn_with_hooks(self.some_names(3), end=False)

    def kill_hook_stop(self) -> None:
        self.turn_with_hooks(self.some_names(5), end=False)
        self.killed("hook-stop", hook_argv(), json.dumps(self.agent.end()))

    def kill_restore(self) -> None:
        target, expected = self.bulk_turn()
        self.interrupted(
            "restore", rewind_argv("restore", target, "--yes", "--session", SESSION), expected
        )

    def kill_undo(self) -> None:
        target, expected = self.bulk_turn()
        before_restore = self.tree()
        self.restore(target, expected)
        self.interrupted("undo", rewind_argv("undo", "--yes", "--session", SESSION), before_restore)

    def kill_edge_restore(self) -> None:
        target, expected = self.edge_turn()
        self.interrupted(
            "edge-restore", rewind_argv("restore", target, "--yes", "--session", SESSION), expected
        )

    def kill_finish(self) -> None:
        """A restore killed before one of its renames, then the command finishing it killed
        at a random moment in turn: the next one must still leave no mix."""
        target, expected = self.bulk_turn()
        argv = rewind_argv("restore", target, "--yes", "--session", SESSION)
        self.interrupted("finish", argv, expected, self.rng.randrange(2, FILES), finisher=True)

    def kill_gc(self) -> None:
        self.turn_with_commands(self.some_names(20))
        self.turn_with_hooks(self.some_names(3))
        self.killed("gc", rewind_argv("gc"))

    def bulk_turn(self) -> tuple[str, Snapshot]:
        """A turn that changes every file, so that restoring to it rewrites 300 of them."""
        before = self.tree()
        self.rewind("begin", "--session", SESSION, "--prompt", f"bulk {self.rounds}")
        entry_id = self.remember_newest(before)
        self.rewind("track", "--session", SESSION, *self.names[:FILES])
        for name in self.names[:FILES]:
            (self.root / name).write_bytes(self.content(name))
        self.rewind("end", "--session", SESSION)
        return entry_id, before

    def edge_turn(self) -> tuple[str, Snapshot]:
        """A turn that deletes the deep file (or makes it again, with its 1,100 folders),
        points the symlink elsewhere and changes a hundred files."""
        before = self.tree()
        self.rewind("begin", "--session", SESSION, "--prompt", f"edges {self.rounds}")
        entry_id = self.remember_newest(before)
        names = self.some_names(100)
        self.rewind("track", "--session", SESSION, self.deep, LINK, *names)
        if self.deep in before:
            remove_tree(self.root / "deep" / "a")
        else:
            make_deep(self.root / "deep", DEEP, self.content(self.deep))
        length = self.rng.choice(LINK_TARGET_LENGTHS)
        target = ("../" * length)[: length - 1] + "x"
        (self.root / LINK).unlink()
        (self.root / LINK).symlink_to(target)
        for name in names:
            self.change(name)
        self.rewind("end", "--session", SESSION)
        return entry_id, before

    def interrupted(
        self,
        kind: str,
        argv: list[str],
        after: Snapshot,
        at_write: int | None = None,
        finisher: bool = False,
    ) -> None:
        """Kills a restore or undo that takes the tree to ``after`` (at a random moment, or
        just before the rename of its ``at_write``-th file; with ``finisher``, the command
        that finishes it is killed at a random moment too); the next command must leave the
        tree entirely as it was or entirely at ``after``, never a mix."""
        before = self.tree()
        newest = self.newest().id
        log_before = store_log(self.root)
        if at_write is None:
            self.killed(kind, argv)
        else:
            done = run([argv[0], "-c", KILL_AT_WRITE, str(at_write), *argv[3:]], self.root)
            assert done.returncode == -9, f"{self.why}{kind}: {done.stderr}"
            assert temporary_files(self.root), "killed before a rename: its file is left"
            self.kills += 1
        if finisher:
            self.killed(kind, rewind_argv("status"))
        self.next_command()
        found = self.tree()
        assert found in (before, after), (
            f"{self.why}{kind} left a mixed tree: "
            f"{len(difference(before, found))} file(s) differ from before it, "
            f"{len(difference(after, found))} from after it"
        )
        entry = self.newest()
        if found == after and before != after:
            assert entry.kind in (RESTORE, UNDO) and entry.id != newest, self.why
            self.ledger.append((entry.id, before))
            outcome = "carried out or finished"
        else:
            assert entry.id == newest, f"{self.why}{kind} recorded but not carried out"
            outcome = "rolled back"
        if "which was interrupted" in store_log(self.root)[len(log_before) :]:
            outcome = "finished by the next command"
        self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1


# A restore or undo (``python -c KILL_AT_WRITE N rewind-arguments...``) that kills itself once
# it has written its N-th file under the temporary name, before renaming it into place.
KILL_AT_WRITE = """
import os, signal, sys
import rewind.history.restoring.restore
from rewind.cli import main

original, count, at = rewind.history.restoring.restore.replace_file, [0], int(sys.argv[1])

def replace_file(*arguments):
    count[0] += 1
    if count[0] == at:
        os.replace = lambda *_: os.kill(os.getpid(), signal.SIGKILL)
    original(*arguments)

rewind.history.restoring.restore.replace_file = replace_file
sys.exit(main(sys.argv[2:]))
"""

HOOKS = ["hook-before-edit", "hook-after-edit", "hook-prompt", "hook-stop"]
COMMANDS = ["track", "end", "gc"]
RESTORES = ["restore", "undo", "edge-restore", "finish"]


@pytest.fixture(autouse=True)
def deep_trees_removed(tmp_path: Path) -> Iterator[None]:
    yield
    remove_tree(tmp_path)


@pytest.mark.parametrize(
    "kinds", [HOOKS, COMMANDS, RESTORES], ids=["hooks", "commands", "restores"]
)
def test_kill_nine_at_random_moments(project: Path, kinds: list[str]) -> None:
    rng, seed = seeded_rng(f"kill -9 of {', '.join(kinds)}")
    world = World(project, rng, seed)
    for kind in kinds:  # the first round of each kind measures it
        world.round(kind)
    while world.kills < KILLS and world.rounds < 4 * KILLS + len(kinds):
        world.round(rng.choice(kinds))
    print(
        f"kill -9 of {', '.join(kinds)}: {world.kills} kills in {world.rounds} rounds; "
        f"durations {', '.join(f'{k} {v * 1000:.0f} ms' for k, v in world.durations.items())}"
        + (f"; restores and undos: {world.outcomes}" if world.outcomes else "")
    )
    logged = [line.split("] ", 1)[-1][:70] for line in store_log(project).splitlines()]
    print(f"the store's log: {len(logged)} line(s); {sorted(set(logged))[:8]}")
    assert world.kills > 0, world.why


@pytest.mark.parametrize("kind", ["restore", "undo"])
def test_restore_killed_halfway_is_finished_by_the_next_command(project: Path, kind: str) -> None:
    rng, seed = seeded_rng(f"{kind} killed halfway")
    world = World(project, rng, seed)
    target, expected = world.bulk_turn()
    argv = rewind_argv("restore", target, "--yes", "--session", SESSION)
    if kind == "undo":
        expected = world.tree()
        world.restore(target, world.ledger[-1][1])
        argv = rewind_argv("undo", "--yes", "--session", SESSION)
    world.interrupted(kind, argv, expected, at_write=rng.randrange(2, FILES))
    assert world.tree() == expected
    assert world.outcomes == {"finished by the next command": 1}
    world.check()


def test_command_finishing_a_restore_killed_before_its_rename(project: Path) -> None:
    """A restore killed before a rename, then the command finishing it killed before one of
    its own renames: the next command finishes the restore and removes both processes'
    temporary files (not only those of the restore the journal names)."""
    rng, seed = seeded_rng("finisher killed before its rename")
    world = World(project, rng, seed)
    target, expected = world.bulk_turn()
    argv = rewind_argv("restore", target, "--yes", "--session", SESSION)
    for arguments in (argv[3:], ["status"]):
        done = run([argv[0], "-c", KILL_AT_WRITE, "2", *arguments], project)
        assert done.returncode == -9, f"{world.why}{done.stderr}"
    assert len(temporary_files(project)) == 2, "each killed process left its file"
    world.rewind("status")
    assert world.tree() == expected
    world.check()


def test_object_write_killed_before_its_rename(project: Path) -> None:
    """A writer killed between writing an object's temporary file and renaming it leaves a
    file that git's fsck must not take for a bad object, and that gc removes once it is old."""
    (project / "a.txt").write_text("one\n")
    must(rewind_argv("track", "--session", SESSION, "a.txt"), project)
    store = store_dir(project)
    killer = (
        "import os, signal, sys\n"
        "from rewind.store.objects import ObjectWriter\n"
        "os.replace = lambda *_: os.kill(os.getpid(), signal.SIGKILL)\n"
        "ObjectWriter(sys.argv[1]).write_blob(b'killed before its rename')\n"
    )
    done = subprocess.run([sys.executable, "-c", killer, str(store)], check=False)
    assert done.returncode == -9
    [left] = [path for path in (store / "objects").glob("*/*") if len(path.name) != 38]
    check_store(project)
    must(rewind_argv("gc"), project)
    assert left.exists()  # it may be a live writer's: only old ones go
    then = time.time() - 2 * 60 * 60
    os.utime(left, (then, then))
    must(rewind_argv("gc"), project)
    assert not left.exists()
    check_store(project)


# A rewind command (``python -c KILL_AT_RETIRE rewind-arguments...``) that is killed once it has
# committed a turn's journal records, just before it removes the journal.
KILL_AT_RETIRE = """
import os, signal, sys
import rewind.history.journal
from rewind.cli import main

rewind.history.journal.retire = lambda *_: os.kill(os.getpid(), signal.SIGKILL)
sys.exit(main(sys.argv[1:]))
"""


def test_end_killed_before_removing_its_journal_loses_no_later_record(project: Path) -> None:
    """``rewind end`` killed after committing the turn (its journal's records absorbed) but
    before removing the journal: the agent's next hook records into a new turn, not into the
    old journal, where the next fold would find records of a closed turn and set them aside."""
    rng, seed = seeded_rng("end killed before removing its journal")
    world = World(project, rng, seed)
    world.turn_with_hooks(world.rng.sample(world.names[1:], 5), end=False)
    argv = rewind_argv("end", "--session", SESSION)
    done = run([argv[0], "-c", KILL_AT_RETIRE, *argv[3:]], project)
    assert done.returncode == -9, done.stderr
    world.kills += 1
    # The agent goes on, without a prompt (an agent whose turns rewind does not see).
    before = world.tree()
    name = world.names[0]
    world.edit(name)
    world.hook(world.agent.end())
    entry = world.newest()
    assert entry.file(name.encode()) is not None, f"{world.why}the record of {name} was lost"
    world.ledger.append((entry.id, before))
    assert "set aside" not in store_log(project), store_log(project)
    world.check()
