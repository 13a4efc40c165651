"""Hostile environments and damaged stores: each refusal is one line that starts ``rewind: ``
(exit 1), never a traceback or an 'unexpected error', and nothing recorded is lost."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rewind.store.objects import ObjectReader, ObjectWriter
from tests.conftest import RewindResult, error_line, log_json, ok, run_rewind, store_dir
from tests.support.agent_payloads import ClaudeCode

SESSION = "s"
DROPPED = "-dac_override,-dac_read_search,-fowner"


def three_turns(project: Path) -> None:
    """a.txt goes 0 -> 1 -> 2 -> 3 over turns 1 to 3 of SESSION."""
    (project / "a.txt").write_text("0\n")
    for number in (1, 2, 3):
        ok("begin", "--session", SESSION, "--prompt", f"turn {number}")
        ok("track", "--session", SESSION, "a.txt")
        (project / "a.txt").write_text(f"{number}\n")
        ok("end", "--session", SESSION)


def assert_clean(result: RewindResult) -> str:
    """Exit 1 with one line; not a crash."""
    line = error_line(result)
    assert "Traceback" not in result.stderr and "unexpected error" not in line, result
    return line


def unprivileged(*arguments: str) -> RewindResult:
    """``rewind ARGS`` without root's power to ignore permissions."""
    command = [sys.executable, "-m", "rewind", *arguments]
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root and setpriv (util-linux) is not installed")
        command = ["setpriv", f"--inh-caps={DROPPED}", f"--bounding-set={DROPPED}", *command]
    return RewindResult.of(subprocess.run(command, capture_output=True, text=True, timeout=60))


def limited(*arguments: str, fsize: int) -> RewindResult:
    """``rewind ARGS`` in a process that may not write files larger than ``fsize`` bytes."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    command = [sys.executable, "-m", "rewind", *arguments]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, preexec_fn=limit)
    return RewindResult.of(done)


# damaged entries -------------------------------------------------------------------------------


def damage_entry(project: Path, number: int, record: bytes) -> None:
    """Rewrites SESSION's history with ``record`` as the turn.json of entry ``number``."""
    git_dir = str(store_dir(project))
    reader, writer = ObjectReader(git_dir), ObjectWriter(git_dir)
    ref = os.path.join(git_dir, "refs", "rewind", "sessions", SESSION)
    chain = []
    commit: str | None = Path(ref).read_text().strip()
    while commit:
        tree, parent = reader.read_commit(commit)
        chain.append(tree)
        commit = parent
    chain.reverse()
    parent = None
    for index, tree in enumerate(chain):
        if index == number - 1:
            items = [
                (name, mode, writer.write_blob(record) if name == b"turn.json" else oid)
                for name, mode, oid in reader.read_tree(tree)
            ]
            tree = writer.write_tree(items)
        parent = writer.write_commit(tree, parent, f"entry {index + 1}\n", 0)
    Path(ref).write_text(f"{parent}\n")


DAMAGED_RECORDS = {
    "not JSON": b"{garbage",
    "not UTF-8": b'{"prompt": "caf\xe9"}',
    "not an object": b"[1, 2]",
    "nested 100,000 levels": b"[" * 100_000 + b"]" * 100_000,
    "a files entry without a path": b'{"number": 2, "files": [{"before": null}]}',
    "a files entry that is not an object": b'{"number": 2, "files": [3]}',
    "files that are not a list": b'{"number": 2, "files": {"a.txt": 1}}',
    "a state that is not an object": b'{"number": 2, "files": [{"path": "a.txt", "before": []}]}',
    "a huge number": b'{"number": 2, "started": 1' + b"0" * 400 + b"}",
}


@pytest.mark.parametrize("record", DAMAGED_RECORDS.values(), ids=DAMAGED_RECORDS.keys())
def test_a_damaged_entry_is_shown_by_log_and_listed_by_check(project: Path, record: bytes) -> None:
    three_turns(project)
    damage_entry(project, 2, record)
    result = ok("log", "--session", SESSION)
    assert error_line(result, 0).endswith("'rewind check' says why.")
    lines = result.stdout.splitlines()
    assert any(line.split()[:1] == ["2"] and "damaged entry" in line for line in lines), result
    assert [entry["prompt"] for entry in log_json("--session", SESSION)][::2] == [
        "turn 1",
        "turn 3",
    ]
    checked = run_rewind("check")
    assert checked.returncode == 1 and "Traceback" not in checked.stderr, checked
    assert "session s entry 2 (commit " in checked.stderr and "damaged entry" in checked.stderr


def test_check_lists_every_damaged_entry(project: Path) -> None:
    three_turns(project)
    damage_entry(project, 1, b"{garbage")
    damage_entry(project, 2, b"[]")
    checked = run_rewind("check")
    assert checked.returncode == 1, checked
    assert "entry 1 (commit" in checked.stderr and "entry 2 (commit" in checked.stderr
    assert "2 problem(s)" in checked.stdout


def test_a_restore_after_a_damaged_entry_works(project: Path) -> None:
    three_turns(project)
    damage_entry(project, 2, b"{garbage")
    ok("restore", "3", "--session", SESSION, "--yes")
    assert (project / "a.txt").read_text() == "2\n"


@pytest.mark.parametrize(
    "command", [["restore", "1", "--yes"], ["restore", "2", "--yes"], ["diff", "1"]]
)
def test_nothing_crosses_a_damaged_entry(project: Path, command: list[str]) -> None:
    three_turns(project)
    damage_entry(project, 2, b"{garbage")
    line = assert_clean(run_rewind(*command, "--session", SESSION))
    assert "damaged entry 2" in line and "'rewind check'" in line
    assert (project / "a.txt").read_text() == "3\n"


def test_show_of_a_damaged_entry_says_so(project: Path) -> None:
    three_turns(project)
    damage_entry(project, 2, b"{garbage")
    assert "cannot be shown" in assert_clean(run_rewind("show", "2", "--session", SESSION))


def test_undo_does_not_skip_a_damaged_restore(project: Path) -> None:
    three_turns(project)
    ok("restore", "3", "--session", SESSION, "--yes")
    ok("begin", "--session", SESSION, "--prompt", "after")
    ok("end", "--session", SESSION)
    damage_entry(project, 4, b"{garbage")
    assert "damaged entry 4" in assert_clean(run_rewind("undo", "--session", SESSION, "--yes"))


# text that is not UTF-8 -------------------------------------------------------------------------


def test_a_prompt_that_is_not_utf8_starts_the_turn(project: Path) -> None:
    command = [sys.executable, "-m", "rewind", "begin", "--session", SESSION, "--prompt"]
    done = subprocess.run([*command, b"caf\xe9"], capture_output=True, timeout=60)
    assert (done.returncode, done.stderr) == (0, b""), done
    assert [entry["prompt"] for entry in log_json("--session", SESSION)] == ["caf\ufffd"]


def test_a_hook_prompt_with_a_lone_surrogate_starts_the_turn(project: Path) -> None:
    payload = ClaudeCode(project).prompt("caf\ud800 au lait")
    done = subprocess.run(
        [sys.executable, "-m", "rewind", "hook", "claude-code"],
        input=json.dumps(payload),  # ensure_ascii: the surrogate travels as \\ud800
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert [entry["prompt"] for entry in log_json()] == ["caf\ufffd au lait"]


def test_the_crash_log_takes_arguments_that_are_not_utf8(tmp_path: Path) -> None:
    """A bug met with such an argument is still logged (the writer used to fail itself)."""
    script = "import sys, rewind.cli as c; c.quick_parse = None; sys.exit(c.main(sys.argv[1:]))"
    done = subprocess.run(
        [sys.executable, "-c", script, "log", b"caf\xe9"], capture_output=True, timeout=60
    )
    assert done.returncode == 3 and b"Traceback" not in done.stderr, done
    crash_log = Path(os.environ["REWIND_HOME"]) / "crash.log"
    assert "--- rewind log caf\\udce9" in crash_log.read_text()


# JSON nested too deeply ------------------------------------------------------------------------


def test_a_hook_payload_nested_too_deeply_is_ignored_not_a_bug(project: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "rewind", "hook", "claude-code"],
        input="[" * 100_000 + "]" * 100_000,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    logged = (Path(os.environ["REWIND_HOME"]) / "hooks.log").read_text()
    assert "ignored: JSON nested too deeply" in logged and "a bug" not in logged


# usage ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("turn", ["", " ", "\t"])
@pytest.mark.parametrize("command", ["restore", "show", "diff"])
def test_an_empty_turn_is_a_usage_error(project: Path, command: str, turn: str) -> None:
    three_turns(project)
    confirm = ["--yes"] if command == "restore" else []
    line = assert_clean(run_rewind(command, turn, "--session", SESSION, *confirm))
    assert "TURN: it is empty" in line
    assert (project / "a.txt").read_text() == "3\n"


# the TUI ----------------------------------------------------------------------------------------


def in_a_terminal(*arguments: str, timeout: float = 60) -> tuple[int, str]:
    """``python ARGS`` with a pseudo-terminal as its input and outputs: its exit code and
    everything it wrote."""
    import pty

    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execv(sys.executable, [sys.executable, *arguments])
    output = bytearray()
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        output += chunk
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), output.decode("utf-8", "replace")


def test_tui_of_an_unknown_session_is_refused(project: Path) -> None:
    three_turns(project)
    line = assert_clean(run_rewind("tui", "--session", "nope"))
    assert "there is no session 'nope'" in line


def test_tui_without_a_terminal_says_it_needs_one(project: Path) -> None:
    three_turns(project)
    assert "needs a terminal" in assert_clean(run_rewind("tui", input=""))


def test_a_tui_that_crashes_exits_3_with_the_crash_logged(project: Path) -> None:
    three_turns(project)
    script = (
        "import sys; from rewind.tui.app import RewindApp; "
        "RewindApp.CSS_PATH = 'missing.tcss'; "
        "from rewind.cli import main; sys.exit(main(['tui']))"
    )
    code, output = in_a_terminal("-c", script)
    assert code == 3, output
    assert "rewind: unexpected error: TuiCrashed" in output
    crash_log = (Path(os.environ["REWIND_HOME"]) / "crash.log").read_text()
    assert "StylesheetError" in crash_log


# the file system says no ------------------------------------------------------------------------


def test_stores_that_is_a_file_is_named(project: Path) -> None:
    home = Path(os.environ["REWIND_HOME"])
    home.mkdir(parents=True)
    (home / "stores").write_text("not a directory\n")
    line = assert_clean(run_rewind("begin", "--session", SESSION))
    assert f"{home / 'stores'} is a file where rewind needs a directory" in line


def test_a_file_size_limit_is_a_clear_refusal(project: Path) -> None:
    ok("begin", "--session", SESSION)
    (project / "big.bin").write_bytes(os.urandom(200_000))
    line = assert_clean(limited("track", "--session", SESSION, "big.bin", fsize=50_000))
    assert "file size limit" in line and "ulimit -f" in line
    assert (project / "big.bin").stat().st_size == 200_000


def test_a_store_that_may_not_be_written_is_named(project: Path) -> None:
    ok("begin", "--session", SESSION)
    (project / "new.txt").write_text("new\n")
    objects = store_dir(project) / "objects"
    modes = {path: path.stat().st_mode for path in [objects, *objects.iterdir()]}
    for path in modes:
        path.chmod(0o555)
    try:
        line = assert_clean(unprivileged("track", "--session", SESSION, "new.txt"))
    finally:
        for path, mode in modes.items():
            path.chmod(mode)
    assert f"permission denied for {objects}" in line and "check its permissions" in line


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 256 KiB tmpfs, mounted for the test (needs root and a kernel that lets it)."""
    mount_point = tmp_path / "small"
    mount_point.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root and mount(8)")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount_point)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"a tmpfs could not be mounted: {done.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", str(mount_point)], check=True)


def test_a_full_disk_is_a_clear_refusal(project: Path, small_disk: Path) -> None:
    env = {"REWIND_HOME": str(small_disk / "rewind-home")}
    ok("begin", "--session", SESSION, env=env)
    (project / "big.bin").write_bytes(os.urandom(400_000))
    line = assert_clean(run_rewind("track", "--session", SESSION, "big.bin", env=env))
    assert "the disk is full" in line and "free some space" in line
    assert len((project / "big.bin").read_bytes()) == 400_000
    ok("log", "--session", SESSION, env=env)  # what was recorded is still there


def test_a_packed_refs_that_is_not_utf8_leaves_the_history_readable(project: Path) -> None:
    three_turns(project)
    packed = store_dir(project) / "packed-refs"
    packed.write_bytes(b"# pack-refs with: peeled\n\xff\xfe refs/rewind/sessions/x\n")
    assert [entry["prompt"] for entry in log_json("--session", SESSION)] == [
        "turn 1",
        "turn 2",
        "turn 3",
    ]
    assert "0 problem(s)" in ok("check").stdout
    assert SESSION in ok("sessions").stdout
