"""A kept conversation a remote made up ([conversation] share): whatever its chain holds, ``rewind
resume TURN --remote`` refuses in one sentence and writes nothing of the store's, ``rewind show``
prints a reply with its escape sequences made harmless, and only a copy that matches the
turn's own cut point (its size and fingerprint; for a copy redacted before it was pushed, the
size and fingerprint its slice says the redacted copy has) is ever handed to a client."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.faults.hostile_remote_test import (
    PROJECT,
    Forge,
    change,
    local_state,
    record,
    tolerable,
    victim_machine,
)
from tests.support.remote_servers import Machine, bare_repository

ENTRY = "0123456789ab"
TRANSCRIPT = b"".join(
    json.dumps({"type": kind, "uuid": kind, "version": "2.1.332"}).encode() + b"\n"
    for kind in ("user", "assistant")
)
SESSION_REF = f"refs/rewind/{PROJECT}/mallory/conversations/h1"
PATH = "/home/mallory/.claude/projects/calc/h1.jsonl"


@pytest.fixture
def forge(tmp_path: Path) -> Forge:
    forge = Forge(bare_repository(tmp_path / "hostile.git"))
    turn = record("h1", change("ok.txt"), prompt="two")
    turn["agent"] = "claude-code"
    turn["conversation"] = {
        "agent": "claude-code",
        "session": "h1",
        "transcript": PATH,
        "offset": len(TRANSCRIPT),
        "fingerprint": hashlib.sha1(TRANSCRIPT).hexdigest(),
        "turn": "p2",
    }
    forge.session("mallory", "h1", turn, **{"0.after": b"evil\n"})
    return forge


@pytest.fixture
def victim(tmp_path: Path, forge: Forge) -> Machine:
    return victim_machine(tmp_path, forge.bare)


def kept(forge: Forge, name: str, data: bytes, message: str, parent: str | None = None) -> str:
    """A commit of a kept conversation's chain holding ``name`` -> ``data``."""
    blob = forge.blob(data)
    tree = forge.tree({name: data}) if "\t" not in name else _tree(forge, name, blob)
    return forge.commit(tree, message, parent)


def _tree(forge: Forge, entries: str, blob: str) -> str:
    from tests.support.git import git

    lines = "".join(f"100644 blob {blob}\t{name}\n" for name in entries.split("\t"))
    return git("mktree", input=lines.encode(), git_dir=forge.bare).strip()


def slice_message(start: object, end: object) -> str:
    return f"conversation slice {ENTRY}\n\nstart {start}\nend {end}\ntranscript {PATH}\n"


def resume(victim: Machine) -> tuple[int, str, str]:
    victim.ok("fetch", "backup")
    done = victim.run("resume", "1", "--remote", "backup", "--session", "mallory/h1", "--print")
    tolerable(done)
    return done.returncode, done.stdout, done.stderr


def test_a_chain_that_matches_the_cut_point_resumes(forge: Forge, victim: Machine) -> None:
    """The control: what the cases below spoil, whole."""
    end = len(TRANSCRIPT)
    forge.ref(SESSION_REF, kept(forge, f"{ENTRY}.jsonl", TRANSCRIPT, slice_message(0, end)))
    code, out, err = resume(victim)
    assert code == 0, err
    copy = Path(out.split()[-2])
    assert copy.read_bytes() == TRANSCRIPT


def _other_bytes(forge: Forge) -> str:
    other = TRANSCRIPT.replace(b"assistant", b"ASSISTANT")
    return kept(forge, f"{ENTRY}.jsonl", other, slice_message(0, len(TRANSCRIPT)))


def _blob(forge: Forge) -> str:
    return forge.blob(b"not a commit\n")


def _two_names(forge: Forge) -> str:
    end = len(TRANSCRIPT)
    return kept(forge, f"{ENTRY}.jsonl\tsecond.jsonl", TRANSCRIPT, slice_message(0, end))


def _huge_end(forge: Forge) -> str:
    return kept(forge, f"{ENTRY}.jsonl", TRANSCRIPT, slice_message(0, 10**40))


def _negative_start(forge: Forge) -> str:
    end = len(TRANSCRIPT)
    return kept(forge, f"{ENTRY}.jsonl", TRANSCRIPT, slice_message(-5, end))


def _gap(forge: Forge) -> str:
    """A slice that claims to go on from an earlier one no commit holds."""
    end = len(TRANSCRIPT)
    return kept(forge, f"{ENTRY}.jsonl", TRANSCRIPT[10:], slice_message(10, end))


def _not_a_number(forge: Forge) -> str:
    return kept(forge, f"{ENTRY}.jsonl", TRANSCRIPT, slice_message("zero", "all"))


def _another_entry(forge: Forge) -> str:
    end = len(TRANSCRIPT)
    return kept(forge, "ffffffffffff.jsonl", TRANSCRIPT, slice_message(0, end))


def _shared_line_that_lies(forge: Forge) -> str:
    """A copy that says it was redacted, whose bytes are not what it says it rebuilds to."""
    other = TRANSCRIPT.replace(b"assistant", b"ASSISTANT")
    message = slice_message(0, len(TRANSCRIPT)) + f"shared {len(other)} {'0' * 40}\n"
    return kept(forge, f"{ENTRY}.jsonl", other, message)


def _shared_line_damaged(forge: Forge) -> str:
    message = slice_message(0, len(TRANSCRIPT)) + "shared many\n"
    return kept(forge, f"{ENTRY}.jsonl", TRANSCRIPT, message)


CHAINS = {
    "shared-line-that-lies": _shared_line_that_lies,
    "shared-line-damaged": _shared_line_damaged,
    "other-bytes": _other_bytes,
    "a-blob": _blob,
    "two-names-in-a-tree": _two_names,
    "huge-end": _huge_end,
    "negative-start": _negative_start,
    "a-gap": _gap,
    "not-a-number": _not_a_number,
    "another-entry": _another_entry,
}


@pytest.mark.parametrize("case", sorted(CHAINS))
def test_a_made_up_chain_is_refused_in_one_sentence_and_changes_nothing(
    forge: Forge, victim: Machine, case: str
) -> None:
    forge.ref(SESSION_REF, CHAINS[case](forge))
    victim.ok("fetch", "backup")
    before = local_state(victim)
    code, _, err = resume(victim)
    assert code == 1
    assert "resume it on the machine that recorded it." in err
    assert local_state(victim) == before


def test_a_made_up_reply_is_shown_harmless(forge: Forge, victim: Machine) -> None:
    reply = "\x1b]0;pwned\x07\x1b[2Jdone"
    forge.ref(SESSION_REF, kept(forge, f"{ENTRY}.reply", reply.encode(), "conversation reply\n"))
    victim.ok("fetch", "backup")
    shown = victim.run("--no-pager", "show", "1", "--remote", "backup", "--session", "mallory/h1")
    tolerable(shown)
    assert "reply:" in shown.stdout and "done" in shown.stdout
    as_json = victim.json("show", "1", "--remote", "backup", "--session", "mallory/h1")
    assert isinstance(as_json, dict) and as_json["reply"] == reply  # JSON escapes it


def test_a_kept_part_that_inflates_past_what_it_says_is_refused_unread(
    forge: Forge, victim: Machine
) -> None:
    """64 MiB behind a slice of a few hundred bytes: measured from the object's header, never
    inflated."""
    swollen = TRANSCRIPT + b" " * (64 * 1024 * 1024)
    end = len(TRANSCRIPT)
    forge.ref(SESSION_REF, kept(forge, f"{ENTRY}.jsonl", swollen, slice_message(0, end)))
    code, _, err = resume(victim)
    assert code == 1 and "a kept part is not as long as its record says" in err, err
    assert len(err.strip().splitlines()) == 1
