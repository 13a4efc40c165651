"""One suite, every kind of store: what any store rewind reads promises, checked against a
project's store with its objects loose, the same store once packed, and the read-only view of
the same sessions fetched from a remote (rewind.history.remote.fetched: a mirror's pack, its
refs under ``refs/rewind/machines/MACHINE/``). Each test runs once per kind, as dulwich runs its
object store tests against each of its object stores.

The fetched view is made as ``rewind fetch`` leaves it (one pack, the machine's refs), in this
process: the objects are packed into the mirror by libgit2, and no git is started.
"""

from __future__ import annotations

import glob
import hashlib
import os
import shutil
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from rewind.errors import DamagedEntry, MissingObject, StoreError
from rewind.history import commits
from rewind.history.commits import RECORD_NAME
from rewind.history.entry import Entry
from rewind.history.filestate import ABSENT, FileState
from rewind.history.insight.labels import add_label
from rewind.history.lookup import entries_from, find, newest
from rewind.history.recording.turns import begin, record_after, record_after_states, track
from rewind.history.remote.fetched import ensure_mirror, view_of
from rewind.history.restoring.restore import apply_plan
from rewind.history.restoring.restore_plan import plan_restore
from rewind.history.session import forget_session, load_head, session_ref
from rewind.history.sessions import labels_of, list_sessions, read_entries
from rewind.history.upkeep import retention
from rewind.store.config import Retention, load_config
from rewind.store.objects import SHALLOW, WrongKind
from rewind.store.packed import build_pack, forget_repository
from rewind.store.remotes import mirror_dir
from rewind.store.repository import DamagedRef, ReadOnlyStore, Store
from rewind.store.root import Root
from tests.support.histories import History, make_project

pytestmark = pytest.mark.unit

KINDS = ("loose", "packed", "fetched")
MACHINE = "laptop-3fa2b1"
REMOTE = "origin"


def blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class Subject:
    """A store of one kind holding the reference history, and what is known of that history."""

    def __init__(self, kind: str, store: Store, local: Store) -> None:
        self.kind = kind
        self.store = store
        # The entries as the project's own store (the one they were recorded in) reads them.
        self.entries = {s: read_entries(local, load_head(local, s)) for s in ("s", "t")}

    @property
    def read_only(self) -> bool:
        return self.kind == "fetched"

    def commit_of(self, session: str, number: int) -> str:
        """The commit that records entry ``number`` of ``session``, walking from the tip."""
        commit = self.store.read_ref(session_ref(self.store, session))
        entries = self.entries[session]
        for _ in range(len(entries) - number):
            assert commit is not None
            commit = self.store.reader.read_commit(commit)[1]
        assert commit is not None
        return commit


CONTENTS = (b"one\n", b"two\n", b"three\n", b"t's\n", b"#!/bin/sh\n")


def reference_history(tmp_path: Path) -> History:
    """Session s: three turns of a.txt (one, two, three) and run.sh made executable, turn 2
    labelled; session t: one turn of t.txt."""
    history = History(make_project(tmp_path))
    history.write("a.txt", "one\n")
    history.write("run.sh", "#!/bin/sh\n", mode=0o644)
    history.turns("a.txt", "two\n", "three\n")
    with history.turn("bits") as turn:
        turn.track("run.sh")
        history.path("run.sh").chmod(0o755)
    add_label(history.store, "s", "2", "keep")
    history.turns("t.txt", "t's\n", session="t")
    return history


def loose_objects(git_dir: str) -> list[str]:
    objects = os.path.join(git_dir, "objects")
    return sorted(
        folder + name
        for folder in os.listdir(objects)
        if len(folder) == 2
        for name in os.listdir(os.path.join(objects, folder))
    )


def pack_everything(source: str, into: str) -> None:
    """Packs every loose object of the repository ``source`` into the repository ``into``."""
    oids = loose_objects(source)
    build_pack(source, os.path.join(into, "objects", "pack"), [bytes.fromhex(o) for o in oids])
    forget_repository(into)


def packed(history: History) -> Store:
    git_dir = history.store.git_dir
    oids = loose_objects(git_dir)
    pack_everything(git_dir, git_dir)
    for oid in oids:
        os.unlink(history.store.writer.path_of(oid))
    forget_repository(git_dir)
    assert loose_objects(git_dir) == []
    return history.store


def fetched(history: History) -> Store:
    store = history.store
    mirror = ensure_mirror(store, REMOTE)
    pack_everything(store.git_dir, mirror)
    for prefix, folder in (
        ("refs/rewind/sessions/", "sessions"),
        ("refs/rewind/labels/", "labels"),
    ):
        for ref in store.all_ref_names(prefix):
            tip = store.read_ref(ref)
            assert tip is not None
            theirs = f"refs/rewind/machines/{MACHINE}/{folder}/{ref[len(prefix) :]}"
            Store(mirror, store.root, store.config).write_ref(theirs, tip)
    return view_of(store, REMOTE, mirror, MACHINE)


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Each kind of store, holding the reference history, made once for the module: each test
    gets a copy of its own. Made with a rewind home of their own (the tests' temporary homes
    are set only once each test starts)."""
    top = tmp_path_factory.mktemp("stores")
    for kind, made in (("loose", lambda h: h.store), ("packed", packed), ("fetched", fetched)):
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("REWIND_HOME", str(top / kind / "home"))
            store = made(reference_history(top / kind))
            forget_repository(store.git_dir)
    return top


def copied(templates: Path, kind: str, tmp_path: Path) -> tuple[Store, Store]:
    """A copy of the template of ``kind``: its store as the tests read it, and the project's
    own store."""
    shutil.copytree(templates / kind, tmp_path / kind, symlinks=True)
    root = os.fsencode(tmp_path / kind / "project")
    [git_dir] = glob.glob(str(tmp_path / kind / "home" / "stores" / "*"))
    local = Store(git_dir, Root(root), load_config(root, git_dir))
    if kind != "fetched":
        return local, local
    return view_of(local, REMOTE, mirror_dir(local, REMOTE), MACHINE), local


def made(templates: Path, kind: str, tmp_path: Path) -> Iterator[Subject]:
    store, local = copied(templates, kind, tmp_path)
    yield Subject(kind, store, local)
    forget_repository(store.git_dir)


@pytest.fixture(params=KINDS)
def subject(request: pytest.FixtureRequest, templates: Path, tmp_path: Path) -> Iterator[Subject]:
    yield from made(templates, request.param, tmp_path)


@pytest.fixture(params=[kind for kind in KINDS if kind != "fetched"])
def writable(request: pytest.FixtureRequest, templates: Path, tmp_path: Path) -> Iterator[Subject]:
    """The kinds of store rewind writes into."""
    yield from made(templates, request.param, tmp_path)


# objects ---------------------------------------------------------------------------------------


def test_blobs_read_back_byte_for_byte(subject: Subject) -> None:
    for data in CONTENTS:
        assert subject.store.reader.read_blob(blob_id(data)) == data


def test_sizes_come_from_the_objects_headers(subject: Subject) -> None:
    reader = subject.store.reader
    for data in CONTENTS:
        assert reader.size(blob_id(data)) == len(data)
    commit = subject.commit_of("s", 1)
    tree, _ = reader.read_commit(commit)
    assert reader.size(commit) == len(reader.read(commit, b"commit"))
    assert reader.size(tree) == len(reader.read(tree, b"tree"))


def test_an_entrys_commit_and_tree_read_back(subject: Subject) -> None:
    reader = subject.store.reader
    first, second = subject.commit_of("s", 1), subject.commit_of("s", 2)
    tree, parent = reader.read_commit(second)
    assert parent == first
    assert reader.read_commit(first)[1] is None
    names = {name for name, _, _ in reader.read_tree(tree)}
    assert names == {RECORD_NAME, b"files"}
    files = dict((name, oid) for name, _, oid in reader.read_tree(
        next(oid for name, _, oid in reader.read_tree(tree) if name == b"files")
    ))  # fmt: skip
    assert files == {b"0.before": blob_id(b"two\n"), b"0.after": blob_id(b"three\n")}


def test_a_missing_object_is_missing(subject: Subject) -> None:
    absent = "0" * 40
    with pytest.raises(MissingObject, match=f"object {absent} is missing from the store"):
        subject.store.reader.read_blob(absent)
    with pytest.raises(MissingObject):
        subject.store.reader.size(absent)


def test_an_object_of_another_kind_is_refused(subject: Subject) -> None:
    reader = subject.store.reader
    with pytest.raises(WrongKind, match="is a blob, not a commit"):
        reader.read_commit(blob_id(b"one\n"))
    with pytest.raises(WrongKind, match="is a commit, not a tree"):
        reader.read_tree(subject.commit_of("s", 1))


def test_a_damaged_object_is_an_error_never_other_content(subject: Subject) -> None:
    oid = blob_id(b"two\n")
    git_dir = subject.store.git_dir
    if subject.kind == "loose":
        path = subject.store.writer.path_of(oid)
        os.chmod(path, 0o644)
        Path(path).write_bytes(zlib.compress(b"blob 4\0TWO\n"))
    else:
        [pack] = glob.glob(os.path.join(git_dir, "objects", "pack", "*.pack"))
        data = bytearray(Path(pack).read_bytes())
        for index in range(12, len(data) - 20):  # every object's bytes, header and trailer kept
            data[index] ^= 0x55
        Path(pack).write_bytes(bytes(data))
        forget_repository(git_dir)
    with pytest.raises(StoreError, match="is corrupted"):
        subject.store.reader.read_blob(oid)


# refs ------------------------------------------------------------------------------------------


def test_each_sessions_ref_names_its_newest_entry(subject: Subject) -> None:
    store = subject.store
    assert store.ref_names(store.sessions_prefix) == [
        store.sessions_prefix + "s",
        store.sessions_prefix + "t",
    ]
    tip = store.read_ref(session_ref(store, "s"))
    assert tip == subject.commit_of("s", 3)
    assert store.read_ref(session_ref(store, "nope")) is None


def test_labels_name_their_entries(subject: Subject) -> None:
    second = subject.entries["s"][1]
    assert labels_of(subject.store, "s") == {second.id: ["keep"]}
    assert labels_of(subject.store, "t") == {}


def test_a_damaged_ref_is_an_error_never_a_missing_session(subject: Subject) -> None:
    store = subject.store
    ref = session_ref(store, "s")
    Path(store.git_dir, ref).write_text("not a commit id\n")
    with pytest.raises(DamagedRef, match=f"the store's ref {ref} is damaged"):
        store.read_ref(ref)
    damaged: list[DamagedRef] = []
    assert [s.head.session_id for s in list_sessions(store, damaged)] == ["t"]
    assert [error.ref for error in damaged] == [ref]


def test_packed_refs_are_read_as_loose_ones(subject: Subject) -> None:
    store = subject.store
    ref = session_ref(store, "t")
    tip = store.read_ref(ref)
    os.unlink(os.path.join(store.git_dir, ref))
    Path(store.git_dir, "packed-refs").write_text(
        f"# pack-refs with: peeled fully-peeled sorted\n{tip} {ref}\ndamaged line\n"
    )
    assert store.read_ref(ref) == tip
    assert ref in store.ref_names(store.sessions_prefix)
    assert [e.prompt for e in read_entries(store, load_head(store, "t"))] == ["write 1"]


def test_a_ref_naming_a_blob_is_reported_not_read_as_a_session(subject: Subject) -> None:
    store = subject.store
    Path(store.git_dir, session_ref(store, "t")).write_text(blob_id(b"one\n") + "\n")
    damaged: list[DamagedRef] = []
    assert [s.head.session_id for s in list_sessions(store, damaged)] == ["s"]
    assert "is a blob, not a commit" in str(damaged[0])


# the history read through the store ------------------------------------------------------------


def test_sessions_and_entries_read_alike(subject: Subject) -> None:
    store = subject.store
    assert [s.head.session_id for s in list_sessions(store)] == ["s", "t"]
    for session, expected in subject.entries.items():
        read = read_entries(store, load_head(store, session))
        assert [e.to_json() for e in read] == [e.to_json() for e in expected]


def test_the_contents_entries_recorded_read_back(subject: Subject) -> None:
    entries = read_entries(subject.store, load_head(subject.store, "s"))
    change = entries[0].files[0]
    assert change.before is not None and change.after is not None
    reader = subject.store.reader
    assert (
        reader.read_blob(change.before.oid or ""),
        reader.read_blob(change.after.oid or ""),
    ) == (
        b"one\n",
        b"two\n",
    )
    bits = entries[2].files[0]
    assert bits.before is not None and bits.after is not None
    assert (bits.before.mode, bits.after.mode) == (0o644, 0o755)


def test_the_index_finds_entries_by_number_and_id(subject: Subject) -> None:
    store = subject.store
    head = load_head(store, "s")
    expected: list[Entry] = subject.entries["s"]
    assert find(store, head, "2").id == expected[1].id
    assert find(store, head, expected[2].id[:8]).number == 3
    first, rest = entries_from(store, head, "2")
    assert (first.number, [e.number for e in rest]) == (2, [2, 3])
    assert [e.number for e in newest(store, head, 2)] == [2, 3]


def test_a_cut_in_shallow_starts_the_history_there(subject: Subject) -> None:
    store = subject.store
    cut = subject.commit_of("s", 2)
    Path(store.git_dir, SHALLOW).write_text(cut + "\n")
    assert store.reader.read_commit(cut)[1] is None
    assert [e.number for e in read_entries(store, load_head(store, "s"))] == [2, 3]


def test_a_record_larger_than_allowed_is_refused_only_when_fetched(
    subject: Subject, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(commits, "RECORD_BYTES", 100)  # every turn.json here is larger
    commit = subject.commit_of("s", 1)
    if subject.read_only:
        with pytest.raises(DamagedEntry, match=r"its turn\.json is larger than 100 bytes"):
            commits.read_entry(subject.store, commit, "s")
    else:
        assert commits.read_entry(subject.store, commit, "s")[0].number == 1


def test_what_the_store_is_checked_with(subject: Subject) -> None:
    expected = f"rewind check --remote {REMOTE}" if subject.read_only else "rewind check"
    assert subject.store.check_command == expected
    assert subject.store.disk_usage() > 0


# writing ---------------------------------------------------------------------------------------


def take_the_lock(store: Store) -> None:
    with store.lock():
        pass


def writers(subject: Subject) -> dict[str, object]:
    """Each way of writing into a store, as a thing to call."""
    store = subject.store
    head = load_head(store, "s")
    entries = read_entries(store, head)
    everything_old = Retention(keep_days=0, keep_last=1)  # a cut of session s
    later = time.time() + 60
    return {
        "lock": lambda: take_the_lock(store),
        "begin": lambda: begin(store, "s", prompt="more"),
        "track": lambda: track(store, "s", [b"a.txt"]),
        "after": lambda: record_after_states(store, "s", [b"a.txt"], {b"a.txt": FileState(ABSENT)}),
        "end": lambda: record_after(store, "s", close=True),
        "label": lambda: add_label(store, "s", "1", "another"),
        "restore": lambda: apply_plan(store, plan_restore(store, entries, entries[0]), force=True),
        "retention": lambda: retention.apply(store, retention.plan(store, everything_old, later)),
        "forget": lambda: forget_session(store, head),
    }


@pytest.mark.parametrize(
    "writer",
    ["lock", "begin", "track", "after", "end", "label", "restore", "retention", "forget"],
)
def test_every_writer_refuses_a_fetched_view_and_works_on_a_projects_store(
    subject: Subject, writer: str
) -> None:
    call = writers(subject)[writer]
    assert callable(call)
    if subject.read_only:
        tips = {ref: subject.store.read_ref(ref) for ref in subject.store.all_ref_names("refs/")}
        with pytest.raises(ReadOnlyStore, match="sessions fetched from a remote are read-only"):
            call()
        assert {
            ref: subject.store.read_ref(ref) for ref in subject.store.all_ref_names("refs/")
        } == tips
    else:
        call()


def test_writing_an_object_that_is_there_already_keeps_it(writable: Subject) -> None:
    store = writable.store
    assert store.writer.write_blob(b"one\n") == blob_id(b"one\n")
    assert store.reader.read_blob(blob_id(b"one\n")) == b"one\n"
    assert store.writer.write_blob(b"new\n") == blob_id(b"new\n")
    assert store.reader.size(blob_id(b"new\n")) == 4
