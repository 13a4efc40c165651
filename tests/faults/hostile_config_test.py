"""Hostile settings files (issue 33): nested far deeper than any real one, larger than rewind
reads, keys of thousands of dotted parts. ``rewind install``, ``uninstall`` and ``doctor`` refuse
such a file in one sentence that names it and writes nothing; ``rewind.toml`` likewise stops a
command in one sentence, and a hook logs it. Before, each was a RecursionError (exit 3, "details
in crash.log") or, for TOML's dotted keys, minutes of work and all the memory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rewind.store.input_limits import DEPTH, SETTINGS_BYTES, TOML_BYTES, TOML_KEY_PARTS
from tests.conftest import RewindResult, error_line, ok, run_rewind
from tests.installers.mcp_install_test import CASES, everything_under, files_of

DEEP = 100_000
DEEP_JSON = '{"a": ' + "[" * DEEP + "]" * DEEP + "}\n"
DEEP_TOML = "a = " + "[" * DEEP + "]" * DEEP + "\n"
# Every file each --mcp install reads (Claude Code's servers and its permissions are in two).
FILES = [(agent, scope, index) for agent, scope in CASES for index in range(2)]
FILES = [(a, s, i) for a, s, i in FILES if i == 0 or a == "claude-code"]


def crash_log() -> Path:
    return Path(os.environ["REWIND_HOME"]) / "crash.log"


def refused(result: RewindResult, path: Path) -> str:
    """The one sentence of a refusal that names ``path``; not a crash."""
    line = error_line(result)
    assert str(path) in line and "Traceback" not in result.stderr, result
    assert not crash_log().exists(), crash_log().read_text()
    return line


def place(path: Path, content: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        content = content.encode()
    path.write_bytes(content)


@pytest.mark.parametrize(("agent", "scope", "index"), FILES)
def test_a_settings_file_nested_100000_deep_is_refused_with_nothing_written(
    project: Path, isolated_home: Path, agent: str, scope: str, index: int
) -> None:
    path = files_of(agent, scope, project, isolated_home)[index]
    content = DEEP_TOML if path.suffix == ".toml" else DEEP_JSON
    place(path, content)
    before = everything_under(project), everything_under(isolated_home)
    line = refused(run_rewind("install", agent, "--mcp", f"--{scope}"), path)
    assert f"is nested more than {DEPTH} levels deep" in line and "fix it" in line, line
    assert path.read_text() == content
    assert (everything_under(project), everything_under(isolated_home)) == before


@pytest.mark.parametrize("command", [["uninstall", "gemini"], ["install", "gemini"]])
def test_the_hooks_install_and_uninstall_refuse_a_file_nested_too_deep(
    project: Path, isolated_home: Path, command: list[str]
) -> None:
    path = project / ".gemini" / "settings.json"
    place(path, DEEP_JSON)
    before = everything_under(project), everything_under(isolated_home)
    line = refused(run_rewind(*command), path)
    assert f"more than {DEPTH} levels deep" in line, line
    assert (everything_under(project), everything_under(isolated_home)) == before


def test_as_deep_as_the_limit_is_read(project: Path, isolated_home: Path) -> None:
    path = project / ".cursor" / "mcp.json"
    deepest = '{"a": ' + "[" * (DEPTH - 1) + "]" * (DEPTH - 1) + "}\n"
    place(path, deepest)
    ok("install", "cursor", "--mcp", "--project")
    ok("uninstall", "cursor", "--mcp", "--project")
    assert path.read_text() == deepest
    place(path, '{"a": ' + "[" * DEPTH + "]" * DEPTH + "}\n")  # one level more
    assert f"more than {DEPTH} levels" in refused(run_rewind("install", "cursor", "--mcp"), path)


def test_doctor_says_a_file_nested_too_deep_is_refused(project: Path, isolated_home: Path) -> None:
    ok("install", "claude-code", "--mcp", "--project")
    place(project / ".mcp.json", DEEP_JSON)
    place(isolated_home / ".claude.json", DEEP_JSON)  # where doctor looks for the trust
    done = run_rewind("doctor")
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done
    assert f"more than {DEPTH} levels deep" in done.stdout + done.stderr, done
    assert not crash_log().exists()


@pytest.mark.parametrize(
    ("name", "limit"),
    [(".cursor/mcp.json", SETTINGS_BYTES), (".codex/config.toml", TOML_BYTES)],
)
def test_a_settings_file_larger_than_the_limit_is_refused_unread(
    project: Path, isolated_home: Path, name: str, limit: int
) -> None:
    path = isolated_home / name
    place(path, b"")
    os.truncate(path, limit + 1)  # sparse: nothing is written to disk
    agent = name.split("/")[0].strip(".")
    line = refused(run_rewind("install", agent, "--mcp", "--user"), path)
    assert f"is larger than {limit // (1024 * 1024)} MiB" in line, line
    assert path.stat().st_size == limit + 1


@pytest.mark.parametrize(
    "content",
    [
        "a" + ".a" * DEEP + " = 1\n",  # minutes and all the memory, before
        "[" + ".".join(["t"] * DEEP) + "]\nx = 1\n",
        'x = {"' + '"."'.join(["k"] * DEEP) + '" = 1}\n',
    ],
    ids=["dotted-key", "table-name", "quoted-inline"],
)
def test_a_toml_key_of_many_dotted_parts_is_refused_at_once(
    project: Path, isolated_home: Path, content: str
) -> None:
    path = isolated_home / ".codex" / "config.toml"
    place(path, content)
    line = refused(run_rewind("install", "codex", "--mcp", "--user"), path)
    assert f"more than {TOML_KEY_PARTS} dotted parts" in line, line
    assert path.read_text() == content


def test_a_rewind_toml_past_the_limits_stops_a_command_and_a_hook_logs_it(
    project: Path,
) -> None:
    config = project / "rewind.toml"
    for content in (DEEP_TOML, "a" + ".a" * DEEP + " = 1\n"):
        place(config, content)
        line = refused(run_rewind("log"), config)
        assert "more than" in line and "fix or remove it" in line, line
        done = subprocess.run(
            [sys.executable, "-m", "rewind", "hook", "claude-code"],
            input='{"hook_event_name": "UserPromptSubmit", "session_id": "s", "prompt": "p", '
            f'"cwd": "{project}"}}',
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert (done.returncode, done.stdout, done.stderr) == (0, "", ""), done
        assert not crash_log().exists()


def test_a_records_file_nested_too_deep_is_no_record(project: Path, isolated_home: Path) -> None:
    """$REWIND_HOME/installs.json: damaged, it is as if there were none."""
    place(Path(os.environ["REWIND_HOME"]) / "installs.json", DEEP_JSON)
    ok("install", "cursor", "--mcp", "--project")
    assert (project / ".cursor" / "mcp.json").exists()


@pytest.mark.parametrize(
    "content",
    [b'model = "\xff"\n', DEEP_TOML.encode(), ("a" + ".a" * DEEP + " = 1\n").encode()],
    ids=["not-utf8", "nested-100000", "dotted-key"],
)
def test_doctor_reads_past_a_codex_config_it_cannot_read(
    project: Path, isolated_home: Path, content: bytes
) -> None:
    """Where Codex records which hooks it trusts: unreadable, it trusts none (doctor crashed on
    a file that is not UTF-8)."""
    ok("install", "codex", "--project")
    place(isolated_home / ".codex" / "config.toml", content)
    done = run_rewind("doctor")
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done
    assert "Codex" in done.stdout and not crash_log().exists(), done
