"""``rewind doctor``: whether hooks can write the project's store, the problems they logged
lately, which agents run rewind's hooks, whether those agents will run them here (the folder
or the hooks trusted), whether the ``rewind`` they call is there, and whether each agent's hook
records a turn when fed the events that agent would send.

The live runs are most of its time (each starts a few processes and waits on them), so they run
side by side, as many at once as there are processors; the findings still come out in the
order of the targets, as when they ran one after the other."""

from __future__ import annotations

import os
import shlex
import shutil
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Protocol

from rewind.actions.records import FORMAT
from rewind.commands.output.json_output import print_json
from rewind.errors import UserError
from rewind.installers import (
    RUNNER_FLAG,
    RUNNER_SCRIPT,
    Context,
    Inspection,
    Target,
    path_advice,
    rewind_executable,
)
from rewind.installers.mcp_probe import list_tools
from rewind.installers.probe import SLOW, ProbeResult, run_probe
from rewind.installers.registry import targets
from rewind.mcp.names import CHANGE_TOOLS, READ_TOOLS
from rewind.store.config import CONFIG_NAME, load_config
from rewind.store.failure_log import problem_logs, recent_problems
from rewind.store.home import rewind_home, store_dir_for
from rewind.store.storage_check import check_store_directory, human_size

RECENT_SHOWN = 3  # lines of each log


class Findings(Protocol):
    """Where a check adds what it found: the report itself, or lines kept for later."""

    def add(self, level: str, target: str, where: str, message: str) -> None: ...


class Report:
    """Prints one line per finding as it comes (or, for ``--json``, keeps them for the end);
    remembers whether any was a failure."""

    def __init__(self, as_json: bool = False) -> None:
        self.failed = False
        self.as_json = as_json
        self.findings: list[dict[str, str]] = []

    def add(self, level: str, target: str, where: str, message: str) -> None:
        self.failed = self.failed or level == "fail"
        if self.as_json:
            self.findings.append(
                {"level": level, "target": target, "where": where, "message": message}
            )
        else:
            print(f"{level:<4}  {target:<11}  {where:<7}  {message}", flush=True)

    def print_json(self) -> None:
        print_json({"format": FORMAT, "healthy": not self.failed, "findings": self.findings})


def run(*, as_json: bool = False) -> int:
    context = Context.current()
    report = Report(as_json)
    code = _diagnose(context, report)
    if as_json:
        report.print_json()
    return code


def _diagnose(context: Context, report: Report) -> int:
    store_dir = store_dir_for(os.fsencode(context.project))
    access = _check_storage(store_dir, report)
    _check_path(report)
    _check_config(context.project, store_dir, report)
    _check_backup(context.project, store_dir, report)
    _check_capture(context.project, report)
    _check_resident(context.project, report)
    _report_recent_problems(store_dir, report)
    checked = [_check_target(target, context) for target in targets().values()]
    tried = _to_try(checked)
    with _ProbePool(len(tried)) as pool:
        probes = [
            pool.start(found, context, access) if found in tried else None for found in checked
        ]
        for found, probe in zip(checked, probes, strict=True):
            found.lines.report_to(report)
            if probe is not None:
                _report_hook(found, probe.result(), access, report)
    _check_mcp(context, report)
    if not any(found.commands is not None for found in checked):
        names = ", ".join(name for name, t in targets().items() if t.hook_agent)
        report.add(
            "fail",
            "rewind",
            "-",
            f"no agent runs rewind's hooks; run 'rewind install AGENT' (one of {names}).",
        )
    return 1 if report.failed else 0


def _check_mcp(context: Context, report: Report) -> None:
    """Where each agent has rewind's MCP server registered, and whether each distinct command
    registered starts and lists rewind's tools."""
    commands: dict[tuple[str, ...], None] = {}
    for target in targets().values():
        for scope in target.mcp.scopes if target.mcp else ():
            assert target.mcp is not None
            found = target.mcp.inspect(scope, context)
            if found.problem:
                report.add("fail", target.name, "mcp", found.problem)
            if not found.registered:
                continue
            where = found.paths[0]
            report.add("ok", target.name, "mcp", f"{scope}: rewind's MCP server in {where}")
            for level, text in found.notes:
                report.add(level, target.name, "mcp", text)
            commands.setdefault(tuple(found.command), None)
    for command in commands:
        shown = shlex.join(command)
        if not _this_rewind(command[0]):
            report.add(
                "warn",
                "rewind",
                "mcp",
                f"{shown}: not started: it is neither 'rewind' from PATH nor this rewind, and "
                "doctor runs no program a settings file names; run 'rewind install AGENT --mcp' "
                "to register this one.",
            )
            continue
        answer = list_tools(list(command), context.project)
        if answer.failure:
            report.add("fail", "rewind", "mcp", f"{shown}: {answer.failure}")
            continue
        missing = [tool for tool in (*READ_TOOLS, *CHANGE_TOOLS) if tool not in answer.tools]
        listed = f"{shown}: started and listed {len(answer.tools)} tools in {answer.seconds:.2f} s"
        if missing:
            upgrade = "run 'rewind install AGENT --mcp' with this rewind to register it"
            without = ", ".join(missing)
            report.add("warn", "rewind", "mcp", f"{listed}, without {without}; {upgrade}.")
        else:
            report.add("ok", "rewind", "mcp", listed)


def _this_rewind(program: str) -> bool:
    """Whether a registered server's program is ``rewind`` from PATH, or this rewind's path,
    or the one on PATH: doctor starts nothing else (a project's files could name anything)."""
    if program == "rewind":
        return True
    if not os.path.isabs(program):
        return False
    known = [found for found in (rewind_executable(), shutil.which("rewind")) if found]
    return any(os.path.realpath(program) == os.path.realpath(found) for found in known)


def _to_try(checked: list[TargetCheck]) -> list[TargetCheck]:
    """The targets whose hook gets a live run: those installed here; when none is, every one
    (through this ``rewind``), so that the hook path is proven before the first install."""
    hooked = [found for found in checked if found.target.hook_agent]
    installed = [found for found in hooked if found.commands is not None]
    return installed or hooked


class KeptLines:
    """Findings kept to be reported later, in the order they were found."""

    def __init__(self) -> None:
        self.kept: list[tuple[str, str, str, str]] = []

    def add(self, level: str, target: str, where: str, message: str) -> None:
        self.kept.append((level, target, where, message))

    def report_to(self, report: Report) -> None:
        for finding in self.kept:
            report.add(*finding)


@dataclass
class TargetCheck:
    """What the files of one target say: the lines for its files and trust, and the hook
    commands found (None: nothing installed)."""

    target: Target
    commands: list[str] | None
    lines: KeptLines = field(default_factory=KeptLines)


def _check_target(target: Target, context: Context) -> TargetCheck:
    """The target's files and, when it runs rewind's hooks, whether its agent trusts them here."""
    lines = KeptLines()
    commands = _check_files(target, context, lines)
    if commands is not None:
        for level, text in target.trust(context):
            lines.add(level, target.name, "trust", text)
    return TargetCheck(target, commands, lines)


class _ProbePool:
    """Runs the targets' live checks side by side: each waits on the processes of its hook,
    so one thread each, as many at once as there are processors (more would only make each
    event slower, and an event's time is a finding)."""

    def __init__(self, probes: int) -> None:
        self.pool = ThreadPoolExecutor(max_workers=max(1, min(probes, _processors())))

    def __enter__(self) -> _ProbePool:
        return self

    def __exit__(self, *_: object) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)

    def start(
        self, found: TargetCheck, context: Context, access: StoreAccess
    ) -> Future[tuple[str, ProbeResult | None]] | None:
        """The running probe of ``found``'s target, to the command its hooks run (else the one
        'rewind install' would write); None when it has no hook to try."""
        target = found.target
        if not target.hook_agent:
            return None
        commands = found.commands
        command = commands[0] if commands else context.hook_command(target.hook_agent)
        return self.pool.submit(_probe, command, target, access.probe_home)


def _probe(command: str, target: Target, probe_home: str | None) -> tuple[str, ProbeResult | None]:
    return command, run_probe(command, target, probe_home)


def _processors() -> int:
    """The processors this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every system
        return os.cpu_count() or 1


@dataclass(frozen=True)
class StoreAccess:
    """Whether hooks can write the project's store (``problem`` says why not), and where the
    live run makes its temporary rewind home: inside ``$REWIND_HOME`` when that can be written,
    so the hooks run against the same disk and permissions (None: the temporary directory)."""

    problem: str = ""
    probe_home: str | None = None


def _check_storage(store_dir: str, report: Report) -> StoreAccess:
    """Reports whether hooks can write the project's store (a file is written there and
    removed) and the space free there."""
    storage = check_store_directory(store_dir)
    if storage.problem:
        report.add("fail", "rewind", "store", f"hooks record nothing: {storage.problem}")
        return StoreAccess(problem=storage.problem)
    free = f", {human_size(storage.free)} free" if storage.free is not None else ""
    if os.path.isdir(store_dir):
        report.add("ok", "rewind", "store", f"{store_dir}: writable{free}")
    else:
        where = f"{store_dir}: none yet, {storage.checked} is writable{free}"
        report.add("ok", "rewind", "store", where)
    if storage.low_on_space:
        report.add("warn", "rewind", "store", f"free space on the disk of {storage.checked}.")
    home = rewind_home()
    return StoreAccess(probe_home=home if os.path.isdir(home) else None)


def _check_path(report: Report) -> None:
    """Whether ``rewind`` is on PATH: hooks in files meant to be committed run it from there."""
    on_path = shutil.which("rewind")
    if on_path:
        report.add("ok", "rewind", "PATH", f"rewind on PATH: {on_path}")
    else:
        report.add(
            "warn",
            "rewind",
            "PATH",
            "rewind is not on PATH, so hooks in files meant to be committed (--project) cannot "
            "run it here; put it there (pipx install rewind-files).",
        )


def _check_config(project: str, store_dir: str, report: Report) -> None:
    """Whether the project's rewind.toml (in the root, else the store) can be read: hooks of a
    project whose settings are wrong record nothing."""
    found = [
        path
        for path in (os.path.join(project, CONFIG_NAME), os.path.join(store_dir, CONFIG_NAME))
        if os.path.isfile(path)
    ]
    if not found:
        return
    try:
        load_config(os.fsencode(project), store_dir)
    except UserError as error:
        report.add("fail", "rewind", "config", str(error))
        return
    report.add("ok", "rewind", "config", f"{found[0]}: read")


def _check_resident(project: str, report: Report) -> None:
    """Whether the resident recorder (rewind.resident) runs on the port Claude Code's HTTP
    hooks post to, and on the one the other agents' hooks hand their events to, waits for the
    next event, or finds the port taken."""
    import os

    from rewind.resident.address import AGENTS, install_port, port_in, settings_files, wanted_path

    reported = set()
    for agent in AGENTS:
        posted = port_in(settings_files(agent, project), agent)
        if posted is not None:
            _report_resident(report, agent, posted, "the after-events are posted")
            reported.add(posted)
    if os.path.exists(wanted_path()) and install_port() not in reported:
        _report_resident(report, "rewind", install_port(), "the hooks hand their events")


def _report_resident(report: Report, target: str, port: int, what: str) -> None:
    import socket

    from rewind.resident import reach

    pid = reach.running_pid(port)
    if pid is not None:
        report.add(
            "ok",
            target,
            "resident",
            f"the resident recorder runs (pid {pid}) on 127.0.0.1:{port}, where {what}",
        )
        return
    with socket.socket() as probe:
        taken = probe.connect_ex(("127.0.0.1", port)) == 0
    if taken:
        report.add(
            "warn",
            target,
            "resident",
            f"127.0.0.1:{port}, where {what}, is held by another program: the hooks record "
            "every event themselves (after-events late, at the next prompt); set "
            "REWIND_RESIDENT_PORT to a free port and run 'rewind install' again",
        )
        return
    report.add(
        "ok",
        target,
        "resident",
        f"no resident recorder runs on 127.0.0.1:{port} now; the next event starts it",
    )


def _check_capture(project: str, report: Report) -> None:
    """Whether what the programs an agent runs change is recorded here (capture_programs):
    off, refused by the kernel's limit, watched now, or waiting for the next prompt."""
    from rewind.actions.stores import open_store
    from rewind.watch.capture import enabled
    from rewind.watch.limits import recent_refusal
    from rewind.watch.pidfile import running_info

    try:
        store = open_store(os.fsencode(project))
    except (UserError, OSError):
        return  # nothing recorded here yet (or the storage check says why)
    if not enabled(store):
        report.add(
            "--",
            "rewind",
            "capture",
            "what programs change is not recorded (capture_programs = false, or "
            "REWIND_CAPTURE_PROGRAMS=0, or not Linux); the quicksave reads the commands it knows",
        )
        return
    refused = recent_refusal(store)
    if refused:
        report.add("fail", "rewind", "capture", refused.replace("limit on inotify", "inotify"))
        return
    info = running_info(store)
    if info is None:
        report.add(
            "ok",
            "rewind",
            "capture",
            "no watcher runs now; the next prompt or shell call of an agent starts one",
        )
        return
    report.add(
        "ok",
        "rewind",
        "capture",
        f"the watcher runs (pid {info.get('pid', '?')}): what programs change is recorded",
    )


def _check_backup(project: str, store_dir: str, report: Report) -> None:
    """Whether ``[remote] backup`` names a remote that answers, and how the last pushes went."""
    try:
        remote = load_config(os.fsencode(project), store_dir).remote.backup
    except UserError:
        return  # the config check says why
    if not remote:
        return
    from rewind.actions.stores import open_store
    from rewind.history.remote.backup import backup_state
    from rewind.history.remote.remote_setup import check_reachable
    from rewind.store.remotes import remote_url

    try:
        store = open_store(os.fsencode(project), create=True)
        url = remote_url(store, remote)
        check_reachable(store, remote)
    except (UserError, OSError) as error:
        report.add("fail", "rewind", "backup", f"the backup remote does not answer: {error}")
        return
    state = backup_state(store)
    if state is not None and state.error:
        report.add(
            "warn",
            "rewind",
            "backup",
            f"{remote} answers now, but the last {state.failures} backup(s) failed: "
            f"{state.error.rstrip('.')}; 'rewind push --all' pushes what waits.",
        )
        return
    report.add("ok", "rewind", "backup", f"{remote} ({url}) answers")


def _report_recent_problems(store_dir: str, report: Report) -> None:
    """The newest lines of the last day in each log hooks write, as warnings (whether hooks
    can write now is the store check's to say)."""
    for log in problem_logs(store_dir):
        recent = recent_problems(log.path)
        if not recent:
            continue
        count = f"{len(recent)} problem(s) in the last day, the newest last"
        report.add("warn", "rewind", "log", f"{log.path}: {count}:")
        for line in recent[-RECENT_SHOWN:]:
            report.add("warn", "rewind", "log", line)


def _check_files(target: Target, context: Context, report: Findings) -> list[str] | None:
    """Reports each scope's file; returns the hook commands found (None: nothing installed)."""
    commands: dict[str, str] = {}
    active = False
    installed: list[str] = []
    for scope in target.scopes:
        found = target.inspect(scope, context)
        if found is None:
            continue
        _report_file(target, scope, found, report)
        for command in found.commands:
            commands.setdefault(command, scope)
        if found.installed:
            installed.append(scope)
        active = active or bool(found.installed) or found.active_otherwise
    if len(installed) > 1 and not target.once_per_event:
        times = len(installed)
        report.add(
            "warn",
            target.name,
            "scopes",
            f"rewind's hooks are installed in {times} scopes ({', '.join(installed)}), so every "
            f"event runs rewind {times} times (the records stay right; the time is {times}-fold); "
            f"keep one, e.g. 'rewind uninstall {target.name} --{installed[0]}'.",
        )
    for command, scope in commands.items():
        _check_command(target, scope, command, report)
    return list(commands) if active else None


def _report_file(target: Target, scope: str, found: Inspection, report: Findings) -> None:
    name = target.name
    again = f"run 'rewind install {name} --{scope}'"
    if found.problem:
        report.add("fail", name, scope, found.problem)
    elif not found.installed:
        state = "" if found.exists else " (no such file)"
        report.add("--", name, scope, f"{found.path}: no rewind hooks{state}")
    else:
        report.add("ok", name, scope, f"{found.path}: {', '.join(found.installed)}")
        if found.missing:
            missing = ", ".join(found.missing)
            report.add("warn", name, scope, f"{found.path}: missing {missing}; {again} to add.")
        if found.different:
            different = ", ".join(found.different)
            report.add(
                "warn",
                name,
                scope,
                f"{found.path}: {different} not as 'rewind install' writes; {again} to update.",
            )
    for level, text in found.notes:
        report.add(level, name, scope, text)


def _check_command(target: Target, scope: str, command: str, report: Findings) -> None:
    """Whether the ``rewind`` a hook command runs is there, executable, the one on PATH."""
    name = target.name
    again = f"run 'rewind install {name} --{scope}' again"
    try:
        words = shlex.split(command)
        program = words[0]
    except (ValueError, IndexError):
        report.add("fail", name, scope, f"cannot read the command {command!r}; {again}.")
        return
    on_path = shutil.which("rewind")
    if words[1:2] == [RUNNER_FLAG] and len(words) > 2 and words[2].endswith(RUNNER_SCRIPT):
        _check_runner(target, scope, program, words[2], on_path, report)
        return
    if "/" not in program:
        found = shutil.which(program)
        if found is None:
            advice = path_advice(target)
            report.add("fail", name, scope, f"runs {program} from PATH, which has none; {advice}.")
        else:
            report.add("ok", name, scope, f"runs {program} from PATH: {found}")
        return
    if scope in target.shared_scopes:
        report.add(
            "warn",
            name,
            scope,
            f"runs {program}, a path of one machine, from a file meant to be committed: "
            f"teammates' hooks fail; run 'rewind uninstall {name} --{scope}', then install "
            "again to run 'rewind' from PATH.",
        )
    path = os.path.expanduser(program)
    if not os.path.isfile(path):
        report.add("fail", name, scope, f"runs {program}, which does not exist; {again}.")
    elif not os.access(path, os.X_OK):
        report.add("fail", name, scope, f"runs {program}, which is not executable; {again}.")
    elif on_path is None:
        report.add("ok", name, scope, f"runs {program} (exists; no rewind on PATH)")
    elif os.path.realpath(on_path) == os.path.realpath(path):
        report.add("ok", name, scope, f"runs {program}, the rewind on PATH")
    else:
        report.add(
            "warn",
            name,
            scope,
            f"runs {program}, not the rewind on PATH ({on_path}); {again} to use that one.",
        )


def _check_runner(
    target: Target, scope: str, python: str, script: str, on_path: str | None, report: Findings
) -> None:
    """A hook command that runs rewind's ``__main__.py`` with an interpreter
    (rewind.installers.hook_runner): both there, the interpreter the one of the rewind on
    PATH."""
    name = target.name
    again = f"run 'rewind install {name} --{scope}' again"
    if not (os.path.isfile(python) and os.access(python, os.X_OK)):
        report.add("fail", name, scope, f"runs rewind with {python}, which is gone; {again}.")
        return
    if not os.path.isfile(script):
        report.add("fail", name, scope, f"runs {script}, which does not exist; {again}.")
        return
    package = os.path.dirname(script)
    if on_path is None:
        report.add("ok", name, scope, f"runs rewind in {package} (no rewind on PATH)")
    elif _interpreter_of(on_path) == os.path.abspath(python):  # not resolved: a venv's link
        report.add("ok", name, scope, f"runs rewind in {package}, the rewind on PATH's")
    else:
        report.add(
            "warn",
            name,
            scope,
            f"runs rewind in {package} with {python}, not the rewind on PATH ({on_path}); "
            f"{again} to use that one.",
        )


def _interpreter_of(script: str) -> str | None:
    """The interpreter a console script's first line names, if it names one."""
    try:
        with open(script, "rb") as handle:
            first = handle.readline(4096)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].split()
    return os.path.abspath(os.fsdecode(words[0])) if words else None


def _report_hook(
    found: TargetCheck,
    probe: tuple[str, ProbeResult | None],
    access: StoreAccess,
    report: Report,
) -> None:
    """What the target's hook did with the synthetic events; failures count when it is
    installed."""
    command, result = probe
    if result is None:
        return
    name = found.target.name
    level = "fail" if found.commands is not None else "warn"
    if result.failure:
        report.add(level, name, "hook", f"{command}: {result.failure}")
        return
    ran = f"{command}: {result.events} event(s) in {result.seconds:.2f} s"
    recorded = f"recorded {result.recorded} in a temporary home"
    if access.problem:
        cannot = "but cannot record this project (see the store line)"
        report.add(level, name, "hook", f"{ran}, {recorded}, {cannot}.")
    else:
        inside = f" inside {access.probe_home}" if access.probe_home else ""
        report.add("ok", name, "hook", f"{ran}, {recorded}{inside}")
    seconds, event = result.slowest
    if seconds > SLOW:
        report.add("warn", name, "hook", f"{event} took {seconds:.2f} s; the agent waits for it.")
    for warning in result.warnings:
        report.add("warn", name, "hook", warning)
