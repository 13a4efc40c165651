"""hook_per_session: what a Pi session's events cost rewind as a process per event (what rewind's
Pi extension does) against one process per session (what an extension could keep instead).

A session of one prompt, as Pi 0.73.1 sends it through rewind's extension (the builder of
``tests/support/agent_payloads.py``): the session's start, the prompt, a ``write`` (before and
after), a ``bash`` ``rm`` (before and after), the run's end and the session's end: eight events,
in a git work tree of its own. Each variant replays the session in a fresh project:

- **a process per event**: ``rewind hook pi`` once per event, the event on standard input;
- **one process per session**: one Python process started for the session, which imports
  rewind's hook path once and hands it each event as a line, answering each with a line (the
  lower bound of a resident recorder: no socket, no server of its own);
- the reference: ``python -c pass`` once per event (the floor of a process per event).

Interleaved with rotating order after warm-up rounds; median of 9 (quick: 3). Afterwards
(untimed), each project's ``rewind log --json`` must show the turn with both files.

No target: the figures say what one process per session would save per event.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tests.bench.harness import (
    PYTHON,
    BenchError,
    Report,
    Sandbox,
    choose,
    git_init,
    median,
    ms,
    progress,
    rewind_script,
    spread,
    standalone,
)
from tests.support.agent_payloads import Pi

NAME = "hook_per_session"
WARMUP = 2
# One process for the session: each line an event, each answered once handled.
RESIDENT = """
import sys, time
from rewind.hooks import handle_event
for line in sys.stdin:
    handle_event("pi", line, time.perf_counter())
    sys.stdout.write("done\\n")
    sys.stdout.flush()
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--session-runs",
        type=int,
        default=None,
        metavar="N",
        help="timed sessions per variant (default 9, quick 3; env REWIND_BENCH_SESSION_RUNS)",
    )


def session_events(root: Path) -> list[dict[str, Any]]:
    """The events of one prompt's session, in the order Pi sends them."""
    agent = Pi(root)
    write = agent.write("made.txt", "made\n")
    remove = agent.shell("rm old.txt")
    return [
        agent.session_start(),
        agent.prompt("make one, remove one"),
        *(event for event in (*write, *remove) if event is not None),
        agent.end(),
        {**agent.end(), "event": "session_shutdown"},
    ]


class Project:
    """A fresh project per session: ``old.txt`` committed, for the ``rm`` to remove."""

    def __init__(self, box: Sandbox, name: str) -> None:
        self.root = box.root / name
        git_init(box, self.root)
        (self.root / "old.txt").write_text("old\n")
        box.run(["git", "add", "-A"], cwd=self.root)
        box.run(["git", "-c", "gc.auto=0", "commit", "-q", "-m", "start"], cwd=self.root)

    def act(self, event: dict[str, Any]) -> None:
        """What the tool does between its before and after events."""
        if event.get("event") != "tool_call":
            return
        if event["tool_name"] == "write":
            (self.root / "made.txt").write_text("made\n")
        elif event["tool_name"] == "bash":
            (self.root / "old.txt").unlink()


class Variants:
    def __init__(self, box: Sandbox) -> None:
        self.box = box
        self.made = 0
        self.projects: list[Path] = []

    def project(self) -> Project:
        self.made += 1
        project = Project(self.box, f"session-{self.made}")
        self.projects.append(project.root)
        return project

    def per_event(self) -> float:
        project = self.project()
        hook = [rewind_script(), "hook", "pi"]
        total = 0.0
        for event in session_events(project.root):
            total += self.box.timed(hook, project.root, stdin=json.dumps(event).encode())
            project.act(event)
        return total

    def per_session(self) -> float:
        project = self.project()
        events = session_events(project.root)
        start = time.perf_counter()
        resident = subprocess.Popen(
            [PYTHON, "-c", RESIDENT],
            cwd=project.root,
            env=self.box.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert resident.stdin is not None and resident.stdout is not None
        untimed = 0.0
        for event in events:
            resident.stdin.write(json.dumps(event) + "\n")
            resident.stdin.flush()
            if resident.stdout.readline() != "done\n":
                raise BenchError("the session's process ended before its events")
            acting = time.perf_counter()
            project.act(event)
            untimed += time.perf_counter() - acting
        resident.stdin.close()
        resident.wait(timeout=60)
        return time.perf_counter() - start - untimed

    def floor(self) -> float:
        return sum(
            self.box.timed([PYTHON, "-c", "pass"], self.box.root) for _ in session_events(Path())
        )

    def verify(self) -> None:
        for root in self.projects:
            log = json.loads(self.box.run([rewind_script(), "log", "--json"], root).stdout)
            files = sorted(f["path"] for entry in log for f in entry["files"])
            if files != ["made.txt", "old.txt"]:
                raise BenchError(f"{root.name} recorded {files}, not made.txt and old.txt")


def run(options: argparse.Namespace) -> Report:
    runs = choose(options.session_runs, "REWIND_BENCH_SESSION_RUNS", 9, 3, options.quick)
    report = Report(NAME)
    with Sandbox("per-session", keep=options.keep) as box:
        variants = Variants(box)
        kinds = {
            "a process per event": variants.per_event,
            "one process per session": variants.per_session,
            "python -c pass per event": variants.floor,
        }
        times: dict[str, list[float]] = {kind: [] for kind in kinds}
        order = list(kinds)
        progress(f"{WARMUP} warm-up + {runs} interleaved rounds of {len(order)} variants")
        for number in range(WARMUP + runs):
            shift = number % len(order)
            for kind in order[shift:] + order[:shift]:
                seconds = kinds[kind]()
                if number >= WARMUP:
                    times[kind].append(seconds)
        events = len(session_events(Path()))
        for kind in order:
            report.figure(f"{events} events, {kind}", spread(times[kind]))
        per_event, per_session = (median(times[kind]) for kind in order[:2])
        report.figure(
            "one process per session / a process per event", f"{per_session / per_event:.2f}x"
        )
        report.figure("saved per event", ms((per_event - per_session) / events))
        variants.verify()
    return report


def main(argv: Sequence[str] | None = None) -> int:
    return standalone(NAME, add_arguments, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
