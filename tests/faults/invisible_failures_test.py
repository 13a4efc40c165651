"""A hook that cannot record must leave a trace people see: with ``$REWIND_HOME`` a regular file,
read-only, not writable by the user or on a full disk, every hook still exits 0 at once and
prints nothing, a line naming the failure lands in a log that can be written, and ``rewind
status`` and ``rewind doctor`` show that line and say that the store cannot be written."""

from __future__ import annotations

import errno
import json
import os
import resource
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from rewind.store.failure_log import log_hook_problem
from tests.conftest import RewindResult
from tests.support.agent_payloads import ClaudeCode

HOOK_SECONDS = 10.0  # far more than a hook takes; an agent gives it 30 to 60


@pytest.fixture(autouse=True)
def private_temporary_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The last fallback lives in $TMPDIR: never the machine's real /tmp/rewind-UID."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setenv("TMPDIR", str(temporary))
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    return temporary


@pytest.fixture
def mount_tmpfs(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """Mounts a tmpfs with the given options (skips when this process may not mount)."""
    mounted: list[Path] = []

    def mount(options: str) -> Path:
        if os.geteuid() != 0 or shutil.which("mount") is None:
            pytest.skip("mounting a tmpfs needs root and mount(8)")
        target = tmp_path / f"mount{len(mounted)}"
        target.mkdir()
        command = ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(target)]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"a tmpfs cannot be mounted here: {done.stderr.strip()}")
        mounted.append(target)
        return target

    yield mount
    for target in reversed(mounted):
        subprocess.run(["umount", "-l", str(target)], capture_output=True)


def run(
    *arguments: str,
    cwd: Path,
    input: str | None = None,
    prefix: tuple[str, ...] = (),
    preexec_fn: Callable[[], None] | None = None,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*prefix, sys.executable, "-m", "rewind", *arguments],
        cwd=cwd,
        input=input,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=preexec_fn,
    )


def without_write_permission() -> tuple[str, ...]:
    """A command prefix under which mode bits bind even root (nothing when not root)."""
    if os.geteuid() != 0:
        return ()
    if shutil.which("setpriv") is None:
        pytest.skip("running as root and setpriv (util-linux) is not installed")
    dropped = "-dac_override,-dac_read_search"
    return ("setpriv", f"--inh-caps={dropped}", f"--bounding-set={dropped}")


def send_a_turn(
    project: Path,
    prefix: tuple[str, ...] = (),
    preexec_fn: Callable[[], None] | None = None,
    content: str = "after\n",
) -> None:
    """A prompt, a Write of notes.txt and the end of the turn through ``rewind hook
    claude-code``: each event must exit 0 at once and print nothing."""
    agent = ClaudeCode(project)
    before, after = agent.write("notes.txt", content)
    assert before is not None
    for step, payload in enumerate((agent.prompt("write notes"), before, after, agent.end())):
        if step == 2:
            (project / "notes.txt").write_text(content)
        started = time.monotonic()
        done = run(
            "hook",
            "claude-code",
            cwd=project,
            input=json.dumps(payload),
            prefix=prefix,
            preexec_fn=preexec_fn,
        )
        assert time.monotonic() - started < HOOK_SECONDS
        assert (done.returncode, done.stdout, done.stderr) == (0, "", ""), done


def logged_failures(log: Path) -> list[str]:
    return [line for line in log.read_text().splitlines() if "not recorded" in line]


def doctor_findings(output: str) -> list[tuple[str, str, str, str]]:
    found = []
    for line in output.splitlines():
        level, target, rest = line.split(None, 2)
        where, _, message = rest.partition("  ")
        found.append((level, target, where.strip(), message.strip()))
    return found


def assert_status_and_doctor_show(
    project: Path,
    log: Path,
    line: str,
    store_problem: str | None,
    prefix: tuple[str, ...] = (),
) -> None:
    """``status`` lists ``log`` and ``line`` in it; ``doctor`` shows the line and does not call
    the store ok; with ``store_problem``, both say it (and status exits 1)."""
    status = RewindResult.of(run("status", cwd=project, prefix=prefix))
    assert f"in {log}, the newest last:" in status.stdout, status
    assert f"  {line}" in status.stdout.splitlines(), status
    doctor = RewindResult.of(run("doctor", cwd=project, prefix=prefix))
    assert doctor.stderr == "", doctor
    found = doctor_findings(doctor.stdout)
    assert ("warn", "rewind", "log", line) in found, doctor
    store = [(level, message) for level, target, where, message in found if where == "store"]
    if store_problem is None:
        assert [level for level, _ in store] == ["ok"], doctor
        return
    assert status.returncode == 1, status
    assert f"problem:  hooks record nothing: {store_problem}" in status.stdout, status
    assert store == [("fail", f"hooks record nothing: {store_problem}")], doctor
    hooks = [(level, message) for level, _, where, message in found if where == "hook"]
    assert hooks and all(level == "warn" for level, _ in hooks), hooks
    assert all(message.endswith("(see the store line).") for _, message in hooks), hooks
    assert doctor.returncode == 1


# the hook's home is unusable ---------------------------------------------------------------


def test_a_home_that_is_a_regular_file(project: Path, isolated_home: Path) -> None:
    home = Path(os.environ["REWIND_HOME"])
    home.write_text("not a directory\n")
    send_a_turn(project)
    assert home.read_text() == "not a directory\n"
    log = isolated_home / ".local" / "state" / "rewind" / "hooks.log"
    failures = logged_failures(log)
    assert len(failures) == 4  # the prompt, the Write (before and after), the end of the turn
    assert f"{home} is not a directory; move it away" in failures[0]
    assert f"logged here because {home}/hooks.log could not be written" in failures[0]
    problem = f"{home} is not a directory; move it away or set REWIND_HOME to another directory."
    assert_status_and_doctor_show(project, log, failures[-1], problem)


def test_a_home_on_a_read_only_file_system(
    project: Path,
    isolated_home: Path,
    mount_tmpfs: Callable[[str], Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    home = mount_tmpfs("ro,size=64k")
    monkeypatch.setenv("REWIND_HOME", str(home))
    send_a_turn(project)
    log = isolated_home / ".local" / "state" / "rewind" / "hooks.log"
    failures = logged_failures(log)
    assert failures and "[Errno 30] Read-only file system" in failures[0]
    assert f"{home} is on a read-only file system; remount it read-write" in failures[0]
    problem = (
        f"{home} is on a read-only file system; remount it read-write "
        "or set REWIND_HOME to another directory."
    )
    assert_status_and_doctor_show(project, log, failures[-1], problem)


def test_a_home_the_user_may_not_write(
    project: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prefix = without_write_permission()
    home = isolated_home / "read-only-home"
    home.mkdir(mode=0o555)
    home.chmod(0o555)
    monkeypatch.setenv("REWIND_HOME", str(home))
    send_a_turn(project, prefix=prefix)
    assert list(home.iterdir()) == []
    log = isolated_home / ".local" / "state" / "rewind" / "hooks.log"
    failures = logged_failures(log)
    assert failures and "[Errno 13] Permission denied" in failures[0]
    problem = (
        f"{home} is not writable by this user; fix its permissions "
        "or set REWIND_HOME to another directory."
    )
    assert_status_and_doctor_show(project, log, failures[-1], problem, prefix=prefix)


def test_a_full_disk_falls_back_to_the_private_temporary_directory(
    project: Path,
    mount_tmpfs: Callable[[str], Path],
    private_temporary_directory: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    disk = mount_tmpfs("size=64k")
    fill(disk / "filler")
    home = disk / "rewind-home"
    monkeypatch.setenv("REWIND_HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(disk / "state"))  # full as well
    send_a_turn(project)
    folder = private_temporary_directory / f"rewind-{os.getuid()}"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    log = folder / "hooks.log"
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    failures = logged_failures(log)
    assert failures and "[Errno 28] No space left on device" in failures[0]
    assert "is full (or a quota or file size limit was hit); free space" in failures[0]
    checked = str(home / "stores")  # what the hook made before the disk refused a file
    status = RewindResult.of(run("status", cwd=project))
    problem = next(line for line in status.stdout.splitlines() if line.startswith("problem:"))
    assert "is full (or a quota or file size limit was hit)" in problem
    assert checked in problem
    assert_status_and_doctor_show(project, log, failures[-1], problem.split(": ", 2)[2])


def test_a_file_size_limit_is_logged_in_the_store(project: Path) -> None:
    """RLIMIT_FSIZE makes writing a large object fail with EFBIG while small files (the store's
    layout, the log's line) still fit: the Write of a large file is not recorded, and says so."""
    limit = 8192

    def limit_file_size() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    (project / "notes.txt").write_text("before\n")
    content = os.urandom(64 * 1024).hex()  # does not compress below the limit
    send_a_turn(project, preexec_fn=limit_file_size, content=content)
    status = RewindResult.of(run("status", cwd=project))
    assert status.returncode == 0, status
    log = Path(status.stdout.split("log:", 1)[1].split()[0])
    failures = logged_failures(log)
    assert failures and "[Errno 27] File too large" in failures[0]
    assert_status_and_doctor_show(project, log, failures[-1], store_problem=None)


def fill(path: Path) -> None:
    """Writes ``path`` until its disk is full."""
    block = b"\0" * 4096
    with path.open("wb", buffering=0) as handle:
        while True:
            try:
                handle.write(block)
            except OSError as error:
                assert error.errno == errno.ENOSPC
                return


# the fallback in the temporary directory ---------------------------------------------------


@pytest.fixture
def nothing_else_writable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A home and a state directory under a regular file: only the temporary fallback is left."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("REWIND_HOME", str(blocker / "home"))
    monkeypatch.setenv("XDG_STATE_HOME", str(blocker / "state"))


@pytest.mark.usefixtures("nothing_else_writable")
def test_the_temporary_fallback_is_made_private(private_temporary_directory: Path) -> None:
    written = log_hook_problem("hook test: a problem")
    folder = private_temporary_directory / f"rewind-{os.getuid()}"
    assert written == str(folder / "hooks.log")
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert "hook test: a problem (logged here because" in (folder / "hooks.log").read_text()


@pytest.mark.usefixtures("nothing_else_writable")
def test_a_symbolic_link_in_place_of_the_temporary_fallback_is_not_followed(
    private_temporary_directory: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (private_temporary_directory / f"rewind-{os.getuid()}").symlink_to(elsewhere)
    assert log_hook_problem("hook test: a problem") is None
    assert list(elsewhere.iterdir()) == []


@pytest.mark.usefixtures("nothing_else_writable")
def test_a_symbolic_link_in_place_of_the_fallback_log_is_not_followed(
    private_temporary_directory: Path, tmp_path: Path
) -> None:
    folder = private_temporary_directory / f"rewind-{os.getuid()}"
    folder.mkdir(mode=0o700)
    target = tmp_path / "target.txt"
    target.write_text("mine\n")
    (folder / "hooks.log").symlink_to(target)
    assert log_hook_problem("hook test: a problem") is None
    assert target.read_text() == "mine\n"


@pytest.mark.usefixtures("nothing_else_writable")
def test_a_temporary_fallback_others_may_enter_is_not_used(
    private_temporary_directory: Path,
) -> None:
    folder = private_temporary_directory / f"rewind-{os.getuid()}"
    folder.mkdir()
    folder.chmod(0o777)
    assert log_hook_problem("hook test: a problem") is None
    assert list(folder.iterdir()) == []


@pytest.mark.usefixtures("nothing_else_writable")
def test_a_temporary_fallback_of_another_user_is_not_used(
    private_temporary_directory: Path,
) -> None:
    if os.geteuid() != 0:
        pytest.skip("giving a directory to another user needs root")
    folder = private_temporary_directory / f"rewind-{os.getuid()}"
    folder.mkdir(mode=0o700)
    os.chown(folder, 65534, 65534)
    assert log_hook_problem("hook test: a problem") is None
    assert list(folder.iterdir()) == []


# status without a store ----------------------------------------------------------------------


def test_status_before_anything_was_recorded(project: Path) -> None:
    status = RewindResult.of(run("status", cwd=project))
    assert status.returncode == 0, status
    assert "(none yet; the first hook event or 'rewind begin' makes it)" in status.stdout
    assert "problem:" not in status.stdout


def test_a_store_that_cannot_be_opened(project: Path) -> None:
    assert run("begin", "--session", "s", cwd=project).returncode == 0
    (project / "rewind.toml").write_text("max_file_size = 'big'\n")
    status = RewindResult.of(run("status", cwd=project))
    assert status.returncode == 1, status
    assert "problem:  the store cannot be opened: " in status.stdout
    assert "max_file_size must be a number of bytes" in status.stdout
    doctor = RewindResult.of(run("doctor", cwd=project))
    [(level, message)] = [
        (level, message)
        for level, _, where, message in doctor_findings(doctor.stdout)
        if where == "config"
    ]
    assert level == "fail" and "max_file_size must be a number of bytes" in message
    assert doctor.returncode == 1


# doctor's live run ---------------------------------------------------------------------------


def test_doctor_runs_hooks_inside_the_real_home_and_leaves_nothing(project: Path) -> None:
    home = Path(os.environ["REWIND_HOME"])
    home.mkdir()
    doctor = RewindResult.of(run("doctor", cwd=project))
    found = doctor_findings(doctor.stdout)
    store = [(level, message) for level, _, where, message in found if where == "store"]
    assert len(store) == 1 and store[0][0] == "ok", doctor
    assert f"none yet, {home} is writable" in store[0][1]
    hooks = [(level, message) for level, _, where, message in found if where == "hook"]
    assert hooks and all(level == "ok" for level, _ in hooks), hooks
    inside = f"in a temporary home inside {home}"
    assert all(message.endswith(inside) for _, message in hooks), hooks
    assert list(home.iterdir()) == []


# the logging itself ------------------------------------------------------------------------


@pytest.mark.usefixtures("nothing_else_writable")
def test_a_failure_is_logged_without_raising_even_when_no_log_can_be_written(
    private_temporary_directory: Path,
) -> None:
    from rewind.hooks.context import HookContext

    (private_temporary_directory / f"rewind-{os.getuid()}").write_text("")  # the last one too
    context = HookContext("claude-code")
    context.log_failure(OSError(errno.ENOSPC, "No space left on device"))
    context.log_failure(RuntimeError("a bug"))
    context.log("a problem")
    assert sorted(path.name for path in private_temporary_directory.iterdir()) == [
        f"rewind-{os.getuid()}"
    ]


def test_a_large_log_is_renamed_before_the_next_line(isolated_home: Path) -> None:
    from rewind.store.failure_log import ROTATE_AT

    home = Path(os.environ["REWIND_HOME"])
    home.mkdir()
    log = home / "hooks.log"
    log.write_text("x" * (ROTATE_AT + 1))
    assert log_hook_problem("hook test: a problem") == str(log)
    assert (home / "hooks.log.old").stat().st_size == ROTATE_AT + 1
    assert log.read_text().endswith(" hook test: a problem\n")


def test_a_hook_that_cannot_record_still_loads_nothing_heavy(
    project: Path, isolated_home: Path
) -> None:
    from tests.import_hygiene_test import AVOIDABLE, HEAVY, json_text, loaded_after

    Path(os.environ["REWIND_HOME"]).write_text("")
    payload = json_text(session_id="s", cwd=str(project), hook_event_name="Stop")
    code, modules = loaded_after("hook", "claude-code", stdin=payload)
    assert code == 0
    assert logged_failures(isolated_home / ".local" / "state" / "rewind" / "hooks.log")
    assert not [name for name in (*HEAVY, *AVOIDABLE) if name in modules]
