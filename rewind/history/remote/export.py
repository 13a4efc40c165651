"""What a session looks like once it leaves the machine: its entries, with private contents
held back.

Pushing sends file contents off the machine, including what the shell quicksave saved (an
``rm .env`` records ``.env``). The contents of a file whose path is **private** never leave
(rewind.history.remote.privacy says which: outside the project, matching ``[remote] exclude`` or the
built-in list, ignored by git). Such a file still travels, with each state that had content as
``{"kind": "not-shared"}``, so that the history stays whole: the reader sees that the turn
touched ``.env``, not what it held.

An entry with nothing private is sent as it is (the same commit: nothing is rewritten or
stored twice). One with a private file is **exported**: a commit with the same message, author
and time, whose ``turn.json`` and tree hold the states shared, on the export of its parent; so
is every entry after it, and every entry of a history that retention cut (the cut commit
becomes a root, since its parent is gone). Exports are deterministic and kept in
``<store>/rewind/exported`` (one ``local exported`` line per commit considered), so each
commit is looked at once, and the next push walks only what was recorded since.
The map is kept for one sharing policy's key (the exclude patterns, ``share_ignored`` and the
generation of git's answers about the paths exported: SharingPolicy.key) and one set of cuts:
when either changes, every history is exported again, so that a pattern added to
``[remote] exclude``, or a file git ignores since, holds back what earlier pushes sent as it
was (to a new remote, or to the same one, whose refs are then replaced by the history without
it).
"""

from __future__ import annotations

import os

from rewind.history.commits import FILES_NAME, RECORD_NAME, stored_name
from rewind.history.filestate import ABSENT, NOT_SHARED
from rewind.history.remote.privacy import SharingPolicy
from rewind.store.digest import sha1_hex
from rewind.store.fastjson import dumps, load_object
from rewind.store.objects import MODE_TREE, decode_commit, encode_tree
from rewind.store.packs import Packs
from rewind.store.repository import Store

EXPORT_MAP = "exported"
_CUT = ":cut"  # the key of a commit that is a cut point: its export has no parent


class Exporter:
    """Turns local commits into the commits that are sent (see the module's doc)."""

    def __init__(self, store: Store, policy: SharingPolicy) -> None:
        self.store = store
        self.policy = policy
        self.path = store.state_path(EXPORT_MAP)
        self.cuts = store.reader.cut_points()
        self.signature = (
            "cuts " + sha1_hex(",".join(sorted(self.cuts)).encode()) + " policy " + policy.key
        )
        self.known = _load_map(self.path, self.signature)
        self.added: list[tuple[str, str]] = []
        self.private_paths: dict[bytes, str] = {}
        self._packs: Packs | None = None

    def export(self, tip: str, chain: list[tuple[str, list[bytes] | None]] | None = None) -> str:
        """The commit that stands for ``tip`` on a remote, written if need be.

        ``chain``, when given, is the history ending at ``tip`` as the index has it (each
        commit, oldest first, with the paths its entry recorded): entries that are sent as they
        are then cost no object read at all; only those that must be rewritten are read.
        """
        if chain and chain[-1][0] == tip:
            return self._export_listed(chain)
        cuts = self.cuts
        walked: list[tuple[str, str, str | None, bytes]] = []  # commit, tree, parent, raw
        commit: str | None = tip
        while commit is not None and not self._usable(_key(commit, cuts)):
            raw = self.store.reader.read(commit, b"commit")
            tree, parent = decode_commit(raw)
            walked.append((commit, tree, parent, raw))
            commit = None if commit in cuts else parent
        base = self.known[_key(commit, cuts)] if commit is not None else None
        records = [self._record(tree) for _, tree, _, _ in reversed(walked)]
        self._decide({_path(f) for _, record in records for f in _files(record)})
        for (commit_id, _, parent, raw), (entries, record) in zip(
            reversed(walked), records, strict=True
        ):
            is_cut = commit_id in cuts
            exported = self._export_one(commit_id, raw, parent, is_cut, base, entries, record)
            self.known[_key(commit_id, cuts)] = exported
            self.added.append((_key(commit_id, cuts), exported))
            base = exported
        return self.known[_key(tip, cuts)]

    def knows(self, commit: str) -> bool:
        """Whether ``commit``'s export is known (and still in the store)."""
        return self._usable(_key(commit, self.cuts))

    def _export_listed(self, chain: list[tuple[str, list[bytes] | None]]) -> str:
        """:meth:`export` of a history the index listed (see there): back to a commit whose
        export is known, or to the session's first entry or where retention cut it, whose
        commit has no parent to send."""
        cuts = self.cuts
        start = len(chain)
        while start > 0 and not self._usable(_key(chain[start - 1][0], cuts)):
            start -= 1
        base = self.known[_key(chain[start - 1][0], cuts)] if start > 0 else None
        self._decide({path for _, paths in chain[start:] for path in paths or ()})
        for position in range(start, len(chain)):
            commit, paths = chain[position]
            parent = chain[position - 1][0] if position > 0 else None
            is_cut = commit in cuts
            # None: a damaged entry, whose contents are held back (see _export_one)
            private = paths is None or any(self.private_paths.get(path) for path in paths)
            if not private and not is_cut and base == parent:
                exported = commit  # sent as it is: nothing read (a cut commit still names
                # the parent retention dropped: it is rewritten as a root)
            else:
                raw = self.store.reader.read(commit, b"commit")
                tree, recorded_parent = decode_commit(raw)
                entries, record = self._record(tree)
                exported = self._export_one(
                    commit, raw, recorded_parent, is_cut, base, entries, record
                )
            self.known[_key(commit, cuts)] = exported
            self.added.append((_key(commit, cuts), exported))
            base = exported
        return chain[-1][0] if base is None else base

    def _decide(self, paths: set[bytes]) -> None:
        """Works out which of ``paths`` are private (once per path and exporter)."""
        unknown = paths - set(self.private_paths)
        if unknown:
            decided = self.policy.private(unknown)
            self.private_paths.update(decided)
            self.private_paths.update((path, "") for path in unknown - set(decided))

    def _usable(self, key: str) -> bool:
        """Whether the map knows the export of ``key``, and it is still in the store (looked
        up in the packs' indexes and the loose objects: nothing is read)."""
        exported = self.known.get(key)
        if exported is None:
            return False
        if os.path.exists(self.store.writer.path_of(exported)) or self._packed(exported):
            return True
        del self.known[key]
        return False

    def _packed(self, oid: str) -> bool:
        if self._packs is None:
            self._packs = Packs(os.path.join(self.store.git_dir, "objects", "pack"))
        return self._packs.holds(oid)

    def close(self) -> None:
        if self._packs is not None:
            self._packs.close()
            self._packs = None

    def save(self) -> None:
        """Appends what this exporter worked out to the map, once a push made the exports
        reachable (a cache: losing it costs time). The map starts again when retention cut
        a history since it was written: exports made before the cut would keep what it
        dropped."""
        if not self.added:
            return
        fresh = not _has_signature(self.path, self.signature)
        with open(self.path, "w" if fresh else "a", encoding="ascii") as handle:
            if fresh:
                handle.write(self.signature + "\n")
            handle.write("".join(f"{key} {exported}\n" for key, exported in self.added))
        self.added = []

    def _record(self, tree: str) -> tuple[list[tuple[bytes, int, str]], dict[str, object]]:
        entries = self.store.reader.read_tree(tree)
        for name, _, oid in entries:
            if name == RECORD_NAME:
                try:
                    return entries, load_object(self.store.reader.read_blob(oid).decode())
                except (ValueError, UnicodeDecodeError, RecursionError):
                    break
        return entries, {}  # a damaged entry travels as it is: the reader sees it damaged

    def _export_one(
        self,
        commit: str,
        raw: bytes,
        parent: str | None,
        is_cut: bool,
        base: str | None,
        entries: list[tuple[bytes, int, str]],
        record: dict[str, object],
    ) -> str:
        if not record:  # a damaged entry: whose contents its blobs are is unknown, so none go
            kept = [entry for entry in entries if entry[0] != FILES_NAME]
            tree = self.store.writer.write(b"tree", encode_tree(kept))
            return self.store.writer.write(b"commit", _with_tree_and_parent(raw, tree, base))
        private = [
            index
            for index, change in enumerate(_files(record))
            if self.private_paths.get(_path(change))
        ]
        # Sent as it is only when it names the very parent it is sent on: a cut commit still
        # names the parent retention dropped, so it is rewritten as a root (is_cut: base None).
        if not private and base == parent:
            return commit
        tree = self._shared_tree(entries, record, private) if private else _tree_line(raw)
        return self.store.writer.write(b"commit", _with_tree_and_parent(raw, tree, base))

    def _shared_tree(
        self,
        entries: list[tuple[bytes, int, str]],
        record: dict[str, object],
        private: list[int],
    ) -> str:
        files = _files(record)
        held_back: set[bytes] = set()
        for index in private:
            change = files[index]
            for side in ("before", "after"):
                state = change.get(side)
                if isinstance(state, dict) and state.get("kind") != ABSENT:
                    change[side] = {"kind": NOT_SHARED}
                    held_back.add(stored_name(index, side))
        writer = self.store.writer
        kept: list[tuple[bytes, int, str]] = []
        for name, mode, oid in entries:
            if name == RECORD_NAME:
                kept.append((name, mode, writer.write_blob(dumps(record).encode())))
            elif name == FILES_NAME and mode == MODE_TREE:
                stored = [e for e in self.store.reader.read_tree(oid) if e[0] not in held_back]
                if stored:
                    kept.append((name, mode, writer.write(b"tree", encode_tree(stored))))
            else:
                kept.append((name, mode, oid))
        return writer.write(b"tree", encode_tree(kept))


def _files(record: dict[str, object]) -> list[dict[str, object]]:
    files = record.get("files")
    if not isinstance(files, list):
        return []
    return [f for f in files if isinstance(f, dict) and isinstance(f.get("path"), str)]


def _path(change: dict[str, object]) -> bytes:
    path = change["path"]
    assert isinstance(path, str)  # _files keeps only those
    return os.fsencode(path)


def _key(commit: str, cuts: frozenset[str]) -> str:
    return commit + _CUT if commit in cuts else commit


def _has_signature(path: str, signature: str) -> bool:
    try:
        with open(path, encoding="ascii", errors="replace") as handle:
            return handle.readline().strip() == signature
    except FileNotFoundError:
        return False


def _load_map(path: str, signature: str) -> dict[str, str]:
    known: dict[str, str] = {}
    try:
        with open(path, encoding="ascii", errors="replace") as handle:
            if handle.readline().strip() != signature:
                return {}
            for line in handle:
                key, _, exported = line.strip().partition(" ")
                if len(exported) == 40 and len(key) >= 40:
                    known[key] = exported
    except FileNotFoundError:
        pass
    return known


def _tree_line(raw: bytes) -> str:
    return decode_commit(raw)[0]


def _with_tree_and_parent(raw: bytes, tree: str, parent: str | None) -> bytes:
    """The commit ``raw`` with another tree and parent; author, time and message kept."""
    header, _, message = raw.partition(b"\n\n")
    lines = [b"tree " + tree.encode()]
    if parent is not None:
        lines.append(b"parent " + parent.encode())
    lines += [line for line in header.split(b"\n") if not line.startswith((b"tree ", b"parent "))]
    return b"\n".join(lines) + b"\n\n" + message
