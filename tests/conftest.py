"""Shared fixtures: every test runs with a temporary home and rewind home, and a real project.

Every test is of one tier (a pytest marker, docs/architecture.md): ``unit`` (in-process, starts no
process), ``integration`` (real rewind processes, real git), ``tui``, ``faults`` and ``clients``
(the folders of the same names). The folders' tiers and the default, ``integration``, are set
here; a module or test that starts no process says ``unit`` itself, and is held to it.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.fresh_lane import LANE, command_started
from tests.support.installed_wheel import Installed, install_wheel_once
from tests.support.watchers import free_port, stop_residents, stop_watchers


@pytest.fixture(scope="session")
def bytecode_cache(tmp_path_factory: pytest.TempPathFactory) -> Path | None:
    """Where the processes the tests start keep the modules they compiled, when the tests run
    under PYTHONDONTWRITEBYTECODE (None: they keep them as usual). Under it, every ``rewind``
    process would compile each module it imports, a tenth of a second of each of the thousands
    the suite starts; an installed rewind has them compiled. In the run's temporary directory,
    so the checkout stays as that setting keeps it."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE"):
        return None
    return tmp_path_factory.mktemp("bytecode")


TESTS = Path(__file__).resolve().parent
TIERS = ("unit", "integration", "tui", "faults", "clients")
# The folders whose every test is of one tier; the others' tests are integration unless marked unit.
FOLDER_TIERS = {"tui": "tui", "faults": "faults", "clients": "clients"}
# What Python reports (sys.addaudithook) when the interpreter starts another program.
PROCESS_EVENTS = frozenset(
    {"subprocess.Popen", "os.system", "os.posix_spawn", "os.exec", "os.spawn", "os.fork"}
)


# Every test collected, whatever -k or -m then selects: what tests/tiers_test.py checks.
COLLECTED = pytest.StashKey[list[pytest.Item]]()


def tiers_of(item: pytest.Item) -> set[str]:
    """The tier markers of a collected test (its own, its class's, its module's)."""
    return {marker.name for marker in item.iter_markers() if marker.name in TIERS}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    config.stash[COLLECTED] = list(items)
    for item in items:
        folder = _folder(item)
        if folder in FOLDER_TIERS:
            item.add_marker(FOLDER_TIERS[folder])
        elif not tiers_of(item):
            item.add_marker(pytest.mark.integration)
        group = _module_fixture_group(item)
        if group:  # one worker builds it (with --dist loadgroup)
            item.add_marker(pytest.mark.xdist_group(group))


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``make test`` (``--dist loadscope``): each module's tests run in one worker, its
    module-wide state made once, except the real clients' parametrised tests, which run one
    client's in one worker: a module of the client tier (the shared scenarios, the MCP and
    resume tests) holds every client's tests, minutes of them, and would otherwise keep one
    worker busy long after the others are done."""
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]

    class ModulesOrClients(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            scope: str = super()._split_scope(nodeid)
            if nodeid.startswith("tests/clients/") and nodeid.endswith("]"):
                return scope + nodeid[nodeid.rindex("[") :]
            return scope

    return ModulesOrClients(config, log)


def _folder(item: pytest.Item) -> str:
    """The folder of tests/ the test is in ("" for a test file outside tests/)."""
    try:
        return item.path.resolve().relative_to(TESTS).parts[0]
    except ValueError:
        return ""


def _module_fixture_group(item: pytest.Item) -> str:
    """The group of a test that uses a fixture made once per module (a venv, a client
    installed): its module's tests that share one instance of it run in one worker (one
    group per parameter of a parametrised one: each client's scenarios); the others go to
    whichever worker is free. "" for a test that uses none."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return ""
    names = sorted(
        name
        for name, defs in info.name2fixturedefs.items()
        if any(d.scope == "module" for d in defs)
    )
    if not names:
        return ""
    callspec = getattr(item, "callspec", None)
    indices = callspec.indices if callspec is not None else {}
    chosen = [f"{name}={indices[name]}" for name in names if name in indices]
    return "::".join([item.nodeid.split("::")[0], *chosen])


# Where the programs started now are noted (None: nowhere): see programs_started.
_noting: list[str] | None = None
# Where the rewind commands started as fresh interpreters are noted (None: nowhere): see
# fresh_lane.
_fresh_commands: set[str] | None = None


def _note_started_program(event: str, arguments: tuple[object, ...]) -> None:
    if _fresh_commands is not None and event == "subprocess.Popen":
        started = arguments[1]
        if isinstance(started, list | tuple):
            words = [os.fsdecode(w) for w in started if isinstance(w, str | bytes | os.PathLike)]
            command = command_started(words)
            if command is not None:
                _fresh_commands.add(command)
    if (
        _noting is not None
        and event in PROCESS_EVENTS
        and threading.current_thread() is threading.main_thread()
    ):
        _noting.append(f"{event} {arguments[:2]!r}")


sys.addaudithook(_note_started_program)


@contextmanager
def programs_started() -> Iterator[list[str]]:
    """The programs the main thread starts inside the block (git, rewind, a shell), as Python
    reports them. Other threads are left out: one left running by an earlier test is not this
    test's."""
    global _noting
    started: list[str] = []
    _noting = started
    try:
        yield started
    finally:
        _noting = None


@pytest.fixture(autouse=True)
def unit_tests_start_no_program(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test marked ``unit`` fails if it, or a fixture of it, starts a program, so that
    ``-m unit`` stays in-process and fast. Noted rather than refused: the code under test might
    catch the refusal and go on another way."""
    if request.node.get_closest_marker("unit") is None:
        yield
        return
    with programs_started() as started:
        yield
    assert not started, f"a unit test started {len(started)} program(s), first {started[0]}"


@pytest.fixture(autouse=True)
def fresh_lane(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A test of the fresh lane (tests/support/fresh_lane.py) runs its rewind commands as
    fresh interpreters, and fails unless it started each command the lane names for it so."""
    named = LANE.get(request.node.nodeid.split("[")[0])
    if named is None:
        yield
        return
    global _fresh_commands
    monkeypatch.setenv("REWIND_TEST_FRESH", "1")
    started: set[str] = set()
    _fresh_commands = started
    try:
        yield
    finally:
        _fresh_commands = None
    missing = sorted(set(named) - started)
    assert not missing, f"the fresh lane's test started no fresh 'rewind {missing[0]}'"


@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    bytecode_cache: Path | None,
) -> Iterator[Path]:
    """No test reads or writes the real home directory or the real rewind store."""
    home = tmp_path_factory.mktemp("home")
    if bytecode_cache is not None:
        monkeypatch.delenv("PYTHONDONTWRITEBYTECODE")
        monkeypatch.setenv("PYTHONPYCACHEPREFIX", str(bytecode_cache))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("REWIND_HOME", str(home / "rewind-home"))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.delenv("REWIND_SESSION", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    # The hooks start no watcher (capture_programs), but where a test asks for it (capture_on):
    # thousands of hook calls would each keep one running.
    monkeypatch.setenv("REWIND_CAPTURE_PROGRAMS", "0")
    # 'rewind' on PATH is the one being tested, as after a real install: hooks in files meant
    # to be committed run it from there.
    path = os.environ.get("PATH", os.defpath)
    monkeypatch.setenv("PATH", os.pathsep.join([os.path.dirname(sys.executable), path]))
    # git's own identity and config, for tests that make real repositories.
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / "gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "test@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "test@example.com")
    # Claude Code's HTTP hooks a test installs post to a resident of the test's own.
    monkeypatch.setenv("REWIND_RESIDENT_PORT", str(free_port()))
    try:
        yield home
    finally:
        stop_residents(home / "rewind-home")


@pytest.fixture
def capture_on(monkeypatch: pytest.MonkeyPatch, isolated_home: Path) -> Iterator[None]:
    """rewind as installed: the hooks start the project's watcher and tell it of each shell
    call (capture_programs). Every watcher started under this test's REWIND_HOME is stopped
    at its end."""
    monkeypatch.delenv("REWIND_CAPTURE_PROGRAMS")
    try:
        yield
    finally:
        stop_watchers(Path(os.environ["REWIND_HOME"]))


@pytest.fixture(scope="session")
def installed_wheel(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """rewind as users have it: the wheel, built once per test run, in a fresh venv (once for
    all the parallel workers: their temporary folders share a parent)."""
    own = tmp_path_factory.getbasetemp()
    shared = own.parent if os.environ.get("PYTEST_XDIST_WORKER") else own
    return install_wheel_once(shared / "installed-wheel", own / "wheel-home")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty git work tree, made the current directory."""
    root = tmp_path / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def claude(project: Path) -> Any:
    """Claude Code's hooks installed in ``project`` as 'rewind install claude-code --local'
    writes them (its after-events posted to the resident recorder), and its events' builder."""
    from tests.support.agent_payloads import ClaudeCode

    ok("install", "claude-code", "--local")
    return ClaudeCode(project)


class RewindResult:
    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr

    @classmethod
    def of(cls, completed: subprocess.CompletedProcess[str]) -> RewindResult:
        return cls(completed.returncode, completed.stdout, completed.stderr)

    def __repr__(self) -> str:
        return f"<rc={self.returncode} stdout={self.stdout!r} stderr={self.stderr!r}>"


def run_rewind(
    *args: str,
    cwd: Path | str | None = None,
    input: str | None = None,
    env: dict[str, str] | None = None,
    fresh: bool | None = None,
) -> RewindResult:
    """``rewind ARGS`` as a process of its own, the way a person runs it: forked from a server
    that imported rewind once (tests/support/forked_rewind.py), or a fresh interpreter with
    ``REWIND_TEST_FRESH=1`` (the tests of the fresh lane: tests/support/fresh_lane.py) or an
    ``env`` that sets what an interpreter reads at its start (``PYTHON...``); ``fresh`` says
    which, whatever they say."""
    environment = {**os.environ, **(env or {})}
    if fresh is None:
        # What the interpreter reads as it starts (PYTHONPATH...) needs one that starts.
        starts = any(name.startswith("PYTHON") for name in env or {})
        fresh = starts or os.environ.get("REWIND_TEST_FRESH") == "1"
    if fresh:
        completed = subprocess.run(
            [sys.executable, "-m", "rewind", *args],
            cwd=cwd,
            input=input,
            capture_output=True,
            text=True,
            env=environment,
            timeout=60,
        )
        return RewindResult(completed.returncode, completed.stdout, completed.stderr)
    code, stdout, stderr = _forked().run(
        list(args), str(cwd if cwd is not None else os.getcwd()), environment, input, 60.0
    )
    return RewindResult(code, stdout, stderr)


_server: list[Any] = []  # this worker's forking server, started at its first command


def _forked() -> Any:
    from tests.support.forked_rewind import ForkedRewind

    if not _server:
        _server.append(ForkedRewind())
    return _server[0]


def hook(
    agent: str,
    payload: dict[str, Any] | str | None,
    *,
    cwd: Path | str | None = None,
    env: dict[str, str] | None = None,
) -> None:
    """One event through ``rewind hook AGENT`` as a real process, the way an agent sends it (a
    None payload is an event the agent does not send): it must exit 0 and print nothing. ``cwd``
    is the directory the agent runs its hooks in (the current one by default); ``env`` is added
    to the environment. It runs as any command does (:func:`run_rewind`): forked from the
    worker's server, or a fresh interpreter in the fresh lane, which runs ``rewind hook`` fresh
    and checks that a forked one answers the same; what a fresh hook loads, and how fast it
    starts, is tests/import_hygiene_test.py's and the benchmarks'."""
    if payload is None:
        return
    text = payload if isinstance(payload, str) else json.dumps(payload)
    completed = run_rewind("hook", agent, cwd=cwd, input=text, env=env)
    assert (completed.returncode, completed.stdout, completed.stderr) == (0, "", ""), completed


def files_by_path(entry: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The files of an entry of ``rewind log --json``, by path."""
    found = entry["files"]
    assert isinstance(found, list)
    return {item["path"]: item for item in found}


@pytest.fixture
def rewind() -> object:
    return run_rewind


def ok(
    *args: str, cwd: Path | str | None = None, env: dict[str, str] | None = None
) -> RewindResult:
    """``rewind ARGS``, failing the test (with the output) unless it exits 0."""
    result = run_rewind(*args, cwd=cwd, env=env)
    assert result.returncode == 0, result
    return result


def error_line(result: RewindResult, code: int = 1) -> str:
    """The one line a refused command printed, checked to be ``rewind: ...`` and nothing more."""
    assert result.returncode == code, result
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result
    assert lines[0].startswith("rewind: "), result
    return lines[0]


def store_dir(project: Path) -> Path:
    """Where rewind keeps the store of ``project`` (under ``$REWIND_HOME``)."""
    from rewind.store.home import store_dir_for

    return Path(store_dir_for(os.fsencode(os.path.realpath(project))))


def log_json(*args: str, cwd: Path | str | None = None) -> list[dict[str, Any]]:
    """``rewind log --json`` as data."""
    data: list[dict[str, Any]] = json.loads(ok("log", "--json", *args, cwd=cwd).stdout)
    return data


def snapshot(root: Path) -> dict[bytes, tuple[str, bytes, int]]:
    """Everything under ``root`` but ``.git``: each path's kind, content or link target, mode."""
    found: dict[bytes, tuple[str, bytes, int]] = {}
    top = os.fsencode(root)
    for folder, directories, names in os.walk(top):
        if folder == top:
            directories[:] = [d for d in directories if d != b".git"]
        for name in directories + names:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            mode = stat.S_IMODE(info.st_mode)
            relative = os.path.relpath(path, top)
            if stat.S_ISLNK(info.st_mode):
                found[relative] = ("link", os.readlink(path), 0)
            elif stat.S_ISDIR(info.st_mode):
                found[relative] = ("directory", b"", mode)
            else:
                with open(path, "rb") as handle:
                    found[relative] = ("file", handle.read(), mode)
    return found


def without_read_permission(*arguments: str) -> RewindResult:
    """``rewind ARGS`` as a process that may not read other people's files, even as root."""
    command = [sys.executable, "-m", "rewind", *arguments]
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root and setpriv (util-linux) is not installed")
        dropped = "-dac_override,-dac_read_search"
        command = ["setpriv", f"--inh-caps={dropped}", f"--bounding-set={dropped}", *command]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    return RewindResult.of(done)


def run_on_a_terminal(
    arguments: list[str], cwd: Path, env: dict[str, str] | None = None
) -> tuple[int, str]:
    """``rewind ARGUMENTS`` with its standard output on a pseudo-terminal (as a person at a
    terminal runs it): its exit code and what it printed (CRLF made LF)."""
    import pty

    leader, follower = pty.openpty()
    chunks: list[bytes] = []

    def read_all() -> None:  # while it runs: a terminal holds only a few KB unread
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closed with the process
                return
            if not chunk:
                return
            chunks.append(chunk)

    reader = threading.Thread(target=read_all, daemon=True)
    reader.start()
    done = subprocess.run(
        [sys.executable, "-m", "rewind", *arguments],
        cwd=cwd,
        stdout=follower,
        stdin=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
        check=False,
    )
    os.close(follower)
    reader.join(timeout=30)
    os.close(leader)
    return done.returncode, b"".join(chunks).decode().replace("\r\n", "\n")
