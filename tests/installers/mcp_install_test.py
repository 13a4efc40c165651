"""``rewind install AGENT --mcp`` registers rewind's MCP server in each agent's settings, at each
scope the agent reads servers from, its read tools pre-approved and the tools that change files
never; ``rewind uninstall`` gives back the very bytes, and leaves nothing where there was
nothing; ``rewind doctor`` starts the registered server and asks for its tools."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from rewind.installers import Context, jsonc, mcp_probe
from rewind.installers.registry import targets
from rewind.mcp.names import CHANGE_TOOLS, READ_TOOLS
from tests.conftest import ok, run_rewind

AGENTS = [name for name, target in targets().items() if target.mcp is not None]
CASES = [(agent, scope) for agent in AGENTS for scope in targets()[agent].mcp.scopes]  # type: ignore[union-attr]

# Settings as people have them: another server, a permission of their own (one of them the
# very rule install would add: it stays after uninstall), another project, a comment.
JSON_SETTINGS = """\
{
  // someone's settings
  "theme": "dark",
  "mcpServers": {"github": {"command": "github-mcp", "args": ["stdio"]}},
  "permissions": {"allow": ["Bash(npm test:*)", "mcp__rewind__rewind_log"], "deny": []},
  "projects": {"/elsewhere": {"mcpServers": {}}}
}
"""
TOML_SETTINGS = 'model = "o3"\n\n[mcp_servers.github]\ncommand = "github-mcp"\nargs = ["stdio"]\n'


def files_of(agent: str, scope: str, project: Path, home: Path) -> list[Path]:
    registration = targets()[agent].mcp
    assert registration is not None
    found = registration.inspect(scope, Context(str(project), str(home), "rewind"))
    return [Path(path) for path in found.paths]


def seed(path: Path) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(TOML_SETTINGS if path.suffix == ".toml" else JSON_SETTINGS)
    return path.read_bytes()


def everything_under(root: Path) -> list[str]:
    return sorted(
        str(p.relative_to(root))
        for p in root.rglob("*")
        if ".git" not in p.parts and not p.relative_to(root).parts[0].startswith("rewind-home")
    )


def server_of(path: Path) -> object:
    """rewind's server entry in a settings file, wherever the agent keeps it (OpenCode's
    under ``mcp``, its command a list: given back in the others' shape, command and args)."""
    text = path.read_text().removeprefix("\ufeff")
    if path.suffix == ".toml":
        return tomllib.loads(text).get("mcp_servers", {}).get("rewind")
    data = jsonc.parse(text).value if text.strip() else {}
    assert isinstance(data, dict)
    found = [data.get("mcpServers", {}).get("rewind")]
    found += [p.get("mcpServers", {}).get("rewind") for p in data.get("projects", {}).values()]
    opencode = data.get("mcp", {}).get("rewind")
    if isinstance(opencode, dict) and isinstance(opencode.get("command"), list):
        command = opencode["command"]
        found.append({**opencode, "command": command[0], "args": command[1:]})
    return next((one for one in found if one), None)


@pytest.mark.parametrize(("agent", "scope"), CASES)
def test_install_then_uninstall_gives_back_the_same_bytes(
    project: Path, isolated_home: Path, agent: str, scope: str
) -> None:
    paths = files_of(agent, scope, project, isolated_home)
    originals = {path: seed(path) for path in paths}
    ok("install", agent, "--mcp", f"--{scope}")
    server = server_of(paths[0])
    assert isinstance(server, dict) and server["args"] == ["mcp"], paths[0].read_text()
    assert any(path.read_bytes() != original for path, original in originals.items())
    ok("uninstall", agent, f"--{scope}")
    for path, original in originals.items():
        assert path.read_bytes() == original, path


@pytest.mark.parametrize(("agent", "scope"), CASES)
def test_install_into_nothing_then_uninstall_leaves_nothing(
    project: Path, isolated_home: Path, agent: str, scope: str
) -> None:
    ok("install", agent, "--mcp", f"--{scope}")
    assert server_of(files_of(agent, scope, project, isolated_home)[0])
    ok("uninstall", agent, f"--{scope}")
    assert everything_under(project) == []
    assert everything_under(isolated_home) == []


@pytest.mark.parametrize(("agent", "scope"), CASES)
def test_read_tools_are_approved_and_the_tools_that_change_files_never(
    project: Path, isolated_home: Path, agent: str, scope: str
) -> None:
    first = ok("install", agent, "--mcp", f"--{scope}")
    written = {path: path.read_bytes() for path in files_of(agent, scope, project, isolated_home)}
    text = "".join(content.decode() for content in written.values())
    for tool in CHANGE_TOOLS:
        assert tool not in text, f"{agent} --{scope} pre-approves {tool}"
    if agent in ("claude-code", "codex", "opencode"):  # their settings approve tools one by one
        assert all(tool in text for tool in READ_TOOLS)
    again = ok("install", agent, "--mcp", f"--{scope}")
    assert "MCP: rewind's server already registered" in again.stdout, (first, again)
    assert {path: path.read_bytes() for path in written} == written


@pytest.mark.parametrize("agent", AGENTS)
def test_uninstall_mcp_keeps_the_hooks(project: Path, isolated_home: Path, agent: str) -> None:
    target = targets()[agent]
    registration = target.mcp
    assert registration is not None
    scope = target.default_scope if target.default_scope in registration.scopes else "user"
    context = Context(str(project), str(isolated_home), "rewind")
    ok("install", agent, "--mcp", f"--{scope}")
    ok("uninstall", agent, "--mcp", f"--{scope}")
    assert not registration.inspect(scope, context).registered
    hooks = target.inspect(scope, context)
    assert hooks is None or hooks.installed, "uninstall --mcp took the hooks out"
    ok("uninstall", agent, f"--{scope}")
    assert everything_under(project) == []
    assert everything_under(isolated_home) == []


@pytest.mark.parametrize("agent", AGENTS)
def test_a_server_named_rewind_that_is_not_rewinds_is_refused(
    project: Path, isolated_home: Path, agent: str
) -> None:
    scope = targets()[agent].mcp.scopes[0]  # type: ignore[union-attr]
    path = files_of(agent, scope, project, isolated_home)[0]
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".toml":
        path.write_text('[mcp_servers.rewind]\ncommand = "rewind-of-someone-else"\n')
    elif agent in ("opencode", "kilo"):
        path.write_text('{"mcp": {"rewind": {"type": "local", "command": ["npx", "rewind-ai"]}}}')
    else:
        path.write_text('{"mcpServers": {"rewind": {"command": "npx", "args": ["rewind-ai"]}}}')
    if agent == "claude-code" and scope == "local":  # the server's file holds it per project
        path.write_text(json.dumps({"projects": {str(project): json.loads(path.read_text())}}))
    before = path.read_bytes()
    refused = run_rewind("install", agent, "--mcp", f"--{scope}")
    assert refused.returncode == 1
    assert "which is not rewind's MCP server; rename or remove it" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert path.read_bytes() == before


def test_an_agent_without_the_scope_is_told_which_it_has(project: Path) -> None:
    refused = run_rewind("install", "codex", "--mcp", "--local")
    assert refused.returncode == 1
    assert "--user or --project" in refused.stderr


def test_doctor_starts_the_registered_server_and_lists_its_tools(
    project: Path, isolated_home: Path
) -> None:
    ok("install", "claude-code", "--mcp", "--local")
    found = json.loads(ok("doctor", "--json").stdout)["findings"]
    mcp = [f for f in found if f["where"] == "mcp"]
    assert any(f["target"] == "claude-code" and f["level"] == "ok" for f in mcp), mcp
    listed = [f for f in mcp if f["target"] == "rewind"]
    assert [f["level"] for f in listed] == ["ok"], listed
    assert "listed 9 tools" in listed[0]["message"]


def test_doctor_fails_a_registered_server_that_does_not_start(
    project: Path, isolated_home: Path
) -> None:
    config = isolated_home / ".claude.json"
    server = {"command": "rewind", "args": ["mcp"]}
    config.write_text(json.dumps({"mcpServers": {"rewind": server}}))
    doctor = run_rewind("doctor", "--json", env={"PATH": "/usr/bin:/bin"})  # no rewind there
    assert doctor.returncode == 1
    found = [f for f in json.loads(doctor.stdout)["findings"] if f["where"] == "mcp"]
    failed = [f for f in found if f["level"] == "fail"]
    assert failed and "could not start" in failed[0]["message"], found


def test_gemini_allows_the_read_tools_in_a_policy_file_of_rewinds_own(
    project: Path, isolated_home: Path
) -> None:
    policy = isolated_home / ".gemini" / "policies" / "rewind.toml"
    ok("install", "gemini", "--mcp", "--user")
    rules = tomllib.loads(policy.read_text())["rule"]
    assert rules == [
        {"mcpName": "rewind", "toolName": list(READ_TOOLS), "decision": "allow", "priority": 100}
    ]
    settings = json.loads((isolated_home / ".gemini" / "settings.json").read_text())
    assert "trust" not in settings["mcpServers"]["rewind"]  # trust would allow every tool
    assert "mcp" not in settings  # so would mcp.allowed
    ok("uninstall", "gemini", "--user")
    assert everything_under(isolated_home) == []


def test_a_policy_file_named_like_rewinds_that_is_not_is_left_alone(
    project: Path, isolated_home: Path
) -> None:
    policy = isolated_home / ".gemini" / "policies" / "rewind.toml"
    policy.parent.mkdir(parents=True)
    policy.write_text('[[rule]]\ntoolName = "run_shell_command"\ndecision = "deny"\n')
    refused = run_rewind("install", "gemini", "--mcp", "--user")
    assert refused.returncode == 1 and "is not rewind's; rename it" in refused.stderr
    policies = [".gemini", ".gemini/policies", ".gemini/policies/rewind.toml"]
    assert everything_under(isolated_home) == policies
    ok("uninstall", "gemini", "--user")
    assert policy.read_text().startswith("[[rule]]")


# A site customization that makes the 'mcp' package impossible to import, as on an install of
# rewind without the extra.
NO_MCP = """\
import sys


class _NoMcp:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name == "mcp" or name.startswith("mcp."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, _NoMcp)
"""


def test_without_the_mcp_package_install_refuses_and_writes_nothing(
    project: Path, isolated_home: Path, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(NO_MCP)
    refused = run_rewind("install", "claude-code", "--mcp", env={"PYTHONPATH": str(site)})
    assert refused.returncode == 1, refused
    assert f"install it with '{sys.executable} -m pip install \"mcp>=2.3\"'" in refused.stderr
    assert refused.stderr.rstrip().endswith(", then run this again.")
    assert len(refused.stderr.strip().splitlines()) == 1
    assert everything_under(project) == []


@pytest.mark.parametrize(
    ("agent", "scope", "content"),
    [
        ("claude-code", "project", '{"mcpServers": ["rewind"]}'),
        ("claude-code", "local", '{"projects": []}'),
        ("cursor", "user", '{"mcpServers": "rewind"}'),
        ("codex", "user", "[mcp_servers\nrewind = 1\n"),
    ],
)
def test_a_settings_file_of_the_wrong_shape_is_refused_with_nothing_written(
    project: Path, isolated_home: Path, agent: str, scope: str, content: str
) -> None:
    path = files_of(agent, scope, project, isolated_home)[0]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    before = everything_under(project), everything_under(isolated_home)
    refused = run_rewind("install", agent, "--mcp", f"--{scope}")
    assert refused.returncode == 1, refused
    assert str(path) in refused.stderr and "fix it" in refused.stderr, refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert path.read_text() == content
    assert (everything_under(project), everything_under(isolated_home)) == before


def test_doctor_starts_no_program_a_projects_file_names(project: Path, isolated_home: Path) -> None:
    """A cloned repository's .mcp.json could name any program 'rewind': doctor does not run it."""
    program = project / "tools" / "rewind"
    program.parent.mkdir()
    marker = project / "ran"
    program.write_text(f"#!/bin/sh\ntouch {marker}\n")
    program.chmod(0o755)
    server = {"command": "tools/rewind", "args": ["mcp"]}
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"rewind": server}}))
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"enabledMcpjsonServers": ["rewind"]}))
    found = json.loads(run_rewind("doctor", "--json").stdout)["findings"]
    assert not marker.exists()
    listed = [f for f in found if f["target"] == "rewind" and f["where"] == "mcp"]
    assert [f["level"] for f in listed] == ["warn"] and "not started" in listed[0]["message"]


def test_doctor_stops_a_server_that_never_answers_and_its_children(tmp_path: Path) -> None:
    """A wrapper that does not exec keeps the pipes open through its child: the check still
    ends, with a failure, and stops the child too."""
    program = tmp_path / "rewind"
    child = tmp_path / "child.pid"
    program.write_text(f"#!/bin/sh\nsleep 300 &\necho $! > {child}\nwait\n")
    program.chmod(0o755)
    answer = mcp_probe.list_tools([str(program), "mcp"], str(tmp_path), deadline=1.0)
    assert "no answer to tools/list within 1 s" in answer.failure
    pid = int(child.read_text())
    for _ in range(100):  # killed at once; reaped by init soon after
        if not Path(f"/proc/{pid}").exists() or " Z " in Path(f"/proc/{pid}/stat").read_text():
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"the server's child {pid} still runs")


def test_doctor_reports_a_server_whose_tool_list_is_not_a_list(tmp_path: Path) -> None:
    program = tmp_path / "rewind"
    reply = json.dumps({"jsonrpc": "2.0", "id": 2, "result": {"tools": 5}})
    program.write_text(f"#!/bin/sh\necho '{reply}'\nsleep 5\n")
    program.chmod(0o755)
    answer = mcp_probe.list_tools([str(program), "mcp"], str(tmp_path), deadline=10.0)
    assert answer.failure == "tools/list answered no list of tools"


# What people do to these files between install and uninstall, and what they had before.


def test_the_hooks_uninstall_leaves_a_server_registered_by_hand(
    project: Path, isolated_home: Path
) -> None:
    ok("install", "claude-code")
    servers = project / ".mcp.json"
    servers.write_text('{"mcpServers": {"rewind": {"command": "rewind", "args": ["mcp"]}}}')
    ok("uninstall", "claude-code")
    assert json.loads(servers.read_text())["mcpServers"]["rewind"]["args"] == ["mcp"]
    taken = ok("uninstall", "claude-code", "--mcp")  # asked for by name: it goes
    assert "removed  mcpServers > rewind" in taken.stdout
    assert json.loads(servers.read_text()) == {}


def test_a_comment_added_next_to_the_server_stays(project: Path, isolated_home: Path) -> None:
    ok("install", "cursor", "--mcp", "--user")
    path = isolated_home / ".cursor" / "mcp.json"
    mine = '// "github": {"command": "gh"},\n    "rewind": {'
    path.write_text(path.read_text().replace('"rewind": {', mine))
    ok("uninstall", "cursor", "--mcp", "--user")
    assert '// "github": {"command": "gh"},' in path.read_text()


def test_an_empty_object_holding_only_comments_is_refused(
    project: Path, isolated_home: Path
) -> None:
    path = isolated_home / ".cursor" / "mcp.json"
    path.parent.mkdir()
    path.write_text('{"mcpServers": {/* none yet */}}')
    refused = run_rewind("install", "cursor", "--mcp", "--user")
    assert refused.returncode == 1 and "holds only comments" in refused.stderr
    assert path.read_text() == '{"mcpServers": {/* none yet */}}'


def test_a_broken_file_of_the_server_does_not_stop_the_hooks_uninstall(
    project: Path, isolated_home: Path
) -> None:
    ok("install", "claude-code", "--mcp", "--user")
    config = isolated_home / ".claude.json"
    config.write_text('{"numStartups": 3,')  # Claude Code was writing it when it crashed
    done = ok("uninstall", "claude-code", "--user")
    assert "claude-code MCP: left as it is:" in done.stdout and "not valid JSON" in done.stdout
    assert not (isolated_home / ".claude" / "settings.json").exists()
    assert config.read_text() == '{"numStartups": 3,'


def test_a_null_where_the_servers_go_is_refused_before_the_hooks_are_written(
    project: Path, isolated_home: Path
) -> None:
    path = isolated_home / ".cursor" / "mcp.json"
    path.parent.mkdir()
    path.write_text('{"mcpServers": null}')
    refused = run_rewind("install", "cursor", "--mcp", "--user")
    assert refused.returncode == 1 and "is not a JSON object" in refused.stderr
    assert everything_under(isolated_home) == [".cursor", ".cursor/mcp.json"]


@pytest.mark.parametrize(
    "servers", ["mcp_servers = {}\n", 'mcp_servers = { other = { command = "x" } }\n']
)
def test_codex_servers_as_an_inline_table_are_refused(
    project: Path, isolated_home: Path, servers: str
) -> None:
    config = isolated_home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('model = "o3"\n' + servers)
    refused = run_rewind("install", "codex", "--mcp", "--user")
    assert refused.returncode == 1 and "add the server by hand" in refused.stderr
    assert config.read_text() == 'model = "o3"\n' + servers
    assert everything_under(isolated_home) == [".codex", ".codex/config.toml"]


def test_a_file_deleted_and_made_again_by_hand_is_not_taken_for_rewinds(
    project: Path, isolated_home: Path
) -> None:
    path = isolated_home / ".cursor" / "mcp.json"
    ok("install", "cursor", "--mcp", "--user")
    path.unlink()
    ok("uninstall", "cursor", "--mcp", "--user")
    path.write_text("{}\n")  # the person's own, now
    ok("install", "cursor", "--mcp", "--user")
    ok("uninstall", "cursor", "--mcp", "--user")
    assert path.read_text() == "{}\n"


def test_claude_codes_user_and_local_servers_share_a_file_and_leave_nothing(
    project: Path, isolated_home: Path
) -> None:
    ok("install", "claude-code", "--mcp", "--user")
    ok("install", "claude-code", "--mcp", "--local")
    ok("uninstall", "claude-code", "--user")
    assert (isolated_home / ".claude.json").exists()  # the local server is still in it
    ok("uninstall", "claude-code", "--local")
    assert everything_under(isolated_home) == []
    assert everything_under(project) == []


def test_a_policy_file_edited_since_install_is_kept(project: Path, isolated_home: Path) -> None:
    ok("install", "gemini", "--mcp", "--user")
    policy = isolated_home / ".gemini" / "policies" / "rewind.toml"
    edited = policy.read_text() + '\n[[rule]]\ntoolName = "glob"\ndecision = "allow"\n'
    policy.write_text(edited)
    again = ok("install", "gemini", "--mcp", "--user")
    assert "kept" in again.stdout and policy.read_text() == edited
    left = ok("uninstall", "gemini", "--user")
    assert "it was edited since rewind wrote it" in left.stdout
    assert policy.read_text() == edited


# The second look: records that outlive their file, comments in the hooks, Codex's tables.


@pytest.mark.parametrize("remade", ['{\n  "version": 1,\n  "hooks": {}\n}\n', "{}\n"])
def test_a_hooks_file_deleted_and_made_again_by_hand_comes_back_as_made(
    project: Path, remade: str
) -> None:
    path = project / ".cursor" / "hooks.json"
    ok("install", "cursor", "--project")
    path.unlink()
    path.write_text(remade)  # Cursor's starter file, say
    ok("install", "cursor", "--project")
    ok("uninstall", "cursor", "--project")
    assert path.read_text() == remade


def test_a_servers_file_deleted_and_made_again_with_an_empty_object_stays(
    project: Path, isolated_home: Path
) -> None:
    path = isolated_home / ".cursor" / "mcp.json"
    ok("install", "cursor", "--mcp", "--user")
    path.write_text('{\n  "mcpServers": {}\n}\n')
    ok("install", "cursor", "--mcp", "--user")
    ok("uninstall", "cursor", "--mcp", "--user")
    assert path.read_text() == '{\n  "mcpServers": {}\n}\n'


COMMENTED_HOOKS = """\
{
  "model": "opus",
  "hooks": {
    // Team hooks: see CONTRIBUTING.md
    "Stop": [
      // do not remove without asking
      {"hooks": [{"type": "command", "command": "rewind hook claude-code", "timeout": 30}]}
    ]
  }
}
"""


def test_the_hooks_uninstall_keeps_comments_inside_hooks_and_event_lists(project: Path) -> None:
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(COMMENTED_HOOKS)
    ok("uninstall", "claude-code", "--project")
    left = path.read_text()
    assert (
        "// Team hooks: see CONTRIBUTING.md" in left and "// do not remove without asking" in left
    )
    assert "rewind hook" not in left
    jsonc.parse(left)


def test_a_settings_file_of_comments_only_installs_and_comes_back(project: Path) -> None:
    path = project / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text("{\n  // Gemini CLI settings\n}\n")
    ok("install", "gemini", "--project")
    ok("uninstall", "gemini", "--project")
    assert path.read_text() == "{\n  // Gemini CLI settings\n}\n"


def test_codex_text_after_rewinds_block_makes_uninstall_refuse_not_break_the_file(
    project: Path, isolated_home: Path
) -> None:
    config = isolated_home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('[mcp_servers.github]\ncommand = "gh-mcp"\nenabled = true\n')
    ok("install", "codex", "--mcp", "--user")
    config.write_text(config.read_text() + "enabled = false\n")  # into rewind's last table
    before = config.read_text()
    refused = run_rewind("uninstall", "codex", "--mcp", "--user")
    assert refused.returncode == 1 and "take it out by hand" in refused.stderr
    assert config.read_text() == before
    tomllib.loads(before)


def test_a_server_set_up_by_hand_stays_through_every_uninstall(
    project: Path, isolated_home: Path
) -> None:
    path = isolated_home / ".cursor" / "mcp.json"
    path.parent.mkdir()
    mine = {"command": "/opt/rewind/bin/rewind", "args": ["mcp"], "env": {"REWIND_HOME": "/d"}}
    path.write_text(json.dumps({"mcpServers": {"rewind": mine}}))
    before = path.read_bytes()
    installed = ok("install", "cursor", "--mcp", "--user")
    assert "kept mcpServers > rewind as it is" in installed.stdout
    assert path.read_bytes() == before
    first = ok("uninstall", "cursor", "--mcp", "--user")
    assert "left mcpServers > rewind: it was set up by hand" in first.stdout
    ok("uninstall", "cursor", "--mcp", "--user")
    ok("uninstall", "cursor", "--user")
    assert path.read_bytes() == before


def test_comments_only_where_the_server_goes_are_refused_before_the_hooks_are_written(
    project: Path, isolated_home: Path
) -> None:
    path = isolated_home / ".cursor" / "mcp.json"
    path.parent.mkdir()
    path.write_text('{\n  "mcpServers": {\n    // "github": {"command": "gh-mcp"}\n  }\n}\n')
    refused = run_rewind("install", "cursor", "--mcp", "--user")
    assert refused.returncode == 1 and "holds only comments" in refused.stderr
    assert everything_under(isolated_home) == [".cursor", ".cursor/mcp.json"]


@pytest.mark.unit
def test_codex_names_any_path_of_rewind_in_valid_toml() -> None:
    from rewind.installers.codex_mcp import block

    for path in ("/opt/b\U0001f680/rewind", '/x/"q" \\ y/rewind', "/tmp/ü/rewind"):
        assert tomllib.loads(block(path))["mcp_servers"]["rewind"]["command"] == path


def test_a_project_path_that_is_not_utf8_is_refused_before_anything_is_written(
    tmp_path: Path, isolated_home: Path
) -> None:
    root = Path(os.fsdecode(os.fsencode(str(tmp_path)) + b"/p\xff"))
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    refused = run_rewind("install", "claude-code", "--mcp", "--local", cwd=root)
    assert refused.returncode == 1 and "is not UTF-8" in refused.stderr, refused
    assert list(root.iterdir()) == [root / ".git"]


@pytest.mark.parametrize(("agent", "scope"), CASES)
@pytest.mark.parametrize("shape", ["crlf", "blank-crlf", "bom-crlf"])
def test_the_lines_install_adds_end_as_the_files_do(
    project: Path, isolated_home: Path, agent: str, scope: str, shape: str
) -> None:
    """Each line install adds ends in CRLF in a file whose lines do, and uninstall gives back
    the very bytes; a byte order mark stays first."""
    paths = files_of(agent, scope, project, isolated_home)
    originals = {}
    for path in paths:
        text = TOML_SETTINGS if path.suffix == ".toml" else JSON_SETTINGS
        text = {"crlf": text, "blank-crlf": "\n", "bom-crlf": "\ufeff" + text}[shape]
        originals[path] = text.replace("\n", "\r\n").encode()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(originals[path])
    ok("install", agent, "--mcp", f"--{scope}")
    assert server_of(paths[0])
    for path, original in originals.items():
        installed = path.read_bytes()
        assert installed.startswith(original[:3] if shape == "bom-crlf" else b""), path
        assert b"\n" not in installed.replace(b"\r\n", b""), (path, installed)
    ok("uninstall", agent, f"--{scope}")  # the hooks too: --mcp installs both
    for path, original in originals.items():
        assert path.read_bytes() == original, path


def test_a_codex_config_with_a_byte_order_mark_is_read(project: Path, isolated_home: Path) -> None:
    """It was refused as "Invalid statement" (tomllib takes no BOM; Codex does)."""
    config = isolated_home / ".codex" / "config.toml"
    config.parent.mkdir()
    original = ("\ufeff" + TOML_SETTINGS).encode()
    config.write_bytes(original)
    ok("install", "codex", "--mcp", "--user")
    installed = config.read_bytes()
    assert installed.startswith(original) and installed.count("\ufeff".encode()) == 1
    assert tomllib.loads(installed.decode().removeprefix("\ufeff"))["mcp_servers"]["rewind"]
    registration = targets()["codex"].mcp
    assert registration is not None
    context = Context(str(project), str(isolated_home), "rewind")
    assert registration.inspect("user", context).registered  # what doctor reads
    ok("uninstall", "codex", "--user")
    assert config.read_bytes() == original
