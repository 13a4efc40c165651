"""The cut point of each agent's conversation at its prompt event
(rewind.history.conversation.cut_point): one ``stat`` and one read of at most ``TAIL`` bytes of
the transcript, and the client's version where the event's environment tells it cheaply.

What each agent gives (read from the clients in docs/conversation.md):

- Claude Code: ``transcript_path`` and ``prompt_id``; its transcript is append-only JSONL, and
  every chain record carries ``"version"``, so the tail read for the fingerprint usually holds it.
- Gemini CLI: ``transcript_path``; append-only JSONL; the version is in the ``package.json``
  of the script its process runs (on Linux, through ``/proc``).
- Codex: ``transcript_path`` and ``turn_id`` (its own fork cuts by turn); the version is in
  ``$CODEX_MANAGED_PACKAGE_ROOT/package.json`` when npm installed it.
- Copilot CLI: no transcript path and a file written late, so no offset: the prompt's
  ``timestamp`` finds the turn in ``~/.copilot/session-state/SESSION/events.jsonl`` at resume
  time; the version is in ``$COPILOT_CLI_BINARY_VERSION``.
- OpenCode: no transcript file (a SQLite database of its own, never read by the hook): the
  prompt's user message id (``message_id``), where its server forks the session; the version is
  in the ``package.json`` beside the program that runs the hook (on Linux, through ``/proc``).

- Pi: rewind's extension sends ``session_file`` and ``leaf_id``, the entry of the session's
  tree the prompt follows (Pi appends the prompt as its child); the file is append-only JSONL;
  the version is in the ``package.json`` of the script its process runs, which the extension
  sends as ``script`` (Pi sets its process's title, and ``/proc`` then shows no script).

A cut point that cannot be taken is logged and the turn starts all the same.
"""

from __future__ import annotations

import os

from rewind.history.conversation.cut_point import TAIL, CutPoint, fingerprint
from rewind.store.regular_file import open_regular

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rewind.hooks.context import HookContext

HOOK_PARENT_VARIABLE = "REWIND_HOOK_PARENT"
_VERSION_KEY = b'"version":"'
# How many of the hook's ancestors are looked at for the client's program (a shell may be
# between the client and the hook).
_ANCESTORS = 3


def claude_code(context: HookContext) -> CutPoint | None:
    session = context.text("session_id")
    transcript = _absolute(context, context.text("transcript_path"))
    if not session or not transcript:
        return None
    offset, tail = transcript_cut(transcript)
    version = _last_version(tail)
    return CutPoint(
        "claude-code",
        session,
        transcript,
        offset,
        fingerprint(tail),
        context.text("prompt_id"),
        version,
    )


def gemini(context: HookContext) -> CutPoint | None:
    session = context.text("session_id")
    transcript = _absolute(context, context.text("transcript_path"))
    if not session or not transcript:
        return None
    offset, tail = transcript_cut(transcript)
    version = _parent_package_version(("gemini-cli",))
    return CutPoint("gemini", session, transcript, offset, fingerprint(tail), "", version)


def codex(context: HookContext) -> CutPoint | None:
    session = context.text("session_id")
    transcript = _absolute(context, context.text("transcript_path"))
    turn = context.text("turn_id")
    if not session or not transcript or not turn:
        return None
    offset, tail = transcript_cut(transcript)
    root = os.environ.get("CODEX_MANAGED_PACKAGE_ROOT", "")
    version = _package_version(os.path.join(root, "package.json")) if root else ""
    return CutPoint("codex", session, transcript, offset, fingerprint(tail), turn, version)


def pi(context: HookContext) -> CutPoint | None:
    session = context.text("session_id")
    transcript = _absolute(context, context.text("session_file"))
    if not session or not transcript:
        return None  # a session Pi keeps in memory alone (--no-session): nothing to resume
    offset, tail = transcript_cut(transcript)
    script = context.text("script")  # Pi sets its process's title: /proc shows no script
    package = _package_of(os.path.realpath(script), ("pi-coding-agent",)) if script else ""
    version = _package_version(package) if package else ""
    leaf = context.text("leaf_id")
    return CutPoint("pi", session, transcript, offset, fingerprint(tail), leaf, version)


def copilot(context: HookContext) -> CutPoint | None:
    session = context.text("sessionId")
    stamp = context.payload.get("timestamp")
    if type(stamp) is not int or not session or os.sep in session or session.startswith("."):
        return None
    transcript = os.path.join(copilot_home(), "session-state", session, "events.jsonl")
    version = os.environ.get("COPILOT_CLI_BINARY_VERSION", "")[:40]
    return CutPoint("copilot", session, transcript, None, "", str(stamp), version)


def opencode(context: HookContext) -> CutPoint | None:
    session = context.text("session_id")
    message = context.text("message_id")
    if not session or not message:
        return None
    return CutPoint(
        "opencode", session, opencode_database(), None, "", message, _parent_program_version()
    )


def opencode_database() -> str:
    """Where OpenCode keeps its sessions: ``$OPENCODE_DB`` when it is a path, else
    ``opencode.db`` in its data folder (``$XDG_DATA_HOME/opencode``, else
    ``~/.local/share/opencode``). Recorded for people to read: rewind never opens it."""
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "share"
    )
    folder = os.path.join(data, "opencode")
    named = os.environ.get("OPENCODE_DB", "")
    if named and named != ":memory:":
        return named if os.path.isabs(named) else os.path.join(folder, named)
    return os.path.join(folder, "opencode.db")


def _absolute(context: HookContext, path: str) -> str:
    """``path`` made absolute against the event's ``cwd`` (the agents send absolute paths;
    a relative one would be read from wherever 'rewind resume' runs)."""
    if not path or os.path.isabs(path):
        return path
    return os.path.join(context.text("cwd") or os.getcwd(), path)


def copilot_home() -> str:
    """Where Copilot CLI keeps its state: ``$COPILOT_HOME``, else ``~/.copilot``."""
    return os.environ.get("COPILOT_HOME") or os.path.join(os.path.expanduser("~"), ".copilot")


def transcript_cut(path: str) -> tuple[int, bytes]:
    """The transcript's size as the cut, at the end of its last whole line (a line half
    written is after the cut), and the ``TAIL`` bytes just before it (fewer when the cut is
    nearer the start). A transcript that does not exist yet (a conversation's first prompt)
    is cut at 0."""
    try:
        fd, offset = open_regular(path)
    except FileNotFoundError:
        return 0, b""
    try:
        tail = _before(fd, offset)
        whole = tail.rfind(b"\n") + 1
        if 0 < whole < len(tail):  # a line half written: cut before it
            offset -= len(tail) - whole
            tail = _before(fd, offset)
    finally:
        os.close(fd)
    return offset, tail


def _before(fd: int, offset: int) -> bytes:
    start = max(0, offset - TAIL)
    return os.pread(fd, offset - start, start)


def hook_parent() -> int:
    """The process that started the hook: this one's parent, or, for an event the hook's process
    handed to the resident recorder, the parent of that process (``REWIND_HOOK_PARENT`` in the
    environment the resident takes on: rewind.resident.forward)."""
    handed = os.environ.get(HOOK_PARENT_VARIABLE, "")
    return int(handed) if handed.isascii() and handed.isdigit() else os.getppid()


def _parent_package_version(names: tuple[str, ...]) -> str:
    """The version in the ``package.json`` of the script one of the hook's nearest ancestor
    processes runs, when one of its first arguments is, links to, a file of a package folder
    named in ``names`` (Linux only: through ``/proc``)."""
    pid = hook_parent()
    for _ in range(_ANCESTORS):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                arguments = handle.read(8192).split(b"\0")[:3]
            with open(f"/proc/{pid}/stat", "rb") as handle:
                parent = int(handle.read(512).rpartition(b")")[2].split()[1])
        except (OSError, ValueError, IndexError):
            return ""
        for argument in arguments:
            if b"/" in argument:
                found = _package_of(os.path.realpath(os.fsdecode(argument)), names)
                if found:
                    return _package_version(found)
        if parent <= 1:
            return ""
        pid = parent
    return ""


def _parent_program_version() -> str:
    """The version in the ``package.json`` of the npm package whose ``bin/`` holds the program
    of the hook's parent process (OpenCode's binary: ``opencode-ai/bin/opencode.exe``, or
    ``opencode-linux-x64/bin/opencode``), when its name begins with ``opencode`` (Linux only:
    through ``/proc``)."""
    try:
        program = os.path.realpath(f"/proc/{hook_parent()}/exe")
    except (OSError, ValueError):
        return ""
    package = os.path.dirname(os.path.dirname(program))
    if os.path.basename(os.path.dirname(program)) != "bin":
        return ""
    if not os.path.basename(package).startswith("opencode"):
        return ""
    return _package_version(os.path.join(package, "package.json"))


def _package_of(path: str, names: tuple[str, ...]) -> str:
    for name in names:
        at = path.find(f"/{name}/")
        if at >= 0:
            return path[: at + len(name) + 1] + "/package.json"
    return ""


def _package_version(path: str) -> str:
    try:
        fd, _ = open_regular(path)
    except (OSError, ValueError):  # no version is no reason not to take the cut
        return ""
    try:
        data = os.pread(fd, 65536, 0)
    finally:
        os.close(fd)
    return _version_after(data, data.find(b'"version"'))


def _last_version(data: bytes) -> str:
    """The value of the last ``"version":"..."`` in ``data`` (the way the client writes its
    records, without spaces), or ''."""
    return _version_after(data, data.rfind(_VERSION_KEY))


def _version_after(data: bytes, at: int) -> str:
    """The version whose key starts at ``at`` (-1: none): a string of digits and dots first."""
    if at < 0:
        return ""
    start = data.find(b'"', data.find(b":", at) + 1) + 1
    end = data.find(b'"', start)
    value = data[start:end] if 0 < start <= end <= start + 40 else b""
    text = value.decode("ascii", "replace")
    return text if text[:1].isdigit() and "." in text else ""
