"""What a resume starts: the client's command that continues a conversation from a cut point
as a new branch of it, and the transcript copies it reads.

A copy is written in rewind's own directory of the store (``<store>/rewind/conversations``),
never beside the agent's files: the client reads it and writes the branch as a new
conversation of its own. Copies older than :data:`COPY_DAYS` are removed by the next resume.
"""

from __future__ import annotations

import errno
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from rewind.errors import UserError
from rewind.history.conversation.clients import files_only
from rewind.history.conversation.cut_point import TAIL, CutPoint, fingerprint
from rewind.history.kept_conversation import NOTHING_KEPT, KeptMissing, kept_prefix
from rewind.store.atomic import remove_older_than, replace_file
from rewind.store.input_limits import TRANSCRIPT_BYTES, too_large
from rewind.store.repository import Store

COPIES = "conversations"
COPY_DAYS = 7


@dataclass
class Branch:
    """The command ``[program, *head, *extra, *tail]``, where ``extra`` are the person's own
    arguments for the client, run in the project's root; ``notes`` say what it does."""

    agent: str
    program: str
    head: list[str] = field(default_factory=list)
    tail: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    session: str = ""  # the new branch's session, when the client made it already

    def argv(self, extra: list[str] | None = None) -> list[str]:
        return [self.program, *self.head, *(extra or []), *self.tail]


@dataclass(frozen=True)
class Request:
    """What to resume: the cut point of turn ``turn`` of the project's store ``store``, the
    client ``program`` to run (its version known when not ''), and the first ``prompt`` to
    send in the branch ('' for an interactive session)."""

    store: Store
    cut: CutPoint
    turn: int
    program: str
    prompt: str = ""
    session: str = ""  # the store's session of the turn, and the turn's entry id: where the
    entry_id: str = ""  # conversation kept with the history is looked for
    # A turn fetched from a remote: the remote's name, and the view of the machine that
    # recorded it, where its kept conversation is. The transcript the cut point names is on
    # that machine: only the kept conversation is read, never a file of this one.
    remote: str = ""
    view: Store | None = None
    # What takes private contents and secrets out of a fetched copy before the client reads
    # it, with this machine's idea of what is private (rewind.history.remote.shared_conversation).
    redact: Callable[[bytes], bytes] | None = None

    @property
    def kept_in(self) -> Store:
        """The store whose kept conversation holds the turn's (a view, for a fetched turn)."""
        return self.view if self.view is not None else self.store


def began_the_conversation(request: Request) -> str:
    """The note of a resume from the turn that began the conversation."""
    return f"turn {request.turn} began the conversation: this starts a new one."


def from_copy(request: Request, data: bytes, flag: str, what: str) -> Branch:
    """The branch of a client that resumes from a copy of its ``what`` (``data``, empty when
    the turn began the conversation), given after ``flag``; in print mode with the prompt."""
    found = Branch(request.cut.agent, request.program)
    if not data:
        found.notes.append(began_the_conversation(request))
    else:
        copy = write_copy(request, data)
        found.head = [flag, copy]
        found.notes.append(
            f"the conversation up to turn {request.turn} is read from {copy}; the branch is a "
            f"new session, and the original {what} is left as it is."
        )
    if request.prompt:
        found.tail = ["-p", request.prompt]
    return found


def transcript_prefix(request: Request) -> bytes:
    """The transcript's bytes before the cut, once its fingerprint shows the file still holds
    the conversation the turn began on; else, the same bytes rebuilt from the conversation kept
    with the history (``[conversation] keep``) when it holds them all; a refusal saying why
    otherwise."""
    cut = request.cut
    assert cut.offset is not None
    if request.remote:
        return _kept_prefix(request, f"turn {request.turn} was recorded on another machine")
    where = f"the transcript of turn {request.turn} ({cut.transcript})"
    try:
        data = read_transcript(cut.transcript, cut.offset)
    except FileNotFoundError:
        return _kept_prefix(request, f"{where} is gone (the agent removes old conversations)")
    except OSError as error:
        return _kept_prefix(request, f"{where} cannot be read ({error.strerror})")
    if len(data) < cut.offset or fingerprint(data[-TAIL:]) != cut.fingerprint:
        return _kept_prefix(
            request,
            f"{where} no longer holds the conversation as it was when the turn began (the agent "
            "rewrote it)",
        )
    return data


def _kept_prefix(request: Request, why: str) -> bytes:
    """The transcript before the cut rebuilt from the kept slices (``why`` says what became of
    the transcript); a refusal that says both when they cannot rebuild it."""
    cut = request.cut
    assert cut.offset is not None
    way_out = files_only(request.turn)
    try:
        data, shared = kept_prefix(
            request.kept_in, request.session, request.entry_id, cut.transcript, cut.offset
        )
    except KeptMissing as missing:
        if str(missing) == NOTHING_KEPT and request.remote:
            raise UserError(
                f"{why}, which shared no copy of its conversation with {request.remote} "
                "('[conversation] keep' and 'share' in its rewind.toml send one with each "
                "push from then on); resume it on the machine that recorded it."
            ) from None
        if str(missing) == NOTHING_KEPT:
            raise UserError(
                f"{why}, and no copy of it was kept ('[conversation] keep = true' in "
                f"rewind.toml keeps one from now on); {way_out}"
            ) from None
        raise UserError(
            f"{why}, and the copy kept with the history is not whole: {missing}; {way_out}"
        ) from None
    # A copy redacted before it was pushed is checked against what its machine said the
    # redacted copy rebuilds to, its end against the turn's cut (kept_prefix): the turn's own
    # size and fingerprint are those of the transcript before the redaction.
    size, mark = (cut.offset, cut.fingerprint) if shared is None else shared
    if len(data) != size or fingerprint(data[-TAIL:]) != mark:
        raise UserError(
            f"{why}, and the copy kept with the history does not match the turn's record; {way_out}"
        )
    return request.redact(data) if request.redact is not None else data


def read_transcript(path: str, size: int | None = None) -> bytes:
    """The first ``size`` bytes (all of them: None) of the regular file at ``path`` (an
    OSError for anything else: a fifo would block, a device never end). A path no file can
    have (a NUL, a lone surrogate: a damaged record) is one too, and ``size`` is read only as
    far as the file goes (a buffer of a damaged record's size would exhaust the memory). More
    than TRANSCRIPT_BYTES is not read: an OSError (EFBIG) that says so."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except ValueError:
        raise OSError(errno.EINVAL, "not a file name") from None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        wanted = status.st_size if size is None else min(size, status.st_size)
        if wanted <= TRANSCRIPT_BYTES:
            with os.fdopen(os.dup(fd), "rb") as handle:
                data = handle.read(TRANSCRIPT_BYTES + 1 if size is None else wanted)
            if len(data) <= TRANSCRIPT_BYTES:  # it may have grown since
                return data
        raise OSError(errno.EFBIG, too_large(TRANSCRIPT_BYTES, "a transcript").of("it"))
    finally:
        os.close(fd)


def write_copy(request: Request, data: bytes, suffix: str = ".jsonl") -> str:
    """Writes ``data`` as a transcript copy for the client to read; returns its path."""
    directory = request.store.state_path(COPIES)
    os.makedirs(directory, mode=0o700, exist_ok=True)
    remove_older_than(directory, time.time() - COPY_DAYS * 86400)
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in request.cut.session)[:80]
    name = f"{request.cut.agent}-{safe}-turn-{request.turn}-{int(time.time())}{suffix}"
    path = os.path.join(directory, name)
    replace_file(os.fsencode(path), data, 0o600)
    return path


def whole_lines(data: bytes) -> bytes:
    """``data`` up to the end of its last whole line."""
    return data[: data.rfind(b"\n") + 1]
