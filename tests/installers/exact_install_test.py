"""``rewind install`` changes an agent's settings file only by adding its hooks, and ``rewind
uninstall`` right after gives back the very bytes, per agent and scope, with settings people
really have: other tools' hooks, permissions, comments, compact arrays, odd indentation."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rewind.errors import UserError
from rewind.installers import Context
from rewind.installers.jsonc import JsoncError, parse
from rewind.installers.registry import get_target
from rewind.installers.rewind_hooks import is_rewind_hook
from rewind.installers.text_edits import Document
from tests.conftest import ok

AGENTS = ("claude-code", "codex", "gemini", "cursor", "copilot", "qwen", "droid")
CASES = [(agent, scope) for agent in AGENTS for scope in get_target(agent).scopes]

# Settings as people write them. Each holds hooks of other tools, one of them in an event rewind
# also uses, and something rewind has no business with.
CLAUDE = """\
{
    "model": "opus",
    "permissions": {
        "allow": ["Bash(npm test:*)", "Read(~/.zshrc)"],
        "deny": []
    },
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}
        ],
        "Notification": [
            {
                "hooks": [ { "type": "command", "command": "notify-send done" } ]
            }
        ]
    },
    "env": {"FOO": "b\u00e4r"}
}
"""
CODEX = (
    '{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"say done","timeout":5}]}],'
    '"PostToolUse":[{"matcher":"shell","hooks":[{"type":"command","command":"./lint.sh"}]}]}}'
)
GEMINI = """\
// Gemini CLI settings (JSON with comments)
{
  "theme": "GitHub", /* the light one */
  "general": {"vimMode": true},
  "tools": {
    "exclude": ["web_fetch",], // trailing commas are fine here
  },
  "hooks": {
    // block secrets before a tool runs
    "BeforeTool": [
      {"matcher": "write_file", "hooks": [{"type": "command", "command": "./no-secrets.sh"}]},
    ],
  },
}
"""
CURSOR = """\
{
\t"version": 1,
\t"hooks": {
\t\t"afterFileEdit": [ { "command": "./format.sh" } ],
\t\t"beforeMCPExecution": [{"command": "./audit.sh"}]
\t}
}"""
# Someone's own hook kept in rewind's file of Copilot hooks, no version, one event per line.
COPILOT = """\
{"hooks": {
  "preToolUse": [{"type": "command", "bash": "./guard.sh", "powershell": "./guard.ps1"}],
  "sessionStart": [{"type": "prompt", "prompt": "/status"}]
}}
"""
# Qwen Code's settings: a model provider, a hook of the person's own in an event rewind uses.
QWEN = """\
{
  "modelProviders": {"openai": [{"id": "qwen3-coder-plus", "envKey": "OPENAI_API_KEY"}]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "^run_shell_command$", "hooks": [{"type": "command", "command": "./guard.sh"}]}
    ]
  },
  "model": {"name": "qwen3-coder-plus"}
}
"""
# Droid's hooks.json: the events at the top level, a hook of the person's own in an event rewind
# uses, and its switch, which is no event.
DROID = """\
{
  "hooksDisabled": false,
  "PreToolUse": [
    {"matcher": "Execute", "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 5}]}
  ],
  "Notification": [{"hooks": [{"type": "command", "command": "notify-send droid"}]}]
}
"""
TABS_AND_CRLF = '{\r\n\t"permissions": {"allow": []},\r\n\t"hooks": {}\r\n}\r\n'
EVENT_COUNTS = {
    "claude-code": 6,
    "codex": 5,
    "gemini": 5,
    "cursor": 8,
    "copilot": 7,
    "qwen": 6,
    "droid": 6,
}
EMPTY_EVENT = '{"hooks": {"SessionStart": [], "AfterAgent": []}}'
REALISTIC = {
    "claude-code": CLAUDE,
    "codex": CODEX,
    "gemini": GEMINI,
    "cursor": CURSOR,
    "copilot": COPILOT,
    "qwen": QWEN,
    "droid": DROID,
}


def settings_path(agent: str, scope: str, project: Path, home: Path) -> Path:
    target = get_target(agent)
    context = Context(str(project), str(home), "rewind")
    return Path(target.location(scope, context))


def install(agent: str, scope: str) -> None:
    get_target(agent).install(scope, Context.current())


def uninstall(agent: str, scope: str) -> None:
    get_target(agent).uninstall(scope, Context.current())


def rewind_commands(text: str, agent: str) -> int:
    """How many of rewind's hooks the text holds: commands, and posts to the resident."""
    commands = re.findall(r'"(?:command|bash)": "([^"]*)"', text)
    urls = re.findall(r'"url": "([^"]*)"', text)
    return sum(is_rewind_hook({"command": command}, agent) for command in commands) + sum(
        is_rewind_hook({"type": "http", "url": url}, agent) for url in urls
    )


def everything_under(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if ".git" not in p.parts)


# round trips -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("agent", "scope"), CASES)
def test_install_then_uninstall_gives_back_the_same_bytes(
    project: Path, isolated_home: Path, agent: str, scope: str
) -> None:
    path = settings_path(agent, scope, project, isolated_home)
    path.parent.mkdir(parents=True, exist_ok=True)
    original = REALISTIC[agent].encode()
    path.write_bytes(original)
    install(agent, scope)
    installed = path.read_text(encoding="utf-8")
    assert installed != REALISTIC[agent]
    assert rewind_commands(installed, agent) == EVENT_COUNTS[agent]
    uninstall(agent, scope)
    assert path.read_bytes() == original


@pytest.mark.parametrize(("agent", "scope"), CASES)
def test_install_only_adds_text(project: Path, isolated_home: Path, agent: str, scope: str) -> None:
    """Every byte of the file before is still there, in order: nothing was reformatted."""
    path = settings_path(agent, scope, project, isolated_home)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(REALISTIC[agent], encoding="utf-8")
    install(agent, scope)
    installed = path.read_text(encoding="utf-8")
    position = 0
    for char in REALISTIC[agent]:
        position = installed.index(char, position) + 1
    assert "// trailing commas are fine here" in installed or agent != "gemini"


@pytest.mark.parametrize(("agent", "scope"), CASES)
def test_install_into_nothing_then_uninstall_leaves_nothing(
    project: Path, isolated_home: Path, agent: str, scope: str
) -> None:
    before = (everything_under(project), everything_under(isolated_home))
    install(agent, scope)
    path = settings_path(agent, scope, project, isolated_home)
    assert path.exists()
    uninstall(agent, scope)
    assert not path.exists()
    home_after = [p for p in everything_under(isolated_home) if not p.startswith("rewind-home")]
    assert (everything_under(project), home_after) == before


@pytest.mark.parametrize(("agent", "scope"), CASES)
def test_install_twice_changes_nothing_the_second_time(
    project: Path, isolated_home: Path, agent: str, scope: str
) -> None:
    path = settings_path(agent, scope, project, isolated_home)
    path.parent.mkdir(parents=True, exist_ok=True)
    original = REALISTIC[agent].encode()
    path.write_bytes(original)
    install(agent, scope)
    once = path.read_bytes()
    install(agent, scope)
    assert path.read_bytes() == once
    uninstall(agent, scope)
    assert path.read_bytes() == original


def test_a_directory_that_gets_other_files_stays(project: Path) -> None:
    install("codex", "project")
    (project / ".codex" / "config.toml").write_text('model = "o3"\n')
    uninstall("codex", "project")
    assert not (project / ".codex" / "hooks.json").exists()
    assert everything_under(project) == [".codex", ".codex/config.toml"]


def test_a_created_file_someone_else_added_to_stays(project: Path) -> None:
    install("claude-code", "project")
    path = project / ".claude" / "settings.json"
    text = path.read_text()
    path.write_text(text.replace("{", '{\n  "model": "opus",', 1))
    uninstall("claude-code", "project")
    assert json.loads(path.read_text()) == {"model": "opus"}


@pytest.mark.parametrize(
    "original",
    [
        "",
        "\n",
        "{}",
        "{}\n",
        "  {  }  ",
        TABS_AND_CRLF,
        "\ufeff" + CLAUDE,
        EMPTY_EVENT,
        "\r\n",
        "\ufeff{}\r\n",
    ],
    ids=[
        "empty",
        "newline",
        "braces",
        "braces-newline",
        "spaced",
        "tabs-crlf",
        "bom",
        "event",
        "blank-crlf",
        "bom-crlf",
    ],
)
def test_unusual_files_round_trip(project: Path, original: str) -> None:
    path = project / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_bytes(original.encode())
    install("gemini", "project")
    installed = path.read_bytes()
    if "\r\n" in original:
        assert b"\n" not in installed.replace(b"\r\n", b"")
    uninstall("gemini", "project")
    assert path.read_bytes() == original.encode()


def test_a_compact_array_stays_on_its_line(project: Path) -> None:
    path = project / ".codex" / "hooks.json"
    path.parent.mkdir()
    path.write_text(CODEX)
    install("codex", "project")
    line = next(line for line in path.read_text().splitlines() if '"Stop"' in line)
    assert line.startswith('{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"say done"')
    assert is_rewind_hook({"command": line.split('"command": "')[-1].split('"')[0]}, "codex")


def test_an_older_rewind_hook_is_replaced_in_place(project: Path) -> None:
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    old = {"hooks": [{"type": "command", "command": "/old/bin/rewind hook claude-code"}]}
    path.write_text('{\n  "model": "opus",\n  "hooks": {"Stop": [' + json.dumps(old) + "]}\n}\n")
    install("claude-code", "project")
    data = json.loads(path.read_text())
    assert data["model"] == "opus" and len(data["hooks"]["Stop"]) == 1
    assert "/old/bin" not in path.read_text()


# JSON with comments ----------------------------------------------------------------------------


@pytest.mark.unit
def test_the_jsonc_reader_agrees_with_json_on_plain_json() -> None:
    for text in (CLAUDE, CODEX, CURSOR, TABS_AND_CRLF, '[1, 2.5e3, -0, "a\\u00e9\\n", null]'):
        assert parse(text).value == json.loads(text)


@pytest.mark.parametrize(
    "text",
    ['{"a": 1', '{"a" 1}', "{'a': 1}", '{"a": 1} x', "/* open", '{"a": [1 2]}', "{,}"],
)
@pytest.mark.unit
def test_the_jsonc_reader_refuses_what_is_not_jsonc(text: str) -> None:
    with pytest.raises(JsoncError):
        parse(text)


def test_a_gemini_settings_file_with_comments_installs_and_uninstalls(project: Path) -> None:
    """Through the real command line, as a person runs it."""
    path = project / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text(GEMINI)
    result = ok("install", "gemini")
    assert result.stdout.splitlines()[0] == f"gemini: updated {path}"
    installed = path.read_text()
    assert "// block secrets before a tool runs" in installed
    assert rewind_commands(installed, "gemini") == 5
    assert ok("install", "gemini").stdout.endswith("nothing changed.\n")
    ok("uninstall", "gemini")
    assert path.read_text() == GEMINI


def test_install_then_uninstall_through_the_command_line_leaves_no_trace(
    project: Path, isolated_home: Path
) -> None:
    for agent in AGENTS:
        ok("install", agent, "--user")
        ok("install", agent, "--project")
    for agent in AGENTS:
        ok("uninstall", agent, "--user")
        ok("uninstall", agent, "--project")
    assert everything_under(project) == []
    assert [p for p in everything_under(isolated_home) if not p.startswith("rewind-home")] == []


def test_a_file_that_is_not_jsonc_is_refused_with_where(project: Path) -> None:
    path = project / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text('{\n  "theme": "x"\n  "hooks": {}\n}\n')
    with pytest.raises(UserError, match=r"line 3 column 3"):
        install("gemini", "project")
    assert path.read_text() == '{\n  "theme": "x"\n  "hooks": {}\n}\n'


@pytest.mark.unit
def test_removing_keeps_the_comments_around_an_item() -> None:
    document = Document("[1, /* why */ 2, 3]", "  ")
    document.remove(document.root, 1)
    assert document.text == "[1, /* why */ 3]"
    document = Document("[1 // one\n, 2]", "  ")
    document.remove(document.root, 1)
    assert document.text == "[1 // one\n ]"
    document = Document('{"a": 1, "b": 2}', "  ")
    document.remove(document.root, 0)
    assert document.text == '{"b": 2}'
