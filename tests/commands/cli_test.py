"""The command line as people and hooks use it: output shapes, turn ids, confirmation, exit
codes."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.conftest import error_line, log_json, ok, run_on_a_terminal, run_rewind, store_dir

SESSION = "s"


def two_turns(project: Path) -> None:
    """Turn 1 edits a.txt; turn 2 edits it again and creates b.txt."""
    (project / "a.txt").write_bytes(b"one\ntwo\n")
    ok("begin", "--session", SESSION, "--prompt", "first", "--agent", "bot")
    ok("track", "--session", SESSION, "a.txt")
    (project / "a.txt").write_bytes(b"one\n2\n")
    ok("begin", "--session", SESSION, "--prompt", "second\nwith details")
    ok("track", "--session", SESSION, "a.txt", "b.txt")
    (project / "a.txt").write_bytes(b"one\n3\n")
    (project / "b.txt").write_bytes(b"b\n")
    ok("end", "--session", SESSION)


# log ---------------------------------------------------------------------------------------------


def test_log_json_is_a_list_of_entries_with_their_files(project: Path) -> None:
    two_turns(project)
    entries = json.loads(ok("log", "--json", "--session", SESSION).stdout)
    assert isinstance(entries, list) and len(entries) == 2
    for number, entry in enumerate(entries, start=1):
        assert {"session", "turn", "id", "prompt", "time", "files"} <= entry.keys()
        assert (entry["session"], entry["turn"], entry["kind"]) == (SESSION, number, "turn")
        assert re.fullmatch(r"[0-9a-f]{12}", entry["id"])
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", entry["time"])
        assert entry["agent"] == "bot"
    assert [e["prompt"] for e in entries] == ["first", "second\nwith details"]
    files = entries[1]["files"]
    assert [(f["path"], f["status"], f["added"], f["removed"]) for f in files] == [
        ("a.txt", "modified", 1, 1),
        ("b.txt", "added", 1, 0),
    ]


def test_log_text_lists_each_turn_and_its_files(project: Path) -> None:
    two_turns(project)
    ids = [e["id"] for e in log_json("--session", SESSION)]
    lines = ok("log", "--session", SESSION).stdout.splitlines()
    assert lines[0] == "session s (bot)"
    assert re.fullmatch(rf"\s+1  {ids[0]}  [\d-]+ [\d:]+  first", lines[1])
    assert lines[2].split() == ["M", "a.txt", "+1", "-1"]
    assert re.fullmatch(rf"\s+2  {ids[1]}  [\d-]+ [\d:]+  second", lines[3])
    assert [line.split() for line in lines[4:]] == [
        ["M", "a.txt", "+1", "-1"],
        ["A", "b.txt", "+1", "-0"],
    ]


# show and diff -----------------------------------------------------------------------------------


def test_show_prints_what_the_turn_changed(project: Path) -> None:
    two_turns(project)
    output = ok("show", "1", "--session", SESSION).stdout
    assert output.splitlines()[0].startswith("turn 1 (")
    assert "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n" in output


def test_diff_between_two_turns(project: Path) -> None:
    two_turns(project)
    output = ok("diff", "1", "2", "--session", SESSION).stdout
    assert " one\n-two\n+2\n" in output
    assert "b.txt" not in output


def test_diff_from_a_turn_to_the_files_on_disk(project: Path) -> None:
    two_turns(project)
    (project / "a.txt").write_bytes(b"one\nlocal edit\n")
    output = ok("diff", "1", "--session", SESSION).stdout
    assert " one\n-two\n+local edit\n" in output
    assert "+++ b/b.txt\n@@ -0,0 +1 @@\n+b\n" in output


# choosing the turn ------------------------------------------------------------------------------


def test_restore_accepts_the_turn_number(project: Path) -> None:
    two_turns(project)
    ok("restore", "2", "--session", SESSION, "--yes")
    assert (project / "a.txt").read_bytes() == b"one\n2\n"
    assert not (project / "b.txt").exists()


def test_restore_accepts_the_turn_id_or_a_prefix_of_it(project: Path) -> None:
    two_turns(project)
    first, second = (e["id"] for e in log_json("--session", SESSION))
    ok("restore", second, "--session", SESSION, "--yes")
    assert (project / "a.txt").read_bytes() == b"one\n2\n"
    ok("restore", first[:8], "--session", SESSION, "--yes")
    assert (project / "a.txt").read_bytes() == b"one\ntwo\n"


def test_show_accepts_the_turn_id(project: Path) -> None:
    two_turns(project)
    second = log_json("--session", SESSION)[1]["id"]
    assert ok("show", second, "--session", SESSION).stdout.startswith(f"turn 2 ({second})")


# confirmation -----------------------------------------------------------------------------------


def test_restore_without_yes_proceeds_when_stdin_is_not_a_terminal(project: Path) -> None:
    two_turns(project)
    result = run_rewind("restore", "1", "--session", SESSION, input="n\n")
    assert result.returncode == 0, result
    assert "Restored 2 file(s), as restore 3" in result.stdout
    assert (project / "a.txt").read_bytes() == b"one\ntwo\n"


def restore_on_a_terminal(answer: bytes) -> subprocess.CompletedProcess[bytes]:
    """``rewind restore 1`` with a terminal as stdin, answering the question with ``answer``."""
    controller, terminal = pty.openpty()
    try:
        os.write(controller, answer)
        return subprocess.run(
            [sys.executable, "-m", "rewind", "restore", "1", "--session", SESSION],
            stdin=terminal,
            capture_output=True,
            timeout=60,
        )
    finally:
        os.close(terminal)
        os.close(controller)


def test_restore_on_a_terminal_asks_and_no_changes_nothing(project: Path) -> None:
    two_turns(project)
    result = restore_on_a_terminal(b"n\n")
    assert result.returncode == 1, result
    assert b"Change these 2 file(s)? [y/N] Nothing was changed.\n" in result.stdout
    assert (project / "a.txt").read_bytes() == b"one\n3\n"
    assert len(log_json("--session", SESSION)) == 2


def test_restore_on_a_terminal_proceeds_on_yes(project: Path) -> None:
    two_turns(project)
    result = restore_on_a_terminal(b"y\n")
    assert result.returncode == 0, result
    assert (project / "a.txt").read_bytes() == b"one\ntwo\n"


# other commands ---------------------------------------------------------------------------------


def test_begin_names_the_turn_and_session(project: Path) -> None:
    output = ok("begin", "--session", "demo").stdout
    assert re.fullmatch(r"turn 1 of session demo \([0-9a-f]{12}\)\n", output)


def test_sessions_json_lists_every_session(project: Path) -> None:
    ok("begin", "--session", "one", "--agent", "a1")
    ok("begin", "--session", "two", "--agent", "a2")
    ok("begin", "--session", "two")
    listed = json.loads(ok("sessions", "--json").stdout)
    assert [(s["session"], s["agent"], s["entries"], s["recent"]) for s in listed] == [
        ("one", "a1", 1, False),
        ("two", "a2", 2, True),
    ]
    assert "* two" in ok("sessions").stdout


def test_plain_rewind_without_a_terminal_prints_the_usage_and_the_commands(
    project: Path,
) -> None:
    done = run_rewind(input="")  # standard input a pipe: no terminal, no TUI
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout.startswith("usage: rewind [-h] [--version] [-C DIR] [--no-pager] COMMAND")
    assert "    restore           " in done.stdout and "    tui    " in done.stdout


def test_status_names_the_project_store_and_session(project: Path) -> None:
    ok("begin", "--session", SESSION)
    output = ok("status").stdout
    assert f"project:  {os.path.realpath(project)}\n" in output
    assert f"store:    {store_dir(project)}  (" in output
    assert "session:  s\n" in output
    assert "turn:     1 (turn, open, 0 file(s))\n" in output
    # The store's log is written at the first problem: until then, status says so.
    log = store_dir(project) / "rewind" / "rewind.log"
    assert f"log:      none yet (problems will be written to {log})\n" in output
    log.write_text("2026-12-01T10:00:00 [1] something\n")
    assert f"log:      {log}\n" in ok("status").stdout


def test_check_passes_on_a_healthy_store(project: Path) -> None:
    two_turns(project)
    assert ok("check").stdout == "checked 5 stored file versions: 0 problem(s)\n"


def test_dash_c_selects_the_project_from_anywhere(project: Path, tmp_path: Path) -> None:
    (project / "a.txt").write_bytes(b"a\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ok("-C", str(project), "begin", "--session", SESSION, cwd=elsewhere)
    ok("-C", str(project), "track", "--session", SESSION, str(project / "a.txt"), cwd=elsewhere)
    (project / "a.txt").write_bytes(b"A\n")
    ok("-C", str(project / ".git"), "restore", "1", "--session", SESSION, "--yes", cwd=elsewhere)
    assert (project / "a.txt").read_bytes() == b"a\n"
    assert os.listdir(elsewhere) == []


def test_unknown_command_is_a_one_line_user_error(project: Path) -> None:
    line = error_line(run_rewind("frobnicate"))
    assert "frobnicate" in line and "rewind --help" in line


# a bug ------------------------------------------------------------------------------------------


def test_a_bug_exits_3_and_names_the_crash_log(project: Path, isolated_home: Path) -> None:
    """A command that raises an unexpected exception stands in for a bug: rewind must not show a
    traceback but say where it wrote one."""
    program = textwrap.dedent(
        """
        import sys, types
        broken = types.ModuleType("rewind.commands.status")
        def run(**options):
            raise RuntimeError("simulated bug")
        broken.run = run
        sys.modules["rewind.commands.status"] = broken
        from rewind.cli import main
        sys.exit(main(["status"]))
        """
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    crash_log = isolated_home / "rewind-home" / "crash.log"
    assert done.returncode == 3, done
    line = error_line_of(done.stderr)
    assert line.startswith("rewind: ") and "simulated bug" in line and str(crash_log) in line
    assert "RuntimeError: simulated bug" in crash_log.read_text()


def error_line_of(stderr: str) -> str:
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


def test_user_errors_never_print_a_traceback(project: Path) -> None:
    result = run_rewind("show", "1")
    error_line(result)
    assert "Traceback" not in result.stderr


def test_project_reached_through_a_symlink_is_the_same_project(
    project: Path, tmp_path: Path
) -> None:
    (project / "a.txt").write_bytes(b"a\n")
    alias = tmp_path / "alias"
    os.symlink(str(project), alias)
    ok("begin", "--session", SESSION, cwd=alias)
    ok("track", "--session", SESSION, "a.txt", cwd=alias)
    (project / "a.txt").write_bytes(b"A\n")
    ok("restore", "1", "--session", SESSION, "--yes", cwd=project)
    assert (project / "a.txt").read_bytes() == b"a\n"
    assert log_json("--session", SESSION, cwd=alias)[0]["files"][0]["path"] == "a.txt"


def test_dash_c_resolves_relative_paths_inside_that_directory(
    project: Path, tmp_path: Path
) -> None:
    """Like git -C: the command runs as if started in DIR."""
    (project / "a.txt").write_text("before\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert (
        run_rewind("-C", str(project), "track", "--session", "s", "a.txt", cwd=elsewhere).returncode
        == 0
    )
    (project / "a.txt").write_text("after\n")
    assert (
        run_rewind(
            "-C", str(project), "restore", "1", "--yes", "--session", "s", cwd=elsewhere
        ).returncode
        == 0
    )
    assert (project / "a.txt").read_text() == "before\n"


def test_forgetting_the_recent_session_falls_back_to_the_newest_left(project: Path) -> None:
    assert run_rewind("begin", "--session", "older").returncode == 0
    assert run_rewind("begin", "--session", "newer").returncode == 0
    assert run_rewind("forget", "newer", "--yes").returncode == 0
    result = run_rewind("log")
    assert result.returncode == 0, result
    assert result.stdout.startswith("session older")


def test_status_shows_the_problems_hooks_logged(project: Path) -> None:
    payload = json.dumps(
        {
            "session_id": "s",
            "cwd": str(project),
            "hook_event_name": "PreToolUse",
            "tool_name": "Write",
            "tool_input": {"file_path": "/etc/passwd"},
        }
    )
    hook = subprocess.run(
        [sys.executable, "-m", "rewind", "hook", "claude-code"],
        input=payload,
        capture_output=True,
        text=True,
    )
    assert (hook.returncode, hook.stdout, hook.stderr) == (0, "", "")
    status = run_rewind("status")
    assert "problems in the last day (1)" in status.stdout
    assert "/etc/passwd is outside the project root" in status.stdout


def _on_a_terminal(project: Path, arguments: list[str], environment: dict[str, str]) -> str:
    code, shown = run_on_a_terminal(arguments, project, environment)
    assert code == 0, shown
    return shown


def test_log_goes_through_the_pager_on_a_terminal_only(project: Path) -> None:
    (project / "a.txt").write_bytes(b"a\n")
    assert run_rewind("begin", "--prompt", "paged prompt").returncode == 0
    assert run_rewind("track", "a.txt").returncode == 0
    assert run_rewind("end").returncode == 0
    paged = project.parent / "paged.txt"
    pager = {"PAGER": f"cat > {paged}", "NO_COLOR": "1"}
    shown = _on_a_terminal(project, ["log"], pager)
    assert "paged prompt" not in shown and "paged prompt" in paged.read_text()
    paged.unlink()
    shown = _on_a_terminal(project, ["--no-pager", "log"], pager)
    assert "paged prompt" in shown and not paged.exists()
    shown = _on_a_terminal(project, ["log"], {**pager, "PAGER": "cat"})
    assert "paged prompt" in shown
    piped = run_rewind("log", env=pager)
    assert "paged prompt" in piped.stdout and not paged.exists()
    shown = _on_a_terminal(project, ["status"], pager)  # not a paged command
    assert "session:" in shown and not paged.exists()


def test_version_is_printed_without_loading_commands(tmp_path: Path) -> None:
    from rewind._version import __version__

    assert ok("--version", cwd=tmp_path).stdout == f"rewind {__version__}\n"
    # After -C, argparse answers: the same line.
    assert ok("-C", str(tmp_path), "--version").stdout == f"rewind {__version__}\n"
    probe = (
        "import sys; from rewind.cli import main; main(['--version']); "
        "print(sorted(set(sys.modules) & {'argparse', 'pygit2', 'textual', 'rewind.history'}))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=tmp_path
    ).stdout.splitlines()
    assert loaded == [f"rewind {__version__}", "[]"]


def test_the_parser_offers_every_install_target_without_importing_them() -> None:
    from rewind.commands.parsing.setup_commands import INSTALL_TARGETS
    from rewind.installers.registry import targets

    assert list(INSTALL_TARGETS) == list(targets())
    probe = (
        "import sys; from rewind.commands.parsing.parser import build_parser; build_parser(); "
        "print(sorted(m for m in sys.modules if m.startswith('rewind.installers')))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert loaded == "[]", loaded
