"""quicksave_git: the quicksave before ``git reset --hard`` in a 100,000-file repository.

The repository holds 100,000 committed files of 1 KB (100 to a directory, 10 directories to a
package), committed with git in the set-up (untimed, ``-c gc.auto=0``); 20 of them are modified
in the work tree. Before Claude Code runs ``git reset --hard`` through its Bash tool, its
``PreToolUse`` hook makes rewind save every file the command may destroy: here, the 20 modified
files, which rewind finds by asking git which files differ from HEAD.

Each round modifies the 20 files again (untimed, so that every quicksave stores new content),
then runs in rotating order:

- the quicksave: an untimed ``UserPromptSubmit`` (a fresh turn), then one timed
  ``rewind hook claude-code`` process (the console script) receiving the ``PreToolUse`` payload
  of tool ``Bash`` with ``{"command": "git reset --hard"}`` on its standard input; then,
  untimed, ``rewind -C REPO log --json`` must show that turn holding exactly the 20 modified
  files, and the matching ``PostToolUse`` is sent (the command itself is not run);
- the reference: ``git status --porcelain`` in the same repository, timed;
- for information, to split a quicksave into its parts: the ``git status`` that rewind runs
  (``--no-optional-locks``, ``--porcelain=v1 -z --untracked-files=all``), ``python -c pass``,
  and ``python -c "import ..."`` of every module a quicksave loads beyond the bare
  interpreter's (listed by ``-X importtime`` of one, before the rounds).

Target: median(quicksave) / median(git status --porcelain) <= 2.0.

Afterwards (untimed for the target, information): five more quicksaves and ``git status``
runs with ``GIT_TRACE2_EVENT`` set, so that git's own clock says how long the ``git status``
inside a quicksave took (and its parts: reading the index, the ``lstat`` of every file, the
untracked scan); ``python -X importtime`` of a quicksave (the modules it loads beyond the bare
interpreter's, shlex, glob and re among them); and a ``cProfile`` of one.
"""

from __future__ import annotations

import argparse
import json
import pstats
import random
from collections.abc import Callable, Sequence
from pathlib import Path

from tests.bench.harness import (
    PYTHON,
    BenchError,
    Report,
    Sandbox,
    choose,
    git_init,
    make_tree,
    median,
    ms,
    progress,
    rewind_script,
    settle,
    spread,
    standalone,
)
from tests.bench.hook_startup import imports_of, payload, store_log
from tests.bench.track_startup import ImportTimes
from tests.support.agent_payloads import ClaudeCode

NAME = "quicksave_git"
FULL_FILES = 100_000
FILE_SIZE = 1024
MODIFIED = 20
COMMAND = "git reset --hard"
WARMUP = 1
IMPORTTIME_RUNS = 3
TARGET = 2.0
# The git status rewind.store.git_status.changed_paths runs (information: its share of a
# quicksave).
REWIND_STATUS = [
    "git",
    "--no-optional-locks",
    "status",
    "--porcelain=v1",
    "-z",
    "--untracked-files=all",
    "--ignore-submodules=all",
]
WATCHED = ("shlex", "glob", "fnmatch", "re", "subprocess", "json", "enum", "argparse")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--quicksave-files",
        type=int,
        default=None,
        metavar="N",
        help="committed files in the repository (default 100000, quick 10000; "
        "env REWIND_BENCH_QUICKSAVE_FILES)",
    )
    parser.add_argument(
        "--quicksave-runs",
        type=int,
        default=None,
        metavar="N",
        help="timed quicksaves and git status (default 15, quick 3; "
        "env REWIND_BENCH_QUICKSAVE_RUNS)",
    )


def _git(*args: str) -> list[str]:
    return ["git", "-c", "gc.auto=0", *args]


def _modify(repo: Path, paths: Sequence[str], number: int) -> None:
    for relative in paths:
        with (repo / relative).open("ab") as handle:
            handle.write(f"# changed before round {number}\n".encode())


def run(options: argparse.Namespace) -> Report:
    count = choose(
        options.quicksave_files, "REWIND_BENCH_QUICKSAVE_FILES", FULL_FILES, 10_000, options.quick
    )
    runs = choose(options.quicksave_runs, "REWIND_BENCH_QUICKSAVE_RUNS", 15, 3, options.quick)
    report = Report(NAME)
    script = rewind_script()
    hook = [script, "hook", "claude-code"]
    with Sandbox("quicksave", keep=options.keep) as box:
        repo = box.root / "repo"
        progress(f"writing and committing {count:,} files of {FILE_SIZE} bytes")
        git_init(box, repo)
        paths = make_tree(repo, count, FILE_SIZE)
        box.run(_git("add", "-A"), cwd=repo)
        box.run(_git("commit", "-q", "-m", "the project"), cwd=repo)
        modified = sorted(random.Random(MODIFIED).sample(paths, MODIFIED))
        _modify(repo, modified, 0)
        settle()
        _check_status(box, repo, modified)
        agent = ClaudeCode(repo)
        env = box.env
        labels = ("quicksave", "status", "rewind status", "pass", "imports")
        times: dict[str, list[float]] = {label: [] for label in labels}
        status_env = box.environment(GIT_OPTIONAL_LOCKS="0", LC_ALL="C")
        counter = iter(range(1, 1_000_000))
        rounds = _Rounds(box, hook, repo, agent, modified)
        before, after = rounds.prepare()
        hook_imports, module_count = imports_of(box, hook, repo, before)
        rounds.finish(after)

        def quicksave() -> None:
            number = next(counter)
            prompt = f"reset {number}"
            box.run(hook, repo, env, stdin=payload(agent.prompt(prompt)))
            before, after = agent.shell(COMMAND)
            times["quicksave"].append(box.timed(hook, repo, env, stdin=payload(before)))
            _check_turn(box, script, repo, prompt, modified)
            box.run(hook, repo, env, stdin=payload(after))

        def status() -> None:
            times["status"].append(box.timed(["git", "status", "--porcelain"], repo, env))

        def rewind_status() -> None:
            times["rewind status"].append(box.timed(REWIND_STATUS, repo, status_env))

        def bare() -> None:
            times["pass"].append(box.timed([PYTHON, "-c", "pass"], repo, env))

        def imports() -> None:
            times["imports"].append(box.timed([PYTHON, "-c", hook_imports], repo, env))

        variants: list[Callable[[], None]] = [quicksave, status, rewind_status, bare, imports]
        progress(
            f"{WARMUP} warm-up + {runs} interleaved rounds of quicksave / git status / "
            "git status as rewind runs it / -c pass / -c 'import ...'"
        )
        for round_number in range(WARMUP + runs):
            _modify(repo, modified, round_number + 1)
            settle()
            shift = round_number % len(variants)
            for variant in variants[shift:] + variants[:shift]:
                variant()
            if round_number < WARMUP:
                for values in times.values():
                    values.clear()
        problems = store_log(box)
        if problems:
            raise BenchError(f"the hooks logged {len(problems)} problem(s), e.g. {problems[0]}")

        med = {label: median(values) for label, values in times.items()}
        report.figure("git status --porcelain (reference)", spread(times["status"]))
        report.figure(
            f"quicksave of {COMMAND!r} ({MODIFIED} of {count:,} files modified)",
            spread(times["quicksave"]),
        )
        report.figure(
            "git status as rewind runs it (information): " + " ".join(REWIND_STATUS[1:]),
            spread(times["rewind status"]),
        )
        report.figure("python -c pass (information)", spread(times["pass"]))
        report.figure(
            f"python -c 'import <the {module_count} modules a quicksave loads>' (information)",
            spread(times["imports"]),
        )
        report.figure(
            "checked with rewind log --json",
            f"each of the {WARMUP + runs} quicksaves recorded exactly the {MODIFIED} "
            "modified files",
        )
        if count < FULL_FILES:
            report.note(
                f"    note: the target is set for {FULL_FILES:,} files; with {count:,} the fixed "
                "costs (interpreter, imports, recording) weigh more against git status"
            )
        report.check(
            f"quicksave of {COMMAND} / git status --porcelain, {count:,} files",
            med["quicksave"] / med["status"],
            "<=",
            TARGET,
        )
        _diagnose(box, report, rounds, 2 if options.quick else 5, med)
    return report


def _check_status(box: Sandbox, repo: Path, modified: Sequence[str]) -> None:
    listed = box.run(["git", "status", "--porcelain"], cwd=repo).stdout.decode().splitlines()
    if sorted(listed) != [f" M {relative}" for relative in modified]:
        raise BenchError(f"git status lists {len(listed)} entries, expected {len(modified)} ' M'")


def _check_turn(
    box: Sandbox, script: str, repo: Path, prompt: str, modified: Sequence[str]
) -> None:
    """The turn just begun holds exactly the modified files, each with its pre-image."""
    completed = box.run([script, "-C", str(repo), "log", "--json"], cwd=box.root)
    entries = json.loads(completed.stdout)
    if not entries or entries[-1].get("prompt") != prompt:
        raise BenchError(f"rewind log --json does not end with the turn {prompt!r}")
    files = entries[-1]["files"]
    recorded = sorted(str(item.get("path")) for item in files)
    if recorded != list(modified) or not all(item.get("before") for item in files):
        missing = sorted(set(modified) - set(recorded))
        extra = sorted(set(recorded) - set(modified))
        problems = store_log(box)
        raise BenchError(
            f"the quicksave recorded {len(recorded)} files, expected the {len(modified)} modified "
            f"ones (missing {missing[:3]}, unexpected {extra[:3]})"
            + (f"; the hooks logged: {problems[-1]}" if problems else "")
        )


class _Rounds:
    """Untimed set-up of the diagnostic quicksaves: new content in the 20 files, a new turn."""

    def __init__(
        self, box: Sandbox, hook: list[str], repo: Path, agent: ClaudeCode, modified: Sequence[str]
    ) -> None:
        self.box, self.hook, self.repo, self.agent, self.modified = box, hook, repo, agent, modified
        self.number = 1000

    def prepare(self) -> tuple[bytes, bytes]:
        """The PreToolUse and PostToolUse payloads of a ``git reset --hard`` in a fresh turn."""
        self.number += 1
        _modify(self.repo, self.modified, self.number)
        settle()
        prompt = payload(self.agent.prompt(f"diagnostic {self.number}"))
        self.box.run(self.hook, self.repo, stdin=prompt)
        before, after = self.agent.shell(COMMAND)
        return payload(before), payload(after)

    def finish(self, after: bytes) -> None:
        self.box.run(self.hook, self.repo, stdin=after)


def _diagnose(
    box: Sandbox, report: Report, rounds: _Rounds, trace_runs: int, med: dict[str, float]
) -> None:
    """Where a quicksave's time goes (untimed for the target): git's own time inside it,
    its imports, and a cProfile of one run."""
    _trace(box, report, rounds, trace_runs, med)
    _imports(box, report, rounds)
    profile = box.root / "quicksave.prof"
    before, after = rounds.prepare()
    argv = [PYTHON, "-m", "cProfile", "-o", str(profile), "-m", "rewind", "hook", "claude-code"]
    box.run(argv, rounds.repo, stdin=before)
    rounds.finish(after)
    report.note(_profile_lines(profile))


# git's trace2 regions worth naming: (category, label) -> what they are.
REGIONS = {
    ("index", "do_read_index"): "read the index",
    ("index", "preload"): "lstat every file (preload)",
    ("status", "untracked"): "untracked scan",
}


class _Trace:
    """One git process's own timing, from its ``GIT_TRACE2_EVENT`` file."""

    def __init__(self, path: Path) -> None:
        self.processes = 0
        self.total = 0.0
        self.regions: dict[str, float] = dict.fromkeys(REGIONS.values(), 0.0)
        for line in path.read_text(encoding="utf-8").splitlines():
            event = json.loads(line)
            if event.get("event") == "exit" and "/" not in str(event.get("sid")):
                self.processes += 1
                self.total += float(event["t_abs"])
            elif event.get("event") == "region_leave":
                name = REGIONS.get((str(event.get("category")), str(event.get("label"))))
                if name is not None:
                    self.regions[name] += float(event["t_rel"])


def _trace(box: Sandbox, report: Report, rounds: _Rounds, runs: int, med: dict[str, float]) -> None:
    """Quicksaves and git status with ``GIT_TRACE2_EVENT`` (git passes on the environment):
    how long the git status inside a quicksave took, by git's own clock. (Differences of the
    timed rounds' medians cannot say it: git status alone varies by tens of milliseconds.)"""
    inside: list[_Trace] = []
    outside: list[_Trace] = []
    processes: list[float] = []
    for attempt in range(runs):
        trace = box.root / f"trace-quicksave-{attempt}.json"
        before, after = rounds.prepare()
        env = box.environment(GIT_TRACE2_EVENT=str(trace))
        processes.append(box.timed(rounds.hook, rounds.repo, env, stdin=before))
        rounds.finish(after)
        inside.append(_Trace(trace))
        trace = box.root / f"trace-status-{attempt}.json"
        env = box.environment(GIT_TRACE2_EVENT=str(trace))
        box.timed(["git", "status", "--porcelain"], rounds.repo, env)
        outside.append(_Trace(trace))
    counts = sorted({trace.processes for trace in inside})
    git_inside = median([trace.total for trace in inside])
    process = median(processes)

    def regions(traces: list[_Trace]) -> str:
        return ", ".join(
            f"{name} {ms(median([trace.regions[name] for trace in traces]))}"
            for name in REGIONS.values()
        )

    report.figure(
        f"inside a quicksave, by git's trace2 (medians of {runs})",
        f"the process {ms(process)}, its git status ({'/'.join(map(str, counts))} git "
        f"process) {ms(git_inside)} ({regions(inside)}), so rewind's own part "
        f"{ms(process - git_inside)}",
    )
    report.figure(
        "git status --porcelain, by git's trace2 (information)",
        f"{ms(median([trace.total for trace in outside]))} ({regions(outside)}); "
        f"the same process timed from outside: {ms(med['status'])} (median of the timed rounds)",
    )
    own = process - git_inside
    interpreter, imports = med["pass"], med["imports"] - med["pass"]
    report.figure(
        "where a quicksave's time goes",
        f"git status {ms(git_inside)} (git's own clock, median of {runs}); rewind's own part "
        f"{ms(own)}: interpreter {ms(interpreter)}, imports {ms(imports)} (medians of the timed "
        f"rounds), the rest {ms(own - interpreter - imports)} (starting git and reaping it, "
        "reading the payload, parsing the command, recording the files, exit)",
    )


def _imports(box: Sandbox, report: Report, rounds: _Rounds) -> None:
    bare, saved = ImportTimes(), ImportTimes()
    for _ in range(IMPORTTIME_RUNS):
        before, after = rounds.prepare()
        argv = [PYTHON, "-X", "importtime", *rounds.hook]
        completed = box.run(argv, rounds.repo, stdin=before)
        saved.add(completed.stderr.decode(errors="replace"))
        rounds.finish(after)
        completed = box.run([PYTHON, "-X", "importtime", "-c", "pass"], rounds.repo)
        bare.add(completed.stderr.decode(errors="replace"))
    added = [name for name in saved.order if name not in bare.modules]
    rewind_modules = sorted(name for name in added if name.startswith("rewind"))
    report.note(
        f"    quicksave, -X importtime (median of {IMPORTTIME_RUNS}): all imports "
        f"{saved.total_ms:.2f} ms (python -c pass: {bare.total_ms:.2f} ms); {len(added)} modules "
        f"beyond the bare interpreter's, {len(rewind_modules)} of them rewind's: "
        f"{', '.join(rewind_modules)}\n"
        "    the largest cumulative costs among them:\n" + saved.top(10, added)
    )
    watched = [name for name in WATCHED if name in added]
    report.figure(
        f"of {', '.join(WATCHED)}, imported by a quicksave (cumulative)",
        "; ".join(f"{name} {saved.cumulative_ms(name):.2f} ms" for name in watched) or "none",
    )
    report.figure(
        "import time of a quicksave beyond the bare interpreter",
        ms((saved.total_ms - bare.total_ms) / 1000),
    )


# The steps of a quicksave worth naming in its profile (functions of rewind's modules).
STEPS = frozenset(
    {
        "main",
        "<module>",
        "open_store",
        "read_payload",
        "before_shell",
        "paths_at_risk",
        "parse",
        "run_sequence",
        "changed_paths",
        "parse_porcelain",
        "stored_names",
        "before_change",
        "track",
        "write_text_atomically",
    }
)
MODULE_STEPS = ("rewind/commands/hook.py", "rewind/quicksave/__init__.py")


def _profile_lines(profile: Path) -> str:
    """The named steps of a quicksave with their cumulative times, from a cProfile file."""
    stats = pstats.Stats(str(profile))
    rows: list[tuple[float, int, str]] = []
    for (filename, line, function), values in stats.stats.items():  # type: ignore[attr-defined]
        cumulative = float(values[3])
        calls = int(values[1])
        where = filename.replace("\\", "/")
        if "/rewind/" in where and function in STEPS:
            relative = "rewind/" + where.rsplit("/rewind/", 1)[1]
            if function == "<module>" and relative not in MODULE_STEPS:
                continue
            label = f"{relative}:{line} {function}"
            if function == "<module>":
                label += " (its imports)"
        elif function == "<method 'poll' of 'select.poll' objects>":
            label = "select.poll (waiting for git)"
        else:
            continue
        rows.append((cumulative, calls, label))
    rows.sort(reverse=True)
    total = float(getattr(stats, "total_tt", 0.0))
    return (
        f"    one quicksave under cProfile ({total * 1000:.1f} ms profiled, with the profiler's "
        "overhead on Python code; waiting for git is real time), cumulative times of its steps:\n"
        + "\n".join(
            f"      {cumulative * 1000:8.2f} ms {calls:4d} call(s)  {label}"
            for cumulative, calls, label in rows
        )
    )


def main(argv: Sequence[str] | None = None) -> int:
    return standalone(NAME, add_arguments, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
