"""What a push sends of a session's kept conversation (``[conversation] share``): its chain,
**redacted** (rewind.history.remote.redaction), and the same redaction of what came back from a
remote before it is shown or resumed.

Which private files are looked for: never the whole work tree (a push costs what the session
touched, not what the project holds), but the files the session's entries recorded and the
files the conversation names (rewind.history.remote.named_paths) or that a named link leads
to, among them those the sharing policy holds back (rewind.history.remote.privacy). Their
contents are what the entries recorded of them and what the file holds now.

The chain sent is the kept one with each commit rewritten where its slice or reply changed: the
same name, message, author and time, on the rewritten parent. A slice whose transcript, up to
its end, differs from what the agent wrote gains a line ``shared SIZE FINGERPRINT``: the size of
the redacted transcript up to there and the fingerprint of its last bytes, which a resume
checks in place of the turn's own cut point (rewind.history.conversation.branch). A chain with
nothing to redact is sent as it is.

What each commit became is kept in ``<store>/rewind/shared-conversations/<session>.json``, with
the names each slice gives and what was redacted of it, under a **signature** (the sharing
policy's key, the private files' contents, the rules' version): a push after one more turn
reads and redacts that turn's slice and reply only, and a change of any of these redacts the
whole chain again (a change of the rules reads the names again too).
"""

from __future__ import annotations

import os
from collections.abc import Callable

from rewind.history.filestate import FILE
from rewind.history.kept_conversation import (
    FINGERPRINT_BYTES,
    REPLY,
    SHARED,
    SLICE,
    KeptCommit,
    chain,
    chain_commits,
    tail_fingerprint,
)
from rewind.history.remote.named_paths import Names, existing_file, linked_targets, names_in
from rewind.history.remote.privacy import SharingPolicy
from rewind.history.remote.redaction import Found, Redactor
from rewind.history.session import SessionHead, ref_leaf
from rewind.store.atomic import write_text_atomically
from rewind.store.digest import sha1_hex
from rewind.store.fastjson import dumps, load_object
from rewind.store.objects import MODE_FILE, encode_tree
from rewind.store.packs import Packs
from rewind.store.repository import Store

RECORDS = "shared-conversations"
# The version of what is redacted: a change of the rules redacts every chain again.
RULES = "2"
# The most of a private file's recorded versions whose contents are looked for.
MAX_VERSIONS = 64


class Shared:
    """What a push sends of one session's conversation: the tip of the chain sent, and what
    was redacted of the whole chain."""

    __slots__ = ("found", "tip")

    def __init__(self, tip: str | None, found: Found) -> None:
        self.tip = tip
        self.found = found


class _Prefix:
    """The redacted transcript up to one slice's end: its size, whether it differs from what
    the agent wrote, the slice's redacted blob and the prefix before it."""

    __slots__ = ("before", "blob", "changed", "size")

    def __init__(self, blob: str, size: int, changed: bool, before: _Prefix | None) -> None:
        self.blob = blob
        self.size = size
        self.changed = changed
        self.before = before


class ConversationExporter:
    """Redacts sessions' kept conversations for a push (see the module's doc)."""

    def __init__(self, store: Store, policy: SharingPolicy) -> None:
        self.store = store
        self.policy = policy
        self.pending: dict[str, dict[str, object]] = {}  # records to keep once pushed
        self._packs: Packs | None = None
        self._redacted: dict[str, bytes] = {}  # the blobs redacted in this export (a dry run
        # does not write them)

    def export(self, head: SessionHead, write: bool = True) -> Shared:
        """The redacted chain of ``head``'s session (its objects written when ``write``; a dry
        run only counts)."""
        leaf = ref_leaf(head.session_id)
        self._redacted = {}
        commits = chain_commits(self.store, head.session_id)
        record = _load(self._record_path(leaf))
        names, named = self._names(commits, record)
        private = self._private_files(head, names)
        signature = _signature(self.policy.key, private)
        known = record.get("exports") if record.get("signature") == signature else None
        known = known if isinstance(known, dict) else {}
        redactor: list[Redactor] = []  # made on first use: nothing to redact costs no reading
        exports: dict[str, dict[str, object]] = {}
        prefixes: dict[tuple[str, int], _Prefix] = {}
        total = Found()
        parent: str | None = None
        for commit, raw, kept in commits:
            done = known.get(commit)
            if not (isinstance(done, dict) and done.get("parent") == parent and self._has(done)):
                if not redactor:
                    redactor.append(Redactor(private))
                done = self._export_one(commit, raw, kept, parent, prefixes, redactor[0], write)
            _follow(kept, done, prefixes)
            total.add(Found.from_json(done.get("found")))
            exports[commit] = done
            parent = str(done["id"])
        if write:
            record = {"rules": RULES, "names": named, "signature": signature}
            self.pending[leaf] = {**record, "exports": exports}
        self.close()
        return Shared(parent, total)

    def save(self) -> None:
        """Keeps what the exports became, once a push made them reachable (a cache)."""
        for leaf, record in self.pending.items():
            path = self._record_path(leaf)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            write_text_atomically(path, dumps(record))
        self.pending = {}

    def close(self) -> None:
        if self._packs is not None:
            self._packs.close()
            self._packs = None

    def _record_path(self, leaf: str) -> str:
        return os.path.join(self.store.state_path(RECORDS), f"{leaf}.json")

    # what is private -----------------------------------------------------------------------

    def _names(
        self, commits: list[tuple[str, bytes, KeptCommit]], record: dict[str, object]
    ) -> tuple[Names, dict[str, object]]:
        """The names the chain's slices give (each slice read once: kept in the record, under
        the rules that read them)."""
        kept = record.get("names") if record.get("rules") == RULES else None
        known = kept if isinstance(kept, dict) else {}
        named: dict[str, object] = {}
        names = Names()
        for commit, _, one in commits:
            found = known.get(commit)
            if not isinstance(found, list) or len(found) != 2:
                given = Names()
                if one.name.endswith(SLICE):
                    given = names_in(self.store.reader.read_blob(one.blob))
                found = [sorted(given.names), sorted(given.directories)]
            named[commit] = found
            names.names.update(str(name) for name in found[0])
            names.directories.update(str(name) for name in found[1])
        return names, named

    def _private_files(self, head: SessionHead, names: Names) -> dict[str, list[bytes]]:
        """The private files the session recorded or its conversation names, with their
        contents (recorded, and on disk now)."""
        recorded = _recorded_versions(self.store, head)
        named = _named(self.store, names)
        private = self.policy.private(named | set(recorded))
        found: dict[str, list[bytes]] = {}
        for path in sorted(private):
            contents = []
            for oid in sorted(recorded.get(path, ()))[:MAX_VERSIONS]:
                contents.append(self.store.reader.read_blob(oid)[: 1 << 20])
            if not path.startswith(b"/"):
                now = existing_file(self.store.root.path, os.fsdecode(path))
                if now is not None:
                    contents.append(now)
            if contents:
                found[self.store.root.display(path)] = contents
        return found

    # rewriting the chain --------------------------------------------------------------------

    def _export_one(
        self,
        commit: str,
        raw: bytes,
        kept: KeptCommit,
        parent: str | None,
        prefixes: dict[tuple[str, int], _Prefix],
        redactor: Redactor,
        write: bool,
    ) -> dict[str, object]:
        """One commit of the chain redacted, on the exported ``parent``."""
        found = Found()
        data = self.store.reader.read_blob(kept.blob)
        if kept.name.endswith(REPLY):
            text = data.decode("utf-8", "replace")
            redacted = redactor.text(text, found).encode("utf-8") if data else data
        else:
            redacted = redactor.transcript(data, found)
        blob = kept.blob if redacted == data else _object(self.store, b"blob", redacted, write)
        self._redacted[blob] = redacted
        message = kept.message
        done: dict[str, object] = {"parent": parent, "found": found.to_json(), "blob": blob}
        piece = kept.as_slice()
        if piece is not None:
            before = prefixes.get((piece.transcript, piece.start)) if piece.start else None
            size = (before.size if before else 0) + len(redacted)
            changed = redacted != data or (before is not None and before.changed)
            done.update(size=size, changed=changed)
            if changed:
                tail = self._tail(redacted, before)
                message = message.rstrip("\n") + f"\n{SHARED} {size} {tail_fingerprint(tail)}\n"
        if blob == kept.blob and message == kept.message and parent == _parent(raw):
            done["id"] = commit  # nothing to redact so far: sent as it is
            return done
        tree = kept.tree
        if blob != kept.blob:
            entries = [(kept.name.encode(), MODE_FILE, blob)]
            tree = _object(self.store, b"tree", encode_tree(entries), write)
        done["id"] = _object(self.store, b"commit", _rewritten(raw, tree, parent, message), write)
        return done

    def _tail(self, data: bytes, before: _Prefix | None) -> bytes:
        """The last bytes of the redacted transcript ending with ``data`` that its
        fingerprint covers."""
        tail = data[-FINGERPRINT_BYTES:]
        while len(tail) < FINGERPRINT_BYTES and before is not None:
            earlier = self._redacted.get(before.blob)
            if earlier is None:
                earlier = self.store.reader.read_blob(before.blob)
            tail = earlier[-(FINGERPRINT_BYTES - len(tail)) :] + tail
            before = before.before
        return tail

    def _has(self, done: dict[str, object]) -> bool:
        """Whether a kept export is still in the store (gc keeps what a push sent)."""
        oid = done.get("id")
        if not isinstance(oid, str) or len(oid) != 40:
            return False
        if os.path.exists(self.store.writer.path_of(oid)):
            return True
        if self._packs is None:
            self._packs = Packs(os.path.join(self.store.git_dir, "objects", "pack"))
        return self._packs.holds(oid)


def redactions(
    store: Store, policy: SharingPolicy, heads: dict[str, SessionHead]
) -> dict[str, Found]:
    """What a push would redact of each of ``heads``' conversations (for ``push --dry-run``),
    by key; nothing is written."""
    exporter = ConversationExporter(store, policy)
    return {key: exporter.export(head, write=False).found for key, head in heads.items()}


def _follow(
    kept: KeptCommit, done: dict[str, object], prefixes: dict[tuple[str, int], _Prefix]
) -> None:
    """Notes where the redacted transcript stands after a slice, for the slices that go on
    from it."""
    piece = kept.as_slice()
    if piece is None:
        return
    before = prefixes.get((piece.transcript, piece.start)) if piece.start else None
    size, changed, blob = done.get("size"), done.get("changed"), done.get("blob")
    if isinstance(size, int) and isinstance(changed, bool) and isinstance(blob, str):
        prefixes[(piece.transcript, piece.end)] = _Prefix(blob, size, changed, before)


def _object(store: Store, kind: bytes, body: bytes, write: bool) -> str:
    if write:
        return store.writer.write(kind, body)
    return sha1_hex(b"%s %d\0%s" % (kind, len(body), body))


def _parent(raw: bytes) -> str | None:
    for line in raw.partition(b"\n\n")[0].split(b"\n"):
        if line.startswith(b"parent "):
            return line[7:].decode("ascii", "replace")
    return None


def _rewritten(raw: bytes, tree: str, parent: str | None, message: str) -> bytes:
    """The commit ``raw`` with another tree, parent and message; author and times kept."""
    header = raw.partition(b"\n\n")[0]
    lines = [b"tree " + tree.encode()]
    if parent is not None:
        lines.append(b"parent " + parent.encode())
    lines += [line for line in header.split(b"\n") if not line.startswith((b"tree ", b"parent "))]
    return b"\n".join(lines) + b"\n\n" + message.encode("utf-8")


def _recorded_versions(store: Store, head: SessionHead) -> dict[bytes, set[str]]:
    """Every path the session's entries recorded, with the blobs of its contents."""
    from rewind.history.index.queries import EntryIndex

    found: dict[bytes, set[str]] = {}
    with EntryIndex(store) as index:
        entries = index.entries(head)
    for entry in entries:
        for change in entry.files:
            oids = found.setdefault(change.path, set())
            for state in (change.before, change.after):
                if state is not None and state.kind == FILE and state.oid:
                    oids.add(state.oid)
    return found


def _signature(policy_key: str, private: dict[str, list[bytes]]) -> str:
    contents = {name: sorted(sha1_hex(c) for c in found) for name, found in private.items()}
    return sha1_hex(dumps({"rules": RULES, "policy": policy_key, "files": contents}).encode())


def _load(path: str) -> dict[str, object]:
    try:
        with open(path, encoding="utf-8") as handle:
            return load_object(handle.read())
    except (OSError, ValueError, RecursionError):
        return {}


# what came back from a remote -------------------------------------------------------------


def fetched_redactor(store: Store) -> Callable[[bytes], bytes]:
    """What takes, out of a transcript fetched from a remote, the contents of the files it
    names that are private on this machine, and the secrets in it."""

    def redact(data: bytes) -> bytes:
        redactor = Redactor(_private_on_disk(store, names_in(data)))
        return redactor.transcript(data, Found())

    return redact


def redacted_reply(view: Store, session_id: str, reply: str) -> str:
    """A kept reply fetched from a remote, read through ``view`` (rewind.history.remote.fetched:
    this project's root and settings), with the contents of the files its conversation names
    that are private on this machine, and the secrets, taken out."""
    names = Names()
    for kept in chain(view, session_id):
        if kept.name.endswith(SLICE):
            names.add(names_in(view.reader.read_blob(kept.blob)))
    return Redactor(_private_on_disk(view, names)).text(reply, Found())


def _named(store: Store, names: Names) -> set[bytes]:
    """The project's paths ``names`` give, and those that a link among them leads to."""
    inside = {os.fsencode(name) for name in names.inside(os.fsdecode(store.root.path))}
    return inside | linked_targets(store.root.path, inside)


def _private_on_disk(store: Store, names: Names) -> dict[str, list[bytes]]:
    found: dict[str, list[bytes]] = {}
    for path in sorted(SharingPolicy(store).private(_named(store, names))):
        content = existing_file(store.root.path, os.fsdecode(path))
        if content is not None:
            found[store.root.display(path)] = [content]
    return found
