"""Hostile input: hook payloads, command-line arguments, symlinks and permissions at restore
time, and tampered stores. A hook always exits 0, prints nothing and writes nothing outside the
project's store; a command refuses with one line ``rewind: ...`` (exit 1) or succeeds as
documented, never with a traceback; a damaged store says so, and whatever is not damaged still
restores byte for byte."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from rewind.api import Project
from rewind.history.journal import ORPHAN_DIR, SPOOL_MARK
from rewind.history.restoring import opening
from tests.conftest import (
    RewindResult,
    error_line,
    ok,
    run_rewind,
    store_dir,
    without_read_permission,
)
from tests.support.agent_payloads import AGENTS, ClaudeCode, Codex, Cursor, Gemini, Payload

SESSION = "s"
Tree = dict[bytes, tuple[str, bytes, int]]


def tree(top: Path) -> Tree:
    """Everything under ``top`` (``.git`` included): kind, content or link target, mode.
    Special files are not opened (a FIFO would block)."""
    found: Tree = {}
    base = os.fsencode(top)
    for folder, directories, names in os.walk(base):
        for name in directories + names:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            key = os.path.relpath(path, base)
            mode = stat.S_IMODE(info.st_mode)
            if stat.S_ISLNK(info.st_mode):
                found[key] = ("link", os.readlink(path), 0)
            elif stat.S_ISDIR(info.st_mode):
                found[key] = ("directory", b"", mode)
            elif stat.S_ISREG(info.st_mode):
                with open(path, "rb") as handle:
                    found[key] = ("file", handle.read(), mode)
            else:
                found[key] = ("special", b"", mode)
    return found


def logged(project: Path) -> str:
    """Every line hooks logged: the store's log and ``$REWIND_HOME/hooks.log``."""
    text = ""
    for path in (
        store_dir(project) / "rewind" / "rewind.log",
        Path(os.environ["REWIND_HOME"]) / "hooks.log",
    ):
        if path.exists():
            text += path.read_text(encoding="utf-8", errors="replace")
    return text


def open_store(project: Path) -> object:

    return opening.open_store(os.fsencode(os.path.realpath(project)))


def recorded(project: Path) -> dict[bytes, object]:
    """What every session's newest entry holds: path -> the content of its before-state (or
    the state's kind when it has no content). Read in this process, journals merged."""
    from rewind.history.sessions import list_sessions

    if not (store_dir(project) / "HEAD").exists():
        return {}
    store = open_store(project)
    found: dict[bytes, object] = {}
    for summary in list_sessions(store):  # type: ignore[arg-type]
        entry = summary.head.current
        assert entry is not None
        for change in entry.files:
            before = change.before
            if before is not None and before.oid:
                found[change.path] = store.reader.read_blob(before.oid)  # type: ignore[attr-defined]
            else:
                found[change.path] = before.kind if before is not None else None
    return found


# hooks --------------------------------------------------------------------------------------


class World:
    """A project (a git work tree holding a.txt, a directory, a FIFO, a nested repository and
    a symlink ``ext`` to a sibling directory ``outside``), watched for writes where none may
    happen: outside the project, into its ``.git``, and into the project itself."""

    def __init__(self, project: Path, tmp_path: Path) -> None:
        self.root = project
        self.outside = tmp_path / "outside"
        self.outside.mkdir()
        (self.outside / "secret.txt").write_bytes(b"secret\n")
        (project / "a.txt").write_bytes(b"a0\n")
        (project / "dir").mkdir()
        os.mkfifo(project / "pipe")
        (project / "sub" / ".git").mkdir(parents=True)
        (project / "sub" / ".git" / "config").write_bytes(b"[core]\n")
        (project / "sub" / "s.txt").write_bytes(b"s0\n")
        os.symlink(self.outside, project / "ext")
        self.tmp = tmp_path
        self.before = tree(tmp_path)

    def hook(self, agent: str, payload: bytes | str | Payload, cwd: Path | None = None) -> None:
        """``rewind hook AGENT`` as a real process; checks the hook's contract."""
        if isinstance(payload, dict):
            payload = json.dumps(payload)
        data = payload.encode("utf-8", "surrogatepass") if isinstance(payload, str) else payload
        done = subprocess.run(
            [sys.executable, "-m", "rewind", "hook", agent],
            input=data,
            capture_output=True,
            timeout=30,
            cwd=cwd or self.root,
        )
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b""), done
        assert tree(self.tmp) == self.before, "the hook wrote outside its store"

    def recorded(self) -> dict[bytes, object]:
        return recorded(self.root)

    def logged(self) -> str:
        return logged(self.root)


@pytest.fixture
def world(project: Path, tmp_path: Path) -> World:
    return World(project, tmp_path)


def edit_event(agent: str, world: World, path: str) -> tuple[str, Payload]:
    """The event each agent sends before it changes ``path`` (Cursor: after, it has no other)."""
    root = world.root
    if agent == "claude-code":
        before, _ = ClaudeCode(root).write("x", "new\n")
        assert before is not None
        before["tool_input"] = {"file_path": path, "content": "new\n"}
        return agent, before
    if agent == "gemini":
        before, _ = Gemini(root).write("x", "new\n")
        assert before is not None
        before["tool_input"] = {"file_path": path, "content": "new\n"}
        return agent, before
    if agent == "codex":
        before, _ = Codex(root).patch(f"*** Update File: {path}\n@@\n-a0\n+a1")
        assert before is not None
        return agent, before
    _, after = Cursor(root).edit("x", "a0", "a1")
    after["file_path"] = path
    return agent, after


# The agents whose events this file knows how to build and take apart (edit_event, base_event,
# FIELDS); Copilot, Cline and Windsurf meet hostile payloads in their own test files
# (tests/hooks/copilot_test.py, tests/hooks/cline_windsurf_test.py).
KNOWN = (ClaudeCode, Codex, Gemini, Cursor)
AGENT_NAMES = [agent.name for agent in AGENTS if agent in KNOWN]

# path given -> (what is recorded, what the log says); ``{root}``/``{outside}`` are filled in
PATHS: dict[str, tuple[str, dict[bytes, object], str]] = {
    "dot-dot-escape": ("../outside/secret.txt", {}, "is outside the project root"),
    "absolute-outside": ("{outside}/secret.txt", {}, "is outside the project root"),
    "absolute-system-file": ("/etc/passwd", {}, "is outside the project root"),
    "dot-git": ("{root}/.git/config", {}, "is inside a .git directory"),
    "nested-dot-git": ("sub/.git/config", {}, "is inside a .git directory"),
    "symlinked-directory-to-outside": ("ext/secret.txt", {}, "is outside the project root"),
    "dot-dot-staying-inside": ("sub/../a.txt", {b"a.txt": b"a0\n"}, ""),
    "relative": ("a.txt", {b"a.txt": b"a0\n"}, ""),
}


@pytest.mark.parametrize("kind", PATHS)
@pytest.mark.parametrize("agent", AGENT_NAMES)
def test_a_hook_path_rewind_must_not_touch(world: World, agent: str, kind: str) -> None:
    given, expected, message = PATHS[kind]
    path = given.format(root=world.root, outside=world.outside)
    world.hook(*edit_event(agent, world, path))
    if agent == "cursor" and expected:
        expected = {b"a.txt": "unknown"}  # a0 is no text the edit a0 -> a1 leaves
    assert world.recorded() == expected
    if message:
        assert f"not recorded: {path} {message}" in world.logged()


# what a path names: not a regular file, or not a path at all ------------------------------------


def make_special(world: World, kind: str) -> str:
    """A path of ``kind`` in the project, as the agent names it."""
    root = world.root
    if kind == "character-device":
        os.mknod(root / "null", stat.S_IFCHR | 0o600, os.makedev(1, 3))
        world.before = tree(world.tmp)
        return str(root / "null")
    if kind == "symlink-to-an-endless-device":
        os.symlink("/dev/zero", root / "zero")
        world.before = tree(world.tmp)
        return str(root / "zero")
    return str(root / kind)  # dir, pipe: made by World


@pytest.mark.parametrize(
    "kind", ["dir", "pipe", "character-device", "symlink-to-an-endless-device"]
)
@pytest.mark.parametrize("agent", AGENT_NAMES)
def test_a_hook_path_that_is_no_regular_file(world: World, agent: str, kind: str) -> None:
    """Not recorded as a file (a FIFO or a device is never read: it would hang the hook or
    never end); a symlink is recorded as the link it is."""
    path = make_special(world, kind)
    world.hook(*edit_event(agent, world, path))
    name = os.path.basename(path).encode()
    if kind == "symlink-to-an-endless-device" and agent != "cursor":
        assert world.recorded() == {name: b"/dev/zero"}
    elif agent == "cursor":
        # afterFileEdit comes after the edit: nothing tells what was there before it
        assert world.recorded() == {name: "unknown"}
        assert "no state from before the edit could be had" in world.logged()
    else:
        assert world.recorded() == {}
        assert "not recorded" in world.logged()  # said, not silently skipped


UNUSABLE_PATHS = {
    "empty": "",
    "nul-byte": "a.txt\0.txt",
    "lone-surrogate": "caf\ud800.txt",
}


@pytest.mark.parametrize("kind", UNUSABLE_PATHS)
@pytest.mark.parametrize("agent", AGENT_NAMES)
def test_a_hook_path_that_is_no_usable_path(world: World, agent: str, kind: str) -> None:
    world.hook(*edit_event(agent, world, UNUSABLE_PATHS[kind]))
    assert world.recorded() == {}
    log = world.logged()
    assert "a bug in rewind" not in log
    if kind == "nul-byte":
        assert "not recorded: 'a.txt\\x00.txt' is not a file name: it holds a NUL byte." in log
    if kind == "lone-surrogate":
        assert "not recorded: 'caf\\ud800.txt' is not a file name: it is not valid Unicode." in log


@pytest.mark.parametrize("agent", AGENT_NAMES)
def test_a_hook_path_too_long_for_the_system(world: World, agent: str) -> None:
    """No file can have such a name: it is refused, and the log says why."""
    world.hook(*edit_event(agent, world, "x" * 10_000))
    assert world.recorded() == {}
    assert "has a name longer than file systems allow (255 bytes)" in world.logged()
    assert "a bug in rewind" not in world.logged()


@pytest.mark.parametrize("agent", AGENT_NAMES)
def test_a_hook_path_that_is_not_utf8_is_recorded_byte_for_byte(world: World, agent: str) -> None:
    """Bytes that are not UTF-8 reach the hook raw: the file of that very name is recorded."""
    (world.root / "caf\udce9.txt").write_bytes(b"a0\n")
    world.before = tree(world.tmp)
    _, payload = edit_event(agent, world, "@PATH@")
    raw = json.dumps(payload).encode().replace(b"@PATH@", b"caf\xe9.txt")
    world.hook(agent, raw)
    expected: object = "unknown" if agent == "cursor" else b"a0\n"
    assert world.recorded() == {b"caf\xe9.txt": expected}


# payloads that are no event ------------------------------------------------------------------

GARBAGE = {
    "cut-short": b'{"session_id": "s", "hook_event_name": "PreTool',
    "null": b"null",
    "a-number": b"42",
    "a-string": b'"UserPromptSubmit"',
    "trailing-garbage": b'{"hook_event_name": "Stop"} {"x": 1}',
    "not-utf8": b'\xff\xfe{\x00"\x00}',
    "nul-bytes": b"\x00" * 64,
    "deep-inside-an-object": b'{"tool_input": ' + b"[" * 50_000 + b"]" * 50_000 + b"}",
}


@pytest.mark.parametrize("kind", GARBAGE)
@pytest.mark.parametrize("agent", AGENT_NAMES)
def test_a_payload_that_is_no_event_is_logged_and_ignored(
    world: World, agent: str, kind: str
) -> None:
    world.hook(agent, GARBAGE[kind])
    assert world.recorded() == {}
    assert not store_dir(world.root).exists()  # no project was named: no store is made
    log = (Path(os.environ["REWIND_HOME"]) / "hooks.log").read_text()
    assert f"hook {agent}: event ? ignored: " in log and "a bug" not in log


# fields of the wrong type, null or missing ----------------------------------------------------


def base_event(agent: str, world: World) -> Payload:
    """An edit of a.txt as each agent reports it; Cursor's says a9 became a0."""
    root = world.root
    if agent == "cursor":
        _, after = Cursor(root).edit("a.txt", "a9", "a0")
        return after
    event: Payload | None
    if agent == "claude-code":
        event, _ = ClaudeCode(root).write("a.txt", "new\n")
    elif agent == "gemini":
        event, _ = Gemini(root).write("a.txt", "new\n")
    else:
        event, _ = Codex(root).edit("a.txt", "a0", "a1")
    assert event is not None
    return event


# agent -> field -> whether the edit is still recorded without it ("tool_input.x" is nested)
FIELDS: dict[str, dict[str, bool]] = {
    "claude-code": {
        "session_id": True,  # a new session is made
        "cwd": True,  # the hook's own directory is the project's
        "transcript_path": True,
        "permission_mode": True,
        "hook_event_name": False,
        "tool_name": False,
        "tool_use_id": True,
        "tool_input": False,
        "tool_input.file_path": False,
    },
    "codex": {
        "session_id": True,
        "turn_id": True,
        "cwd": True,
        "model": True,
        "hook_event_name": False,
        "tool_name": False,
        "tool_use_id": True,
        "tool_input": False,
        "tool_input.command": False,
    },
    "gemini": {
        "session_id": True,
        "cwd": True,
        "timestamp": True,
        "hook_event_name": False,
        "tool_name": False,
        "tool_input": False,
        "tool_input.file_path": False,
    },
    "cursor": {
        "conversation_id": True,
        "generation_id": True,
        "workspace_roots": True,
        "hook_event_name": False,
        "file_path": False,
        "edits": True,  # with no pre-image: nothing says what the text was
    },
}
WRONG = {"null": None, "number": 7, "list": ["x", 1], "object": {"k": ["v"]}, "missing": ...}


@pytest.mark.parametrize("value", WRONG)
@pytest.mark.parametrize(
    ("agent", "field"), [(agent, field) for agent, fields in FIELDS.items() for field in fields]
)
def test_a_field_of_the_wrong_type(world: World, agent: str, field: str, value: str) -> None:
    event = base_event(agent, world)
    holder: dict[str, object] = event
    key = field
    if field.startswith("tool_input."):
        holder, key = event["tool_input"], field.split(".", 1)[1]  # type: ignore[assignment]
    if value == "missing":
        del holder[key]
    else:
        holder[key] = WRONG[value]
    world.hook(agent, event)
    if (field, value) == ("workspace_roots", "list"):  # its first root, "x", does not exist
        assert world.recorded() == {}
        assert "ignored: the event's directory 'x' does not exist" in world.logged()
    elif not FIELDS[agent][field]:
        assert world.recorded() == {}
    elif agent == "cursor" and field == "edits":
        assert world.recorded() == {b"a.txt": "unknown"}
        assert "a.txt: no state from before the edit could be had" in world.logged()
    elif agent == "cursor":
        assert world.recorded() == {b"a.txt": b"a9\n"}
    else:
        assert world.recorded() == {b"a.txt": b"a0\n"}
    assert "a bug in rewind" not in world.logged()


# Codex's apply_patch text ---------------------------------------------------------------------


def codex_patch(world: World, command: object) -> Payload:
    before, _ = Codex(world.root).patch("")
    assert before is not None
    before["tool_input"] = {"command": command}
    return before


A0: dict[bytes, object] = {b"a.txt": b"a0\n"}
PATCHES: dict[str, tuple[object, dict[bytes, object], str]] = {
    "no-markers": ("just some text\nwith lines\n", {}, ""),
    # Codex trims a header line before it reads it: an indented marker names a file it patches.
    "indented-marker": (" *** Update File: a.txt\n", A0, ""),
    "blank-path": ("*** Begin Patch\n*** Add File:    \n*** End Patch\n", {}, ""),
    "crlf-lines": ("*** Begin Patch\r\n*** Update File: a.txt\r\n*** End Patch\r\n", A0, ""),
    "same-path-twice": (
        "*** Update File: a.txt\n*** Update File: ./a.txt\n*** Delete File: a.txt\n",
        A0,
        "",
    ),
    "move-to-outside": (
        "*** Update File: a.txt\n*** Move to: ../outside/secret.txt\n",
        A0,
        "not recorded: ../outside/secret.txt is outside the project root",
    ),
    "delete-in-dot-git": (
        "*** Delete File: .git/HEAD\n*** Delete File: a.txt\n",
        A0,
        "not recorded: .git/HEAD is inside a .git directory",
    ),
    "argv-list": (["apply_patch", "*** Begin Patch\n*** Update File: a.txt\n"], A0, ""),
    "list-of-garbage": ([1, {"a": "*** Update File: a.txt"}, None], {}, ""),
    "one-path-with-a-nul-byte": (
        "*** Update File: a.txt\n*** Add File: b\0.txt\n",
        A0,
        "not recorded: 'b\\x00.txt' is not a file name: it holds a NUL byte.",
    ),
}


@pytest.mark.parametrize("kind", PATCHES)
def test_a_codex_patch_text(world: World, kind: str) -> None:
    command, expected, message = PATCHES[kind]
    world.hook("codex", codex_patch(world, command))
    assert world.recorded() == expected
    assert message in world.logged()
    assert "a bug in rewind" not in world.logged()


def test_a_codex_patch_naming_thousands_of_files(world: World) -> None:
    body = "".join(f"*** Add File: gen/{i}.txt\n+x\n" for i in range(3000))
    world.hook("codex", codex_patch(world, f"*** Begin Patch\n{body}*** End Patch\n"))
    found = world.recorded()
    assert len(found) == 3000 and set(found.values()) == {"absent"}


# Cursor's list of edits -----------------------------------------------------------------------

EDITS: dict[str, object] = {
    "a-string": "a9 -> a0",
    "numbers": [1, 2, 3],
    "texts-of-the-wrong-type": [{"old_string": 9, "new_string": ["a0"]}],
    "empty-new-text": [{"old_string": "a0", "new_string": ""}],
    "new-text-not-in-the-file": [{"old_string": "x", "new_string": "not there"}],
    "new-text-twice": [{"old_string": "a", "new_string": "\n"}],
    "edits-that-do-not-redo": [{"old_string": "a", "new_string": "0"}],
    "ten-thousand-edits": [{"old_string": "q", "new_string": "w"}] * 10_000,
}


@pytest.mark.parametrize("kind", EDITS)
def test_cursor_edits_that_tell_nothing_give_no_pre_image(world: World, kind: str) -> None:
    _, event = Cursor(world.root).edit("a.txt", "", "")
    event["edits"] = EDITS[kind]
    world.hook("cursor", event)
    assert world.recorded() == {b"a.txt": "unknown"}
    assert "a.txt: no state from before the edit could be had" in world.logged()


def test_cursor_edits_that_tell_nothing_fall_back_on_the_last_record(world: World) -> None:
    cursor = Cursor(world.root)
    world.hook("cursor", cursor.prompt("one"))
    (world.root / "a.txt").write_bytes(b"a1\n")
    world.before = tree(world.tmp)
    world.hook("cursor", cursor.edit("a.txt", "a0", "a1")[1])
    world.hook("cursor", cursor.end())
    world.hook("cursor", cursor.prompt("two"))
    (world.root / "a.txt").write_bytes(b"a2\n")
    world.before = tree(world.tmp)
    _, event = cursor.edit("a.txt", "", "")
    event["edits"] = "garbage"
    world.hook("cursor", event)
    assert world.recorded() == {b"a.txt": b"a1\n"}  # what turn one ended with


# the directory an event names -----------------------------------------------------------------


def with_cwd(agent: str, world: World, cwd: object) -> Payload:
    event = base_event(agent, world)
    event["cwd"] = cwd
    if agent == "cursor":
        event["workspace_roots"] = []
    return event


@pytest.mark.parametrize("agent", AGENT_NAMES)
def test_a_cwd_that_is_a_file(world: World, agent: str) -> None:
    world.hook(agent, with_cwd(agent, world, str(world.root / "a.txt")))
    assert world.recorded() == {}
    assert (
        f"ignored: the event's directory '{world.root / 'a.txt'}' does not exist"
        in (Path(os.environ["REWIND_HOME"]) / "hooks.log").read_text()
    )


@pytest.mark.parametrize("agent", AGENT_NAMES)
def test_a_cwd_with_a_nul_byte(world: World, agent: str) -> None:
    world.hook(agent, with_cwd(agent, world, str(world.root) + "\0/x"))
    assert world.recorded() == {}
    assert "does not exist" in (Path(os.environ["REWIND_HOME"]) / "hooks.log").read_text()


@pytest.mark.parametrize("agent", AGENT_NAMES)
def test_a_relative_cwd_is_taken_from_the_hooks_directory(world: World, agent: str) -> None:
    """``lib`` from the project's root: relative paths of the event are relative to it."""
    (world.root / "lib").mkdir()
    (world.root / "lib" / "l.txt").write_bytes(b"l0\n")
    world.before = tree(world.tmp)
    event = with_cwd(agent, world, "lib")
    if agent == "codex":
        event = codex_patch(world, "*** Update File: l.txt\n")
        event["cwd"] = "lib"
    elif agent == "cursor":
        event["file_path"] = "l.txt"
        event["edits"] = [{"old_string": "l9", "new_string": "l0"}]
    else:
        event["tool_input"] = {"file_path": "l.txt", "content": "x"}
    world.hook(agent, event)
    expected = b"l9\n" if agent == "cursor" else b"l0\n"
    assert world.recorded() == {b"lib/l.txt": expected}


@pytest.mark.parametrize("agent", AGENT_NAMES)
def test_a_cwd_outside_the_project(world: World, agent: str) -> None:
    """The sibling directory is then a project of its own (it is no git work tree): the edit
    is outside it, so nothing is recorded, and nothing is written in either."""
    world.hook(agent, with_cwd(agent, world, str(world.outside)))
    assert world.recorded() == {}
    if agent == "codex":  # its patch names a.txt, relative: outside/a.txt, which is absent
        assert recorded(world.outside) == {b"a.txt": "absent"}
    else:
        assert recorded(world.outside) == {}
        assert "is outside the project root" in logged(world.outside)


# ids, prompts and call ids no file system likes ------------------------------------------------

SESSION_IDS = {
    "dot-dot-slash": "../../../../etc/passwd",
    "nul-byte": "s\0x",
    "lock-suffix": "HEAD.lock",
    "10000-characters": "s" * 10_000,
    "lone-surrogate": "s\ud800",
}


@pytest.mark.parametrize("kind", SESSION_IDS)
def test_a_session_id_no_ref_may_have(world: World, kind: str) -> None:
    claude = ClaudeCode(world.root, session=SESSION_IDS[kind])
    world.hook("claude-code", claude.prompt("hi"))
    before, _ = claude.edit("a.txt", "a0", "a1")
    assert before is not None
    world.hook("claude-code", before)
    assert world.recorded() == {b"a.txt": b"a0\n"}
    refs = os.listdir(store_dir(world.root) / "refs" / "rewind" / "sessions")
    assert len(refs) == 1 and refs[0].startswith("x-")  # hashed: no path, no odd name


@pytest.mark.parametrize("agent", AGENT_NAMES)
def test_a_prompt_of_five_megabytes_starts_the_turn(world: World, agent: str) -> None:
    prompt = "p" * 5_000_000
    world.hook(agent, KNOWN[AGENT_NAMES.index(agent)](world.root).prompt(prompt))
    from rewind.history.sessions import list_sessions

    [summary] = list_sessions(open_store(world.root))  # type: ignore[arg-type]
    assert summary.head.current is not None and summary.head.current.prompt == prompt


def test_a_call_id_with_slashes_keeps_its_record_inside_the_store(world: World) -> None:
    claude = ClaudeCode(world.root)
    before, after = claude.shell("rm a.txt")
    assert before is not None
    for event in (before, after):
        event["tool_use_id"] = "../../../../../../tmp/../x"
    world.hook("claude-code", before)
    assert world.recorded() == {b"a.txt": b"a0\n"}
    pending = store_dir(world.root) / "rewind" / "pending"
    assert os.listdir(pending) == ["_.._.._.._.._.._tmp_.._x.json"]
    (world.root / "a.txt").unlink()
    world.before = tree(world.tmp)
    world.hook("claude-code", after)
    assert os.listdir(pending) == []


# command-line arguments ------------------------------------------------------------------------


@pytest.fixture
def history(project: Path, tmp_path: Path) -> Path:
    """Session s: a.txt a0 -> a1 -> a2 and b.txt b0 -> b1 -> b2 over two turns (written in this
    process, to keep the tests fast), a symlink ``ext`` to a sibling directory ``outside`` and
    a symlink ``link.txt`` to a file in it."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_bytes(b"secret\n")
    os.symlink(outside, project / "ext")
    os.symlink(outside / "secret.txt", project / "link.txt")
    (project / "a.txt").write_bytes(b"a0\n")
    (project / "b.txt").write_bytes(b"b0\n")
    recorder = Project(project, session=SESSION, agent="test")
    for number in (1, 2):
        with recorder.turn(f"turn {number}") as turn:
            turn.write_bytes("a.txt", f"a{number}\n".encode())
            turn.write_bytes("b.txt", f"b{number}\n".encode())
    return project


def refused(*arguments: str) -> str:
    """``rewind ARGS`` refused in one line; the files are as they were."""
    result = run_rewind(*arguments)
    assert "Traceback" not in result.stderr, result
    return error_line(result)


def unchanged(project: Path) -> None:
    assert (project / "a.txt").read_bytes() == b"a2\n"
    assert (project / "b.txt").read_bytes() == b"b2\n"
    assert (project.parent / "outside" / "secret.txt").read_bytes() == b"secret\n"


NO_SUCH_TURN = "there is no turn {!r} in session s; turns go from 1 to 2 ('rewind log' lists them)."
LONG = "7" * 10_000


@pytest.mark.parametrize("turn", ["-1", "0", "999999", "abc", "1.5", "+1", "0x1", LONG])
@pytest.mark.parametrize("command", ["restore", "show", "diff"])
def test_a_turn_that_is_no_turn(history: Path, command: str, turn: str) -> None:
    confirm = ["--yes"] if command == "restore" else []
    line = refused(command, turn, "--session", SESSION, *confirm)
    assert line == "rewind: " + NO_SUCH_TURN.format(turn)
    unchanged(history)


@pytest.mark.parametrize("session", ["nope", "../../../etc", "s" * 10_000, "s/..", "-"])
def test_a_session_that_does_not_exist(history: Path, session: str) -> None:
    line = refused("restore", "1", "--session", session, "--yes")
    assert line == f"rewind: there is no session {session!r}; 'rewind sessions' lists them."
    unchanged(history)


def test_an_empty_session_is_no_session_given(history: Path) -> None:
    """As documented: the session is --session, else $REWIND_SESSION, else the most recent."""
    assert ok("log", "--session", "").stdout.startswith("session s ")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["restore", "1", "--session"], "argument --session: expected one argument"),
        (["restore", "1", "2", "--yes"], "unrecognized arguments: 2"),
        (["restore", "--", "1", "--yes"], "unrecognized arguments: --yes"),
        (["gc", "extra"], "unrecognized arguments: extra"),
        (["check", "--session", "s"], "--session goes with --drill"),
        (["-C", "", "log"], " is not a directory"),
        (["label", "1", ""], "'' cannot be a label"),
        (["label", "1", "../x"], "'../x' cannot be a label"),
        (["forget", "", "--yes"], "there is no session ''"),
        (["restore", "1", "--yes", "--path", ""], "an empty path was given"),
        (["track", LONG], "has a name longer than file systems allow (255 bytes)"),
    ],
    ids=lambda value: " ".join(value)[:40] if isinstance(value, list) else "",
)
def test_arguments_in_odd_places(history: Path, arguments: list[str], message: str) -> None:
    assert message in refused(*arguments)
    unchanged(history)


def test_options_before_the_turn_are_taken(history: Path) -> None:
    result = ok("restore", "--yes", "--session", SESSION, "--dry-run", "1")
    assert "restore   a.txt" in result.stdout
    unchanged(history)


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("../outside/secret.txt", "../outside/secret.txt is outside the project root"),
        ("ext/secret.txt", "ext/secret.txt is outside the project root"),
        (".git/config", ".git/config is inside a .git directory"),
        ("link.txt", "link.txt was not changed in turns 1..2"),
        ("x" * 10_000, "has a name longer than file systems allow (255 bytes)"),
    ],
    ids=["dot-dot", "through-a-symlinked-directory", "dot-git", "symlink-to-outside", "long"],
)
def test_a_restore_path_rewind_must_not_touch(history: Path, path: str, message: str) -> None:
    before = (history / ".git" / "config").read_bytes()
    assert message in refused("restore", "1", "--session", SESSION, "--yes", "--path", path)
    unchanged(history)
    assert (history / ".git" / "config").read_bytes() == before


def test_tracking_a_symlink_to_outside_records_the_link_only(history: Path) -> None:
    ok("track", "--session", SESSION, "link.txt")
    (history / "link.txt").unlink()
    (history / "link.txt").write_bytes(b"now a file\n")
    ok("restore", "3", "--session", SESSION, "--yes")
    assert os.readlink(history / "link.txt") == str(history.parent / "outside" / "secret.txt")
    unchanged(history)


# symlinks and permissions at restore time ------------------------------------------------------


@pytest.fixture
def nested(project: Path, tmp_path: Path) -> Path:
    """Session s, turn 1 changed d/e/f.txt f0 -> f1 and a.txt a0 -> a1; ``outside`` holds
    files of the same names."""
    outside = tmp_path / "outside"
    (outside / "e").mkdir(parents=True)
    (outside / "f.txt").write_bytes(b"outside\n")
    (outside / "e" / "f.txt").write_bytes(b"outside\n")
    (project / "d" / "e").mkdir(parents=True)
    (project / "d" / "e" / "f.txt").write_bytes(b"f0\n")
    (project / "a.txt").write_bytes(b"a0\n")
    recorder = Project(project, session=SESSION, agent="test")
    with recorder.turn("one") as turn:
        turn.write_bytes("d/e/f.txt", b"f1\n")
        turn.write_bytes("a.txt", b"a1\n")
    return project


def swap_for_link(directory: Path, target: Path) -> None:
    """``directory`` moved aside and replaced by a symlink to ``target``."""
    directory.rename(directory.with_name(directory.name + ".moved"))
    os.symlink(target, directory)


@pytest.mark.parametrize("swapped", ["d", "d/e"])
def test_a_directory_swapped_for_a_symlink_to_outside_is_not_written_through(
    nested: Path, swapped: str
) -> None:
    outside = nested.parent / "outside"
    swap_for_link(nested / swapped, outside)
    before = tree(outside)
    result = run_rewind("restore", "1", "--session", SESSION, "--yes", "--force")
    assert_not_written_through(result, "restore")
    assert tree(outside) == before
    assert os.path.islink(nested / swapped)
    assert (nested / "a.txt").read_bytes() == b"a0\n"  # the rest of the restore is done


def assert_not_written_through(result: RewindResult, kind: str) -> None:
    """Exit 2: the path is left out of the plan, said once, the rest is done, and nothing is
    left waiting (no retry could write through the link while it is there)."""
    assert result.returncode == 2 and "Traceback" not in result.stderr, result
    skipped = "skip      d/e/f.txt  (rewind never writes it: it now resolves outside the project"
    assert skipped in result.stdout
    (line,) = result.stderr.splitlines()
    assert line.startswith("rewind: 1 file(s) could not be brought back (the other files were)")
    assert f" 1 file(s), as {kind}" in result.stdout
    assert "waiting to be finished" not in ok("status").stdout


def test_a_directory_swapped_for_a_link_into_the_projects_own_git_is_not_used(
    project: Path,
) -> None:
    """A folder the agent wrote, replaced by a symlink to the project's ``.git`` (inside the
    project, so not "outside"): a restore deletes and writes nothing there (a deleted HEAD, a
    recreated hook that git then runs), and the next turn keeps nothing of it (a token in
    ``.git/config`` pushed as ``sub/config``)."""
    git = project / ".git"
    (git / "hooks").mkdir(exist_ok=True)
    head = (git / "HEAD").read_bytes()
    config = (git / "config").read_bytes() + b'[remote "o"]\n\turl = https://u:TOKEN@h/r\n'
    (git / "config").write_bytes(config)
    recorder = Project(project, session=SESSION, agent="test")
    with recorder.turn("write sub") as turn:
        turn.write_bytes("sub/HEAD", head)
        turn.write_bytes("sub/config", b"mine\n")
        turn.write_bytes("sub/hooks/pre-commit", b"#!/bin/sh\ntouch pwned\n")
    before = tree(git)
    for name in ("HEAD", "config", "hooks/pre-commit"):
        (project / "sub" / name).unlink()
    (project / "sub" / "hooks").rmdir()
    (project / "sub").rmdir()
    os.symlink(".git", project / "sub")
    done = run_rewind("restore", "1", "--session", SESSION, "--yes", "--force")
    assert done.returncode == 2, done  # what it skips is named, and the exit says so
    for name in ("sub/HEAD", "sub/config", "sub/hooks/pre-commit"):
        assert (
            f"skip      {name}  (rewind never writes it: it now resolves into a .git" in done.stdout
        )
    assert tree(git) == before
    ok("begin", "--session", SESSION, "--prompt", "next")
    shown = ok("log", "--session", SESSION, "--json").stdout
    assert "changed outside rewind" not in shown and "TOKEN" not in shown


def test_undo_does_not_write_through_a_directory_swapped_since_the_restore(nested: Path) -> None:
    ok("restore", "1", "--session", SESSION, "--yes")
    assert (nested / "d" / "e" / "f.txt").read_bytes() == b"f0\n"
    outside = nested.parent / "outside"
    swap_for_link(nested / "d", outside)
    before = tree(outside)
    result = run_rewind("undo", "--session", SESSION, "--yes", "--force")
    assert_not_written_through(result, "undo")
    assert tree(outside) == before
    assert (nested / "a.txt").read_bytes() == b"a1\n"


def test_a_file_swapped_for_a_symlink_to_outside_is_replaced_not_followed(nested: Path) -> None:
    outside = nested.parent / "outside"
    (nested / "a.txt").unlink()
    os.symlink(outside / "f.txt", nested / "a.txt")
    before = tree(outside)
    line = refused("restore", "1", "--session", SESSION, "--yes")
    assert "changed outside rewind since it last recorded them (a.txt); nothing was written" in line
    assert tree(outside) == before
    ok("restore", "1", "--session", SESSION, "--yes", "--force")
    assert tree(outside) == before
    assert (nested / "a.txt").read_bytes() == b"a0\n" and not os.path.islink(nested / "a.txt")
    assert (nested / "d" / "e" / "f.txt").read_bytes() == b"f0\n"


def test_a_directory_that_cannot_be_read_at_restore_time(nested: Path) -> None:
    (nested / "d" / "e").chmod(0)
    try:
        result = without_read_permission("restore", "1", "--session", SESSION, "--yes")
    finally:
        (nested / "d" / "e").chmod(0o755)
    assert result.returncode == 2 and "d/e/f.txt: it cannot be read now" in result.stderr, result
    assert "skip      d/e/f.txt  (it cannot be read now" in result.stdout
    assert (nested / "d" / "e" / "f.txt").read_bytes() == b"f1\n"
    assert (nested / "a.txt").read_bytes() == b"a0\n"


# tampered stores --------------------------------------------------------------------------------


def oid_of(content: bytes) -> str:
    """The id of the blob holding ``content``."""
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


def loose(project: Path, oid: str) -> Path:
    return store_dir(project) / "objects" / oid[:2] / oid[2:]


def b_still_restores(project: Path) -> None:
    ok("restore", "1", "--session", SESSION, "--yes", "--path", "b.txt")
    assert (project / "b.txt").read_bytes() == b"b0\n"


DAMAGE: dict[str, Callable[[Path], object]] = {
    "garbage": lambda path: path.write_bytes(b"garbage, not zlib"),
    "truncated": lambda path: path.write_bytes(path.read_bytes()[:7]),
    "missing": lambda path: path.unlink(),
    "empty": lambda path: path.write_bytes(b""),
}


@pytest.mark.parametrize("damage", DAMAGE)
def test_a_damaged_loose_object(history: Path, damage: str) -> None:
    oid = oid_of(b"a0\n")
    path = loose(history, oid)
    path.chmod(0o644)
    DAMAGE[damage](path)
    line = refused("restore", "1", "--session", SESSION, "--yes")
    assert oid in line and "rewind check" in line
    unchanged(history)
    checked = run_rewind("check")
    assert checked.returncode == 1 and "Traceback" not in checked.stderr, checked
    assert f"the before-state of a.txt ({oid}) is missing or corrupted" in checked.stderr
    b_still_restores(history)


@pytest.mark.parametrize("part", ["pack", "idx"])
def test_a_garbage_pack_is_named(history: Path, part: str) -> None:
    ok("gc")
    [pack] = (store_dir(history) / "objects" / "pack").glob(f"*.{part}")
    pack.chmod(0o644)
    pack.write_bytes(b"garbage " * 64)
    for command in (["log", "--session", SESSION], ["restore", "1", "--yes"], ["check"]):
        line = refused(*command)
        assert "is missing from the store; run 'rewind check'" in line
    unchanged(history)


CACHES = {
    "not-json": b"{garbage",
    "a-list": b"[1, 2]",
    "not-utf8": b'{"tip": "\xff"}',
    "another-tip": b'{"tip": "' + b"0" * 40 + b'", "current": {"files": "x"}}',
    "deep": b"[" * 100_000,
}


@pytest.mark.parametrize("cache", CACHES)
def test_a_garbage_session_cache_is_rebuilt(history: Path, cache: str) -> None:
    (store_dir(history) / "rewind" / "sessions" / "s.json").write_bytes(CACHES[cache])
    ok("restore", "1", "--session", SESSION, "--yes")
    assert (history / "a.txt").read_bytes() == b"a0\n"
    assert (history / "b.txt").read_bytes() == b"b0\n"


@pytest.mark.parametrize("content", [b"{garbage", b"", b"\xff\xfe", b'{"root": "/etc"}'])
def test_a_garbage_project_json_changes_nothing(history: Path, content: bytes) -> None:
    (store_dir(history) / "rewind" / "project.json").write_bytes(content)
    ok("restore", "1", "--session", SESSION, "--yes")
    assert (history / "a.txt").read_bytes() == b"a0\n"
    assert (history / "b.txt").read_bytes() == b"b0\n"


def open_third_turn(project: Path) -> Path:
    """Turn 3 open, a.txt and b.txt recorded in its journal and then changed; the journal."""
    recorder = Project(project, session=SESSION, agent="test")
    recorder.turn("three")
    recorder.track("a.txt", "b.txt")
    (project / "a.txt").write_bytes(b"a3\n")
    (project / "b.txt").write_bytes(b"b3\n")
    return store_dir(project) / "rewind" / "journal" / SESSION


JOURNAL_LINES = {
    "not-json": b"{garbage\n",
    "not-an-object": b"[1, 2]\n",
    "not-utf8": b'{"before": "\xff"}\n',
    "before-not-a-list": b'{"before": "a.txt"}\n',
    "a-record-without-a-path": b'{"before": [{"before": {"kind": "absent"}}]}\n',
    "a-record-whose-path-is-a-number": b'{"before": [{"path": 3}]}\n',
    "an-after-state-that-is-a-number": b'{"after": [{"path": "a.txt", "state": 5}]}\n',
    "nul-bytes": b"\0" * 40 + b"\n",
    "deep": b"[" * 100_000 + b"\n",
}


@pytest.mark.parametrize("line", JOURNAL_LINES)
def test_a_garbage_line_in_the_journal_loses_no_other_record(history: Path, line: str) -> None:
    journal = open_third_turn(history)
    with open(journal, "ab") as handle:
        handle.write(JOURNAL_LINES[line])
    result = run_rewind("restore", "3", "--session", SESSION, "--yes", "--force")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result
    assert (history / "a.txt").read_bytes() == b"a2\n"
    assert (history / "b.txt").read_bytes() == b"b2\n"


@pytest.mark.parametrize("header", [b"{garbage\n", b"[]\n", b"\n", b"[" * 100_000 + b"\n"])
def test_a_garbage_journal_header_loses_no_record(history: Path, header: bytes) -> None:
    journal = open_third_turn(history)
    lines = journal.read_bytes().split(b"\n", 1)
    journal.write_bytes(header + lines[1])
    result = run_rewind("restore", "3", "--session", SESSION, "--yes", "--force")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result
    assert (history / "a.txt").read_bytes() == b"a2\n"
    assert (history / "b.txt").read_bytes() == b"b2\n"


def test_a_journal_header_naming_another_entry_is_set_aside_not_applied(history: Path) -> None:
    """As docs/store.md says of a journal whose turn is not the session's newest entry."""
    journal = open_third_turn(history)
    lines = journal.read_bytes().split(b"\n", 1)
    journal.write_bytes(b'{"journal": "j", "entry": "5"}\n' + lines[1])
    result = run_rewind("restore", "3", "--session", SESSION, "--yes", "--force")
    assert result.returncode == 0 and "nothing to change" in result.stdout, result
    [kept, why] = sorted(os.listdir(journal.parent / ORPHAN_DIR))
    assert why == kept + ".why"
    assert (journal.parent / ORPHAN_DIR / kept).read_bytes().endswith(lines[1])
    assert "a journal that belongs to no open turn was set aside" in logged(history)


@pytest.mark.parametrize("content", [b"{garbage", b"", b"[1]", b"\xff\n"])
def test_a_garbage_spool_file_loses_no_other_record(history: Path, content: bytes) -> None:
    journal = open_third_turn(history)
    journal.with_name(f"{SESSION}{SPOOL_MARK}1-2-3").write_bytes(content)
    result = run_rewind("restore", "3", "--session", SESSION, "--yes", "--force")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result
    assert (history / "a.txt").read_bytes() == b"a2\n"
    assert (history / "b.txt").read_bytes() == b"b2\n"


@pytest.mark.parametrize("content", [b"{garbage", b"", b"[]", b'{"session": 5, "entry": []}'])
def test_a_garbage_restore_journal(history: Path, content: bytes) -> None:
    (store_dir(history) / "rewind" / "restore-journal.json").write_bytes(content)
    """Nothing can be finished from it: it is set aside, and the restore runs."""
    ok("restore", "1", "--session", SESSION, "--yes")
    assert (history / "a.txt").read_bytes() == b"a0\n"
    assert (history / "b.txt").read_bytes() == b"b0\n"


@pytest.mark.parametrize("text", ["max_file_size = [\n", "\xff", "extra_roots = [1]\n"])
def test_a_garbage_rewind_toml_in_the_store(history: Path, text: str) -> None:
    toml = store_dir(history) / "rewind.toml"
    toml.write_bytes(text.encode("utf-8", "surrogateescape") if text != "\xff" else b"\xff")
    assert str(toml) in refused("restore", "1", "--session", SESSION, "--yes")
    unchanged(history)
    before, _ = ClaudeCode(history, session=SESSION).edit("a.txt", "a2", "a3")
    done = subprocess.run(
        [sys.executable, "-m", "rewind", "hook", "claude-code"],
        input=json.dumps(before).encode(),
        capture_output=True,
        timeout=30,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b""), done
    assert str(toml) in logged(history)


def point_ref_at(history: Path, points_at: str) -> str:
    """Session t changed c.txt c0 -> c1; then session s's ref is made to point at no commit."""
    recorder = Project(history, session="t", agent="test")
    (history / "c.txt").write_bytes(b"c0\n")
    with recorder.turn("other") as turn:
        turn.write_bytes("c.txt", b"c1\n")
    target = "1" * 40 if points_at == "a-missing-commit" else oid_of(b"a0\n")
    (store_dir(history) / "refs" / "rewind" / "sessions" / SESSION).write_text(target + "\n")
    return target


REF_MESSAGES = {
    "a-missing-commit": "object {} is missing from the store; run 'rewind check'",
    "a-blob": "object {} is a blob, not a commit; run 'rewind check'",
}


@pytest.mark.parametrize("points_at", REF_MESSAGES)
def test_a_ref_pointing_at_no_commit_is_named(history: Path, points_at: str) -> None:
    target = point_ref_at(history, points_at)
    line = refused("restore", "1", "--session", SESSION, "--yes")
    assert REF_MESSAGES[points_at].format(target) in line
    unchanged(history)


@pytest.mark.parametrize("points_at", REF_MESSAGES)
def test_a_ref_pointing_at_no_commit_spares_other_sessions(history: Path, points_at: str) -> None:
    point_ref_at(history, points_at)
    ok("restore", "1", "--session", "t", "--yes")
    assert (history / "c.txt").read_bytes() == b"c0\n"
