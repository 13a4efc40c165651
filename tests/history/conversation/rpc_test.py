"""A client's JSON-RPC server as rewind talks to it: whatever the server writes, rewind gets an
answer or one sentence saying why not, soon."""

from __future__ import annotations

import sys

import pytest

from rewind.errors import UserError
from rewind.history.conversation.rpc import CONTENT_LENGTH, LINES, RpcProcess

# A server that answers each request with what ``ANSWERS`` (its argument) says, in order.
SERVER = """
import json, sys
answers = iter(sys.argv[1].split(","))
for line in sys.stdin:
    request = json.loads(line)
    kind = next(answers)
    if kind == "deep":  # nested beyond what a JSON parser recurses into, then the answer
        sys.stdout.write("[" * 100000 + "\\n")
        kind = "ok"
    if kind == "ok":
        answer = {"id": request["id"], "result": {"thread": {"id": "t2"}}}
    else:
        answer = {"id": request["id"], "error": {"message": "bad\\nrequest\\r\\n  here"}}
    sys.stdout.write(json.dumps(answer) + "\\n")
    sys.stdout.flush()
"""


def server(*answers: str) -> RpcProcess:
    argv = [sys.executable, "-c", SERVER, ",".join(answers)]
    return RpcProcess(argv, "", "the test's server", LINES, 20.0)


def test_an_answer_nested_too_deep_is_passed_over() -> None:
    with server("deep") as process:
        assert process.call("thread/fork", {}) == {"thread": {"id": "t2"}}


def test_the_servers_error_is_told_on_one_line() -> None:
    with server("error") as process, pytest.raises(UserError) as refused:
        process.call("thread/fork", {})
    assert str(refused.value) == "the test's server refused thread/fork: bad request here."


def test_a_body_longer_than_any_answer_ends_the_talk_at_once() -> None:
    """A ``Content-Length`` no answer has (a buffer that size would exhaust the memory)."""
    script = (
        "import sys; sys.stdin.readline(); "
        "sys.stdout.write('Content-Length: 99999999999999\\r\\n\\r\\n{}'); sys.stdout.flush(); "
        "sys.stdin.read()"
    )
    argv = [sys.executable, "-c", script]
    process = RpcProcess(argv, "", "the test's server", CONTENT_LENGTH, 20.0)
    with process, pytest.raises(UserError) as refused:
        process.call("ping", {})
    assert str(refused.value).startswith("the test's server ended before it answered ping;")
