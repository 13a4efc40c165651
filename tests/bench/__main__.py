"""``python -m tests.bench``: every benchmark, then one table of targets (exit 1 if one fails)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from tests.bench import (
    agent_hooks,
    blame_long,
    conversation_redaction,
    drill_cost,
    gc_growth,
    history_length,
    hook_events,
    hook_per_session,
    hook_startup,
    hunk_diff,
    mcp_server,
    post_commit,
    quicksave_git,
    real_clients,
    remote_push,
    restore_1000,
    shell_capture,
    store_size,
    track_startup,
    tui_startup,
    turn_growth,
    turn_scaling,
    watch_idle,
    watch_latency,
)
from tests.bench.harness import BenchError, Report, add_common_arguments, machine_line, print_table

BENCHMARKS = {
    track_startup.NAME: track_startup,
    turn_scaling.NAME: turn_scaling,
    turn_growth.NAME: turn_growth,
    restore_1000.NAME: restore_1000,
    hook_startup.NAME: hook_startup,
    quicksave_git.NAME: quicksave_git,
    tui_startup.NAME: tui_startup,
    watch_latency.NAME: watch_latency,
    watch_idle.NAME: watch_idle,
    history_length.NAME: history_length,
    drill_cost.NAME: drill_cost,
    store_size.NAME: store_size,
    gc_growth.NAME: gc_growth,
    mcp_server.NAME: mcp_server,
    agent_hooks.NAME: agent_hooks,
    blame_long.NAME: blame_long,
    hunk_diff.NAME: hunk_diff,
    remote_push.NAME: remote_push,
    real_clients.NAME: real_clients,
    conversation_redaction.NAME: conversation_redaction,
    shell_capture.NAME: shell_capture,
    hook_events.NAME: hook_events,
    hook_per_session.NAME: hook_per_session,
    post_commit.NAME: post_commit,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench", description=__doc__)
    add_common_arguments(parser)
    parser.add_argument(
        "--only",
        action="append",
        choices=sorted(BENCHMARKS),
        help="run only this benchmark (repeatable)",
    )
    for module in BENCHMARKS.values():
        module.add_arguments(parser)
    options = parser.parse_args(argv)
    print(f"machine: {machine_line()}")
    reports: list[Report] = []
    started = time.perf_counter()
    for name, module in BENCHMARKS.items():
        if options.only and name not in options.only:
            continue
        print(f"\n== {name}", flush=True)
        try:
            reports.append(module.run(options))
        except BenchError as error:
            print(f"rewind-bench: {name} could not run: {error}", file=sys.stderr)
            return 2
    print(f"\n(all benchmarks took {time.perf_counter() - started:.0f} s)")
    return 0 if print_table(reports) else 1


if __name__ == "__main__":
    raise SystemExit(main())
