"""``rewind install kilo``: OpenCode's plugin (Kilo Code's CLI loads OpenCode's plugins) in
Kilo's config folders (the project's ``.kilo/plugins/``, the user's ``plugins/`` of
``$XDG_CONFIG_HOME/kilo``), running ``rewind hook kilo``, its first line naming Kilo; never the
OpenCode plugin's place; uninstall exact; doctor runs it; the MCP server in ``kilo.json``;
its turns recorded as Kilo Code's, and its conversation refused in one sentence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rewind.mcp.names import CHANGE_TOOLS, READ_TOOLS
from tests.conftest import error_line, hook, ok, run_rewind
from tests.installers.mcp_install_test import everything_under
from tests.support.agent_payloads import OpenCode
from tests.support.paths import HOOKS

SHIPPED = HOOKS / "opencode" / "rewind.js"
FIRST_LINE = "// rewind: records Kilo Code's file edits; 'rewind uninstall kilo' removes this file."


def plugin_at(scope: str, project: Path, home: Path) -> Path:
    if scope == "user":
        return home / ".config" / "kilo" / "plugins" / "rewind.js"
    return project / ".kilo" / "plugins" / "rewind.js"


def test_the_project_gets_opencodes_plugin_naming_kilo_and_running_its_hook(
    project: Path, isolated_home: Path
) -> None:
    done = ok("install", "kilo")
    installed = plugin_at("project", project, isolated_home).read_text().split("\n")
    shipped = SHIPPED.read_text().split("\n")
    different = [(a, b) for a, b in zip(shipped, installed, strict=True) if a != b]
    assert different == [
        (shipped[0], FIRST_LINE),
        ('const COMMAND = "rewind hook opencode";', 'const COMMAND = "rewind hook kilo";'),
    ]
    assert "the plugin runs: rewind hook kilo" in done.stdout
    assert "Kilo Code loads it at its next start." in done.stdout
    assert not (project / ".opencode").exists()
    assert ok("install", "kilo").stdout.startswith("kilo: already installed")
    # OpenCode's own install beside it is another file, and each uninstall takes its own.
    ok("install", "opencode")
    ok("uninstall", "kilo")
    assert not plugin_at("project", project, isolated_home).exists()
    assert (project / ".opencode" / "plugins" / "rewind.js").read_bytes() == SHIPPED.read_bytes()


@pytest.mark.parametrize("scope", ["user", "project"])
def test_uninstall_leaves_the_folders_as_they_were(
    project: Path, isolated_home: Path, scope: str
) -> None:
    before = (everything_under(project), everything_under(isolated_home))
    ok("install", "kilo", f"--{scope}")
    command = json.loads(
        next(
            line
            for line in plugin_at(scope, project, isolated_home).read_text().split("\n")
            if line.startswith("const COMMAND = ")
        )
        .removeprefix("const COMMAND = ")
        .removesuffix(";")
    )
    assert command.endswith(" hook kilo")
    assert command.startswith("/") is (scope == "user")  # this machine's rewind, at --user
    ok("uninstall", "kilo", f"--{scope}")
    assert (everything_under(project), everything_under(isolated_home)) == before


def test_an_opencode_plugin_of_rewinds_in_kilos_folder_is_not_taken_for_kilos(
    project: Path, isolated_home: Path
) -> None:
    """A file there that is not the one install writes for Kilo (OpenCode's, copied by hand,
    or someone else's) is never overwritten nor deleted."""
    path = plugin_at("project", project, isolated_home)
    path.parent.mkdir(parents=True)
    path.write_bytes(SHIPPED.read_bytes())
    assert "is not rewind's; rename it" in error_line(run_rewind("install", "kilo"))
    ok("uninstall", "kilo")
    assert path.read_bytes() == SHIPPED.read_bytes()


def doctor(env: dict[str, str] | None = None) -> list[dict[str, str]]:
    findings = json.loads(run_rewind("doctor", "--json", env=env).stdout)["findings"]
    return [finding for finding in findings if finding["target"] == "kilo"]


def test_doctor_finds_the_plugin_and_runs_its_hook(project: Path, isolated_home: Path) -> None:
    ok("install", "kilo")
    found = doctor()
    said = [(f["where"], f["level"], f["message"]) for f in found]
    assert ("project", "ok", f"{project}/.kilo/plugins/rewind.js: plugin") in said, said
    [(_, level, ran)] = [finding for finding in said if finding[0] == "hook"]
    assert level == "ok" and "recorded turn 1 with probe.txt (modified)" in ran, ran
    assert not [f for f in found if f["level"] == "fail"], found
    off = doctor({"KILO_DISABLE_PROJECT_CONFIG": "1"})
    assert any("KILO_DISABLE_PROJECT_CONFIG is set" in f["message"] for f in off), off


@pytest.mark.parametrize("scope", ["user", "project"])
def test_the_server_is_registered_in_kilo_json_with_the_read_tools_allowed(
    project: Path, isolated_home: Path, scope: str
) -> None:
    ok("install", "kilo", "--mcp", f"--{scope}")
    folder = isolated_home / ".config" / "kilo" if scope == "user" else project
    config = json.loads((folder / "kilo.json").read_text())
    server = config["mcp"]["rewind"]
    assert server["type"] == "local" and server["command"][1:] == ["mcp"]
    assert config["permission"] == {f"rewind_{tool}": "allow" for tool in READ_TOOLS}
    assert not [tool for tool in CHANGE_TOOLS if tool in json.dumps(config)]
    assert not (folder / "opencode.json").exists()
    ok("uninstall", "kilo", f"--{scope}")
    assert not (folder / "kilo.json").exists()


def test_its_turns_are_kilos_and_its_conversation_is_refused_in_one_sentence(
    project: Path, isolated_home: Path
) -> None:
    (project / "a.txt").write_text("one\n")
    agent = OpenCode(project)
    hook("kilo", agent.prompt("Change a.txt"))
    before, after = agent.edit("a.txt", "one", "two")
    hook("kilo", before)
    (project / "a.txt").write_text("two\n")
    hook("kilo", after)
    hook("kilo", agent.end())
    [turn] = json.loads(ok("log", "--json", "--session", agent.session).stdout)
    assert turn["agent"] == "kilo" and turn["prompt"] == "Change a.txt"
    assert turn["ended"] is not None and [f["path"] for f in turn["files"]] == ["a.txt"]
    refused = run_rewind("resume", str(turn["turn"]), "--session", agent.session)
    assert refused.returncode == 1
    assert "Kilo Code keeps its sessions in a database of its own" in error_line(refused)
    ok("restore", str(turn["turn"]), "--yes", "--session", agent.session)
    assert (project / "a.txt").read_text() == "one\n"
