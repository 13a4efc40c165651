"""real_clients: each agent's real client running its scripted session, with rewind's hooks
against the same session without them, and with the same hooks each doing nothing.

The clients of the test tier (``tests/clients/``): installed from npm at their pinned versions,
each driven by its scripted model server on 127.0.0.1 through the session of its tier test
("a working session": a new file and a second one in the same model message, a read then an
edit, then a shell command that removes, moves, edits in place, redirects and changes a mode),
one ``claude -p``/``codex exec``/``copilot -p``/``gemini -p``/``opencode run`` process per
prompt, each resuming the session, or one ``cline --acp`` process for the whole session (its
start counted with the first prompt; each prompt's time runs until the hooks Cline did not
wait for have ended; OpenCode's, until its run's end is recorded).
Three variants: with rewind's hooks (what ``rewind install AGENT`` writes; ``rewind`` is this
venv's), without hooks, and with empty hooks of the same kind (the same file with each command
replaced by this interpreter's ``python -c pass``, the floor of one process per event, which no
hook written in Python goes below; and each HTTP hook posting to a server in this process that
answers ``{}`` at once instead of to rewind's resident recorder). A run is the sum of the client
processes' wall-clock times (the project and its server are set up untimed). Interleaved with
rotating order, after one warm-up round; median of 5 (quick: 3). Each run is a new project; the
runs with rewind's hooks share one rewind home, as one person's sessions do, so its resident
recorder, started in the warm-up round, is already there (each project's watcher is started by
its first prompt); with ``--cold``, each run has a rewind home of its own and starts its
resident too; with ``--watching``, each project's watcher is started (untimed) before its
session, as in a project a person works in all day.

Also counted: the hook processes rewind's hooks ran per prompt, by event, and the events posted
to the resident instead (the lines of each store's ``stats/hook-calls.log``, one per call, those
of the resident marked ``via=http``), median over the runs.

Targets: Claude Code, median(with rewind's hooks) / median(without) <= 1.10; every client,
median(with rewind's hooks) / median(with empty hooks) <= 1.03 (what rewind's own work costs
beyond the hooks' kind). Afterwards
(untimed), a restore to before each turn of each run with rewind's hooks must give back the
tree byte for byte, so the hooks measured are hooks that recorded.
"""

from __future__ import annotations

import argparse
import functools
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
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
from tests.support.installed_wheel import Installed
from tests.support.watchers import free_port

NAME = "real_clients"
WARMUP = 1
TARGETS = {"claude-code": 1.10}  # with rewind's hooks / without
OWN_WORK = 1.03  # every client: with rewind's hooks / with empty hooks of the same kind


def _session(name: str) -> tuple[AnyClient, Script]:
    """The client ``name`` as a person runs it, and its working session."""
    from tests.clients.drivers import DRIVERS
    from tests.clients.shared_scenarios import working

    driver = DRIVERS[name]
    return driver.client(driver.program()), working(driver.tools, driver.shells_at_once)


SESSIONS: dict[str, Callable[[], tuple[AnyClient, Script]]] = {
    name: functools.partial(_session, name)
    for name in (
        "claude-code",
        "codex",
        "gemini",
        "copilot",
        "cline",
        "opencode",
        "pi",
        "qwen",
        "droid",
    )
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
    parser.add_argument(
        "--cold",
        action="store_true",
        help="a rewind home of its own per session (its resident started by its first prompt)",
    )
    parser.add_argument(
        "--watching",
        action="store_true",
        help="each project's watcher already runs when its session begins (started untimed, "
        "as in a project a person works in all day) instead of being started by its first prompt",
    )


def _this_venv(box: Sandbox) -> Installed:
    """The venv running the benchmarks, as the tier's installed rewind (hooks run its
    ``rewind``)."""
    venv = Path(PYTHON).parent.parent
    env = dict(box.env, PATH=f"{venv / 'bin'}:{box.env.get('PATH', '')}")
    return Installed(wheel=Path(), venv=venv, home=box.root, env=env)


WITHOUT, FLOOR, REWIND = "without hooks", "with empty hooks", "with rewind's hooks"
VARIANTS = (WITHOUT, FLOOR, REWIND)
EMPTY_HOOK = f"{PYTHON} -c pass"


def _empty_hooks(root: Path, agent: str, empty_url: str) -> None:
    """Makes every hook ``rewind install`` wrote in the project run ``python -c pass`` instead,
    and every HTTP hook post to ``empty_url``: the same events, each a bare interpreter's start
    or an answer at once, and nothing else."""
    from rewind.resident.address import url_pattern

    for path in root.rglob("*"):
        if ".git" in path.parts or not path.is_file():
            continue
        text = path.read_text(errors="surrogateescape")
        if f"rewind hook {agent}" in text:
            text = text.replace(f"rewind hook {agent}", EMPTY_HOOK)
            text = url_pattern(agent).sub(lambda _: empty_url, text)
            path.write_text(text, errors="surrogateescape")


class _EmptyAnswer(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def empty_hook_server() -> Iterator[str]:
    """An HTTP server on 127.0.0.1 answering every POST with ``{}`` at once: its URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _EmptyAnswer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/empty"
    finally:
        server.shutdown()
        server.server_close()


class Sessions:
    """One client's sessions: each run a new project, without hooks, with rewind's hooks, or
    with the same hooks each running ``python -c pass`` (the floor of a hook process)."""

    def __init__(
        self,
        box: Sandbox,
        agent: str,
        client: AnyClient,
        script: Script,
        empty_url: str,
        cold: bool,
        capture_off: bool = False,
        watching: bool = False,
    ) -> None:
        self.capture_off = capture_off
        self.watching = watching
        self.box = box
        self.empty_url = empty_url
        shared = box.root / f"{agent}-rewind-home"
        self.rewind_home = None if cold else (shared, free_port())
        self.agent = agent
        self.client = client
        self.script = script
        self.rewind = _this_venv(box)
        self.made = 0
        self.times: dict[str, list[float]] = {variant: [] for variant in VARIANTS}
        # Per run with rewind's hooks: how many hook calls of each event.
        self.calls: list[dict[str, int]] = []

    def run(self, variant: str) -> None:
        self.made += 1
        base = self.box.root / f"{self.agent}-{self.made}-{variant.replace(' ', '-')}"
        hooks = variant != WITHOUT
        with ExitStack() as stack:
            shared = self.rewind_home if variant == REWIND else None
            world = open_world(stack, self.client, self.script, base, self.rewind, hooks, shared)
            if variant == FLOOR:
                _empty_hooks(world.root, self.agent, self.empty_url)
            if self.capture_off:
                (world.root / "rewind.toml").write_text("capture_programs = false\n")
            elif self.watching and variant == REWIND:
                _start_watcher(world.root, world.env)
            session = None
            for prompt in self.script.prompts:
                session = world.prompt(prompt.text, session)
            self.times[variant].append(sum(world.seconds))
            if variant == REWIND:  # recorded: every turn rewinds (untimed)
                self.calls.append(hook_calls(world.root, Path(world.rewind.env["REWIND_HOME"])))
                world.check_every_turn_rewinds(
                    session or "", [prompt.text for prompt in self.script.prompts]
                )


def _start_watcher(root: Path, env: dict[str, str]) -> None:
    """The project's watcher as a prompt's hook starts it (rewind.watch.capture), started now
    and waited for until it says it is ready."""
    import json
    import subprocess
    import time

    from rewind.watch.capture import IDLE_EXIT

    command = [PYTHON, "-m", "rewind", "-C", str(root), "watch", "--background"]
    subprocess.Popen(
        [*command, "--idle-exit", str(IDLE_EXIT)],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    info = _store_of(root, Path(env["REWIND_HOME"])) / "rewind" / "watch.json"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if json.loads(info.read_text()).get("ready"):
                return
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    raise BenchError(f"the watcher of {root} did not start")


def _store_of(project: Path, rewind_home: Path) -> Path:
    """Where ``project``'s store is under ``rewind_home``."""
    from rewind.store.home import store_dir_for

    saved = os.environ.get("REWIND_HOME")
    os.environ["REWIND_HOME"] = str(rewind_home)
    try:
        return Path(store_dir_for(os.fsencode(project)))
    finally:
        if saved is None:
            del os.environ["REWIND_HOME"]
        else:
            os.environ["REWIND_HOME"] = saved


POSTED = " (posted)"


def hook_calls(project: Path, rewind_home: Path) -> dict[str, int]:
    """The hook calls rewind logged in ``project``'s store, by event (a line is ``TIME ms=...
    agent=... event=...``, with ``via=http`` when the resident took a posted event: those are
    counted under ``EVENT (posted)``; ``via=forwarded`` is a process that handed its event on)."""
    store = _store_of(project, rewind_home)
    counts: dict[str, int] = {}
    for log in store.glob("rewind/stats/hook-calls.log*"):
        for line in log.read_text().splitlines():
            fields = dict(part.split("=", 1) for part in line.split()[1:] if "=" in part)
            event = fields.get("event", "") + (POSTED if fields.get("via") == "http" else "")
            counts[event] = counts.get(event, 0) + 1
    return counts


def calls_per_prompt(runs: list[dict[str, int]], prompts: int) -> str:
    """The median run's hook processes per prompt, and its calls by event."""
    if not runs:
        return "none"

    def processes(counts: dict[str, int]) -> int:
        return sum(count for event, count in counts.items() if not event.endswith(POSTED))

    middle = sorted(runs, key=processes)[len(runs) // 2]
    total, posted = processes(middle), sum(middle.values()) - processes(middle)
    events = ", ".join(f"{event} {count}" for event, count in sorted(middle.items()))
    return (
        f"{total / prompts:.1f} processes per prompt, {posted / prompts:.1f} posted "
        f"({prompts} prompts: {events})"
    )


def run(options: argparse.Namespace) -> Report:
    runs = choose(options.client_runs, "REWIND_BENCH_CLIENT_RUNS", 5, 3, options.quick)
    report = Report(NAME)
    chosen = options.client or sorted(SESSIONS)
    with ExitStack() as stack:
        box = stack.enter_context(Sandbox("clients", keep=options.keep))
        empty_url = stack.enter_context(empty_hook_server())
        stack.callback(_stop_shared_residents, box.root)
        _measure(options, report, box, empty_url, chosen, runs)
    return report


def _stop_shared_residents(root: Path) -> None:
    from tests.support.watchers import stop_residents

    for home in root.glob("*-rewind-home"):
        stop_residents(home)


def _measure(
    options: argparse.Namespace,
    report: Report,
    box: Sandbox,
    empty_url: str,
    chosen: list[str],
    runs: int,
) -> None:
    for agent in chosen:
        try:
            client, script = SESSIONS[agent]()
        except pytest.fail.Exception as error:  # npm could not install it
            raise BenchError(str(error)) from None
        sessions = Sessions(
            box,
            agent,
            client,
            script,
            empty_url,
            options.cold,
            options.capture_off,
            options.watching,
        )
        progress(f"{agent}: {WARMUP} warm-up round + {runs} interleaved rounds of 3 sessions")
        for number in range(WARMUP + runs):
            shift = number % len(VARIANTS)
            for variant in VARIANTS[shift:] + VARIANTS[:shift]:
                sessions.run(variant)
            if number < WARMUP:
                sessions.times = {variant: [] for variant in VARIANTS}
                sessions.calls = []
        times = sessions.times
        prompts = len(script.prompts)
        for variant in VARIANTS:
            report.figure(f"{agent}, {prompts} prompts {variant}", spread(times[variant]))
        ratio = median(times[REWIND]) / median(times[WITHOUT])
        floor = median(times[FLOOR]) / median(times[WITHOUT])
        own = median(times[REWIND]) / median(times[FLOOR])
        report.figure(f"{agent} with empty hooks / without (the floor)", f"{floor:.2f}x")
        report.check(f"{agent} rewind's hooks / empty hooks", own, "<=", OWN_WORK)
        report.figure(f"{agent} hook processes", calls_per_prompt(sessions.calls, prompts))
        if agent in TARGETS:
            report.check(f"{agent} with / without hooks", ratio, "<=", TARGETS[agent])
        else:
            report.figure(f"{agent} with / without hooks", f"{ratio:.2f}x")


def main(argv: Sequence[str] | None = None) -> int:
    return standalone(NAME, add_arguments, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
