"""real_clients: each agent's real client running its scripted session, with rewind's hooks
against the same session without them.

The clients of the test tier (``tests/clients/``): installed from npm at their pinned versions,
each driven by its scripted model server on 127.0.0.1 through the session of its tier test
("a working session": a new file and a second one in the same model message, a read then an
edit, then a shell command that removes, moves, edits in place, redirects and changes a mode),
one ``claude -p``/``codex exec``/``copilot -p``/``gemini -p`` process per prompt, each resuming
the session, or one ``cline --acp`` process for the whole session (its start counted with the
first prompt; each prompt's time runs until the hooks Cline did not wait for have ended).
With hooks, the project holds what ``rewind install AGENT`` writes and ``rewind`` is this
venv's; without, nothing of rewind's. A run is the sum of the client processes' wall-clock
times (the project and its server are set up untimed). Interleaved (with, without, then the
other way round), after one warm-up pair; median of 5 (quick: 3).

Target: Claude Code, median(with hooks) / median(without) <= 1.10. The other clients' ratios are
figures. Afterwards (untimed), a restore to before each turn of the last run with hooks must give
back the tree byte for byte, so the hooks measured are hooks that recorded.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.bench.harness import (
    PYTHON,
    BenchError,
    Report,
    Sandbox,
    choose,
    median,
    progress,
    spread,
    standalone,
)
from tests.clients.scenario import Script
from tests.clients.world import AnyClient, open_world
from tests.installed_wheel import Installed

NAME = "real_clients"
WARMUP = 1
TARGETS = {"claude-code": 1.10}


def _claude_code() -> tuple[AnyClient, Script]:
    from tests.clients.claude_code import ClaudeCode
    from tests.clients.claude_code_test import WORKING
    from tests.clients.clients import CLAUDE_CODE

    return ClaudeCode(CLAUDE_CODE.program()), WORKING


def _codex() -> tuple[AnyClient, Script]:
    from tests.clients.clients import CODEX
    from tests.clients.codex import Codex
    from tests.clients.codex_test import WORKING

    return Codex(CODEX.program()), WORKING


def _gemini() -> tuple[AnyClient, Script]:
    from tests.clients.clients import GEMINI
    from tests.clients.gemini import Gemini
    from tests.clients.gemini_test import WORKING

    return Gemini(GEMINI.program()), WORKING


def _copilot() -> tuple[AnyClient, Script]:
    from tests.clients.copilot import Copilot, unpacked_program
    from tests.clients.copilot_test import WORKING

    return Copilot(unpacked_program()), WORKING


def _cline() -> tuple[AnyClient, Script]:
    from tests.clients.clients import CLINE
    from tests.clients.cline import Cline
    from tests.clients.cline_test import WORKING

    return Cline(CLINE.program()), WORKING


SESSIONS: dict[str, Callable[[], tuple[AnyClient, Script]]] = {
    "claude-code": _claude_code,
    "codex": _codex,
    "gemini": _gemini,
    "copilot": _copilot,
    "cline": _cline,
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--client-runs",
        type=int,
        default=None,
        metavar="N",
        help="timed sessions per client and variant (default 5, quick 3; "
        "env REWIND_BENCH_CLIENT_RUNS)",
    )
    parser.add_argument(
        "--client",
        action="append",
        choices=sorted(SESSIONS),
        help="only this client (repeatable)",
    )


def _this_venv(box: Sandbox) -> Installed:
    """The venv running the benchmarks, as the tier's installed rewind (hooks run its
    ``rewind``)."""
    venv = Path(PYTHON).parent.parent
    env = dict(box.env, PATH=f"{venv / 'bin'}:{box.env.get('PATH', '')}")
    return Installed(wheel=Path(), venv=venv, home=box.root, env=env)


class Sessions:
    """One client's sessions: each run a new project, with or without hooks."""

    def __init__(self, box: Sandbox, agent: str, client: AnyClient, script: Script) -> None:
        self.box = box
        self.agent = agent
        self.client = client
        self.script = script
        self.rewind = _this_venv(box)
        self.made = 0
        self.times: dict[bool, list[float]] = {True: [], False: []}

    def run(self, hooks: bool) -> None:
        self.made += 1
        base = self.box.root / f"{self.agent}-{self.made}-{'with' if hooks else 'without'}"
        with ExitStack() as stack:
            world = open_world(stack, self.client, self.script, base, self.rewind, hooks)
            session = None
            for prompt in self.script.prompts:
                session = world.prompt(prompt.text, session)
            self.times[hooks].append(sum(world.seconds))
            if hooks:  # recorded: every turn rewinds (untimed)
                world.check_every_turn_rewinds(
                    session or "", [prompt.text for prompt in self.script.prompts]
                )


def run(options: argparse.Namespace) -> Report:
    runs = choose(options.client_runs, "REWIND_BENCH_CLIENT_RUNS", 5, 3, options.quick)
    report = Report(NAME)
    chosen = options.client or sorted(SESSIONS)
    with Sandbox("clients", keep=options.keep) as box:
        for agent in chosen:
            try:
                client, script = SESSIONS[agent]()
            except pytest.fail.Exception as error:  # npm could not install it
                raise BenchError(str(error)) from None
            sessions = Sessions(box, agent, client, script)
            progress(f"{agent}: {WARMUP} warm-up pair + {runs} interleaved pairs of sessions")
            for number in range(WARMUP + runs):
                order = (True, False) if number % 2 else (False, True)
                for hooks in order:
                    sessions.run(hooks)
                if number < WARMUP:
                    sessions.times = {True: [], False: []}
            with_hooks, without = sessions.times[True], sessions.times[False]
            prompts = len(script.prompts)
            report.figure(f"{agent}, {prompts} prompts without hooks", spread(without))
            report.figure(f"{agent}, {prompts} prompts with rewind's hooks", spread(with_hooks))
            ratio = median(with_hooks) / median(without)
            if agent in TARGETS:
                report.check(f"{agent} with / without hooks", ratio, "<=", TARGETS[agent])
            else:
                report.figure(f"{agent} with / without hooks", f"{ratio:.2f}x")
    return report


def main(argv: Sequence[str] | None = None) -> int:
    return standalone(NAME, add_arguments, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
