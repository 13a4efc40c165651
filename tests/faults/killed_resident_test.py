"""``kill -9`` of Claude Code's resident recorder (rewind.resident) at random moments of a
session, mid-request included: the events it was handling, and those posted while it was gone,
cost no record. A restore to before every turn gives back the tree byte for byte."""

from __future__ import annotations

import os
import random
import signal
import threading
import time
from pathlib import Path

from tests.conftest import hook, ok
from tests.resident.resident_test import log, post, resident_pid
from tests.support.agent_payloads import ClaudeCode


def tree(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and ".git" not in path.parts and ".claude" not in path.parts
    }


def kill_soon(pid: int, delay: float) -> threading.Thread:
    def kill() -> None:
        time.sleep(delay)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    thread = threading.Thread(target=kill)
    thread.start()
    return thread


def test_the_resident_killed_at_random_moments_loses_no_record(
    project: Path, claude: ClaudeCode
) -> None:
    chance = random.Random(int(os.environ.get("REWIND_FAULT_SEED", "37")))
    names = ["a.txt", "b.txt", "c.txt"]
    for name in names:
        (project / name).write_text(f"{name} 0\n")
    env = {"CLAUDE_PROJECT_DIR": str(project)}
    before: list[dict[str, bytes]] = []
    for turn in range(1, 7):
        before.append(tree(project))
        hook("claude-code", claude.prompt(f"turn {turn}"), env=env)
        killer = kill_soon(resident_pid(), chance.uniform(0.0, 0.06))
        for step, name in enumerate([*chance.sample(names, 2), "new.txt"]):
            content = f"{name} {turn}.{step}\n"
            pre, after = claude.write(name, content)
            hook("claude-code", pre, env=env)
            (project / name).write_text(content)
            post(after)  # refused, or lost with the resident: Claude Code goes on
        if turn % 2:
            pre, after = claude.shell("rm -f new.txt")
            hook("claude-code", pre, env=env)
            (project / "new.txt").unlink()
            post(after)
        post(claude.end())
        killer.join()
    hook("claude-code", claude.prompt("the last"), env=env)
    turns = [entry for entry in log(project) if entry["prompt"].startswith("turn ")]
    assert [entry["prompt"] for entry in turns] == [f"turn {n}" for n in range(1, 7)]
    assert all(entry["ended"] is not None for entry in turns)
    for entry, expected in reversed(list(zip(turns, before, strict=True))):
        ok("restore", str(entry["turn"]), "--yes", cwd=project)
        assert tree(project) == expected, entry["turn"]
