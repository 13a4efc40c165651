"""track_startup: one ``rewind track`` of a 10 KB file, as the whole process a hook starts.

Each round runs, in rotating order: the installed console script ``rewind track NEW_FILE``, the
same through ``python -m rewind track NEW_FILE``, and ``python -c pass`` with the same
interpreter (the reference). Before each timed track an untimed ``rewind begin`` opens a fresh
turn, so every timed track is the first record of a new 10 KB file in its turn: it reads the
file, writes its blob, commits the turn and updates the session cache.

Target: median(rewind track) / median(python -c pass) <= 3.0.

Also shown: ``python -X importtime`` of ``import rewind.cli`` and of a real ``rewind track``
(medians over several runs), and a check that begin, track and end import none of the heavy
packages (pygit2, textual, rich, watchdog, importlib.metadata, platformdirs).
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

from tests.bench.harness import (
    PYTHON,
    Report,
    Sandbox,
    choose,
    env_int,
    file_content,
    git_init,
    median,
    ms,
    progress,
    rewind_script,
    spread,
    standalone,
)

NAME = "track_startup"
FILE_SIZE = 10 * 1024
WARMUP = 3
IMPORTTIME_RUNS = 5
HEAVY = ("pygit2", "textual", "rich", "watchdog", "importlib.metadata", "platformdirs")
TARGET = 3.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--startup-runs",
        type=int,
        default=None,
        metavar="N",
        help="timed runs of each process (default 30, quick 10; env REWIND_BENCH_STARTUP_RUNS)",
    )


class ImportTimes:
    """``-X importtime`` output of several runs: per module, median self and cumulative us."""

    def __init__(self) -> None:
        self.self_us: dict[str, list[int]] = defaultdict(list)
        self.cumulative_us: dict[str, list[int]] = defaultdict(list)
        self.depth: dict[str, int] = {}
        self.order: list[str] = []
        self.top_level_total: list[int] = []

    def add(self, stderr: str) -> None:
        total = 0
        for line in stderr.splitlines():
            if not line.startswith("import time:") or "self [us]" in line:
                continue
            parts = line[len("import time:") :].split("|", 2)
            if len(parts) != 3:
                continue
            name_field = parts[2][1:]
            name = name_field.strip()
            depth = (len(name_field) - len(name_field.lstrip(" "))) // 2
            if name not in self.depth:
                self.order.append(name)
            self.depth[name] = depth
            self.self_us[name].append(int(parts[0]))
            self.cumulative_us[name].append(int(parts[1]))
            if depth == 0:
                total += int(parts[1])
        self.top_level_total.append(total)

    @property
    def modules(self) -> set[str]:
        return set(self.order)

    def self_ms(self, name: str) -> float:
        return median(self.self_us[name]) / 1000

    def cumulative_ms(self, name: str) -> float:
        return median(self.cumulative_us[name]) / 1000

    @property
    def total_ms(self) -> float:
        return median(self.top_level_total) / 1000

    def top(self, count: int, names: Sequence[str] | None = None, by_self: bool = False) -> str:
        chosen = list(names if names is not None else self.order)
        key = self.self_ms if by_self else self.cumulative_ms
        chosen.sort(key=key, reverse=True)
        return "\n".join(
            f"      {self.cumulative_ms(n):6.2f} ms cumulative {self.self_ms(n):6.2f} ms self  "
            f"{'  ' * self.depth[n]}{n}"
            for n in chosen[:count]
        )


def run(options: argparse.Namespace) -> Report:
    runs = choose(options.startup_runs, "REWIND_BENCH_STARTUP_RUNS", 30, 10, options.quick)
    report = Report(NAME)
    script = rewind_script()
    with Sandbox("startup", keep=options.keep) as box:
        workspace = box.root / "project"
        git_init(box, workspace)
        (workspace / "src").mkdir()
        env = box.environment(REWIND_SESSION="bench")
        counter = iter(range(1_000_000))

        def fresh_file() -> str:
            index = next(counter)
            relative = f"src/file{index:04d}.py"
            (workspace / relative).write_bytes(file_content(index, FILE_SIZE))
            return relative

        def begin() -> None:
            box.run([script, "begin", "--prompt", "bench"], cwd=workspace, env=env)

        def track_script() -> float:
            begin()
            return box.timed([script, "track", fresh_file()], cwd=workspace, env=env)

        def track_module() -> float:
            begin()
            return box.timed([PYTHON, "-m", "rewind", "track", fresh_file()], workspace, env)

        def bare() -> float:
            return box.timed([PYTHON, "-c", "pass"], cwd=workspace, env=env)

        def import_cli() -> float:
            return box.timed([PYTHON, "-c", "import rewind.cli"], cwd=workspace, env=env)

        def import_track() -> float:
            code = "import rewind.cli, rewind.commands.track"
            return box.timed([PYTHON, "-c", code], cwd=workspace, env=env)

        variants = [
            ("script", track_script),
            ("module", track_module),
            ("pass", bare),
            ("cli", import_cli),
            ("imports", import_track),
        ]
        times: dict[str, list[float]] = {label: [] for label, _ in variants}
        progress(
            f"{WARMUP} warm-up + {runs} interleaved rounds of track / -m track / -c pass "
            "/ -c 'import ...'"
        )
        for round_number in range(WARMUP + runs):
            shift = round_number % len(variants)
            for label, measure in variants[shift:] + variants[:shift]:
                elapsed = measure()
                if round_number >= WARMUP:
                    times[label].append(elapsed)

        med = {label: median(values) for label, values in times.items()}
        report.figure("python -c pass (reference)", spread(times["pass"]))
        report.figure("rewind track, console script", spread(times["script"]))
        report.figure("python -m rewind track (information)", spread(times["module"]))
        report.figure(
            "python -m rewind track / python -c pass", f"{med['module'] / med['pass']:.2f}x"
        )
        report.figure(
            "where a track's time goes (differences of medians)",
            f"interpreter {ms(med['pass'])}, + import rewind.cli {ms(med['cli'] - med['pass'])}, "
            f"+ the track command's imports {ms(med['imports'] - med['cli'])}, "
            f"+ the work and exit {ms(med['script'] - med['imports'])}",
        )
        report.check(
            "rewind track (10 KB, console script) / python -c pass",
            med["script"] / med["pass"],
            "<=",
            TARGET,
        )
        _import_report(box, report, script, workspace, env, fresh_file)
        _import_costs(box, report, workspace, env, 3 if options.quick else 7)
    return report


# Start-up costs of imports, timed as whole processes against python -c pass: what the hook
# path must not import, and the standard modules it does import today.
OFF_HOOK_PATH = (
    ("import pygit2", "import pygit2"),
    ("import textual.app", "import textual.app"),
    ("import rich.console", "import rich.console"),
    ("import watchdog.observers", "import watchdog.observers"),
    (
        "importlib.metadata.version('rewind-files')",
        "from importlib.metadata import version; version('rewind-files')",
    ),
    ("import platformdirs", "import platformdirs"),
    ("import argparse", "import argparse"),
)
ON_HOOK_PATH = (
    ("import enum", "import enum"),
    ("import re", "import re"),
    ("import json", "import json"),
    ("import xxhash", "import xxhash"),
)


def _import_costs(
    box: Sandbox, report: Report, workspace: Path, env: dict[str, str], runs: int
) -> None:
    """Start-up cost of each import: median process time minus python -c pass's."""
    variants = [("pass", "pass"), *OFF_HOOK_PATH, *ON_HOOK_PATH]
    times: dict[str, list[float]] = {label: [] for label, _ in variants}
    progress(f"1 warm-up + {runs} interleaved rounds of python -c 'import ...'")
    for round_number in range(1 + runs):
        for label, code in variants:
            elapsed = box.timed([PYTHON, "-c", code], cwd=workspace, env=env)
            if round_number:
                times[label].append(elapsed)
    base = median(times["pass"])
    for title, group in (("kept off", OFF_HOOK_PATH), ("on", ON_HOOK_PATH)):
        report.figure(
            f"start-up cost of imports {title} the hook path (median - python -c pass)",
            "; ".join(f"{label} +{ms(median(times[label]) - base)}" for label, _ in group),
        )


def _importtime(box: Sandbox, argv: list[str], workspace: Path, env: dict[str, str]) -> str:
    completed = box.run([PYTHON, "-X", "importtime", *argv], cwd=workspace, env=env)
    return completed.stderr.decode(errors="replace")


def _import_report(
    box: Sandbox,
    report: Report,
    script: str,
    workspace: Path,
    env: dict[str, str],
    fresh_file: Callable[[], str],
) -> None:
    runs = env_int("REWIND_BENCH_IMPORTTIME_RUNS") or IMPORTTIME_RUNS
    cli, bare, track = ImportTimes(), ImportTimes(), ImportTimes()
    begin_modules: set[str] = set()
    end_modules: set[str] = set()
    for _ in range(runs):
        cli.add(_importtime(box, ["-c", "import rewind.cli"], workspace, env))
        bare.add(_importtime(box, ["-c", "pass"], workspace, env))
        begin = ImportTimes()
        begin.add(_importtime(box, [script, "begin"], workspace, env))
        begin_modules |= begin.modules
        track.add(_importtime(box, [script, "track", fresh_file()], workspace, env))
    end = ImportTimes()
    end.add(_importtime(box, [script, "end"], workspace, env))
    end_modules |= end.modules

    report.note(
        f'    python -X importtime -c "import rewind.cli" (median of {runs}): '
        f"{cli.cumulative_ms('rewind.cli'):.2f} ms for rewind.cli; top cumulative costs:\n"
        + cli.top(8)
    )
    added = [name for name in track.order if name not in bare.modules]
    rewind_modules = sorted(name for name in added if name.startswith("rewind"))
    report.note(
        f"    rewind track, -X importtime (median of {runs}): all imports {track.total_ms:.2f} ms "
        f"(python -c pass: {bare.total_ms:.2f} ms); {len(added)} modules beyond the bare "
        f"interpreter's, of which rewind's: {', '.join(rewind_modules)}\n"
        "    the largest self costs among them:\n" + track.top(12, added, by_self=True)
    )
    hook_modules = begin_modules | track.modules | end_modules
    heavy = sorted(
        name for name in hook_modules if any(name == h or name.startswith(h + ".") for h in HEAVY)
    )
    report.figure(
        "heavy modules imported by begin/track/end",
        ", ".join(heavy) if heavy else f"none of {', '.join(HEAVY)}",
    )
    report.figure("argparse imported by track", "yes" if "argparse" in track.modules else "no")
    report.check("heavy modules imported by begin/track/end (count)", len(heavy), "<=", 0)
    report.figure(
        "import time of rewind track beyond the bare interpreter",
        ms((track.total_ms - bare.total_ms) / 1000),
    )


def main(argv: Sequence[str] | None = None) -> int:
    return standalone(NAME, add_arguments, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
