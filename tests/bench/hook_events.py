"""hook_events: one Claude Code session replayed as Claude Code 2.1.332 sends it with the hooks
``rewind install claude-code`` writes: every event kind, each the way its hook is installed.

A git work tree with a committed 600-byte file; each round is one prompt: ``UserPromptSubmit``,
the ``PreToolUse``/``PostToolUse`` of an ``Edit`` of that file (made between them, in this
process), the ``PreToolUse``/``PostToolUse`` of a ``Bash`` ``rm -f``, ``Stop`` and
``SessionEnd`` (the builders of ``tests/support/agent_payloads.py``). The prompt and the
``PreToolUse`` events are command hooks, run as Claude Code runs them (``sh -c 'rewind hook
claude-code'``, the event on standard input: the console script, as a project's file runs
it; and, as a figure, the same event again through the command ``--local`` writes, the
interpreter without its site processing); the others are POSTed to the resident recorder on
127.0.0.1 with the headers Claude Code sends (the resident is started by the first prompt's
hook, in the warm-up rounds, as it is by a session's first prompt, and so is the project's
watcher: capture of what programs change is on, as installed; ``--capture-off`` turns it off).

With ``--plugin``, the hooks of rewind's Claude Code plugin instead (``hooks/claude-code``):
every event a command hook, no resident (its settings name no port), each process doing the
recording itself: what every event cost before the resident, and what the plugin costs.

The reference, in the same rounds, after each event: ``sh -c 'python -c pass'`` with the same
interpreter (a bare interpreter, as a command hook runs it). Medians of 15 rounds (quick: 5)
after 2 warm-up rounds.

Target (without ``--plugin``): every command hook's event (the processes that must exist),
median / median(python -c pass) <= 2.0. The posted events are figures (the time Claude Code
waits for the answer).
Afterwards (untimed), ``rewind log --json`` must show every round's turn ended, with the edited
file, and the stats must show the command hooks' events handed to the resident
(``via=forwarded``): a benchmark of hooks that did not record, or of processes that did the
recording themselves, measures nothing.
"""

from __future__ import annotations

import argparse
import json
import time
import urllib.request
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
from tests.support.agent_payloads import ClaudeCode
from tests.support.paths import ROOT

NAME = "hook_events"
WARMUP = 2
TARGET = 2.0
COMMAND_EVENTS = ("UserPromptSubmit", "PreToolUse")
REFERENCE = "python -c pass"
RUNNER = "[--local: python -S .../rewind/__main__.py]"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--event-rounds",
        type=int,
        default=None,
        metavar="N",
        help="timed rounds (default 15, quick 5; env REWIND_BENCH_EVENT_ROUNDS)",
    )
    parser.add_argument(
        "--plugin",
        action="store_true",
        help="every event a process, as rewind's Claude Code plugin runs it (no resident)",
    )


def round_events(agent: ClaudeCode, number: int) -> list[tuple[str, dict[str, Any]]]:
    """One prompt's events, named by kind, in Claude Code's order."""
    edit = agent.edit("a.txt", f"line {number}\n", f"line {number + 1}\n")
    shell = agent.shell("rm -f gone.txt")
    events: list[tuple[str, dict[str, Any] | None]] = [
        ("UserPromptSubmit", agent.prompt(f"round {number}")),
        ("PreToolUse (Edit)", edit[0]),
        ("PostToolUse (Edit)", edit[1]),
        ("PreToolUse (Bash)", shell[0]),
        ("PostToolUse (Bash)", shell[1]),
        ("Stop", agent.end()),
        ("SessionEnd", agent.session_end()),
    ]
    return [(kind, event) for kind, event in events if event is not None]


class Session:
    def __init__(self, box: Sandbox, plugin: bool, capture: bool) -> None:
        self.box = box
        self.plugin = plugin
        self.root = box.root / "project"
        git_init(box, self.root)
        (self.root / "a.txt").write_text("line 0\n" * 80)
        box.run(["git", "add", "-A"], cwd=self.root)
        box.run(["git", "-c", "gc.auto=0", "commit", "-q", "-m", "start"], cwd=self.root)
        self.env = box.environment(CLAUDE_PROJECT_DIR=str(self.root))
        if capture:
            self.env.pop("REWIND_CAPTURE_PROGRAMS", None)
        else:
            self.env["REWIND_CAPTURE_PROGRAMS"] = "0"
        box.run([rewind_script(), "install", "claude-code", "--local"], cwd=self.root, env=self.env)
        if plugin:  # the plugin's hooks: the same events, each a command, no port named
            settings = self.root / ".claude" / "settings.local.json"
            plugin_hooks = ROOT / "hooks" / "claude-code" / "hooks" / "hooks.json"
            hooks = json.loads(plugin_hooks.read_text())["hooks"]
            text = json.dumps({"hooks": hooks}).replace("rewind hook", f"{rewind_script()} hook")
            settings.write_text(text)
        self.port = int(self.env["REWIND_RESIDENT_PORT"])
        self.agent = ClaudeCode(self.root)
        self.times: dict[str, list[float]] = {}
        # The console script, as a project's file runs it (rewind from PATH), and the command
        # install wrote for this machine's scope (the interpreter without its site
        # processing, on the package's __main__.py), the plugin aside.
        self.command = f"{rewind_script()} hook claude-code"
        local = json.loads((self.root / ".claude" / "settings.local.json").read_text())
        self.runner = "" if plugin else local["hooks"]["PreToolUse"][0]["hooks"][0]["command"]

    def round(self, number: int) -> None:
        for kind, event in round_events(self.agent, number):
            if kind == "PostToolUse (Edit)":
                path = self.root / "a.txt"
                path.write_text(
                    path.read_text().replace(f"line {number}\n", f"line {number + 1}\n", 1)
                )
            body = json.dumps(event).encode()
            if self.runner and event["hook_event_name"] in COMMAND_EVENTS:
                # Both commands, the same event (the second is recorded once, as an event
                # delivered twice): which one goes first alternates.
                commands = [(kind, self.command), (f"{kind} {RUNNER}", self.runner)]
                for name, command in commands[:: 1 if number % 2 else -1]:
                    seconds = self.box.timed(["sh", "-c", command], self.root, self.env, body)
                    self.times.setdefault(name, []).append(seconds)
            elif self.plugin:
                seconds = self.box.timed(["sh", "-c", self.command], self.root, self.env, body)
                self.times.setdefault(kind, []).append(seconds)
            else:
                self.times.setdefault(kind, []).append(self.post(body))
            reference = self.box.timed(["sh", "-c", f"{PYTHON} -c pass"], self.root, self.env, body)
            self.times.setdefault(REFERENCE, []).append(reference)

    def post(self, body: bytes) -> float:
        headers = {
            "Content-Type": "application/json",
            "X-Rewind-Home": self.env["REWIND_HOME"],
            "X-Rewind-Xdg-Data-Home": self.env.get("XDG_DATA_HOME", ""),
            "X-Rewind-User-Home": self.env["HOME"],
        }
        url = f"http://127.0.0.1:{self.port}/rewind/hook/claude-code"
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        start = time.perf_counter()
        with urllib.request.urlopen(request, timeout=30) as answer:
            answer.read()
        return time.perf_counter() - start

    def check_recorded(self, rounds: int) -> None:
        done = self.box.run([rewind_script(), "log", "--json"], cwd=self.root, env=self.env)
        entries = json.loads(done.stdout)
        ended = [entry for entry in entries if entry["ended"] is not None]
        if len(entries) != rounds or len(ended) != rounds:
            raise BenchError(f"{rounds} turns expected, all ended; the log has {len(entries)}")
        for entry in entries:
            if "a.txt" not in {item["path"] for item in entry["files"]}:
                raise BenchError(f"turn {entry['id']} did not record a.txt")
        [stats] = Path(self.env["REWIND_HOME"]).glob("stores/*/rewind/stats/hook-calls.log")
        forwarded = [line for line in stats.read_text().splitlines() if "via=forwarded" in line]
        if not forwarded and not self.plugin:
            raise BenchError("no command hook handed its event to the resident")
        if forwarded and self.plugin:
            raise BenchError("the plugin's hooks handed events to a resident")


def run(options: argparse.Namespace) -> Report:
    rounds = choose(options.event_rounds, "REWIND_BENCH_EVENT_ROUNDS", 15, 5, options.quick)
    report = Report(NAME)
    with Sandbox("events", keep=options.keep) as box:
        session = Session(box, options.plugin, not options.capture_off)
        progress(f"{WARMUP} warm-up rounds + {rounds} timed rounds of 7 events")
        for number in range(WARMUP + rounds):
            if number == WARMUP:
                session.times = {}
            session.round(number)
        session.check_recorded(WARMUP + rounds)
        reference = median(session.times[REFERENCE])
        report.figure(f"sh -c '{REFERENCE}' (reference)", spread(session.times[REFERENCE]))
        for kind, times in session.times.items():
            if kind == REFERENCE:
                continue
            report.figure(f"{kind}", f"{spread(times)} ({ms(median(times))} median)")
            ratio = median(times) / reference
            if options.plugin or kind.endswith(RUNNER):
                report.figure(f"{kind}, a process / python -c pass", f"{ratio:.2f}x")
            elif kind.split(" ")[0] in COMMAND_EVENTS:
                report.check(f"{kind}, a process / python -c pass", ratio, "<=", TARGET)
            else:
                report.figure(f"{kind}, posted / python -c pass", f"{ratio:.2f}x")
    return report


def main(argv: Sequence[str] | None = None) -> int:
    return standalone(NAME, add_arguments, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
