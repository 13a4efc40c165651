"""Every reader of outside input, fed adversarial input (issue 33): nesting at, just past and far
past the limit, sizes past it, documents cut anywhere, invalid UTF-8, lone surrogates, token
soup. Each reader answers in its own way (a value, or a refusal: ValueError, UserError, a
skipped record), within a few seconds, and never with a RecursionError, a MemoryError or any
other exception; a hook exits 0 and prints nothing, whatever it is sent.

The inputs are drawn from a seeded random generator, so that a failure is the same failure
again (REWIND_FUZZ_SEED picks another seed, REWIND_FUZZ_ROUNDS more rounds)."""

from __future__ import annotations

import errno
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from rewind.errors import UserError
from rewind.history.conversation import claude_code, gemini
from rewind.history.conversation.branch import read_transcript
from rewind.history.conversation.rpc import LINES, RpcProcess
from rewind.history.entry import entry_from_record
from rewind.installers import jsonc
from rewind.installers.settings_file import SettingsFile
from rewind.patches import diff_paths, patch_moves, patch_paths
from rewind.store import fastjson
from rewind.store.input_limits import (
    DEPTH,
    PAYLOAD_BYTES,
    TRANSCRIPT_BYTES,
    load_toml,
    loads_toml,
)
from tests.support import agent_payloads

SEED = int(os.environ.get("REWIND_FUZZ_SEED", "33"))
ROUNDS = int(os.environ.get("REWIND_FUZZ_ROUNDS", "300"))
# What one call may take at most, on a loaded machine: a hang, or work in the square of the
# input, takes far longer.
SECONDS = 10.0
# The patch readers look at a few lines only: a patch of many megabytes in well under a second.
PATCH_SECONDS = 1.5
DEPTHS = (DEPTH - 1, DEPTH, DEPTH + 1, 2 * DEPTH, 10_000, 100_000)
SURROGATES = ("\ud800", "\udfff", "\\ud800", "\\udc00x", "\\ud83d\\ude00")

JSON_SAMPLES = [
    '{"hook_event_name": "PreToolUse", "tool_input": {"file_path": "a.txt", "content": "x"}}',
    '[1, 2.5e3, -0, "a\\u00e9\\n", null, true, false, {"k": [[], {}]}]',
    '{\n  // a comment\n  "hooks": {"Stop": [{"hooks": []},]},\n  /* more */ "x": 1\n}\n',
]
TOML_SAMPLES = [
    'model = "o3"\n\n[mcp_servers.github]\ncommand = "github-mcp"\nargs = ["stdio"]\n',
    '[projects."/home/u/p"]\ntrust_level = "trusted"\nx = {a = [1, 2.5, "s"], b.c = true}\n',
    "a.b.c = 1979-05-27T07:32:00Z\n[[arr]]\nv = '''multi\nline'''\n",
]
PATCH_SAMPLES = [
    "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-x\n+y\n*** End Patch\n",
    "*** Begin Patch\n*** Add File: new.txt\n+hello\n*** Delete File: old.txt\n*** End Patch\n",
    "diff --git a/x y b/x y\n--- a/x y\n+++ b/x y\n@@ -1 +1 @@\n-a\n+b\n"
    'rename from "q\\303\\251"\n',
]


def nested(depth: int, rng: random.Random) -> str:
    """A JSON value ``depth`` levels deep: arrays, objects or both, closed or not."""
    opener, closer = rng.choice([("[", "]"), ('{"k":', "}"), ('[{"k":', "}]")])
    if len(opener) > 1 and opener.startswith("["):
        depth //= 2
    inner = rng.choice(["1", '"x"', "[]", "{}"])
    closed = rng.random() < 0.8
    return opener * depth + inner + (closer * depth if closed else "")


def mutations(text: str, rng: random.Random) -> str:
    """``text`` spoiled one way: cut, flipped, a surrogate put in, repeated, shuffled."""
    how = rng.randrange(6)
    at = rng.randrange(len(text) + 1)
    if how == 0:
        return text[:at]
    if how == 1:
        return text[:at] + chr(rng.randrange(0x20, 0x7F)) + text[at + 1 :]
    if how == 2:
        return text[:at] + rng.choice(SURROGATES) + text[at:]
    if how == 3:
        return text * rng.randrange(2, 2000)
    if how == 4:
        pieces = list(text)
        rng.shuffle(pieces)
        return "".join(pieces)
    return text[:at] + text[at:][::-1]


def json_inputs(rng: random.Random, samples: list[str]) -> Iterator[str]:
    for depth in DEPTHS:
        yield nested(depth, rng)
        yield '{"a": ' + nested(depth, rng) + "}"
    yield '"' + "x" * 20_000_000 + '"'  # 20 MB in one string
    yield "1" * 100_000  # past the digits Python turns into an int
    yield "[" + "1e999999," * 1000 + "NaN, -Infinity]"
    yield "[" * 1_000_000  # a million levels, never closed
    for _ in range(ROUNDS):
        yield mutations(rng.choice(samples), rng)
        yield "".join(rng.choice('[]{}:,"\\ 1-.eE\ntrue nul/*') for _ in range(rng.randrange(64)))


def toml_inputs(rng: random.Random) -> Iterator[str]:
    for depth in DEPTHS:
        yield "a = " + "[" * depth + "]" * depth + "\n"
        yield "a = " + "{b = " * depth + "1" + "}" * depth + "\n"
        yield ".".join(["k"] * depth) + " = 1\n"
        yield "[" + ".".join(['"q"'] * depth) + "]\n"
        yield "x = {" + " . ".join(["k"] * depth) + " = 1}\n"
    yield 'x = "' + "." * 1_000_000 + '"\n'
    yield "k" * 1_000_000 + "." * 100 + " = 1\n"
    for _ in range(ROUNDS):
        yield mutations(rng.choice(TOML_SAMPLES), rng)
        yield "".join(rng.choice("[]{}=.,\"' ak1\n#") for _ in range(rng.randrange(64)))


def patch_inputs(rng: random.Random) -> Iterator[str]:
    yield "*** Add File: " * 1_000_000
    yield "x" + "*** Update File: a\n" * 200_000
    # Names far longer than a path: no longer decoded a character at a time (seconds, before).
    yield "diff --git " + '"' + "\\303" * 8_000_000 + '" b/x\n'
    yield "rename from " + '"' + "a" * 32_000_000 + '"\n'
    yield "+++ b/x\n" * 300_000
    yield "--- a/" + "x" * 5_000_000 + "\n+++ b/y\n"
    for _ in range(ROUNDS):
        yield mutations(rng.choice(PATCH_SAMPLES), rng)


def surely(
    call: Callable[[], object],
    refusals: tuple[type[BaseException], ...],
    seconds: float = SECONDS,
) -> None:
    """``call()`` returns, or raises one of ``refusals``, within ``seconds``."""
    start = time.monotonic()
    try:
        call()
    except refusals:
        pass
    assert time.monotonic() - start < seconds


def described(text: str) -> str:
    return repr(text[:80]) + f" ({len(text)} characters)"


# In-process readers ------------------------------------------------------------------------------


def test_the_hook_path_json_reader() -> None:
    """rewind.store.fastjson: hook events, records, transcripts' lines, the store's own files."""
    rng = random.Random(SEED)
    for text in json_inputs(rng, JSON_SAMPLES):
        try:
            surely(lambda: fastjson.loads(text), (ValueError,))  # noqa: B023
        except BaseException as error:
            raise AssertionError(f"{described(text)}: {error!r}") from error
    assert fastjson.loads("[" * DEPTH + "]" * DEPTH)
    with pytest.raises(ValueError, match=f"more than {DEPTH} levels"):
        fastjson.loads("[" * (DEPTH + 1) + "]" * (DEPTH + 1))


MCP_SAMPLES = [
    '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "rewind_log", '
    '"arguments": {"count": 5, "grep": "x"}}}',
    '{"jsonrpc": "2.0", "method": "notifications/initialized"}',
    '{"jsonrpc": "2.0", "id": "a", "result": {}}',
]


def test_the_mcp_servers_line_reader() -> None:
    """rewind.mcp.stdio: each line a client sends ``rewind mcp`` is a message or a JSON-RPC
    error (Refused), never anything else."""
    from rewind.mcp.stdio import Refused, read_message

    rng = random.Random(SEED)
    for text in json_inputs(rng, MCP_SAMPLES):
        raw = text.encode("utf-8", "surrogatepass")
        try:
            surely(lambda: read_message(raw), (Refused,))  # noqa: B023
        except BaseException as error:
            raise AssertionError(f"{described(text)}: {error!r}") from error
    for sample in MCP_SAMPLES:
        read_message(sample.encode())


def test_the_settings_reader() -> None:
    """rewind.installers.jsonc: every agent's JSON settings, with comments."""
    rng = random.Random(SEED)
    for text in json_inputs(rng, JSON_SAMPLES):
        try:
            surely(lambda: jsonc.parse(text), (jsonc.JsoncError,))  # noqa: B023
        except BaseException as error:
            raise AssertionError(f"{described(text)}: {error!r}") from error
    assert jsonc.parse("[" * DEPTH + "]" * DEPTH).kind == "array"
    with pytest.raises(jsonc.JsoncTooDeep):
        jsonc.parse("[" * (DEPTH + 1) + "]" * (DEPTH + 1))


def test_the_settings_files(tmp_path: Path) -> None:
    """A settings file as install reads it: bytes, not text (invalid UTF-8 too)."""
    rng = random.Random(SEED)
    path = tmp_path / "settings.json"
    inputs = [text.encode("utf-8", "surrogatepass") for text in json_inputs(rng, JSON_SAMPLES)]
    inputs += [b"\xff\xfe{}", b'{"a": "\xc3"}', b"\xef\xbb\xbf" + b"[" * 100_000, b"\x00" * 1000]
    for data in inputs[::7]:  # a file per input costs; every seventh is plenty
        path.write_bytes(data)
        try:
            surely(lambda: SettingsFile.read(str(path)), (UserError,))
        except BaseException as error:
            raise AssertionError(f"{data[:80]!r} ({len(data)} bytes): {error!r}") from error


def test_the_toml_reader(tmp_path: Path) -> None:
    """rewind.store.input_limits.loads_toml: Codex's config.toml, rewind.toml."""
    rng = random.Random(SEED)
    path = tmp_path / "config.toml"
    for text in toml_inputs(rng):
        try:
            surely(lambda: loads_toml(text), (ValueError,))  # noqa: B023
        except BaseException as error:
            raise AssertionError(f"{described(text)}: {error!r}") from error
    for data in (b"\xef\xbb\xbfa = 1\n", b'a = "\xff"\n', b"\xef\xbb\xbf\xef\xbb\xbfa = 1\n"):
        path.write_bytes(data)
        surely(lambda: load_toml(str(path)), (ValueError,))
    assert loads_toml("\ufeffa = 1") == {"a": 1}


def test_the_patch_readers() -> None:
    """rewind.patches: an apply_patch tool's input, a patch on a command line or in a file."""
    rng = random.Random(SEED)
    for text in patch_inputs(rng):
        for read in (
            lambda: patch_paths(text),  # noqa: B023
            lambda: patch_moves(text),  # noqa: B023
            lambda: diff_paths(text, None),  # noqa: B023
            lambda: diff_paths(text, 1),  # noqa: B023
        ):
            try:
                surely(read, (), PATCH_SECONDS)
            except BaseException as error:
                raise AssertionError(f"{described(text)}: {error!r}") from error


def test_the_records_a_remote_sends() -> None:
    """rewind.history.entry.entry_from_record: a turn.json as fetched, any bytes at all."""
    rng = random.Random(SEED)
    honest = json.dumps(
        {"format": 1, "session": "s", "number": 1, "id": "0123456789ab", "kind": "turn",
         "prompt": "x", "started": 1.0, "ended": 2.0, "files": [
             {"path": "a.txt", "before": {"kind": "absent"}, "after": {"kind": "absent"}}]}
    )  # fmt: skip
    inputs = list(json_inputs(rng, [honest]))
    for text in inputs:
        data = text.encode("utf-8", "surrogatepass")
        for record in (data, data[: len(data) // 2] + b"\xff" + data[len(data) // 2 :]):
            try:
                surely(lambda: entry_from_record(record), (ValueError,))  # noqa: B023
            except BaseException as error:
                raise AssertionError(f"{described(text)}: {error!r}") from error


def test_the_transcript_readers() -> None:
    """A resume's checks of a Claude Code transcript and a Gemini CLI session file."""
    rng = random.Random(SEED)
    lines = [text.encode("utf-8", "surrogatepass") for text in json_inputs(rng, JSON_SAMPLES)]
    lines += [b"\xff\xfe", b'{"type": "queue-operation"}', b"\xed\xa0\x80"]  # a raw surrogate
    for start in range(0, len(lines), 5):
        chunk = [line + b"\n" for line in lines[start : start + 5]]
        try:
            surely(lambda: claude_code._records(chunk, 1), (UserError,))  # noqa: B023
            surely(lambda: gemini._check_format(b"".join(chunk), 1), (UserError,))  # noqa: B023
        except BaseException as error:
            raise AssertionError(f"{chunk[0][:80]!r}: {error!r}") from error


def test_a_transcript_larger_than_the_limit_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    path.write_bytes(b"")
    os.truncate(path, TRANSCRIPT_BYTES + 1)  # sparse: nothing is written to disk
    for size in (None, TRANSCRIPT_BYTES + 1):
        with pytest.raises(OSError) as refused:
            read_transcript(str(path), size)
        assert refused.value.errno == errno.EFBIG
        assert "larger than 1024 MiB" in str(refused.value.strerror)
    assert read_transcript(str(path), 10) == b"\0" * 10


# Processes -----------------------------------------------------------------------------------


def rpc_server(output: str) -> list[str]:
    """A JSON-RPC 'server' that writes ``output`` (Python that writes to ``out``), then waits."""
    script = f"import sys, time\nout = sys.stdout.buffer\n{output}\nout.flush()\ntime.sleep(60)"
    return [sys.executable, "-c", script]


@pytest.mark.parametrize(
    ("output", "said"),
    [
        ("while True: out.write(b'x' * (1 << 20))", "ended before it answered"),
        ("out.write(b'[' * 100000 + b'\\n')", "did not answer thread/fork within 5 s"),
        ('out.write(b\'\\xff\\xfe\\n\' + b\'{"id": 1, "result": "\\\\ud800"}\\n\')', ""),
    ],
    ids=["endless-line", "nested-100000", "invalid-utf8-then-an-answer"],
)
def test_a_clients_rpc_server_that_answers_garbage(tmp_path: Path, output: str, said: str) -> None:
    """What 'rewind resume' reads from Codex's or Copilot's JSON-RPC server: a line is read
    no further than RPC_MESSAGE_BYTES (an endless one ends the talk at once, where it filled
    the memory until the deadline); anything but an answer is passed over."""
    start = time.monotonic()
    with RpcProcess(rpc_server(output), str(tmp_path), "the server", LINES, 5.0) as server:
        try:
            answer = server.call("thread/fork", {})
        except UserError as error:
            assert said and said in str(error), error
        else:
            assert not said and answer == {}, answer  # a result that is not an object
    assert time.monotonic() - start < 30


AGENTS: list[Any] = [
    agent_payloads.ClaudeCode,
    agent_payloads.Codex,
    agent_payloads.Gemini,
    agent_payloads.Cursor,
    agent_payloads.Cline,
    agent_payloads.Windsurf,
    agent_payloads.Copilot,
]


def hostile_events(agent: Any, rng: random.Random) -> Iterator[bytes]:
    """Events of ``agent`` spoiled: cut, nested too deep where a value goes, invalid UTF-8,
    lone surrogates, and garbage."""
    write = agent.write("a.txt", "hello\n")
    events = [event for event in (agent.prompt("p"), *write) if isinstance(event, dict)]
    for event in events:
        text = json.dumps(event)
        yield text[: rng.randrange(len(text))].encode()
        key = rng.choice(list(event))
        deep = json.dumps({**event, key: None}).replace("null", nested(100_000, rng), 1)
        yield deep.encode()
        yield json.dumps({**event, key: "\ud800"}).encode()
        yield text.encode().replace(b"a.txt", b"a\xff\xfe.txt")
    yield b"\x00\xff" * 1000
    yield b"[" * (DEPTH + 1) + b"]" * (DEPTH + 1)


def run_hook(agent: str, data: bytes, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "rewind", "hook", agent],
        input=data,
        capture_output=True,
        cwd=cwd,
        timeout=60,
    )


def logged() -> str:
    """Everything the hooks logged, in every store and in $REWIND_HOME."""
    home = Path(os.environ["REWIND_HOME"])
    return "".join(path.read_text(errors="replace") for path in home.rglob("*.log"))


@pytest.mark.parametrize("make", AGENTS, ids=[agent.name for agent in AGENTS])
def test_a_hook_sent_garbage_exits_0_and_prints_nothing(project: Path, make: Any) -> None:
    rng = random.Random(SEED)
    agent = make(project)
    for data in hostile_events(agent, rng):
        done = run_hook(agent.name, data, project)
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b""), (data[:80], done)
    assert "a bug in rewind" not in logged() and "Traceback" not in logged(), logged()


def test_a_hook_event_larger_than_the_limit_is_ignored_unread(project: Path) -> None:
    """Read no further than PAYLOAD_BYTES; the rest is drained, so the agent never blocks."""
    payload = agent_payloads.ClaudeCode(project).prompt("x" * (PAYLOAD_BYTES + 1))
    done = run_hook("claude-code", json.dumps(payload).encode(), project)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b""), done
    assert "the event is larger than 64 MiB" in logged(), logged()
