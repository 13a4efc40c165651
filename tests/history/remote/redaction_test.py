"""The redaction of a shared conversation, in process: what is taken out of a transcript (a
private file's lines however the agent showed them, the providers' secrets), what is left alone
(ordinary text, short lines), and the paths a transcript names."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from rewind.history.remote.named_paths import (
    command_names,
    existing_file,
    linked_targets,
    names_in,
    words,
)
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
    assert found.inside("/srv/project/calc") == {
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


def test_a_relative_name_is_also_taken_where_it_was_used() -> None:
    """Under the record's working directory (Claude Code started in a subfolder), and under
    the directories a ``cd`` earlier in the same command goes to."""
    data = line({"cwd": "/home/a/calc/sub", "input": {"command": "cat .env"}}) + line(
        {"input": {"command": "cd api && cat .env; cd v2 && cat k.pem"}}
    )
    found = names_in(data).inside("/home/a/calc")
    assert {"sub/.env", ".env", "api/.env", "api/v2/k.pem", "v2/k.pem", "k.pem"} <= found
    codex = {"arguments": json.dumps({"command": ["cat", "x.key"], "workdir": "/home/a/calc/w"})}
    assert "w/x.key" in names_in(line({"payload": codex})).inside("/home/a/calc")


def test_the_names_a_command_gives_after_a_cd() -> None:
    plain = {"cd", "sub", "cat", ".env"}
    assert command_names("cd -P sub && cat .env") == plain | {"sub/cat", "sub/.env"}
    assert command_names("cd && cat .env") == {"cd", "cat", ".env"}  # a cd to nowhere
    assert command_names("cd ~/x && cat .env") == {"cd", "~/x", "cat", ".env"}


# A private line longer than a tool shows: a kubeconfig's key, 3,200 characters on one line.
KEY = "".join(hashlib.sha256(b"%d" % n).hexdigest() for n in range(50))
KUBECONFIG = f"users:\n- user:\n    client-key-data: {KEY}\n".encode()


def test_a_long_private_line_cut_short_is_redacted_as_far_as_it_goes() -> None:
    shown = "".join(f"{text[:2000]}\n" for text in KUBECONFIG.decode().splitlines())
    data = line({"content": shown}) + line({"stdout": f"key {KEY[:40]} and on"})
    out, found = redacted(data, {"kubeconfig": [KUBECONFIG]})
    first, second = (json.loads(one) for one in out.splitlines())
    assert first == {"content": "users:\n- user:\n    [redacted: kubeconfig]\n"}
    assert second == {"stdout": "key [redacted: kubeconfig] and on"}  # the value's start alone
    assert found.files == {"kubeconfig": 2}


def test_a_short_or_plain_start_of_a_long_line_is_left_alone() -> None:
    """Less than the anchor of a long line, or the start of a ruler, is ordinary text."""
    ruler = "# " + "-" * 140
    private = {"notes": [f"{ruler}\nclient-key-data: {KEY}\n".encode()]}
    data = line({"stdout": f"{KEY[:31]} and # {'-' * 60}"})
    assert redacted(data, private)[0] == data


def test_the_longest_start_of_the_lines_that_share_an_anchor_is_replaced() -> None:
    first, second = "A" * 4 + KEY[:200], "A" * 4 + KEY[:100] + "-" + KEY[100:200]
    private = {"a": [f"{first}\n".encode()], "b": [f"{second}\n".encode()]}
    out, found = redacted(line({"stdout": f"{second[:150]}|"}), private)
    assert json.loads(out) == {"stdout": "[redacted: b]|"}
    assert found.files == {"b": 1}


@pytest.mark.parametrize(
    ("private", "ascii", "slashes"),
    [
        ("DB_PASSWORD=Geheimnis-Über-2024", True, False),  # \u00dc: json.dumps' default
        ("CERT_PATH=/etc/ssl/private/k3y-7f3a9c.pem", False, True),
        ("LOGIN=Jürgen/k3y-7f3a9c", True, True),
        ("LOGIN=Jürgen/k3y-7f3a9c", False, False),
    ],
    ids=["unicode-escaped", "slashes-escaped", "both-escaped", "as-it-is"],
)
def test_a_private_line_is_found_however_json_writes_it(
    private: str, ascii: bool, slashes: bool
) -> None:
    """A writer may escape every character beyond ASCII (``\\u00dc``) or every ``/``
    (``\\/``): valid JSON, in a line looked for as it is written."""
    shown = json.dumps({"content": f"1\t{private}\n"}, ensure_ascii=ascii)
    data = (shown.replace("/", "\\/") if slashes else shown).encode() + b"\n"
    out, found = redacted(data, {"local.conf": [f"{private}\nDEBUG=1\n".encode()]})
    assert json.loads(out) == {"content": "1\t[redacted: local.conf]\n"}
    assert found.files == {"local.conf": 1}
    out, _ = redacted(data[:-3], {"local.conf": [f"{private}\n".encode()]})  # not JSON: cut
    assert b"[redacted: local.conf]" in out and b"Geheimnis" not in out and b"k3y" not in out


def test_credentials_in_a_url_written_with_escaped_slashes() -> None:
    data = b'{"stdout":"git clone https:\\/\\/bot:Sup3rS3cret@example.com\\/r.git"}\n'
    out, found = redacted(data)
    assert b"Sup3rS3cret" not in out and found.secrets == {"Basic Auth Credentials": 1}


def test_a_private_file_is_read_through_a_link_wherever_it_leads(tmp_path: Path) -> None:
    root, elsewhere = tmp_path / "calc", tmp_path / "secrets"
    for folder in (root / "config", root / "local", elsewhere):
        folder.mkdir(parents=True)
    (elsewhere / "calc.env").write_text("SECRET=1\n")
    (root / ".env").symlink_to(elsewhere / "calc.env")
    (root / "local" / "app.json").write_text("{}\n")
    (root / "config" / "app.json").symlink_to("../local/app.json")
    (root / "config" / "out").symlink_to(elsewhere / "calc.env")
    top = os.fsencode(root)
    assert existing_file(top, ".env") == b"SECRET=1\n"
    named = {b".env", b"config/app.json", b"config/out", b"config", b"missing"}
    assert linked_targets(top, named) == {b"local/app.json"}  # a link out gives no project path
