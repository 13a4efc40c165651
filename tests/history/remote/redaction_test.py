"""The redaction of a shared conversation, in process: what is taken out of a transcript (a
private file's lines however the agent showed them, the providers' secrets), what is left alone
(ordinary text, short lines), and the paths a transcript names."""

from __future__ import annotations

import json

import pytest

from rewind.history.remote.named_paths import names_in, words
from rewind.history.remote.redaction import Found, Redactor
from rewind.history.remote.secrets import secrets_in

pytestmark = pytest.mark.unit

ENV = b'SECRET_TOKEN=tok_9f8e7d6c5b4a3928\nQUOTED="a \\"quoted\\" value\\\\here"\nDEBUG=1\n'


def line(record: object) -> bytes:
    return json.dumps(record, separators=(",", ":")).encode() + b"\n"


def redacted(data: bytes, private: dict[str, list[bytes]] | None = None) -> tuple[bytes, Found]:
    found = Found()
    return Redactor(private or {}).transcript(data, found), found


def test_a_private_file_read_with_line_numbers_is_redacted_line_by_line() -> None:
    shown = "".join(f"{n:6d}\t{text}\n" for n, text in enumerate(ENV.decode().splitlines(), 1))
    data = line({"type": "user", "content": shown}) + line({"type": "other", "text": "kept"})
    out, found = redacted(data, {".env": [ENV]})
    first, second, _ = out.split(b"\n")
    content = json.loads(first)["content"]
    assert "tok_9f8e7d6c5b4a3928" not in content and '\\"quoted\\"' not in content
    assert content.splitlines() == [
        "     1\t[redacted: .env]",
        "     2\t[redacted: .env]",
        "     3\tDEBUG=1",  # too short to be told from ordinary text
    ]
    assert second == data.split(b"\n")[1]  # a line with nothing to redact: byte for byte
    assert found.files == {".env": 2}


def test_a_whole_file_is_one_marker_and_a_value_alone_is_found_too() -> None:
    data = line({"content": ENV.decode()}) + line({"stdout": "tok_9f8e7d6c5b4a3928\n"})
    out, found = redacted(data, {".env": [ENV]})
    assert [json.loads(one) for one in out.splitlines()] == [
        {"content": "[redacted: .env]\n"},
        {"stdout": "[redacted: .env]\n"},
    ]
    assert found.files == {".env": 2}


def test_a_line_the_cut_split_is_redacted_as_raw_text() -> None:
    whole = line({"content": "x SECRET_TOKEN=tok_9f8e7d6c5b4a3928 y"})
    out, _ = redacted(whole[:30], {".env": [ENV]})  # not JSON: half a line
    assert out == whole[:30]  # nothing of the secret in it yet
    out, _ = redacted(whole[20:], {".env": [ENV]})
    assert b"tok_9f8e7d6c5b4a3928" not in out and b"[redacted: .env]" in out


@pytest.mark.parametrize(
    ("secret", "kind"),
    [
        ("AKIAZ7QWERTY12345678", "AWS Access Key"),
        ("ghp_" + "a1B2c3D4e5F6g7H8i9J0" * 2 + "k1L2", "GitHub Token"),
        ("xoxb-123456789012-123456789012-" + "a" * 24, "Slack Token"),
        ("sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "Stripe Access Key"),
        ("sk-ant-api03-" + "x9" * 45, "Anthropic API Key"),
        ("AIza" + "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", "Google API Key"),
        ("glpat-" + "Zq3fY7mPw2Kx9LbN4vRt", "GitLab Token"),
        (
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
            "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "JSON Web Token",
        ),
    ],
)
def test_provider_tokens_are_redacted_whole_with_their_kind(secret: str, kind: str) -> None:
    out, found = redacted(line({"stdout": f"value: {secret}\n"}))
    assert json.loads(out) == {"stdout": f"value: [redacted: {kind}]\n"}
    assert found.secrets == {kind: 1}


def test_credentials_in_a_url_and_a_private_key_block() -> None:
    block = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----"
    text = f"git clone https://bot:Sup3rS3cret@example.com/r.git\n{block}\nafter\n"
    found = Found()
    out = Redactor({}).text(text, found)
    assert out == (
        "git clone https://bot:[redacted: Basic Auth Credentials]@example.com/r.git\n"
        "[redacted: Private Key]\nafter\n"
    )


ORDINARY = [
    "def total(values: list[int]) -> int:\n    return sum(values)\n",
    "commit 3f9a2c1e8b7d6f5a4e3d2c1b0a9f8e7d6c5b4a39 (HEAD -> main)",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "request 123e4567-e89b-12d3-a456-426614174000 took 35ms, see https://example.com/a?b=c",
    "npm ERR! code ERESOLVE; SKIPPED ACCESS_TOKEN_PLACEHOLDER; ACTION REQUIRED",
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "export PATH=/usr/local/bin:$PATH && DEBUG=1 make test -j2",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert list(secrets_in(text)) == []
    data = line({"stdout": text, "ok": True})
    assert redacted(data, {".env": [ENV]})[0] == data


def test_the_names_a_transcript_gives() -> None:
    data = b"".join(
        [
            line({"cwd": "/home/a/calc", "input": {"file_path": "/home/a/calc/.env"}}),
            line({"input": {"command": "cat config/db.yml | grep -v '#' > out.txt"}}),
            line({"payload": {"arguments": json.dumps({"command": ["bash", "-lc", "cat k.pem"]})}}),
            line({"args": {"absolute_path": "/elsewhere/x"}, "text": "path"}),
            b'{"not json": "path"\n',
        ]
    )
    found = names_in(data)
    assert found.directories == {"/home/a/calc"}
    assert found.inside("/work/calc") == {
        ".env",  # under the cwd the transcript records (another machine's root)
        "config/db.yml",
        "out.txt",
        "bash",
        "cat",
        "grep",
        "k.pem",
    }


def test_the_words_of_a_command_that_may_be_paths() -> None:
    assert words("cat .env&&echo 'a b' --file=x.key -v") == {"cat", ".env", "echo", "a b", "x.key"}
    assert words("echo 'unclosed") == {"echo", "'unclosed"}
