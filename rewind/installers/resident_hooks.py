"""The hook block of an agent whose client runs HTTP hooks (Claude Code, Qwen Code): per event,
one group with its matcher and one hook, a command or a POST to rewind's resident recorder on
the port ``REWIND_RESIDENT_PORT`` names now (rewind.resident.address)."""

from __future__ import annotations

from rewind.installers.settings_file import JsonObject
from rewind.resident import address

COMMAND, HTTP = "command", "http"
# (event, matcher, timeout in seconds, how)
Events = tuple[tuple[str, str | None, int, str], ...]


def resident_events(matcher: str) -> Events:
    """(event, matcher, timeout in seconds, how) of an agent that posts to 127.0.0.1: a process
    for what could be lost for good (the prompt, every file's state before a tool changes it);
    the after-events posted to the resident recorder (rewind.resident), taken again at the
    turn's or session's end when it was not there."""
    return (
        ("UserPromptSubmit", None, 10, COMMAND),
        ("PreToolUse", matcher, 30, COMMAND),
        ("PostToolUse", matcher, 30, HTTP),
        ("PostToolUseFailure", matcher, 30, HTTP),
        ("Stop", None, 30, HTTP),
        ("SessionEnd", None, 30, HTTP),
    )


def resident_groups(command: str, events: Events, agent: str) -> JsonObject:
    port = address.install_port()
    block: JsonObject = {}
    for event, matcher, timeout, how in events:
        group: JsonObject = {"matcher": matcher} if matcher else {}
        hook: JsonObject
        if how == COMMAND:
            hook = {"type": "command", "command": command, "timeout": timeout}
        else:
            hook = {
                "type": "http",
                "url": address.url(agent, port),
                "timeout": timeout,
                "headers": address.headers(),
                "allowedEnvVars": list(address.HOME_HEADERS.values()),
            }
        group["hooks"] = [hook]
        block[event] = [group]
    return block
