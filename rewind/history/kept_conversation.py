"""The agent's conversation kept with the history (``[conversation] keep = true`` in rewind.toml;
docs/conversation.md, "Keeping the conversation").

At each prompt of an agent whose transcript is append-only with an offset in its cut point
(Claude Code, Gemini CLI, Codex, Pi), the hook keeps the transcript's bytes between the end of the
last slice kept of the same transcript (0 when none) and this prompt's cut; at the end of the
turn, the agent's final reply. Each is a commit of a chain per session,
``refs/rewind/conversations/<the session's ref name>`` (rewind.history.session.conversation_ref),
whose tree holds only what that event kept: ``<entry id>.jsonl`` (the slice before the turn) or
``<entry id>.reply``. A chain of small commits rather than one tree rewritten each time: a
prompt then costs the hook O(turn) (one blob, a one-entry tree, a commit), whatever the
session's length, and the store holds each slice once (a rewritten tree would cost O(turns) per
prompt and keep every version of it). Reading walks the chain, at resume or show time.

A slice's commit message says where it lies in the transcript (``start``, ``end``, the
transcript's path); the end of the last one, with a fingerprint of the bytes before it, is also
noted in the store's state folder (rewind.history.session.kept_cut_path), so that the hook never
reads a commit (which, once packed by gc, only pygit2 can read). Concatenating the slices of a
session's turns 1..K rebuilds the transcript up to turn K's cut, byte for byte.

The conversation holds prompts, replies and whatever the agent read (file contents the push
rules would hold back, secrets): it is pushed only to the remotes ``[conversation] share``
names (rewind.history.remote.push), and read back from a fetched session's view, where
``conversation_ref`` names that machine's chain in the mirror.
"""

from __future__ import annotations

import os
import time

from rewind.errors import StoreError
from rewind.history.session import conversation_ref, kept_cut_path
from rewind.store.atomic import write_text_atomically
from rewind.store.digest import sha1_hex
from rewind.store.input_limits import TRANSCRIPT_BYTES, too_large
from rewind.store.objects import MODE_FILE
from rewind.store.regular_file import open_regular
from rewind.store.repository import Store

# The agents whose cut point has an offset in an append-only transcript.
SLICED_AGENTS = frozenset({"claude-code", "gemini", "codex", "pi"})
# The most of a final reply kept, in bytes of UTF-8.
REPLY_LIMIT = 65536
# How many bytes before the end of the last slice its fingerprint covers.
_FINGERPRINT_BYTES = FINGERPRINT_BYTES = 4096
SLICE = ".jsonl"
REPLY = ".reply"
# The line of a redacted slice's commit message that says what its copy rebuilds to.
SHARED = "shared"


# What KeptMissing says when nothing at all of the conversation was kept.
NOTHING_KEPT = "no part of this conversation was kept"


class KeptMissing(Exception):
    """The kept conversation does not hold what was asked for; the message says what lacks."""


# The hook's side: writing ---------------------------------------------------------------------


def keep_slice(store: Store, session_id: str, entry_id: str, transcript: str, offset: int) -> None:
    """Keeps the transcript's bytes before ``offset`` (the cut of the prompt that started
    ``entry_id``) that no earlier slice of the session holds. Reads only those bytes and a few
    KiB before them; an OSError or ValueError when the transcript cannot be read as expected."""
    if "\n" in transcript or "\n" in entry_id:
        raise ValueError("a transcript path or an entry id on more than one line")
    last = _last_cut(store, session_id)
    if last is not None and last[3] == entry_id:
        return  # the same prompt delivered twice: kept already
    start, data, mark = 0, b"", sha1_hex(b"")
    if offset > 0:  # at 0 (the conversation's first prompt) the file may not exist yet
        start, data, mark = _read_slice(transcript, offset, last)
    blob = store.writer.write_blob(data)
    message = (
        f"conversation slice {entry_id}\n\nstart {start}\nend {offset}\ntranscript {transcript}\n"
    )
    with store.lock():
        _append(store, session_id, f"{entry_id}{SLICE}", blob, message)
        path = kept_cut_path(store, session_id)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_text_atomically(path, f"{offset}\n{mark}\n{transcript}\n{entry_id}\n")


def _read_slice(
    transcript: str, offset: int, last: tuple[int, str, str, str] | None
) -> tuple[int, bytes, str]:
    """Where the slice starts, its bytes, and the fingerprint of the bytes before ``offset``."""
    fd, _ = open_regular(transcript)
    try:
        start = 0
        # Going on from the last slice only while the transcript still holds what it kept.
        same = last is not None and last[2] == transcript and last[0] <= offset
        if last is not None and same and _fingerprint_before(fd, last[0]) == last[1]:
            start = last[0]
        if offset - start > TRANSCRIPT_BYTES:
            too_long = too_large(TRANSCRIPT_BYTES, "a transcript")
            raise ValueError(too_long.of(f"the part of {transcript} to keep"))
        data = os.pread(fd, offset - start, start) if offset > start else b""
        if len(data) != offset - start:
            raise ValueError(f"{transcript} is shorter than at the prompt")
        return start, data, _fingerprint_before(fd, offset)
    finally:
        os.close(fd)


def keep_reply(store: Store, session_id: str, entry_id: str, reply: str) -> None:
    """Keeps the final reply of ``entry_id`` (its first :data:`REPLY_LIMIT` bytes)."""
    data = reply.encode("utf-8", "replace")[:REPLY_LIMIT]
    data = data.decode("utf-8", "ignore").encode("utf-8")  # not cut inside a character
    blob = store.writer.write_blob(data)
    with store.lock():
        _append(store, session_id, f"{entry_id}{REPLY}", blob, f"conversation reply {entry_id}\n")


def _append(store: Store, session_id: str, name: str, blob: str, message: str) -> None:
    """A commit holding ``name`` -> ``blob`` on top of the session's chain (under the lock)."""
    ref = conversation_ref(store, session_id)
    tree = store.writer.write_tree([(name.encode(), MODE_FILE, blob)])
    commit = store.writer.write_commit(tree, store.read_ref(ref), message, time.time())
    store.write_ref(ref, commit)


def _last_cut(store: Store, session_id: str) -> tuple[int, str, str, str] | None:
    """The end of the last slice kept, its fingerprint, its transcript and entry, or None."""
    try:
        with open(kept_cut_path(store, session_id), encoding="utf-8") as handle:
            end, mark, transcript, entry = handle.read().split("\n")[:4]
        return int(end), mark, transcript, entry
    except (OSError, ValueError):
        return None


def tail_fingerprint(data: bytes) -> str:
    """The fingerprint of the bytes that end at a cut (their last few KiB), as a cut point's
    (rewind.history.conversation.cut_point.fingerprint) and a redacted slice's are taken."""
    return sha1_hex(data[-_FINGERPRINT_BYTES:])


def _fingerprint_before(fd: int, offset: int) -> str:
    start = max(0, offset - _FINGERPRINT_BYTES)
    return sha1_hex(os.pread(fd, offset - start, start))


# Readers -------------------------------------------------------------------------------------


class KeptSlice:
    """One slice: the bytes ``[start, end)`` of ``transcript``, kept at ``entry_id``'s prompt.
    ``shared``, in a copy redacted before it was pushed (rewind.history.remote.redaction): the
    size and fingerprint of the redacted transcript up to this slice's end, which a resume
    checks instead of the turn's own (None: the slice is as the agent wrote it)."""

    __slots__ = ("blob", "end", "entry_id", "shared", "start", "transcript")

    def __init__(
        self,
        entry_id: str,
        blob: str,
        start: int,
        end: int,
        transcript: str,
        shared: tuple[int, str] | None = None,
    ) -> None:
        self.entry_id = entry_id
        self.blob = blob
        self.start = start
        self.end = end
        self.transcript = transcript
        self.shared = shared


class KeptCommit:
    """One commit of a session's chain: its tree's one entry and its message."""

    __slots__ = ("blob", "message", "name", "tree")

    def __init__(self, tree: str, name: str, blob: str, message: str) -> None:
        self.tree = tree
        self.name = name
        self.blob = blob
        self.message = message

    def as_slice(self) -> KeptSlice | None:
        if not self.name.endswith(SLICE):
            return None
        fields = dict(line.partition(" ")[::2] for line in self.message.split("\n")[2:] if line)
        try:
            start, end = int(fields["start"]), int(fields["end"])
        except (KeyError, ValueError):
            return None
        if not 0 <= start <= end:
            return None  # not a slice rewind writes (a record made up by a remote)
        entry = self.name[: -len(SLICE)]
        transcript = fields.get("transcript", "")
        return KeptSlice(entry, self.blob, start, end, transcript, _shared(fields.get(SHARED)))


def _shared(field: str | None) -> tuple[int, str] | None:
    """The ``shared SIZE FINGERPRINT`` line of a redacted slice's message, read."""
    if field is None:
        return None
    size, _, mark = field.partition(" ")
    if not size.isdigit() or len(size) > 19 or len(mark) != 40:
        return (-1, "")  # damaged: matches nothing
    return int(size), mark


def chain(store: Store, session_id: str) -> list[KeptCommit]:
    """The commits of the session's kept conversation, oldest first (none when nothing is
    kept). A commit that cannot be read ends the walk: what is older is out of reach."""
    return [commit for _, _, commit in chain_commits(store, session_id)]


def chain_commits(store: Store, session_id: str) -> list[tuple[str, bytes, KeptCommit]]:
    """:func:`chain`, each commit with its id and its raw bytes."""
    tip = store.read_ref(conversation_ref(store, session_id))
    found: list[tuple[str, bytes, KeptCommit]] = []
    seen: set[str] = set()
    while tip is not None and tip not in seen:
        seen.add(tip)
        try:
            body = store.reader.read(tip, b"commit")
            header, _, message = body.decode("utf-8", "replace").partition("\n\n")
            tree = header.split("\n", 1)[0].removeprefix("tree ")
            entries = store.reader.read_tree(tree)
        except (StoreError, ValueError):
            break
        if len(entries) == 1:
            name, _, blob = entries[0]
            kept = KeptCommit(tree, name.decode("utf-8", "replace"), blob, message)
            found.append((tip, body, kept))
        parents = [line[7:] for line in header.split("\n") if line.startswith("parent ")]
        tip = parents[0] if parents else None
    found.reverse()
    return found


def kept_reply(store: Store, session_id: str, entry_id: str) -> str | None:
    """The final reply kept for ``entry_id``, or None."""
    for commit in reversed(chain(store, session_id)):
        if commit.name == f"{entry_id}{REPLY}":
            try:
                return store.reader.read_blob(commit.blob).decode("utf-8", "replace")
            except StoreError:
                return None
    return None


def kept_prefix(
    store: Store, session_id: str, entry_id: str, transcript: str, end: int
) -> tuple[bytes, tuple[int, str] | None]:
    """The transcript up to ``end`` (the cut of ``entry_id``'s prompt), rebuilt from the kept
    slices, with what a redacted copy says it rebuilds to (the last slice's
    :attr:`KeptSlice.shared`; None for a copy as the agent wrote it); a KeptMissing saying
    what lacks when they do not reach back to its start."""
    if end > TRANSCRIPT_BYTES:
        raise KeptMissing(too_large(TRANSCRIPT_BYTES, "a transcript").of("the transcript"))
    slices = [commit.as_slice() for commit in chain(store, session_id)]
    found = [one for one in slices if one is not None and one.transcript == transcript]
    if not found:
        raise KeptMissing(NOTHING_KEPT)
    at = _newest(found, len(found), end, entry_id)
    if at is None:
        raise KeptMissing("the part just before this turn was not kept")
    parts = [found[at]]
    while parts[-1].start > 0:
        start = parts[-1].start
        at = _newest(found, at, start)
        if at is None:
            raise KeptMissing(f"the part before byte {start} of the transcript was not kept")
        parts.append(found[at])
    try:
        # Measured before they are inflated: a fetched part may inflate to far more.
        expected = _part_sizes(parts)
        if sum(expected) > TRANSCRIPT_BYTES:
            raise KeptMissing(too_large(TRANSCRIPT_BYTES, "a transcript").of("the transcript"))
        sizes = zip(parts, expected, strict=True)
        if any(store.reader.size(one.blob) != size for one, size in sizes):
            raise KeptMissing("a kept part is not as long as its record says")
        data = b"".join(store.reader.read_blob(one.blob) for one in reversed(parts))
        return data, parts[0].shared
    except StoreError as error:
        raise KeptMissing(f"a kept part cannot be read ({error})") from None


def _part_sizes(parts: list[KeptSlice]) -> list[int]:
    """How long each part (newest first) says it is: its bytes of the transcript, or, redacted
    (:attr:`KeptSlice.shared`), the redacted size up to its end less that up to its start."""
    sizes = []
    for index, one in enumerate(parts):
        if one.shared is None:
            sizes.append(one.end - one.start)
            continue
        before = parts[index + 1] if index + 1 < len(parts) else None
        upto = 0 if before is None else before.shared[0] if before.shared else before.end
        sizes.append(one.shared[0] - upto)
    return sizes


def _newest(slices: list[KeptSlice], before: int, end: int, entry_id: str = "") -> int | None:
    """The index of the newest of the first ``before`` slices that ends at ``end`` (and is
    ``entry_id``'s, when given)."""
    for index in range(before - 1, -1, -1):
        one = slices[index]
        if one.end == end and (not entry_id or one.entry_id == entry_id):
            return index
    return None


# Retention -------------------------------------------------------------------------------------


def drop_entries(store: Store, session_id: str, entry_ids: set[str]) -> int:
    """Rewrites the session's chain without what was kept for ``entry_ids`` (entries retention
    drops), under the store lock the caller holds; returns how many commits went. The chain
    is small commits, so rewriting it costs one commit per kept event, at gc time only."""
    commits = chain(store, session_id)
    kept = [c for c in commits if c.name.rsplit(".", 1)[0] not in entry_ids]
    if len(kept) == len(commits):
        return 0
    ref = conversation_ref(store, session_id)
    parent: str | None = None
    for commit in kept:
        parent = store.writer.write_commit(commit.tree, parent, commit.message, time.time())
    if parent is None:
        store.delete_ref(ref)
        try:
            os.unlink(kept_cut_path(store, session_id))
        except FileNotFoundError:
            pass
    else:
        store.write_ref(ref, parent)
    return len(commits) - len(kept)
