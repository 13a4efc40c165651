"""``rewind doctor``: what it finds in the agents' settings, and its live run of each hook."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import stat
from pathlib import Path

from tests.conftest import ok, run_rewind

AGENTS = ("claude-code", "codex", "gemini", "cursor")


def findings(output: str) -> list[tuple[str, str, str, str]]:
    """Each line as (level, target, where, message)."""
    found = []
    for line in output.splitlines():
        level, target, rest = line.split(None, 2)
        where, _, message = rest.partition("  ")
        found.append((level, target, where.strip(), message.strip()))
    return found


def doctor(project: Path) -> tuple[int, list[tuple[str, str, str, str]]]:
    result = run_rewind("doctor", cwd=project)
    assert result.stderr == "", result
    return result.returncode, findings(result.stdout)


def test_nothing_installed_is_reported_and_fails(project: Path, isolated_home: Path) -> None:
    code, found = doctor(project)
    assert code == 1
    files = [(t, where) for level, t, where, _ in found if level == "--" and t in AGENTS]
    assert files == [
        ("claude-code", "user"),
        ("claude-code", "project"),
        ("claude-code", "local"),
        ("codex", "user"),
        ("codex", "project"),
        ("gemini", "user"),
        ("gemini", "project"),
        ("cursor", "user"),
        ("cursor", "project"),
    ]
    messages = [message for _, _, _, message in found]
    assert f"{isolated_home}/.claude/settings.json: no rewind hooks (no such file)" in messages
    assert {target for _, target, where, _ in found if where == "hook"} >= set(AGENTS)
    assert found[-1][:2] == ("fail", "rewind")
    assert "no agent runs rewind's hooks; run 'rewind install AGENT'" in found[-1][3]
    assert not project.joinpath(".claude").exists()  # doctor writes nothing


def test_after_install_the_hooks_are_listed_and_work(project: Path) -> None:
    ok("install", "claude-code")
    code, found = doctor(project)
    settings = project / ".claude" / "settings.json"
    events = "UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure, Stop, "
    events += "SessionEnd"
    assert ("ok", "claude-code", "project", f"{settings}: {events}") in found
    # A file meant to be committed runs 'rewind' from PATH, whoever's machine it is on.
    runs = [m for level, t, w, m in found if (t, w) == ("claude-code", "project") and "runs" in m]
    assert runs == [f"runs rewind from PATH: {shutil.which('rewind')}"]
    assert ("ok", "rewind", "PATH", f"rewind on PATH: {shutil.which('rewind')}") in found
    [(level, message)] = [(lv, m) for lv, t, w, m in found if (t, w) == ("claude-code", "hook")]
    assert level == "ok", message
    assert "recorded turn 1 with probe.txt (modified)" in message
    # Only what is installed gets a live run: the other agents' hooks are not tried.
    assert [t for _, t, w, _ in found if w == "hook"] == ["claude-code"]
    assert not [f for f in found if f[0] == "fail"], found
    assert code == 0
    # The probe ran in a throwaway project: nothing was recorded here.
    assert run_rewind("log", cwd=project).returncode == 1


def test_missing_events_and_a_changed_entry_are_warnings(project: Path) -> None:
    ok("install", "claude-code")
    settings = project / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    del data["hooks"]["SessionEnd"]
    data["hooks"]["Stop"][0]["hooks"][0]["timeout"] = 5
    settings.write_text(json.dumps(data))
    code, found = doctor(project)
    warnings = [m for level, t, _, m in found if level == "warn" and t == "claude-code"]
    again = "run 'rewind install claude-code --project'"
    assert f"{settings}: missing SessionEnd; {again} to add." in warnings
    assert f"{settings}: Stop not as 'rewind install' writes; {again} to update." in warnings
    assert code == 0


def test_a_rewind_that_is_gone_fails(project: Path) -> None:
    settings = project / ".codex" / "hooks.json"
    ok("install", "codex")
    text = settings.read_text()
    installed = json.loads(text)["hooks"]["Stop"][0]["hooks"][0]["command"]
    settings.write_text(text.replace(json.dumps(installed), '"/gone/bin/rewind hook codex"'))
    code, found = doctor(project)
    assert code == 1
    again = "run 'rewind install codex --project' again"
    message = f"runs /gone/bin/rewind, which does not exist; {again}."
    assert ("fail", "codex", "project", message) in found
    [(level, hook)] = [(lv, m) for lv, t, w, m in found if (t, w) == ("codex", "hook")]
    assert level == "fail"
    assert hook.startswith("/gone/bin/rewind hook codex: UserPromptSubmit exited 127")


def test_this_machines_runner_is_checked(project: Path, isolated_home: Path) -> None:
    """``--user`` hooks run rewind's ``__main__.py`` with its interpreter: ok when both are
    there and are the rewind on PATH's; a gone interpreter or package fails, with what to do."""
    settings = isolated_home / ".codex" / "hooks.json"
    ok("install", "codex", "--user")
    text = settings.read_text()
    installed = json.loads(text)["hooks"]["Stop"][0]["hooks"][0]["command"]
    python, _flag, script = shlex.split(installed)[:3]
    package = os.path.dirname(script)
    code, found = doctor(project)
    assert ("ok", "codex", "user", f"runs rewind in {package}, the rewind on PATH's") in found
    again = "run 'rewind install codex --user' again"
    for gone, message in (
        (f"/gone/bin/python -S {script}", "runs rewind with /gone/bin/python, which is gone"),
        (
            f"{python} -S /gone/rewind/__main__.py",
            "runs /gone/rewind/__main__.py, which does not exist",
        ),
    ):
        settings.write_text(text.replace(json.dumps(installed), json.dumps(f"{gone} hook codex")))
        code, found = doctor(project)
        assert code == 1
        assert ("fail", "codex", "user", f"{message}; {again}.") in found


def test_a_hook_that_records_nothing_fails(project: Path, tmp_path: Path) -> None:
    """A command that exits 0 without recording (here a script that ignores its input)."""
    fake = tmp_path / "bin" / "rewind"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\ncat >/dev/null\nexit 0\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    ok("install", "gemini")
    settings = project / ".gemini" / "settings.json"
    data = json.loads(settings.read_text())
    for groups in data["hooks"].values():
        groups[0]["hooks"][0]["command"] = f"{fake} hook gemini"
    settings.write_text(json.dumps(data))
    code, found = doctor(project)
    assert code == 1
    [(level, hook)] = [(lv, m) for lv, t, w, m in found if (t, w) == ("gemini", "hook")]
    assert level == "fail"
    assert hook == f"{fake} hook gemini: every event exited 0, but no turn was recorded"
    runs = [m for lv, t, w, m in found if (t, w) == ("gemini", "project") and "runs" in m]
    assert runs and runs[0].startswith(f"runs {fake}")


def test_settings_that_are_not_json_fail(project: Path, isolated_home: Path) -> None:
    settings = isolated_home / ".cursor" / "hooks.json"
    settings.parent.mkdir()
    settings.write_text("{oops")
    code, found = doctor(project)
    assert code == 1
    [(level, message)] = [(lv, m) for lv, t, w, m in found if (t, w) == ("cursor", "user")]
    assert level == "fail"
    assert message.startswith(f"{settings} is not valid JSON")


def test_the_claude_code_plugin_counts_as_installed(project: Path, isolated_home: Path) -> None:
    settings = isolated_home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"enabledPlugins": {"rewind@rewind": True}}))
    # The plugin runs 'rewind' from PATH: the one being tested (see conftest).
    executable = shutil.which("rewind")
    result = run_rewind("doctor", cwd=project)
    found = findings(result.stdout)
    plugin = [(lv, m) for lv, t, w, m in found if (t, w) == ("claude-code", "user")]
    assert (
        "ok",
        f"{settings}: the plugin rewind@rewind is enabled; it runs 'rewind' from PATH",
    ) in (plugin)
    assert ("ok", f"runs rewind from PATH: {executable}") in plugin
    [(level, hook)] = [(lv, m) for lv, t, w, m in found if (t, w) == ("claude-code", "hook")]
    assert (level, hook.split(":")[0]) == ("ok", "rewind hook claude-code")
    assert not any("no agent runs rewind's hooks" in m for _, _, _, m in found)
    assert result.returncode == 0, result


def test_json_holds_the_same_findings(project: Path) -> None:
    ok("install", "cursor")
    text = run_rewind("doctor", cwd=project)
    as_json = run_rewind("doctor", "--json", cwd=project)
    assert as_json.returncode == text.returncode == 0, as_json
    report = json.loads(as_json.stdout)
    assert set(report) == {"format", "healthy", "findings"}
    assert report["format"] == 1 and report["healthy"] is True

    def without_timing(found: list[tuple[str, str, str, str]]) -> list[tuple[str, str, str]]:
        return [(level, target, where) for level, target, where, _ in found]

    listed = [(f["level"], f["target"], f["where"], f["message"]) for f in report["findings"]]
    assert without_timing(listed) == without_timing(findings(text.stdout))
    assert all(set(f) == {"level", "target", "where", "message"} for f in report["findings"])


def test_json_of_an_unhealthy_setup_exits_1(project: Path) -> None:
    result = run_rewind("doctor", "--json", cwd=project)
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["healthy"] is False
    assert report["findings"][-1]["level"] == "fail"


def test_hooks_installed_in_several_scopes_are_a_warning(project: Path) -> None:
    ok("install", "claude-code", "--local")
    _, found = doctor(project)
    assert [f for f in found if f[2] == "scopes"] == []  # one scope: nothing to say
    ok("install", "claude-code", "--project")
    ok("install", "claude-code", "--user")
    _, found = doctor(project)
    [(level, message)] = [(lv, m) for lv, t, w, m in found if (t, w) == ("claude-code", "scopes")]
    assert level == "warn"
    assert message.startswith("rewind's hooks are installed in 3 scopes (user, project, local)")
    assert "'rewind uninstall claude-code --user'" in message
