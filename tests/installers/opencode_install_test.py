"""``rewind install opencode``: rewind's plugin file in OpenCode's config folders (the project's
``.opencode/plugins/``, the user's ``plugins/`` of ``$XDG_CONFIG_HOME/opencode``), the shipped
file byte for byte at ``--project``; uninstall takes out exactly that, never the files OpenCode
itself writes there; doctor's check; the MCP server in OpenCode's config, its read tools
allowed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rewind.mcp.names import CHANGE_TOOLS, READ_TOOLS
from tests.conftest import error_line, ok, run_rewind
from tests.installers.mcp_install_test import everything_under
from tests.support.paths import HOOKS

SHIPPED = HOOKS / "opencode" / "rewind.js"


def plugin_at(scope: str, project: Path, home: Path) -> Path:
    if scope == "user":
        return home / ".config" / "opencode" / "plugins" / "rewind.js"
    return project / ".opencode" / "plugins" / "rewind.js"


def test_the_project_gets_the_shipped_plugin_byte_for_byte(
    project: Path, isolated_home: Path
) -> None:
    done = ok("install", "opencode")
    assert plugin_at("project", project, isolated_home).read_bytes() == SHIPPED.read_bytes()
    assert "the plugin runs: rewind hook opencode" in done.stdout
    assert ok("install", "opencode").stdout.startswith("opencode: already installed")


def test_the_users_plugin_differs_only_in_the_command_it_runs(
    project: Path, isolated_home: Path
) -> None:
    ok("install", "opencode", "--user")
    installed = plugin_at("user", project, isolated_home).read_text().split("\n")
    shipped = SHIPPED.read_text().split("\n")
    different = [(a, b) for a, b in zip(shipped, installed, strict=True) if a != b]
    [(line, mine)] = different
    assert line == 'const COMMAND = "rewind hook opencode";'
    command = json.loads(mine.removeprefix("const COMMAND = ").removesuffix(";"))
    assert command.endswith("/rewind/__main__.py hook opencode") and command.startswith("/")


def test_the_users_plugin_goes_where_xdg_config_home_says(
    project: Path, isolated_home: Path, tmp_path: Path
) -> None:
    config = tmp_path / "config"
    config.mkdir()
    ok("install", "opencode", "--user", env={"XDG_CONFIG_HOME": str(config)})
    assert (config / "opencode" / "plugins" / "rewind.js").is_file()
    assert not (isolated_home / ".config").exists()
    ok("uninstall", "opencode", "--user", env={"XDG_CONFIG_HOME": str(config)})
    assert list(config.iterdir()) == []


@pytest.mark.parametrize("scope", ["user", "project"])
def test_uninstall_takes_out_the_plugin_and_leaves_what_opencode_wrote(
    project: Path, isolated_home: Path, scope: str
) -> None:
    before = (everything_under(project), everything_under(isolated_home))
    ok("install", "opencode", f"--{scope}")
    folder = plugin_at(scope, project, isolated_home).parent.parent
    ok("uninstall", "opencode", f"--{scope}")
    assert (everything_under(project), everything_under(isolated_home)) == before

    ok("install", "opencode", f"--{scope}")
    # What OpenCode writes at its start into a config folder that holds a plugin.
    theirs = {
        "package.json": '{\n  "dependencies": {\n    "@opencode-ai/plugin": "1.18.33"\n  }\n}',
        "package-lock.json": "{}\n",
        ".gitignore": "node_modules\npackage.json\npackage-lock.json\nbun.lock\n.gitignore\n",
        "node_modules/@opencode-ai/plugin/package.json": "{}\n",
    }
    for name, text in theirs.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    done = ok("uninstall", "opencode", f"--{scope}")
    assert "deleted" in done.stdout
    assert not (folder / "plugins").exists()
    assert {name: (folder / name).read_text() for name in theirs} == theirs


def test_a_file_of_that_name_that_is_not_rewinds_is_never_overwritten_nor_deleted(
    project: Path, isolated_home: Path
) -> None:
    path = plugin_at("project", project, isolated_home)
    path.parent.mkdir(parents=True)
    path.write_text("export const Mine = async () => ({})\n")
    refused = run_rewind("install", "opencode")
    assert "is not rewind's; rename it" in error_line(refused)
    ok("uninstall", "opencode")
    assert path.read_text() == "export const Mine = async () => ({})\n"


def test_a_plugin_edited_since_install_is_kept_and_left(project: Path, isolated_home: Path) -> None:
    ok("install", "opencode")
    path = plugin_at("project", project, isolated_home)
    edited = path.read_text().replace("TIMEOUT_MS = 60000", "TIMEOUT_MS = 90000")
    path.write_text(edited)
    assert "it was edited since rewind wrote it" in ok("install", "opencode").stdout
    left = ok("uninstall", "opencode").stdout
    assert left.endswith(f"  left {path}: it was edited since rewind wrote it\n"), left
    assert path.read_text() == edited


def doctor(env: dict[str, str] | None = None) -> list[dict[str, str]]:
    findings = json.loads(run_rewind("doctor", "--json", env=env).stdout)["findings"]
    return [finding for finding in findings if finding["target"] == "opencode"]


def test_doctor_finds_the_plugin_and_runs_its_hook(project: Path, isolated_home: Path) -> None:
    ok("install", "opencode")
    ok("install", "opencode", "--user")
    found = doctor()
    said = [(f["where"], f["level"], f["message"]) for f in found]
    assert ("project", "ok", f"{project}/.opencode/plugins/rewind.js: plugin") in said, said
    [(_, level, ran)] = [finding for finding in said if finding[0] == "hook"]
    assert level == "ok" and "recorded turn 1 with probe.txt (modified)" in ran, ran
    assert "OpenCode loads both, and the plugin records each event once" in json.dumps(found)
    assert not [f for f in found if f["level"] == "fail"], found
    assert not [f for f in found if f["where"] == "scopes"], found  # each event runs once
    off = doctor({"OPENCODE_DISABLE_PROJECT_CONFIG": "1"})
    assert any("loads no plugin of the project's" in f["message"] for f in off), off


def test_doctor_says_when_the_plugin_is_not_as_install_writes_it(
    project: Path, isolated_home: Path
) -> None:
    ok("install", "opencode")
    path = plugin_at("project", project, isolated_home)
    path.write_text(path.read_text().replace("TIMEOUT_MS = 60000", "TIMEOUT_MS = 1"))
    warned = [f["message"] for f in doctor() if f["level"] == "warn"]
    assert any("plugin not as 'rewind install' writes" in message for message in warned), warned


# the MCP server ---------------------------------------------------------------------------------


@pytest.mark.parametrize("scope", ["user", "project"])
def test_the_server_is_a_local_command_and_the_read_tools_are_allowed(
    project: Path, isolated_home: Path, scope: str
) -> None:
    ok("install", "opencode", "--mcp", f"--{scope}")
    folder = isolated_home / ".config" / "opencode" if scope == "user" else project
    config = json.loads((folder / "opencode.json").read_text())
    server = config["mcp"]["rewind"]
    assert server["type"] == "local" and server["enabled"] is True
    assert server["command"][1:] == ["mcp"]
    assert (server["command"][0] == "rewind") is (scope == "project")
    assert config["permission"] == {f"rewind_{tool}": "allow" for tool in READ_TOOLS}
    assert not [tool for tool in CHANGE_TOOLS if tool in json.dumps(config)]


def test_a_persons_own_rule_for_a_read_tool_is_kept_and_left(
    project: Path, isolated_home: Path
) -> None:
    config = project / "opencode.jsonc"
    original = (
        '{\n  // mine\n  "permission": {"*": "ask", "rewind_rewind_log": "deny"},\n'
        '  "model": "anthropic/claude",\n}\n'
    )
    config.write_text(original)
    done = ok("install", "opencode", "--mcp")
    assert "kept permission > rewind_rewind_log as it is (set by hand)" in done.stdout
    assert not (project / "opencode.json").exists()  # the one OpenCode reads is edited
    text = config.read_text()
    assert '"rewind_rewind_log": "deny"' in text and '"rewind_rewind_show": "allow"' in text
    ok("uninstall", "opencode")
    assert config.read_text() == original
