"""One real client, one project, one home: runs a :class:`Script` prompt by prompt through the
client against its scripted model server, then checks what rewind recorded the way a person
would use it (``rewind log``, a restore to before every turn, ``undo``).

A :class:`Client` runs one process per prompt, resuming the session; a :class:`HeldClient` keeps
each session open in one process that takes the prompts one after another.

``rewind`` is the wheel installed in a fresh venv and found on PATH, as after ``pipx install``;
the hooks are exactly those ``rewind install AGENT`` writes.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from tests.clients.model_server import ModelServer
from tests.clients.npm_install import with_node
from tests.clients.scenario import Script
from tests.conftest import snapshot
from tests.support.installed_wheel import Installed
from tests.support.watchers import stop_residents, stop_watchers

Tree = dict[bytes, tuple[str, bytes, int]]


class Client(Protocol):
    """What the tier needs to know of one agent's client."""

    agent: str  # the name ``rewind install`` takes

    def server(self, script: Script) -> ModelServer: ...

    def prepare(self, world: World) -> None:
        """Writes the client's own settings (in the world's home) besides rewind's hooks."""

    def environment(self, world: World) -> dict[str, str]: ...

    def argv(self, world: World, prompt: str, session: str | None) -> list[str]:
        """The command that sends ``prompt``: a new session, or ``session`` resumed."""

    def session_of(self, world: World, completed: subprocess.CompletedProcess[str]) -> str:
        """The session the client just ran (to resume it with the next prompt)."""


class HeldSession(Protocol):
    """One session a client holds open in a process of its own, prompt after prompt."""

    @property
    def id(self) -> str:
        """The session as rewind records it (known once a prompt has run)."""

    def prompt(self, text: str) -> None:
        """Sends ``text``; returns once the client has answered it."""

    def close(self) -> None:
        """Ends the client's process; fails when it leaves a process behind."""


@runtime_checkable
class HeldClient(Protocol):
    """A client that takes a session's prompts one by one in one long-lived process (an editor
    driving an agent over the Agent Client Protocol), rather than one process per prompt."""

    agent: str

    def server(self, script: Script) -> ModelServer: ...

    def prepare(self, world: World) -> None: ...

    def environment(self, world: World) -> dict[str, str]: ...

    def open_session(self, world: World) -> HeldSession:
        """Starts the client's process and a new session in it."""


AnyClient = Client | HeldClient


@dataclass
class World:
    client: AnyClient
    rewind: Installed
    root: Path
    server: ModelServer
    home: Path
    before: dict[str, Tree] = field(default_factory=dict)  # the tree before each prompt
    runs: list[subprocess.CompletedProcess[str]] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)  # how long each client run took
    held: dict[str, HeldSession] = field(default_factory=dict)  # a HeldClient's open sessions

    @property
    def env(self) -> dict[str, str]:
        """The client's environment: rewind as installed, capture of what programs change on
        (rewind's default)."""
        env = with_node(self.rewind.env)
        env.pop("REWIND_CAPTURE_PROGRAMS", None)
        env.update(self.client.environment(self))
        return env

    def ok(self, *args: str) -> str:
        done = subprocess.run(
            [self.rewind.rewind, *args],
            cwd=self.root,
            env=self.rewind.env,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done.stdout

    def tree(self) -> Tree:
        found = snapshot(self.root)
        return {path: state for path, state in found.items() if not _agent_owned(path)}

    def prompt(self, text: str, session: str | None = None) -> str:
        """Sends one prompt through the client; returns the session it ran in."""
        self.before[text] = self.tree()
        if isinstance(self.client, HeldClient):
            return self._held_prompt(self.client, text, session)
        argv = self.client.argv(self, text, session)
        started = time.perf_counter()
        done = subprocess.run(
            argv,
            cwd=self.root,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=180,
            stdin=subprocess.DEVNULL,
        )
        self.seconds.append(time.perf_counter() - started)
        self.runs.append(done)
        assert done.returncode == 0, f"{argv[0]} exited {done.returncode}: {done.stderr[-3000:]}"
        assert not self.server.problems, self.server.problems
        return self.client.session_of(self, done)

    def _held_prompt(self, client: HeldClient, text: str, session: str | None) -> str:
        """The prompt sent to the session's process (a new one without ``session``); the time
        counted is the prompt's, and the process's start for a new session."""
        started = time.perf_counter()
        held = self.held.pop(session) if session else client.open_session(self)
        try:
            held.prompt(text)
        finally:
            self.seconds.append(time.perf_counter() - started)
            self.held[held.id] = held  # its id may be known only now; closed with the world
        assert not self.server.problems, self.server.problems
        return held.id

    def close(self) -> None:
        """Ends the processes of the sessions a :class:`HeldClient` holds open (every one,
        then fails with the first that did not end cleanly)."""
        held, self.held = list(self.held.values()), {}
        failures = []
        for session in held:
            try:
                session.close()
            except Exception as error:
                failures.append(error)
        if failures:
            raise failures[0]

    def log(self, session: str | None = None) -> list[dict[str, Any]]:
        args = ["log", "--json"] + (["--session", session] if session else [])
        entries: list[dict[str, Any]] = json.loads(self.ok(*args))
        return entries

    def changes(self, session: str) -> list[dict[str, tuple[str, str]]]:
        """Each entry of the session as ``rewind log`` shows it: path -> (source, status)."""
        return [
            {file["path"]: (file["source"], file["status"]) for file in entry["files"]}
            for entry in self.log(session)
        ]

    def check_every_turn_rewinds(
        self, session: str, prompts: list[str], *, force: bool = False
    ) -> None:
        """``rewind log`` holds the prompts in order; a restore to before each turn gives back
        the tree as it was before that prompt, byte for byte; ``undo`` gives back the end.
        ``force``: the session holds changes made by hand, which a restore overwrites only
        when told to."""
        # Not the changes made by hand: what a turn's start found, or the watcher saw between turns.
        turns = [entry for entry in self.log(session) if entry["agent"] not in ("", "watch")]
        assert [entry["prompt"] for entry in turns] == prompts, turns
        final = self.tree()
        for entry in turns:
            restore = ["restore", str(entry["turn"]), "--yes", "--session", session]
            self.ok(*restore, *(["--force"] if force else []))
            before = self.before[entry["prompt"]]
            assert self.tree() == before, (entry["prompt"], _difference(before, self.tree()))
            self.ok("undo", "--yes", "--session", session)
            assert self.tree() == final, (entry["prompt"], _difference(final, self.tree()))


def open_world(
    stack: ExitStack,
    client: AnyClient,
    script: Script,
    base: Path,
    rewind: Installed,
    hooks: bool = True,
    rewind_home: tuple[Path, int] | None = None,
) -> World:
    """A project (a git work tree with one commit) and a home in ``base`` for ``client``, the
    client's model server answering ``script`` (``{root}`` in its arguments is the project's
    path) until ``stack`` closes (which first ends the client processes still holding
    sessions), and, with ``hooks``, rewind's hooks as ``rewind install`` writes them.
    ``rewind_home``: a rewind home and resident port shared with other worlds (as one person's
    sessions share them), whose resident recorder outlives this world."""
    home = base / "home"
    root = base / "project"
    home.mkdir(parents=True)
    root.mkdir()
    rewind = rewind.with_home(home)
    if rewind_home is not None:
        shared, port = rewind_home
        env = dict(rewind.env, REWIND_HOME=str(shared), REWIND_RESIDENT_PORT=str(port))
        rewind = replace(rewind, env=env)
    git = ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com"]
    subprocess.run([*git, "init", "-q", str(root)], check=True, env=rewind.env)
    (root / "README.md").write_text("# project\n")
    subprocess.run([*git, "add", "."], cwd=root, check=True, env=rewind.env)
    subprocess.run([*git, "commit", "-qm", "start"], cwd=root, check=True, env=rewind.env)
    server = stack.enter_context(client.server(script.at(root)))
    world = World(client=client, rewind=rewind, root=root, server=server, home=home)
    own_home = Path(rewind.env["REWIND_HOME"])
    stack.callback(stop_watchers, own_home)  # the watchers the hooks started
    if rewind_home is None:
        stack.callback(stop_residents, own_home)  # and the resident recorder
    stack.callback(world.close)  # before the server stops
    if hooks:
        world.ok("install", client.agent)
    client.prepare(world)
    return world


def _agent_owned(path: bytes) -> bool:
    """The client's own folder in the project (settings rewind's installer wrote): not work."""
    return path.split(b"/", 1)[0] in (
        b".claude",
        b".codex",
        b".gemini",
        b".github",
        b".clinerules",
        b".opencode",
        b".kilo",
        b".pi",
        b".qwen",
        b".factory",
    )


def _difference(expected: Tree, found: Tree) -> dict[str, str]:
    keys = set(expected) | set(found)
    return {
        os.fsdecode(key): f"{_brief(expected.get(key))} -> {_brief(found.get(key))}"
        for key in sorted(keys)
        if expected.get(key) != found.get(key)
    }


def _brief(state: tuple[str, bytes, int] | None) -> str:
    if state is None:
        return "absent"
    kind, data, mode = state
    return f"{kind} {data[:40]!r} {oct(mode)}"
