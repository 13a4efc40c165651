"""conversation_redaction: ``rewind push`` of a session whose shared conversation is a 50 MB
transcript, redacted on the way (docs/conversation.md, "What is redacted"), against git's own
push of the same conversation as it was kept, and the redaction alone against parsing the
transcript.

A git project holds a ``.env`` that git ignores, and keeps and shares its conversation
(``[conversation] keep = true, share = true``). A 50 MB transcript shaped like Claude Code's
(Read calls and their results, the files with line numbers and beside their paths, shell
commands and their output, replies) is written, the agent reading ``.env`` near its end and a
command printing a GitHub token; Claude Code's prompt hook keeps it as the second turn's slice.

Timed as processes, interleaved, each run to a fresh empty bare repository: ``rewind push
REMOTE --all`` (its record of what each commit became removed first: every run redacts the
whole transcript), and the reference, ``git --git-dir=STORE push EMPTY
'refs/rewind/conversations/*:refs/x/*'``: git's transport of the conversation as it was kept,
unredacted. In one process, interleaved: ``Redactor.transcript`` of the file, and reading it
(``json.loads`` of each line), the least any reader of a transcript pays. Then one more turn
(a few KB) and ``rewind push`` again: it redacts the new slice only.

Targets: the push at most 3.5x git's push of the unredacted conversation (medians), and the
redaction at most 12x parsing the transcript. Parsing reads the transcript once, in C; the
redaction looks for some 35 anchors and private lines over the whole of it, each at about
1 GB/s: what it costs grows with the transcript and those strings, never with the work tree.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from tests.bench.harness import (
    BenchError,
    Report,
    Sandbox,
    choose,
    git_init,
    median,
    progress,
    rewind_script,
    settle,
    spread,
    standalone,
)

NAME = "conversation_redaction"
PUSH_TARGET = 3.5
REDACTION_TARGET = 12.0
SESSION = "bench"
TOKEN = "tok_5f4e3d2c1b0a99887766554433221100"
GITHUB = "ghp_" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa"
REFERENCE_REFSPEC = "refs/rewind/conversations/*:refs/x/*"

STORE_DIR = (
    "from rewind.history.restoring.opening import open_current_store\n"
    "print(open_current_store().git_dir)\n"
)

# Times the redaction and the parsing of one transcript, interleaved, in one process.
IN_PROCESS = """
import json, sys, time
from rewind.history.remote.redaction import Found, Redactor
from rewind.history.remote.secrets import detectors
data = open(sys.argv[1], "rb").read()
env = open(sys.argv[2], "rb").read()
runs = int(sys.argv[3])
detectors()  # detect-secrets imported once, as a push does before it redacts
redact, parse = [], []
for _ in range(runs):
    start = time.perf_counter()
    found = Found()
    out = Redactor({".env": [env]}).transcript(data, found)
    redact.append(time.perf_counter() - start)
    start = time.perf_counter()
    for line in data.splitlines():
        json.loads(line)
    parse.append(time.perf_counter() - start)
print(json.dumps({"redact": redact, "parse": parse, "found": found.to_json(),
                  "same_lines": out.count(b"\\n") == data.count(b"\\n")}))
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--redaction-mb",
        type=int,
        default=None,
        metavar="N",
        help="size of the transcript in MB (default 50, quick 5; env REWIND_BENCH_REDACTION_MB)",
    )
    parser.add_argument(
        "--redaction-runs",
        type=int,
        default=None,
        metavar="N",
        help="timed runs of each (default 5, quick 2; env REWIND_BENCH_REDACTION_RUNS)",
    )


def transcript(size: int, root: Path, env: str) -> bytes:
    """About ``size`` bytes of Claude Code's transcript records of a coding session."""
    lines: list[bytes] = []
    total = 0
    number = 0
    while total < size:
        number += 1
        path = f"src/module{number % 40:02d}.py"
        body = "".join(
            f"    value_{k} = combine(value_{k - 1}, {k * 7 % 13}, 'step {k} of {number}')\n"
            for k in range(1, 120)
        )
        records = _read(root, path, body, number)
        records.append(_text(number, f"Changed {path}: the helper now keeps {number % 17} slots."))
        if number % 5 == 0:
            output = f"tests: {number} passed in 0.{number % 97:02d}s\ncommit {number:040x}\n"
            records += _shell(f"pytest -q tests/test_{number % 40}.py", output, number)
        for record in records:
            line = json.dumps(record, separators=(",", ":")).encode() + b"\n"
            lines.append(line)
            total += len(line)
    near_end = [*_read(root, ".env", env, 0), *_shell("gh auth token", GITHUB + "\n", 1)]
    tail = [json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in near_end]
    return b"".join(lines[:-10] + tail + lines[-10:])


def _read(root: Path, path: str, content: str, number: int) -> list[dict[str, object]]:
    shown = "".join(f"{n:6d}\t{line}\n" for n, line in enumerate(content.splitlines(), 1))
    call = {
        "type": "tool_use",
        "id": f"r{number}",
        "name": "Read",
        "input": {"file_path": str(root / path)},
    }
    result = {"type": "tool_result", "tool_use_id": f"r{number}", "content": shown}
    file = {"filePath": str(root / path), "content": content}
    return [
        {"type": "assistant", "uuid": f"a{number}", "version": "2.1.332", "cwd": str(root),
         "message": {"role": "assistant", "content": [call]}},
        {"type": "user", "uuid": f"u{number}", "version": "2.1.332", "cwd": str(root),
         "message": {"role": "user", "content": [result]},
         "toolUseResult": {"type": "text", "file": file}},
    ]  # fmt: skip


def _shell(command: str, output: str, number: int) -> list[dict[str, object]]:
    call = {"type": "tool_use", "id": f"s{number}", "name": "Bash", "input": {"command": command}}
    result = {"type": "tool_result", "tool_use_id": f"s{number}", "content": output}
    return [
        {"type": "assistant", "uuid": f"b{number}", "message": {"content": [call]}},
        {"type": "user", "uuid": f"o{number}", "message": {"content": [result]},
         "toolUseResult": {"stdout": output}},
    ]  # fmt: skip


def _text(number: int, text: str) -> dict[str, object]:
    content = [{"type": "text", "text": text}]
    return {"type": "assistant", "uuid": f"t{number}", "message": {"content": content}}


def run(options: argparse.Namespace) -> Report:
    megabytes = choose(options.redaction_mb, "REWIND_BENCH_REDACTION_MB", 50, 5, options.quick)
    runs = choose(options.redaction_runs, "REWIND_BENCH_REDACTION_RUNS", 5, 2, options.quick)
    report = Report(NAME)
    script = rewind_script()
    with Sandbox("redaction", keep=options.keep) as box:
        project = box.root / "project"
        git_init(box, project)
        env = f"SECRET_TOKEN={TOKEN}\nDATABASE_URL=postgres://app:pw-7f3a9c@db:5432/app\n"
        (project / ".gitignore").write_text(".env\n")
        (project / ".env").write_text(env)
        (project / "rewind.toml").write_text("[conversation]\nkeep = true\nshare = true\n")
        box.run(["git", "add", "-A"], project)
        box.run(["git", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "start"], project)
        file = box.root / "claude" / f"{SESSION}.jsonl"
        file.parent.mkdir()
        progress(f"writing a {megabytes} MB transcript and keeping it")
        hook = [script, "hook", "claude-code"]

        def turn(number: int) -> None:
            event = {"session_id": SESSION, "cwd": str(project), "transcript_path": str(file)}
            prompt = {"prompt": f"turn {number}", "prompt_id": f"p{number}"}
            box.run(hook, project, stdin=_event({**event, **prompt}, "UserPromptSubmit"))
            stop = {"last_assistant_message": f"Done with turn {number}."}
            box.run(hook, project, stdin=_event({**event, **stop}, "Stop"))

        turn(1)
        file.write_bytes(transcript(megabytes << 20, project, env))
        turn(2)
        store = box.run([sys.executable, "-c", STORE_DIR], project).stdout.decode().strip()
        records = Path(store) / "rewind" / "shared-conversations"
        _check_pushed(box, script, project, records)
        settle()
        _time_pushes(box, report, script, project, store, records, runs)
        _time_in_process(box, report, file, project / ".env", runs)
        with file.open("ab") as handle:
            handle.write(
                b"".join(json.dumps(_text(n, "more " * 40)).encode() + b"\n" for n in range(20))
            )
        turn(3)
        again = box.timed([script, "push", "remote0", "--all"], project)
        report.figure("rewind push of one more turn (its slice redacted)", f"{again:.2f} s")
    return report


def _event(payload: dict[str, object], name: str) -> bytes:
    return json.dumps({**payload, "hook_event_name": name}).encode()


def _check_pushed(box: Sandbox, script: str, project: Path, records: Path) -> None:
    """The timed push must do the work: the dry run counts what it redacts."""
    box.run(["git", "init", "-q", "--bare", str(box.root / "check.git")], project)
    box.run([script, "remote", "add", "check", str(box.root / "check.git")], project)
    dry = json.loads(
        box.run([script, "push", "check", "--all", "--dry-run", "--json"], project).stdout
    )
    found = dry["sessions"][0]["redacted"]
    if found["files"].get(".env", 0) < 2 or found["secrets"].get("GitHub Token", 0) < 2:
        raise BenchError(f"the dry run does not redact what the transcript holds: {found}")
    shutil.rmtree(records, ignore_errors=True)


def _time_pushes(
    box: Sandbox,
    report: Report,
    script: str,
    project: Path,
    store: str,
    records: Path,
    runs: int,
) -> None:
    progress(f"{runs} rounds of rewind push and git push")
    times: dict[str, list[float]] = {"rewind": [], "git": []}
    for index in range(runs + 1):  # the first round warms up
        remote = box.root / f"remote{index}.git"
        plain = box.root / f"plain{index}.git"
        for bare in (remote, plain):
            box.run(["git", "init", "-q", "--bare", str(bare)], project)
        box.run([script, "remote", "add", f"remote{index}", str(remote)], project)
        shutil.rmtree(records, ignore_errors=True)
        settle()
        pushed = box.timed([script, "push", f"remote{index}", "--all"], project)
        settle()
        git = ["git", f"--git-dir={store}", "push", "-q", str(plain), REFERENCE_REFSPEC]
        plain_push = box.timed(git, project)
        if index:
            times["rewind"].append(pushed)
            times["git"].append(plain_push)
    reference = median(times["git"])
    report.figure("git push of the kept conversation (unredacted)", spread(times["git"]))
    report.figure("rewind push --all, redacting it", spread(times["rewind"]))
    report.check("rewind push / git push", median(times["rewind"]) / reference, "<=", PUSH_TARGET)


def _time_in_process(box: Sandbox, report: Report, file: Path, env: Path, runs: int) -> None:
    progress(f"{runs} rounds of the redaction and of parsing, in one process")
    argv = [sys.executable, "-c", IN_PROCESS, str(file), str(env), str(runs)]
    timed = json.loads(box.run(argv, file.parent).stdout)
    if not timed["same_lines"]:
        raise BenchError("the redaction added or removed lines")
    report.figure("parsing the transcript (json.loads of each line)", spread(timed["parse"]))
    report.figure("Redactor.transcript", spread(timed["redact"]))
    report.figure("what it redacted", json.dumps(timed["found"], sort_keys=True))
    ratio = median(timed["redact"]) / median(timed["parse"])
    report.check("redaction / parsing", ratio, "<=", REDACTION_TARGET)


def main(argv: Sequence[str] | None = None) -> int:
    return standalone(NAME, add_arguments, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
