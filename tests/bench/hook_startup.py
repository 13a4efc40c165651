"""hook_startup: one ``rewind hook claude-code`` process for an Edit, as Claude Code runs it.

The workspace is a git work tree holding a committed 10 KB file. Each round sends, as Claude
Code does, a JSON payload on the standard input of the installed console script
``rewind hook claude-code``: a timed ``UserPromptSubmit`` (a new turn, whose hook takes the
conversation's cut point in a 4 MB transcript that grows by a few KB a round, as Claude Code's
does), then the timed ``PreToolUse`` of an ``Edit`` of that file, which reads the file, writes
its blob and commits the turn: the first edit of a turn. The benchmark then makes the edit (in
this process) and times the matching ``PostToolUse``, which records the file's after-state
(information). Every round edits the file, so every ``PreToolUse`` stores content it has not
seen before.

The reference, interleaved with rotating order: ``python -c pass`` with the same interpreter.
Also timed in the same rounds, to split a hook call into interpreter start-up, imports and work:
``python -c "import rewind.cli"`` and ``python -c "import ..."`` of every module a PreToolUse
loads beyond the bare interpreter's (listed by ``-X importtime`` of one, before the rounds).

A second project keeps the conversation (``[conversation] keep = true``): each round, a timed
``UserPromptSubmit`` whose hook keeps the transcript's slice since the last prompt (about 3 KB
of a transcript that starts at 4 MB; the first, whole slice is kept in the warm-up), then the
timed ``Stop`` that keeps the final reply.

Targets: median(PreToolUse hook) / median(python -c pass) <= 3.0; median(UserPromptSubmit with
the 4 MB transcript) / median(UserPromptSubmit with no transcript yet, every other round) <= 1.1
(the cut point reads 4 KB whatever the transcript's size); median(UserPromptSubmit keeping the
conversation) / median(python -c pass) <= 3.0 and the same for its Stop (keeping writes a blob
and a commit, as a PreToolUse does).

Afterwards (untimed): ``rewind log --json`` must show every timed turn holding exactly the
edited file, and the store's log must hold no problem (a hook exits 0 whatever happens, so this
is how a broken hook would show); ``python -X importtime`` of a real PreToolUse lists the
modules it loads beyond the bare interpreter's.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from pathlib import Path

from tests.bench.harness import (
    PYTHON,
    BenchError,
    Report,
    Sandbox,
    choose,
    file_content,
    git_init,
    median,
    ms,
    progress,
    rewind_script,
    spread,
    standalone,
)
from tests.bench.track_startup import HEAVY, ImportTimes
from tests.support.agent_payloads import ClaudeCode

NAME = "hook_startup"
FILE_SIZE = 10 * 1024
EDITED = "src/module.py"
TRANSCRIPT_SIZE = 4 * 1024 * 1024
WARMUP = 3
IMPORTTIME_RUNS = 5
TARGET = 3.0
# The cut point reads 4 KB whatever the transcript's size: a prompt with a 4 MB transcript costs
# at most this much more than one before the transcript exists.
CUT_TARGET = 1.1
# Standard modules the hook path is kept free of (see docs/performance.md).
AVOIDED = ("argparse", "json", "re", "enum", "importlib", "shlex", "glob", "subprocess")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--hook-runs",
        type=int,
        default=None,
        metavar="N",
        help="timed hook calls and references (default 30, quick 10; env REWIND_BENCH_HOOK_RUNS)",
    )


def payload(event: dict[str, object] | None) -> bytes:
    if event is None:
        raise BenchError("Claude Code sends a PreToolUse before an Edit")
    return json.dumps(event).encode()


def imports_of(box: Sandbox, argv: list[str], cwd: Path, stdin: bytes) -> tuple[str, int]:
    """``import A, B, ...`` of the modules a hook process loads beyond the bare interpreter's
    (the top-level entries of its ``-X importtime``, lazy imports included), and how many
    modules that is in all: timing ``python -c`` of it gives the hook's import cost."""
    hook, bare = ImportTimes(), ImportTimes()
    hook.add(box.run([PYTHON, "-X", "importtime", *argv], cwd, stdin=stdin).stderr.decode())
    bare.add(box.run([PYTHON, "-X", "importtime", "-c", "pass"], cwd).stderr.decode())
    added = [name for name in hook.order if name not in bare.modules]
    top = [name for name in added if hook.depth[name] == 0]
    if not top:
        raise BenchError(f"-X importtime of {' '.join(argv[1:])} listed no module")
    return "import " + ", ".join(top), len(added)


def transcript_lines(size: int) -> bytes:
    """About ``size`` bytes of JSON lines shaped like Claude Code's transcript records."""
    line = json.dumps(
        {"type": "assistant", "uuid": "0" * 36, "version": "2.1.332", "text": "x" * 900}
    ).encode()
    return (line + b"\n") * max(1, size // (len(line) + 1))


def store_log(box: Sandbox) -> list[str]:
    """The problems hooks logged in every store of the sandbox (``rewind.log``)."""
    lines: list[str] = []
    for log in sorted(box.root.glob("rewind-home/**/rewind.log")):
        lines += log.read_text(encoding="utf-8", errors="replace").splitlines()
    return lines


def run(options: argparse.Namespace) -> Report:
    runs = choose(options.hook_runs, "REWIND_BENCH_HOOK_RUNS", 30, 10, options.quick)
    report = Report(NAME)
    script = rewind_script()
    hook = [script, "hook", "claude-code"]
    with Sandbox("hook", keep=options.keep) as box:
        workspace = box.root / "project"
        git_init(box, workspace)
        (workspace / EDITED).parent.mkdir()
        (workspace / EDITED).write_bytes(file_content(0, FILE_SIZE))
        box.run(["git", "add", "-A"], cwd=workspace)
        box.run(["git", "-c", "gc.auto=0", "commit", "-q", "-m", "start"], cwd=workspace)
        env = box.env
        agent = ClaudeCode(workspace)
        counter = iter(range(1, 1_000_000))
        transcript = box.root / "claude" / f"{agent.session}.jsonl"
        transcript.parent.mkdir()
        transcript.write_bytes(transcript_lines(TRANSCRIPT_SIZE))
        missing = transcript.with_name("not-there.jsonl")  # a first prompt: no transcript yet

        def prompt(text: str, with_transcript: bool = True) -> bytes:
            event = agent.prompt(text)
            event["transcript_path"] = str(transcript) if with_transcript else str(missing)
            return payload(event)

        def edit_round() -> tuple[float, float, float]:
            """Prompt, PreToolUse, the edit, PostToolUse, the turn's transcript (all timed but
            the edit and the transcript)."""
            number = next(counter)
            # Every other round the transcript is not there: what the cut point costs is the
            # difference.
            with_transcript = number % 2 == 1
            started = box.timed(
                hook, workspace, env, stdin=prompt(f"edit {number}", with_transcript)
            )
            times["prompt" if with_transcript else "prompt_bare"].append(started)
            before, after = agent.edit(EDITED, "value_1 =", "value_one =")
            pre = box.timed(hook, workspace, env, stdin=payload(before))
            with (workspace / EDITED).open("ab") as handle:
                handle.write(f"# edited in turn {number}\n".encode())
            post = box.timed(hook, workspace, env, stdin=payload(after))
            with transcript.open("ab") as handle:
                handle.write(transcript_lines(3 * 1024))
            return started, pre, post

        times: dict[str, list[float]] = {
            label: []
            for label in (
                "prompt",
                "prompt_bare",
                "prompt_kept",
                "stop_kept",
                "pre",
                "post",
                "pass",
                "cli",
                "imports",
            )
        }
        box.run(hook, workspace, env, stdin=prompt("imports"))
        before, after = agent.edit(EDITED, "value_1 =", "value_one =")
        hook_imports, module_count = imports_of(box, hook, workspace, payload(before))
        box.run(hook, workspace, env, stdin=payload(after))

        kept_counter = iter(range(1, 1_000_000))  # the other counter's parity picks transcripts
        kept_root = box.root / "kept"
        git_init(box, kept_root)
        (kept_root / "rewind.toml").write_text("[conversation]\nkeep = true\n")
        kept_agent = ClaudeCode(kept_root, session="kept-conversation")
        kept_transcript = box.root / "claude" / "kept.jsonl"
        kept_transcript.write_bytes(transcript_lines(TRANSCRIPT_SIZE))

        def kept_variant() -> None:
            """A prompt that keeps the slice since the last one, then the turn's Stop."""
            event = kept_agent.prompt(f"kept {next(kept_counter)}")
            event["transcript_path"] = str(kept_transcript)
            times["prompt_kept"].append(box.timed(hook, kept_root, env, stdin=payload(event)))
            with kept_transcript.open("ab") as handle:
                handle.write(transcript_lines(3 * 1024))
            stop = {**kept_agent.prompt(""), "hook_event_name": "Stop"}
            stop.pop("prompt", None)
            stop["last_assistant_message"] = "Done: " + "the change is made. " * 40
            times["stop_kept"].append(box.timed(hook, kept_root, env, stdin=payload(stop)))

        def hook_variant() -> None:
            _, pre, post = edit_round()
            times["pre"].append(pre)
            times["post"].append(post)

        def python_variant(label: str, code: str) -> None:
            times[label].append(box.timed([PYTHON, "-c", code], cwd=workspace, env=env))

        variants: list[Callable[[], None]] = [
            hook_variant,
            kept_variant,
            lambda: python_variant("pass", "pass"),
            lambda: python_variant("cli", "import rewind.cli"),
            lambda: python_variant("imports", hook_imports),
        ]
        progress(
            f"{WARMUP} warm-up + {runs} interleaved rounds of PreToolUse+PostToolUse / "
            "-c pass / -c 'import ...'"
        )
        for round_number in range(WARMUP + runs):
            shift = round_number % len(variants)
            for variant in variants[shift:] + variants[:shift]:
                variant()
            if round_number < WARMUP:
                for values in times.values():
                    values.clear()
        med = {label: median(values) for label, values in times.items()}
        report.figure("python -c pass (reference)", spread(times["pass"]))
        report.figure("rewind hook claude-code, PreToolUse Edit (10 KB)", spread(times["pre"]))
        report.figure(
            "rewind hook claude-code, PostToolUse Edit (information)", spread(times["post"])
        )
        report.figure("PostToolUse / python -c pass", f"{med['post'] / med['pass']:.2f}x")
        report.figure(
            "rewind hook claude-code, UserPromptSubmit (cut point in a 4 MB transcript)",
            spread(times["prompt"]),
        )
        report.figure(
            "rewind hook claude-code, UserPromptSubmit (no transcript yet)",
            spread(times["prompt_bare"]),
        )
        report.figure(
            "UserPromptSubmit / python -c pass (information)",
            f"{med['prompt'] / med['pass']:.2f}x",
        )
        report.figure(
            "rewind hook claude-code, UserPromptSubmit keeping the conversation's slice",
            spread(times["prompt_kept"]),
        )
        report.figure(
            "rewind hook claude-code, Stop keeping the final reply", spread(times["stop_kept"])
        )
        report.figure(
            f"python -c 'import <the {module_count} modules a PreToolUse loads>' (information)",
            spread(times["imports"]),
        )
        report.figure(
            "where a PreToolUse's time goes (differences of medians)",
            f"interpreter {ms(med['pass'])}, + import rewind.cli {ms(med['cli'] - med['pass'])}, "
            f"+ the hook path's imports {ms(med['imports'] - med['cli'])}, "
            f"+ reading the payload, the work and exit {ms(med['pre'] - med['imports'])}",
        )
        report.check(
            "rewind hook claude-code PreToolUse Edit (10 KB) / python -c pass",
            med["pre"] / med["pass"],
            "<=",
            TARGET,
        )
        report.check(
            "UserPromptSubmit with a 4 MB transcript / without one (the cut point's cost)",
            med["prompt"] / med["prompt_bare"],
            "<=",
            CUT_TARGET,
        )
        report.check(
            "UserPromptSubmit keeping the conversation / python -c pass",
            med["prompt_kept"] / med["pass"],
            "<=",
            TARGET,
        )
        report.check(
            "Stop keeping the final reply / python -c pass",
            med["stop_kept"] / med["pass"],
            "<=",
            TARGET,
        )
        _verify(box, report, workspace, runs)
        _verify_kept(box, report, kept_root, WARMUP + runs)
        _import_report(box, report, hook, workspace, agent)
    return report


def _verify_kept(box: Sandbox, report: Report, root: Path, prompts: int) -> None:
    """The kept project's store holds a slice and a reply for every prompt, and no problem."""
    kept = box.run(
        [rewind_script(), "show", str(prompts), "--json", "--session", "kept-conversation"],
        cwd=root,
        env=box.env,
    )
    reply = json.loads(kept.stdout).get("reply") or ""
    if not reply.startswith("Done: "):
        raise BenchError(f"the last kept turn has no kept reply: {reply[:80]!r}")
    problems = store_log(box)
    if problems:
        raise BenchError(f"the store's log holds problems: {problems[:3]}")
    report.figure("kept turns checked (a reply kept for the last)", str(prompts))


def _verify(box: Sandbox, report: Report, workspace: Path, runs: int) -> None:
    """Every turn recorded exactly the edited file, before and after; no hook logged a problem."""
    turns = checked_turns(box, workspace, runs, EDITED)
    problems = store_log(box)
    if problems:
        raise BenchError(f"the hooks logged {len(problems)} problem(s), e.g. {problems[0]}")
    report.figure("checked with rewind log --json", f"{turns} turns, each recorded {EDITED} alone")


def checked_turns(box: Sandbox, workspace: Path, runs: int, edited: str) -> int:
    """How many turns ``rewind log --json`` shows in ``workspace``: at least ``runs``, each
    holding exactly ``edited`` with its pre-image (else a BenchError)."""
    log = [rewind_script(), "-C", str(workspace), "log", "--json"]
    turns = [e for e in json.loads(box.run(log, box.root).stdout) if e.get("kind") == "turn"]
    if len(turns) < runs:
        raise BenchError(f"{workspace.name}: rewind log shows {len(turns)} turns, expected {runs}")
    wrong = [
        entry["turn"]
        for entry in turns
        if [item.get("path") for item in entry["files"]] != [edited]
        or not all(item.get("before") for item in entry["files"])
    ]
    if wrong:
        raise BenchError(f"{workspace.name}: turns {wrong[:5]} did not record {edited} alone")
    return len(turns)


def _import_report(
    box: Sandbox, report: Report, hook: list[str], workspace: Path, agent: ClaudeCode
) -> None:
    bare, pre = ImportTimes(), ImportTimes()
    for number in range(IMPORTTIME_RUNS):
        box.run(hook, workspace, stdin=payload(agent.prompt(f"importtime {number}")))
        before, _ = agent.edit(EDITED, "value_1 =", "value_one =")
        with (workspace / EDITED).open("ab") as handle:
            handle.write(f"# importtime {number}\n".encode())
        completed = box.run([PYTHON, "-X", "importtime", *hook], workspace, stdin=payload(before))
        pre.add(completed.stderr.decode(errors="replace"))
        completed = box.run([PYTHON, "-X", "importtime", "-c", "pass"], workspace)
        bare.add(completed.stderr.decode(errors="replace"))
    added = [name for name in pre.order if name not in bare.modules]
    rewind_modules = sorted(name for name in added if name.startswith("rewind"))
    report.note(
        f"    PreToolUse, -X importtime (median of {IMPORTTIME_RUNS}): all imports "
        f"{pre.total_ms:.2f} ms (python -c pass: {bare.total_ms:.2f} ms); {len(added)} modules "
        f"beyond the bare interpreter's, {len(rewind_modules)} of them rewind's: "
        f"{', '.join(rewind_modules)}\n"
        "    the largest self costs among them:\n" + pre.top(10, added, by_self=True)
    )
    heavy = sorted(
        name for name in pre.modules if any(name == h or name.startswith(h + ".") for h in HEAVY)
    )
    report.figure(
        "heavy modules imported by a PreToolUse Edit",
        ", ".join(heavy) if heavy else f"none of {', '.join(HEAVY)}",
    )
    avoided = [name for name in AVOIDED if name in added]
    report.figure(
        f"of {', '.join(AVOIDED)}, imported by a PreToolUse Edit beyond the bare interpreter",
        ", ".join(avoided) if avoided else "none",
    )
    report.figure(
        "import time of a PreToolUse beyond the bare interpreter",
        ms((pre.total_ms - bare.total_ms) / 1000),
    )


def main(argv: Sequence[str] | None = None) -> int:
    return standalone(NAME, add_arguments, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
