"""shell_capture: an agent's shell call whose program changes 3 files, with what it changes
recorded (``capture_programs``, on by default), on a project of 2,000 files and on one of
100,000; and a shadow git checkpoint of the same change (what Cline and OpenCode do per step).

Two workspaces (untimed set-up): git work trees of 2,000 and 100,000 committed files of 200
bytes in directories of 100 (``harness.make_tree``), each with a session whose prompt hook
(``rewind hook claude-code``, UserPromptSubmit) has started the project's watcher, awaited until
its pid file says it is watching.

Timed, interleaved between the two, each round: the Bash call's PreToolUse hook process (which
tells the watcher the call begins), a Python program that rewrites 3 of the files, and the
PostToolUse hook process (whose barrier returns once the watcher has recorded the 3 changes in
the turn), from the first process's start to the last one's end; and the two hook processes
alone (what capture adds to the program). After the rounds the turn is checked to hold the 3
files as the program's.

The reference, on the 100,000-file tree, interleaved with the rounds: the same program (not
timed), then ``git --git-dir=SHADOW --work-tree=TREE add -A`` and ``commit`` into a shadow
repository that already holds a first checkpoint of the tree (later checkpoints cost a walk of
the tree, as theirs do): what such a checkpoint adds to the program. Also read (information):
the watcher's resident memory and its CPU share over 5 seconds of idle at 100,000 files.

Rounds: 10 (quick: 3, on 20,000 files instead of 100,000).

Targets: the shell call at 100,000 files <= 1.25x the same at 2,000 files (medians); the shadow
checkpoint at 100,000 files >= 5x capture's two hooks there (each what it adds to the program).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from tests.bench.harness import (
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

NAME = "shell_capture"
SESSION = "bench"
SCALE_TARGET = 1.25
SHADOW_TARGET = 5.0
IDLE_WINDOW = 5.0
CHANGE = (
    "import sys\n"
    "for name in sys.argv[2:]:\n"
    "    open(name, 'w').write('round ' + sys.argv[1] + ' ' + name + '\\n')\n"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--capture-files",
        type=int,
        default=None,
        metavar="N",
        help="files in the large project (default 100000, quick 20000; "
        "env REWIND_BENCH_CAPTURE_FILES)",
    )


def _payload(workspace: Path, event: str, **fields: object) -> bytes:
    return json.dumps(
        {"session_id": SESSION, "cwd": str(workspace), "hook_event_name": event, **fields}
    ).encode()


class Workspace:
    """A committed tree of ``count`` files and a session whose watcher runs."""

    def __init__(self, box: Sandbox, name: str, count: int) -> None:
        self.box = box
        self.root = box.root / name
        git_init(box, self.root)
        progress(f"writing and committing {count:,} files (untimed)")
        self.paths = make_tree(self.root, count, 200)
        (self.root / "change.py").write_text(CHANGE)
        box.run(["git", "add", "-A"], cwd=self.root)
        box.run(["git", "commit", "-qm", "start"], cwd=self.root)
        self.hook([rewind_script(), "hook", "claude-code"], "UserPromptSubmit", prompt="bench")
        self.pid = self._wait_watching()
        self.changed = [self.paths[len(self.paths) // 3 * k + 7] for k in range(3)]
        # What the shadow reference changes: 3 other files (the watcher records them too, as
        # changes outside any call, which the check leaves alone).
        self.changed_by_reference = [self.paths[len(self.paths) // 3 * k + 11] for k in range(3)]

    def hook(self, argv: list[str], event: str, **fields: object) -> None:
        self.box.run(argv, cwd=self.root, stdin=_payload(self.root, event, **fields))

    def _wait_watching(self) -> int:
        stores = Path(self.box.env["REWIND_HOME"]) / "stores"
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            for info in stores.glob(f"{self.root.name}-*/rewind/watch.json"):
                try:
                    data = json.loads(info.read_text())
                except (OSError, ValueError):
                    continue
                if data.get("ready"):
                    return int(data["pid"])
            time.sleep(0.05)
        raise BenchError(f"no watcher got ready for {self.root.name} within 600 s")

    def shell_call(self, number: int) -> tuple[float, float]:
        """The timed hook pair around the program: the whole call's wall time, and the hooks'
        alone (what capture adds to the program)."""
        command = f"python3 change.py {number} " + " ".join(self.changed)
        tool = {
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_use_id": f"t{number}",
        }
        hook = [rewind_script(), "hook", "claude-code"]
        program = [sys.executable, "change.py", str(number), *self.changed]
        started = time.perf_counter()
        self.box.run(hook, cwd=self.root, stdin=_payload(self.root, "PreToolUse", **tool))
        before_program = time.perf_counter()
        self.box.run(program, cwd=self.root)
        after_program = time.perf_counter()
        self.box.run(
            hook, cwd=self.root, stdin=_payload(self.root, "PostToolUse", **tool, tool_response={})
        )
        ended = time.perf_counter()
        return ended - started, (before_program - started) + (ended - after_program)

    def check_recorded(self) -> None:
        log = json.loads(
            self.box.run(
                [rewind_script(), "log", "--json", "--session", SESSION], cwd=self.root
            ).stdout
        )
        files = {item["path"]: item.get("source") for item in log[-1]["files"]}
        if any(files.get(path) != "program" for path in self.changed):
            raise BenchError(f"the program's changes were not recorded as such: {files}")

    def memory_and_idle(self) -> tuple[int, float]:
        """The watcher's resident memory (bytes) and CPU share over an idle window."""
        import os

        with open(f"/proc/{self.pid}/status") as handle:
            rss = next(int(line.split()[1]) * 1024 for line in handle if line.startswith("VmRSS:"))

        def cpu() -> float:
            with open(f"/proc/{self.pid}/stat") as handle:
                fields = handle.read().rsplit(") ", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

        start, wall = cpu(), time.perf_counter()
        time.sleep(IDLE_WINDOW)
        return rss, (cpu() - start) / (time.perf_counter() - wall)

    def stop(self) -> None:
        subprocess.run(
            [rewind_script(), "watch", "--stop"],
            cwd=self.root,
            env=self.box.env,
            capture_output=True,
            check=False,
        )


def shadow_checkpoint(box: Sandbox, workspace: Workspace, number: int, shadow: Path) -> float:
    """The same change, then a shadow git checkpoint of the whole tree: the checkpoint's wall
    time (what it adds to the program)."""
    git = ["git", f"--git-dir={shadow}", f"--work-tree={workspace.root}"]
    changed = workspace.changed_by_reference
    box.run([sys.executable, "change.py", str(number), *changed], cwd=workspace.root)
    started = time.perf_counter()
    box.run([*git, "add", "-A"], cwd=workspace.root)
    box.run([*git, "commit", "-qm", f"checkpoint {number}"], cwd=workspace.root)
    return time.perf_counter() - started


def run(options: argparse.Namespace) -> Report:
    large = choose(
        options.capture_files, "REWIND_BENCH_CAPTURE_FILES", 100_000, 20_000, options.quick
    )
    rounds = 3 if options.quick else 10
    report = Report(NAME)
    with Sandbox("shell-capture", keep=options.keep) as box:
        small_tree = Workspace(box, "small", 2_000)
        large_tree = Workspace(box, "large", large)
        shadow = box.root / "shadow.git"
        box.run(["git", "init", "-q", "--bare", str(shadow)], cwd=box.root)
        progress("the shadow repository's first checkpoint (untimed)")
        shadow_checkpoint(box, large_tree, 0, shadow)
        settle()
        try:
            small_tree.shell_call(0)  # warm-up: bytecode, caches
            large_tree.shell_call(0)
            progress(f"{rounds} rounds: the shell call at 2,000 and {large:,} files, the shadow")
            small, big, hooks, shadows = [], [], [], []
            for number in range(1, rounds + 1):
                small.append(small_tree.shell_call(number)[0])
                call, its_hooks = large_tree.shell_call(number)
                big.append(call)
                hooks.append(its_hooks)
                shadows.append(shadow_checkpoint(box, large_tree, 1000 + number, shadow))
            small_tree.check_recorded()
            large_tree.check_recorded()
            rss, idle = large_tree.memory_and_idle()
        finally:
            small_tree.stop()
            large_tree.stop()
    report.figure("shell call, 3 files changed, at 2,000 files", spread(small))
    report.figure(f"shell call, 3 files changed, at {large:,} files", spread(big))
    report.figure(f"its two hooks alone (what capture adds), at {large:,} files", spread(hooks))
    report.figure(f"shadow git checkpoint at {large:,} files (add -A, commit)", spread(shadows))
    report.figure(f"watcher's resident memory at {large:,} files", f"{rss / 2**20:.0f} MiB")
    report.figure(f"watcher's CPU share idle at {large:,} files", f"{idle:.4f}")
    report.check(
        f"shell call at {large:,} / at 2,000 files", median(big) / median(small), "<=", SCALE_TARGET
    )
    report.check(
        f"shadow checkpoint / capture's hooks at {large:,} files",
        median(shadows) / median(hooks),
        ">=",
        SHADOW_TARGET,
    )
    report.note(
        f"medians: {ms(median(small))}, {ms(median(big))}, hooks {ms(median(hooks))}, "
        f"shadow {ms(median(shadows))}"
    )
    return report


def main(argv: list[str] | None = None) -> int:
    return standalone(NAME, add_arguments, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
