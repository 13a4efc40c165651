"""Which hooks of a settings file are rewind's.

An event of an agent's hook settings holds a list of items: a group with its own ``hooks`` list
(Claude Code, Codex, Gemini) or a hook itself (Cursor, GitHub Copilot). A hook is rewind's when
its ``command`` (its ``bash`` for Copilot) ends with ``rewind hook AGENT``, whichever path or
quoting the ``rewind`` has (or ``PYTHON -S .../rewind/__main__.py hook AGENT``), optionally
followed by a guard that keeps its exit status 0 (``|| true``), or when it posts to rewind's
resident recorder for that agent (Claude Code's HTTP hooks: rewind.resident).
"""

from __future__ import annotations

import re

from rewind.installers.settings_file import HOOKS
from rewind.resident.address import url_pattern

# Where a hook keeps the command it runs: ``command`` (Claude Code, Codex, Gemini, Cursor), or
# ``bash`` (GitHub Copilot, whose hooks also have a ``powershell`` twin of it).
COMMAND_KEYS = ("command", "bash", "powershell")
# What may follow ``rewind hook AGENT``: a guard that keeps the hook's exit status 0 when there
# is no rewind to run (Copilot denies the tool call when a preToolUse hook fails).
GUARDS = r"(?:\s*\|\|\s*true|\s*;\s*exit\s+0)?"
# ``rewind``, whichever path or quoting it has, or the package's ``__main__.py`` an interpreter
# runs (rewind.installers.hook_runner).
RUNS_REWIND = r"""(?:^|[\s/'"])rewind(?:/__main__\.py)?['"]?"""


def hook_command(hook: object) -> str | None:
    """The command a hook runs: its ``command``, else its ``bash``."""
    if not isinstance(hook, dict):
        return None
    for key in COMMAND_KEYS[:2]:
        value = hook.get(key)
        if isinstance(value, str):
            return value
    return None


def is_rewind_hook(hook: object, agent: str) -> bool:
    """A command that runs ``rewind hook AGENT``, or a POST to rewind's resident recorder for
    ``agent`` (rewind.resident.address)."""
    if isinstance(hook, dict) and hook.get("type") == "http":
        url = hook.get("url")
        return isinstance(url, str) and url_pattern(agent).fullmatch(url) is not None
    command = hook_command(hook)
    pattern = RUNS_REWIND + r"\s+hook\s+" + re.escape(agent) + GUARDS + r"\s*$"
    return command is not None and re.search(pattern, command) is not None


def inner_hooks(item: object) -> list[object]:
    """The hooks of an event's item: a group's ``hooks`` list, or the item itself."""
    if isinstance(item, dict) and isinstance(item.get(HOOKS), list):
        return list(item[HOOKS])
    return [item]


def holds_rewind_hook(item: object, agent: str) -> bool:
    return any(is_rewind_hook(hook, agent) for hook in inner_hooks(item))


def without_rewind_hooks(item: object, agent: str) -> object | None:
    """``item`` minus rewind's hooks; None when nothing of it is left."""
    if isinstance(item, dict) and isinstance(item.get(HOOKS), list):
        kept = [hook for hook in item[HOOKS] if not is_rewind_hook(hook, agent)]
        if not kept:
            return None
        return {**item, HOOKS: kept} if len(kept) != len(item[HOOKS]) else item
    return None if is_rewind_hook(item, agent) else item


def commands_of(hooks: object, events: list[str], agent: str) -> list[str]:
    """The distinct commands of rewind's hooks of ``events`` in a ``hooks`` object."""
    commands: dict[str, None] = {}
    for event in events:
        items = hooks.get(event) if isinstance(hooks, dict) else None
        for item in items if isinstance(items, list) else []:
            for hook in inner_hooks(item):
                command = hook_command(hook)
                if command is not None and is_rewind_hook(hook, agent):
                    commands[command] = None
    return list(commands)
