"""The authorship note format, checked against notes its reference writer made (the Git AI
Standard's own test snapshots, kept verbatim in ``notes/``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rewind.history.attribution.note_format import (
    AgentId,
    FileLines,
    Note,
    NoteError,
    PromptRecord,
    human_key,
    parse,
    parse_ranges,
    prompt_key,
    prompt_text,
    ranges_text,
    render,
)

pytestmark = pytest.mark.unit
NOTES = Path(__file__).parent / "notes"


def written(name: str) -> str:
    return (NOTES / f"{name}.txt").read_text(encoding="utf-8")


def test_keys_are_derived_as_the_reference_writer_derives_them() -> None:
    assert prompt_key("cursor", "session_123") == "c9883b05a2487d6d"
    assert human_key("Alice Smith <alice@example.com>") == "h_31dce776f88375"


@pytest.mark.parametrize(
    ("lines", "text"),
    [
        ([9], "9"),
        ([5, 6, 9], "5-6,9"),
        ([3, 1, 2, 2, 10, 11, 7], "1-3,7,10-11"),
        ([], ""),
    ],
)
def test_line_ranges(lines: list[int], text: str) -> None:
    assert ranges_text(lines) == text
    assert parse_ranges(text) == sorted(set(lines))


def test_ranges_read_as_other_writers_write_them() -> None:
    assert parse_ranges("2-2") == [2]
    assert parse_ranges("1,,3") == [1, 3]
    for bad in ("a", "3-1", "1-", "-2", "1-x"):
        with pytest.raises(NoteError):
            parse_ranges(bad)


def test_a_note_is_written_byte_for_byte_as_the_reference_writer_does() -> None:
    agent = AgentId("cursor", "session_123", "claude-3-sonnet")
    key = prompt_key("cursor", "session_123")
    note = Note(
        "",
        [
            FileLines("src/my file.rs", {key: list(range(1, 11))}),
            FileLines("docs/README (copy).md", {key: [5]}),
            FileLines("test/file-with-dashes.js", {key: list(range(20, 26))}),
        ],
        {key: PromptRecord(agent)},
        writer_version="development",
    )
    assert render(note) == written("file_names_with_spaces")


def test_a_note_without_attestations_starts_with_its_divider() -> None:
    text = written("no_attestations")
    note = parse(text)
    assert note.files == [] and note.base_commit_sha == "abc123"
    assert render(note) == text


def test_every_reference_note_reads_and_writes_back_the_same() -> None:
    for name in ("file_names_with_spaces", "no_attestations"):
        assert render(parse(written(name))) == written(name)


def test_a_note_of_unsorted_keys_reads_whole() -> None:
    note = parse(written("expected_format"))
    assert [f.path for f in note.files] == ["src/file.xyz", "src/file2.xyz"]
    assert note.author_of("src/file.xyz", 19) == "xyzAbc"
    assert note.author_of("src/file.xyz", 402) == "123456"
    assert note.author_of("src/file2.xyz", 245) == "123456"
    assert note.author_of("src/file2.xyz", 246) is None
    assert note.prompts == {}


def test_session_keys_legacy_keys_and_old_fields_read_together() -> None:
    note = parse(written("mixed_formats").replace("\n", "\r\n"))
    assert note.author_of("test.txt", 3) == "5a1b2c3d4e5f6789"
    assert note.author_of("test.txt", 7) == "s_1234567890abcd::t_fedcba0987654321"
    assert note.prompts["5a1b2c3d4e5f6789"].agent_id == AgentId(
        "old_tool", "old_agent", "old_model"
    )
    assert note.prompts["5a1b2c3d4e5f6789"].accepted_lines == 5
    assert note.sessions["s_1234567890abcd"].agent_id.tool == "new_tool"


def test_the_later_claim_on_a_line_wins() -> None:
    note = parse("a.py\n  aaaa 1-5\n  bbbb 3\n---\n" + _metadata())
    assert [note.author_of("a.py", n) for n in (2, 3)] == ["aaaa", "bbbb"]


def test_prompts_and_humans_round_trip() -> None:
    key = prompt_key("claude", "s1:e1")
    person = "Ada <ada@example.com>"
    record = PromptRecord(
        AgentId("claude", "s1"),
        person,
        [{"type": "user", "text": "add a test"}],
        4,
        1,
        3,
        1,
        {"rewind_turn": "2"},
    )
    note = Note("0" * 40, [FileLines("a.py", {key: [1, 2, 3]})], {key: record})
    note.humans[human_key(person)] = person
    again = parse(render(note))
    assert again == note
    assert prompt_text(again.prompts[key]) == "add a test"


@pytest.mark.parametrize(
    "text",
    [
        "a.py\n  k 1\n",  # no divider
        "  k 1\n---\n" + "{}",  # an attestation before any path
        "a.py\n  k\n---\n{}",  # no ranges
        "---\nnot json",
        "---\n[]",
        '---\n{"schema_version": "authorship/2.0.0", "base_commit_sha": "", "prompts": {}}',
        '---\n{"schema_version": "authorship/3.0.0", "prompts": {}}',
        '---\n{"schema_version": "authorship/3.0.0", "base_commit_sha": "", "prompts": {"k": 1}}',
    ],
)
def test_what_is_not_a_note_is_refused_whole(text: str) -> None:
    with pytest.raises(NoteError):
        parse(text)


def _metadata() -> str:
    return '{"schema_version": "authorship/3.0.0", "base_commit_sha": "x", "prompts": {}}'
