"""Whether Codex will run rewind's hooks: Codex (read from 0.171.0) runs a hook of a user or
project ``hooks.json`` only once someone has trusted it, and reads a project's ``.codex/`` only
in a trusted project. Both are recorded in the user's ``config.toml`` (``$CODEX_HOME``, else
``~/.codex``)::

    [projects."/abs/project"]
    trust_level = "trusted"                 # or "untrusted"

    [hooks.state."/abs/project/.codex/hooks.json:pre_tool_use:2:0"]
    trusted_hash = "sha256:..."             # the hook as it was when trusted
    enabled = false                         # turned off in /hooks (optional)

A hook's key is positional (its file, event, group and handler index), and its hash covers what
it runs: the event, the group's matcher (for the events that use one), the command, its timeout
(Codex's defaults filled in), ``async`` and ``statusMessage``, hashed as SHA-256 of the
canonical JSON (keys sorted, no spaces), as Codex's ``hooks/src/engine/discovery.rs`` and
``config/src/fingerprint.rs`` compute it. So a hook is *trusted* (the hash matches), *not yet
reviewed* (no hash), *changed since review* (another hash: reinstalled with another command or
timeout, or moved to another position) or *turned off*.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass

from rewind.installers.rewind_hooks import is_rewind_hook
from rewind.installers.settings_file import SettingsFile
from rewind.store.input_limits import load_toml

# The events whose groups' matchers Codex keeps (events/common.rs: matcher_pattern_for_event).
MATCHED_EVENTS = frozenset({"PreToolUse", "PermissionRequest", "PostToolUse", "SessionStart"})
DEFAULT_TIMEOUT = 600
# SessionEnd and Interrupt hooks: one second unless set, never more than three.
SHORT_EVENTS = frozenset({"SessionEnd", "Interrupt"})
SHORT_DEFAULT_TIMEOUT, SHORT_MAX_TIMEOUT = 1, 3

TRUSTED, NOT_REVIEWED, CHANGED, TURNED_OFF = (
    "trusted",
    "not yet reviewed",
    "changed since review",
    "turned off",
)


def codex_home(home: str) -> str:
    return os.environ.get("CODEX_HOME") or os.path.join(home, ".codex")


def read_config(home: str) -> dict[str, object]:
    """The user's Codex ``config.toml`` ({} when missing or unreadable)."""
    try:
        return load_toml(os.path.join(codex_home(home), "config.toml"))
    except (OSError, ValueError):  # not UTF-8 or TOML, or past the limits
        return {}


def snake_case(event: str) -> str:
    """``PreToolUse`` as Codex names it in keys and hashes: ``pre_tool_use``."""
    return "".join("_" + c.lower() if c.isupper() and i else c.lower() for i, c in enumerate(event))


def trusted_hash(event: str, matcher: object, handler: Mapping[str, object]) -> str:
    """The hash Codex records when someone trusts ``handler`` (a command hook of a group with
    ``matcher``, under ``event``)."""
    timeout = handler.get("timeout")
    if event in SHORT_EVENTS:
        given = timeout if isinstance(timeout, int) else SHORT_DEFAULT_TIMEOUT
        timeout = min(max(given, 1), SHORT_MAX_TIMEOUT)
    else:
        timeout = max(timeout if isinstance(timeout, int) else DEFAULT_TIMEOUT, 1)
    normalized: dict[str, object] = {
        "type": "command",
        "command": handler.get("command"),
        "timeout": timeout,
        "async": handler.get("async") is True,
    }
    if isinstance(handler.get("statusMessage"), str):
        normalized["statusMessage"] = handler["statusMessage"]
    identity: dict[str, object] = {"event_name": snake_case(event), "hooks": [normalized]}
    if event in MATCHED_EVENTS and isinstance(matcher, str):
        identity["matcher"] = matcher
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class HookTrust:
    event: str
    key: str
    status: str


def hook_trust(hooks_file: str, config: dict[str, object]) -> list[HookTrust]:
    """The trust of each rewind hook in the ``hooks.json`` at ``hooks_file``."""
    try:
        settings = SettingsFile.read(hooks_file)
    except Exception:
        return []
    hooks = settings.data.get("hooks")
    states = _states(config)
    found = []
    path = os.path.abspath(hooks_file)
    for event, groups in hooks.items() if isinstance(hooks, dict) else ():
        for group_index, group in enumerate(groups if isinstance(groups, list) else ()):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for handler_index, handler in enumerate(handlers if isinstance(handlers, list) else ()):
                if not is_rewind_hook(handler, "codex"):
                    continue
                key = f"{path}:{snake_case(event)}:{group_index}:{handler_index}"
                state = states.get(key, {})
                recorded = state.get("trusted_hash")
                if state.get("enabled") is False:
                    status = TURNED_OFF
                elif not isinstance(recorded, str):
                    status = NOT_REVIEWED
                elif recorded == trusted_hash(event, group.get("matcher"), handler):
                    status = TRUSTED
                else:
                    status = CHANGED
                found.append(HookTrust(event, key, status))
    return found


def _states(config: dict[str, object]) -> dict[str, dict[str, object]]:
    hooks = config.get("hooks")
    states = hooks.get("state") if isinstance(hooks, dict) else None
    if not isinstance(states, dict):
        return {}
    return {key: value for key, value in states.items() if isinstance(value, dict)}


def project_trust(project: str, config: dict[str, object]) -> tuple[str, str] | None:
    """The ``trust_level`` recorded for the project (or the nearest directory above it that
    has one) and that directory; None when none is recorded."""
    projects = config.get("projects")
    if not isinstance(projects, dict):
        return None
    directory = os.path.abspath(project)
    candidates = [directory, os.path.realpath(directory)]
    for start in dict.fromkeys(candidates):
        current = start
        while True:
            entry = projects.get(current)
            if isinstance(entry, dict) and isinstance(entry.get("trust_level"), str):
                return str(entry["trust_level"]), current
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
    return None
