"""mcp_server: ``rewind mcp``'s start-up, and a ``rewind_log`` call, against ``rewind log``.

The workspace (untimed set-up) is a git work tree with a session of 200 turns recorded through
the engine in one process (``rewind.history.recording.turns``), each turn changing 3 of 20
files.

Interleaved rounds, rotating order:

* reference: ``rewind log --json -n 20`` as a process (the console script), wall-clock;
* start-up: ``rewind mcp`` started, ``initialize`` answered, ``tools/list`` answered; timed from
  the start of the process to the answer to ``tools/list`` (the server is then closed, untimed);
* a log call: on a server started once (untimed), ``tools/call rewind_log {count: 20}``, timed
  from the request written to its answer read.

Targets: median(log call) / median(rewind log) <= 1.5 (the tool reads through the action layer
in the server's process, opening the store anew, and adds the protocol's round trip: no
interpreter's start, so it is expected well below 1); median(start-up) / median(rewind log)
<= 25 (information on what the SDK's imports cost: the server starts once per agent session).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from tests.bench.harness import (
    PYTHON,
    BenchError,
    Report,
    Sandbox,
    choose,
    git_init,
    median,
    progress,
    rewind_script,
    spread,
    standalone,
)
from tests.support.mcp_client import McpClient

NAME = "mcp_server"
SESSION = "bench"
TURNS = 200
FILES = 20
WARMUP = 1
LOG_TARGET = 1.5
START_TARGET = 25.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mcp-runs", type=int, metavar="N", help=f"rounds of {NAME} (default 10)")


def record(box: Sandbox, workspace: Path) -> None:
    """The session, recorded through the engine in one process (untimed)."""
    code = f"""
import os
from rewind.history.restoring.opening import open_store
from rewind.history.recording.turns import begin, track, record_after
store = open_store(os.fsencode(os.getcwd()), create=True)
for turn in range({TURNS}):
    begin(store, {SESSION!r}, prompt=f"turn {{turn}}: change three files", agent="bench")
    names = [f"src/f{{(turn + k) % {FILES}}}.py" for k in range(3)]
    track(store, {SESSION!r}, [name.encode() for name in names])
    for name in names:
        with open(name, "a") as handle:
            handle.write(f"# turn {{turn}}\\n")
    record_after(store, {SESSION!r}, close=True)
"""
    (workspace / "src").mkdir()
    for index in range(FILES):
        (workspace / "src" / f"f{index}.py").write_text(f"value = {index}\n")
    box.run([PYTHON, "-c", code], cwd=workspace)


def run(options: argparse.Namespace) -> Report:
    runs = choose(options.mcp_runs, "REWIND_BENCH_MCP_RUNS", 10, 4, options.quick)
    report = Report(NAME)
    with Sandbox("mcp", keep=options.keep) as box:
        workspace = box.root / "project"
        git_init(box, workspace)
        env = box.env
        record(box, workspace)
        log = [rewind_script(), "log", "--json", "-n", "20", "--session", SESSION]
        times: dict[str, list[float]] = {"log": [], "start": [], "call": []}
        held = McpClient(workspace, env, rewind_script())

        def reference() -> None:
            times["log"].append(box.timed(log, workspace, env))

        def start_up() -> None:
            started = time.perf_counter()
            server = McpClient(workspace, env, rewind_script())  # initialize answered
            server.tools()
            times["start"].append(time.perf_counter() - started)
            server.close()

        def log_call() -> None:
            started = time.perf_counter()
            result = held.call("rewind_log", count=20, session=SESSION)
            times["call"].append(time.perf_counter() - started)
            if result.get("isError"):
                raise BenchError(f"rewind_log failed: {result}")

        variants: list[Callable[[], None]] = [reference, start_up, log_call]
        progress(f"{WARMUP} warm-up + {runs} interleaved rounds of rewind log / mcp start / call")
        for round_number in range(WARMUP + runs):
            shift = round_number % len(variants)
            for variant in variants[shift:] + variants[:shift]:
                variant()
            if round_number < WARMUP:
                for values in times.values():
                    values.clear()
        held.close()
        med = {label: median(values) for label, values in times.items()}
        report.figure("rewind log --json -n 20 (reference)", spread(times["log"]))
        report.figure("rewind mcp: start, initialize, tools/list", spread(times["start"]))
        report.figure("rewind_log call on a running server", spread(times["call"]))
        report.check("rewind_log call / rewind log", med["call"] / med["log"], "<=", LOG_TARGET)
        report.check(
            "rewind mcp start-up / rewind log", med["start"] / med["log"], "<=", START_TARGET
        )
    return report


def main(argv: Sequence[str] | None = None) -> int:
    return standalone(NAME, add_arguments, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
