"""agent_hooks: one edit's hook call for every agent rewind supports, against a bare interpreter.

What ``hook_startup`` measures for Claude Code, for each agent's own payloads (the builders of
``tests/support/agent_payloads.py``, shaped as the real clients send them): in a git work tree of
its own holding a committed 10 KB file, each round sends an untimed prompt event (a new turn), then
times the event that records the file before the edit (the agent's pre-tool event; Cursor
without tool hooks has none, so its ``afterFileEdit`` is timed, which rebuilds the pre-image),
makes the edit, and sends the events that record the after-state (untimed). The edit alternates
between two texts, so every timed event stores content its turn has not seen.

The reference, interleaved with rotating order: ``python -c pass`` with the same interpreter.

Target, per agent: median(the timed event) / median(python -c pass) <= 3.0.

Afterwards (untimed): each agent's ``rewind log --json`` must show every turn holding exactly
the edited file with a pre-image, and no hook may have logged a problem.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tests.bench.harness import (
    PYTHON,
    BenchError,
    Report,
    Sandbox,
    choose,
    file_content,
    git_init,
    median,
    progress,
    rewind_script,
    spread,
    standalone,
)
from tests.bench.hook_startup import checked_turns, store_log
from tests.support.agent_payloads import (
    ClaudeCode,
    Cline,
    ClineExtension,
    Codex,
    Copilot,
    Cursor,
    CursorToolHooks,
    Droid,
    Gemini,
    OpenCode,
    Pi,
    Qwen,
    Windsurf,
)

NAME = "agent_hooks"
FILE_SIZE = 10 * 1024
EDITED = "src/module.py"
WARMUP = 2
TARGET = 3.0
TEXTS = ("value_1 =", "value_one =")
# (label, builder): every adapter, and Cursor both with and without its tool hooks.
BUILDERS: tuple[tuple[str, Callable[[Path], Any]], ...] = (
    ("claude-code", ClaudeCode),
    ("codex", Codex),
    ("gemini", Gemini),
    ("cursor (afterFileEdit)", Cursor),
    ("cursor (tool hooks)", CursorToolHooks),
    ("copilot", Copilot),
    ("cline (CLI)", Cline),
    ("cline (VS Code)", ClineExtension),
    ("windsurf", Windsurf),
    ("pi", Pi),
    ("qwen", Qwen),
    ("opencode", OpenCode),
    # No prompt event: its pre-tool event begins the turn (named from the transcript).
    ("droid", Droid),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--agent-runs",
        type=int,
        default=None,
        metavar="N",
        help="timed hook calls per agent (default 15, quick 5; env REWIND_BENCH_AGENT_RUNS)",
    )


def _events(sent: object) -> list[dict[str, Any]]:
    """The payloads a builder gave (one, a list of them, or None)."""
    if sent is None:
        return []
    return list(sent) if isinstance(sent, list) else [sent]  # type: ignore[list-item]


class AgentRounds:
    """One agent's workspace, builder and hook command, and the rounds sent through them."""

    def __init__(self, box: Sandbox, label: str, builder: Callable[[Path], Any]) -> None:
        self.box = box
        self.label = label
        self.workspace = box.root / label.replace(" ", "-").replace("(", "").replace(")", "")
        git_init(box, self.workspace)
        path = self.workspace / EDITED
        path.parent.mkdir()
        path.write_bytes(file_content(0, FILE_SIZE).replace(b"\n", b"\nvalue_1 = 1\n", 1))
        box.run(["git", "add", "-A"], cwd=self.workspace)
        box.run(["git", "-c", "gc.auto=0", "commit", "-q", "-m", "start"], cwd=self.workspace)
        self.agent = builder(self.workspace)
        self.hook = [rewind_script(), "hook", self.agent.name]
        self.rounds = 0
        self.timed_event = ""

    def send(self, event: dict[str, Any]) -> None:
        self.box.run(self.hook, self.workspace, stdin=json.dumps(event).encode())

    def round(self) -> float:
        """A prompt (untimed), the edit's first event (timed), the edit, the rest (untimed)."""
        self.rounds += 1
        self.send(self.agent.prompt(f"edit {self.rounds}"))
        old, new = TEXTS if self.rounds % 2 else TEXTS[::-1]
        before, after = self.agent.edit(EDITED, old, new)
        path = self.workspace / EDITED
        afterwards = _events(after)
        if before is not None:
            seconds = self._timed(before)
            path.write_bytes(path.read_bytes().replace(old.encode(), new.encode(), 1))
        else:  # only told after the edit: the first event after it is the one that records
            path.write_bytes(path.read_bytes().replace(old.encode(), new.encode(), 1))
            seconds = self._timed(afterwards.pop(0))
        for event in afterwards:
            self.send(event)
        self.send(self.agent.end())
        return seconds

    def _timed(self, event: dict[str, Any]) -> float:
        self.timed_event = str(
            event.get("hook_event_name")
            or event.get("hookName")
            or event.get("agent_action_name")
            or event.get("event")
            or event.get("toolName", "")
        )
        return self.box.timed(self.hook, self.workspace, stdin=json.dumps(event).encode())

    def verify(self, runs: int) -> int:
        return checked_turns(self.box, self.workspace, runs, EDITED)


def run(options: argparse.Namespace) -> Report:
    runs = choose(options.agent_runs, "REWIND_BENCH_AGENT_RUNS", 15, 5, options.quick)
    report = Report(NAME)
    with Sandbox("agents", keep=options.keep) as box:
        agents = [AgentRounds(box, label, builder) for label, builder in BUILDERS]
        times: dict[str, list[float]] = {"pass": [], **{a.label: [] for a in agents}}

        def reference() -> None:
            times["pass"].append(box.timed([PYTHON, "-c", "pass"], cwd=box.root))

        def agent_variant(rounds: AgentRounds) -> Callable[[], None]:
            return lambda: times[rounds.label].append(rounds.round())

        variants = [reference, *(agent_variant(a) for a in agents)]
        progress(f"{WARMUP} warm-up + {runs} interleaved rounds of {len(agents)} agents' hooks")
        for number in range(WARMUP + runs):
            shift = number % len(variants)
            for variant in variants[shift:] + variants[:shift]:
                variant()
            if number < WARMUP:
                for values in times.values():
                    values.clear()
        bare = median(times["pass"])
        report.figure("python -c pass (reference)", spread(times["pass"]))
        for rounds in agents:
            report.figure(
                f"rewind hook {rounds.agent.name}, {rounds.timed_event} ({rounds.label})",
                spread(times[rounds.label]),
            )
        for rounds in agents:
            report.check(
                f"{rounds.label} / python -c pass", median(times[rounds.label]) / bare, "<=", TARGET
            )
        checked = [rounds.verify(runs) for rounds in agents]
        problems = store_log(box)
        if problems:
            raise BenchError(f"the hooks logged {len(problems)} problem(s), e.g. {problems[0]}")
        report.figure(
            "checked with rewind log --json",
            f"{sum(checked)} turns, each recorded {EDITED} alone with its pre-image",
        )
    return report


def main(argv: Sequence[str] | None = None) -> int:
    return standalone(NAME, add_arguments, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
