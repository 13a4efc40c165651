"""``rewind doctor``: which agents run rewind's hooks, whether the ``rewind`` they call is there,
and whether each agent's hook records a turn when fed the events that agent would send."""

from __future__ import annotations

import os
import shlex
import shutil

from rewind.installers import Context, Inspection, Target, targets
from rewind.installers.probe import SLOW, run_probe


class Report:
    """Prints one line per finding as it comes; remembers whether any was a failure."""

    def __init__(self) -> None:
        self.failed = False

    def add(self, level: str, target: str, where: str, message: str) -> None:
        self.failed = self.failed or level == "fail"
        print(f"{level:<4}  {target:<11}  {where:<7}  {message}", flush=True)


def run() -> int:
    context = Context.current()
    report = Report()
    active = []
    for target in targets().values():
        commands = _check_files(target, context, report)
        if commands is not None:
            active.append(target.name)
        _check_hook(target, context, commands, report)
    if not active:
        names = ", ".join(name for name, t in targets().items() if t.hook_agent)
        report.add(
            "fail",
            "rewind",
            "-",
            f"no agent runs rewind's hooks; run 'rewind install AGENT' (one of {names}).",
        )
    return 1 if report.failed else 0


def _check_files(target: Target, context: Context, report: Report) -> list[str] | None:
    """Reports each scope's file; returns the hook commands found (None: nothing installed)."""
    commands: dict[str, str] = {}
    active = False
    for scope in target.scopes:
        found = target.inspect(scope, context)
        if found is None:
            continue
        _report_file(target, scope, found, report)
        for command in found.commands:
            commands.setdefault(command, scope)
        active = active or bool(found.installed) or found.active_otherwise
    for command, scope in commands.items():
        _check_command(target, scope, command, report)
    return list(commands) if active else None


def _report_file(target: Target, scope: str, found: Inspection, report: Report) -> None:
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


def _check_command(target: Target, scope: str, command: str, report: Report) -> None:
    """Whether the ``rewind`` a hook command runs is there, executable, the one on PATH."""
    name = target.name
    again = f"run 'rewind install {name} --{scope}' again"
    try:
        program = shlex.split(command)[0]
    except (ValueError, IndexError):
        report.add("fail", name, scope, f"cannot read the command {command!r}; {again}.")
        return
    on_path = shutil.which("rewind")
    if "/" not in program:
        found = shutil.which(program)
        if found is None:
            report.add("fail", name, scope, f"runs {program}, which is not on PATH; {again}.")
        else:
            report.add("ok", name, scope, f"runs {program} from PATH: {found}")
        return
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


def _check_hook(
    target: Target, context: Context, commands: list[str] | None, report: Report
) -> None:
    """Feeds the target's synthetic events to its hook; failures count when it is installed."""
    if not target.hook_agent:
        return
    command = commands[0] if commands else context.hook_command(target.hook_agent)
    result = run_probe(command, target)
    if result is None:
        return
    name = target.name
    if result.failure:
        level = "fail" if commands is not None else "warn"
        report.add(level, name, "hook", f"{command}: {result.failure}")
        return
    report.add(
        "ok",
        name,
        "hook",
        f"{command}: {result.events} event(s) in {result.seconds:.2f} s, "
        f"recorded {result.recorded}",
    )
    seconds, event = result.slowest
    if seconds > SLOW:
        report.add("warn", name, "hook", f"{event} took {seconds:.2f} s; the agent waits for it.")
    for warning in result.warnings:
        report.add("warn", name, "hook", warning)
