"""``rewind install pi``: rewind's extension written whole into the folder Pi loads extensions
from, byte for byte the ready-made one (hooks/pi/rewind.js) but for the command it runs;
uninstall leaves nothing of it; a file of that name rewind did not write is never touched;
doctor loads it with Node.js and sends it the probe's events."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from rewind.installers import hook_runner
from tests.clients.npm_install import node_directory
from tests.conftest import error_line, ok, run_rewind
from tests.installers.exact_install_test import everything_under
from tests.support.paths import HOOKS, ROOT

READY_MADE = HOOKS / "pi" / "rewind.js"


def extension(scope: str, project: Path, home: Path) -> Path:
    if scope == "user":
        return home / ".pi" / "agent" / "extensions" / "rewind.js"
    return project / ".pi" / "extensions" / "rewind.js"


@pytest.mark.parametrize("scope", ["user", "project"])
def test_install_writes_the_extension_and_uninstall_leaves_nothing(
    project: Path, isolated_home: Path, scope: str
) -> None:
    before = (everything_under(project), everything_under(isolated_home))
    result = ok("install", "pi", f"--{scope}")
    path = extension(scope, project, isolated_home)
    assert result.stdout.splitlines()[0] == f"pi: created {path}", result.stdout
    text = path.read_text()
    if scope == "project":  # meant to be committed: rewind from PATH
        assert text == READY_MADE.read_text()
        assert "starts in the project's root folder" in result.stdout
    else:
        command = f"{hook_runner()} hook pi"
        assert text == READY_MADE.read_text().replace('"rewind hook pi"', f'"{command}"')
    assert ok("install", "pi", f"--{scope}").stdout.endswith("nothing changed.\n")
    ok("uninstall", "pi", f"--{scope}")
    home_after = [p for p in everything_under(isolated_home) if not p.startswith("rewind-home")]
    assert (everything_under(project), home_after) == before


def test_the_user_scope_follows_pi_coding_agent_dir(project: Path, tmp_path: Path) -> None:
    moved = tmp_path / "pi-agent"
    env = {"PI_CODING_AGENT_DIR": str(moved)}
    ok("install", "pi", "--user", env=env)
    assert (moved / "extensions" / "rewind.js").is_file()
    ok("uninstall", "pi", "--user", env=env)
    assert not moved.exists()


def test_a_persons_own_rewind_js_is_never_touched(project: Path) -> None:
    own = project / ".pi" / "extensions" / "rewind.js"
    own.parent.mkdir(parents=True)
    own.write_text("// my own rewind, not the tool\nexport default function () {}\n")
    assert error_line(run_rewind("install", "pi")) == (
        f"rewind: {own} is not rewind's; rename it, then run the command again."
    )
    ok("uninstall", "pi")
    assert own.read_text().startswith("// my own rewind")


def test_an_edited_extension_is_kept(project: Path) -> None:
    ok("install", "pi")
    path = project / ".pi" / "extensions" / "rewind.js"
    path.write_text(path.read_text() + "// mine\n")
    assert "it was edited since rewind wrote it; delete it" in ok("install", "pi").stdout
    assert "it was edited since rewind wrote it" in ok("uninstall", "pi").stdout
    assert path.read_text().endswith("// mine\n")


@pytest.mark.unit
def test_the_extensions_tools_are_the_mcp_servers() -> None:
    """scripts/pi_tools.py writes the extension's list of tools from 'rewind mcp''s."""
    spec = importlib.util.spec_from_file_location("pi_tools", ROOT / "scripts" / "pi_tools.py")
    assert spec is not None and spec.loader is not None
    pi_tools = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pi_tools)
    text = READY_MADE.read_text()
    assert pi_tools.updated(text) == text, "run scripts/pi_tools.py"


def test_doctor_loads_the_extension_and_runs_its_hook(project: Path) -> None:
    ok("install", "pi")
    path = f"{node_directory()}{os.pathsep}{os.environ['PATH']}"
    result = run_rewind("doctor", env={"PATH": path})
    lines = [line.split(None, 2) for line in result.stdout.splitlines()]
    mine = {rest.split()[0]: (level, rest) for level, target, rest in lines if target == "pi"}
    assert mine["trust"][0] == "ok" and "Node.js loads rewind.js" in mine["trust"][1], mine
    assert mine["hook"][0] == "ok", result.stdout
    assert "recorded turn 1 with probe.txt (modified)" in mine["hook"][1]


def test_doctor_never_runs_a_persons_own_rewind_js(project: Path, tmp_path: Path) -> None:
    """Doctor loads only rewind's own extension with Node.js: a file of that name someone else
    wrote (here the project's, rewind's being the user's) is theirs to run, and reinstalling is
    not the advice (install refuses it)."""
    ok("install", "pi", "--user")
    ran = tmp_path / "ran.txt"
    own = project / ".pi" / "extensions" / "rewind.js"
    own.parent.mkdir(parents=True)
    own.write_text(
        "// my own rewind, not the tool\n"
        'import { writeFileSync } from "node:fs";\n'
        f"writeFileSync({str(ran)!r}, 'ran');\n"
        "export default function () {}\n"
    )
    path = f"{node_directory()}{os.pathsep}{os.environ['PATH']}"
    result = run_rewind("doctor", env={"PATH": path})
    assert not ran.exists(), result.stdout
    assert "reinstall it" not in result.stdout, result.stdout
