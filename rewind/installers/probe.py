"""``rewind doctor``'s live check: synthetic events through an agent's hook command, in a
throwaway project with its own rewind home, then ``rewind log --json`` to see what was recorded.

The throwaway home is made inside the real ``$REWIND_HOME`` when one is given (same disk, same
permissions as the real stores) and removed afterwards; the hooks' fallback logs go to the
temporary directory too, so the probe leaves nothing in the user's logs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass, field

from rewind.installers import Target
from rewind.store.git_program import GitFailed, run_git

STEP_TIMEOUT = 15.0  # seconds; the agents give a hook 10 to 60
SLOW = 1.0  # seconds for one event: a hook runs on every tool call
PROBE_FILE = "probe.txt"


@dataclass
class ProbeResult:
    """What happened: ``failure`` is empty when every event exited 0 and something was recorded."""

    events: int = 0
    seconds: float = 0.0
    slowest: tuple[float, str] = (0.0, "")
    failure: str = ""
    warnings: list[str] = field(default_factory=list)
    recorded: str = ""


def run_probe(command: str, target: Target, home_parent: str | None = None) -> ProbeResult | None:
    """Runs ``target``'s probe through ``command``; None when the target has none. The probe's
    rewind home is made in ``home_parent`` when given (else in a temporary directory)."""
    result = ProbeResult()
    with ExitStack() as cleanup:
        temporary = cleanup.enter_context(tempfile.TemporaryDirectory(prefix="rewind-doctor-"))
        home = _throwaway_home(cleanup, temporary, home_parent)
        project = os.path.realpath(os.path.join(temporary, "project"))
        os.mkdir(project)
        _init_git(project)
        path = os.path.join(project, PROBE_FILE)
        _write(path, "before\n")
        probe = target.probe(project, path)
        if probe is None:
            return None
        environment = {
            **os.environ,
            "REWIND_HOME": home,
            "XDG_STATE_HOME": os.path.join(temporary, "state"),
            "TMPDIR": temporary,
            # A probe's hooks start no watcher, and no resident recorder: either would outlive
            # the throwaway project (and a resident would hold the port of the real one).
            "REWIND_CAPTURE_PROGRAMS": "0",
            "REWIND_RESIDENT": "off",
        }
        environment.pop("REWIND_SESSION", None)
        environment.update(probe.environment)
        for step in probe.steps:
            if step.write is not None:
                _write(path, step.write)
            event = step.event or _event_name(step.payload)
            step_environment = {**environment, **step.environment}
            payload = json.dumps(step.payload)
            if not _send(command, payload, project, step_environment, event, result):
                break
        if not result.failure:
            result.recorded = _recorded(project, environment, result)
        if result.failure or not result.recorded:
            logged = _last_logged(home, temporary)
            if logged:
                result.failure += f"; rewind's log says: {logged}"
    return result


def _event_name(payload: dict[str, object]) -> str:
    """The event a payload is, under the key its agent names it with."""
    for key in ("hook_event_name", "hookName", "agent_action_name"):
        value = payload.get(key)
        if isinstance(value, str) and value:
            return value
    return "?"


def _throwaway_home(cleanup: ExitStack, temporary: str, parent: str | None) -> str:
    """A new directory in ``parent`` (removed when ``cleanup`` closes), else in ``temporary``."""
    if parent is not None:
        try:
            made = tempfile.TemporaryDirectory(
                prefix=".doctor-", dir=parent, ignore_cleanup_errors=True
            )
        except OSError:
            pass
        else:
            return cleanup.enter_context(made)
    return os.path.join(temporary, "home")


def _send(
    command: str,
    payload: str,
    project: str,
    environment: dict[str, str],
    event: str,
    result: ProbeResult,
) -> bool:
    started = time.monotonic()
    try:
        done = subprocess.run(
            command,
            shell=True,
            input=payload,
            cwd=project,
            env=environment,
            capture_output=True,
            text=True,
            timeout=STEP_TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        result.failure = f"{event} did not finish within {STEP_TIMEOUT:.0f} s"
        return False
    seconds = time.monotonic() - started
    result.events += 1
    result.seconds += seconds
    result.slowest = max(result.slowest, (seconds, event))
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()
        result.failure = f"{event} exited {done.returncode}" + (f": {said[-1]}" if said else "")
        return False
    output = done.stdout.strip()
    if output and not output.startswith("{"):
        result.warnings.append(f"{event} printed {output[:60]!r}, which the agent would read")
    return True


def _recorded(project: str, environment: dict[str, str], result: ProbeResult) -> str:
    """The turn recorded, as "turn N with probe.txt (modified)", or "" (with the reason)."""
    done = subprocess.run(
        [sys.executable, "-m", "rewind", "-C", project, "log", "--json"],
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )
    entries = json.loads(done.stdout) if done.returncode == 0 and done.stdout.strip() else []
    turns = [entry for entry in entries if entry.get("kind") == "turn"]
    if not turns:
        result.failure = "every event exited 0, but no turn was recorded"
        return ""
    for turn in turns:
        for found in turn.get("files", []):
            if found.get("path") == PROBE_FILE:
                return f"turn {turn['turn']} with {PROBE_FILE} ({found.get('status')})"
    result.failure = f"recorded {len(turns)} turn(s) but not the edited {PROBE_FILE}"
    return ""


def _last_logged(*folders: str) -> str:
    """The last problem rewind logged under ``folders`` (a hooks.log or a store's log)."""
    lines: list[str] = []
    for top in folders:
        for folder, _, names in os.walk(top):
            for name in names:
                if name in ("hooks.log", "rewind.log"):
                    with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
                        lines.extend(line.rstrip() for line in f if line[:1].isdigit())
    if not lines:
        return ""
    last = max(lines)  # they start with the time
    message = last.split("] ", 1)[-1]
    return message if len(message) <= 200 else message[:197] + "..."


def _init_git(project: str) -> None:
    """A git work tree, so the throwaway project is its own root."""
    try:
        run_git(None, "init", "-q", project, what="making the probe's project", timeout=30)
    except GitFailed:
        os.makedirs(os.path.join(project, ".git"), exist_ok=True)


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
