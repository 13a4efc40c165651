"""Bounded work on any input: a ``--hunks`` choice costs what the diff and its own text do, not
what the numbers in it say, and the hunk diff stays near linear on files of repeated lines. Each
test failed before its fix (a choice expanded before it was checked: MemoryError, or a process
the kernel killed; a difflib matcher, cubic on such files)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import rewind
from rewind.errors import UserError
from tests.conftest import RewindResult, error_line, ok

# What the file holds before and after the turn: three hunks (lines 2, 5 and 8 changed).
BEFORE = b"".join(f"line {n}\n".encode() for n in range(1, 10))
AFTER = BEFORE.replace(b"line 2\n", b"two\n").replace(b"line 5\n", b"five\n")
AFTER = AFTER.replace(b"line 8\n", b"eight\n")

# A rewind command needs far less address space than this; a choice expanded into a set of
# millions of numbers needs far more (MemoryError), and one of 10**40 never stops growing.
ADDRESS_SPACE_KB = 1024 * 1024


def turn(project: Path, name: str, before: bytes, after: bytes) -> rewind.Project:
    """One turn of session ``s`` that rewrites ``name`` from ``before`` to ``after``."""
    (project / name).write_bytes(before)
    recorded = rewind.Project(project, session="s", agent="tester")
    with recorded.turn(f"rewrite {name}") as edit:
        edit.write_bytes(name, after)
    return recorded


def within_memory(*arguments: str) -> RewindResult:
    """``rewind ARGUMENTS`` as a process limited to ADDRESS_SPACE_KB (``ulimit -v``)."""
    script = f'ulimit -v {ADDRESS_SPACE_KB} && exec "$0" -m rewind "$@"'
    done = subprocess.run(
        ["sh", "-c", script, sys.executable, *arguments],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return RewindResult.of(done)


class TestHunkChoices:
    @pytest.mark.parametrize(
        ("choice", "said"),
        [
            ("1-30000000", "has 3 hunk(s), not 30000000"),
            ("1-" + "9" * 40, "no diff has that many hunks or lines"),
            ("2:1-30000000", "hunk 2 of f.txt has 2 changed line(s), not 30000000"),
            ("3:1-" + "9" * 40, "no diff has that many hunks or lines"),
        ],
        ids=["hunks-1-30M", "hunks-40-digits", "lines-1-30M", "lines-40-digits"],
    )
    def test_a_huge_range_is_refused_in_one_sentence_before_it_is_expanded(
        self, project: Path, choice: str, said: str
    ) -> None:
        turn(project, "f.txt", BEFORE, AFTER)
        line = error_line(within_memory("restore", "1", "--path", "f.txt", "--hunks", choice))
        assert said in line and "'rewind show 1 --path f.txt' numbers them." in line
        assert (project / "f.txt").read_bytes() == AFTER

    def test_numbers_are_ascii_digits_only(self, project: Path) -> None:
        recorded = turn(project, "f.txt", BEFORE, AFTER)
        for choice in ("\u0663", "\uff11", "+1", "1_0", "1-\u0662", "2:\uff11", " ", "1,,2"):
            with pytest.raises(UserError) as refused:
                recorded.plan_hunks(1, "f.txt", choice)
            message = str(refused.value)
            assert "is not a hunk choice" in message and "(1,3 or 2-4)" in message, choice
        line = error_line(within_memory("restore", "1", "--path", "f.txt", "--hunks", "\uff13"))
        assert "the digits 0-9" in line
        assert (project / "f.txt").read_bytes() == AFTER

    def test_what_is_still_accepted_means_what_it_did(self, project: Path) -> None:
        recorded = turn(project, "f.txt", BEFORE, AFTER)
        plan = recorded.plan_hunks(1, "f.txt", " 1 , 3-3,1:2,2:1-1,2:2,03")
        assert plan.chosen[b"f.txt"] == {1: None, 3: None, 2: frozenset({1, 2})}
        with pytest.raises(UserError, match=r"write a range from low to high \(1-3\)"):
            recorded.plan_hunks(1, "f.txt", "3-1")
        with pytest.raises(UserError, match="numbered from 1"):
            recorded.plan_hunks(1, "f.txt", "2:0")
        with pytest.raises(UserError, match="numbered from 1"):
            recorded.plan_hunks(1, "f.txt", {0: None})  # not the last hunk, as hunks[-1] was
        with pytest.raises(UserError, match="by their numbers, from 1"):
            recorded.plan_hunks(1, "f.txt", {1: frozenset()})


class TestHunkDiff:
    def test_a_long_file_of_repeated_lines_is_diffed_in_about_linear_time(
        self, project: Path
    ) -> None:
        """60,000 lines, every third changed, the others all alike: 20,000 hunks. The matcher
        this replaced took minutes on 8,000 such lines."""
        lines = 60_000
        before = b"".join(b"same\n" if n % 3 else b"line %d\n" % n for n in range(lines))
        after = before.replace(b"line ", b"LINE ")
        recorded = turn(project, "long.txt", before, after)

        shown = ok("--no-pager", "show", "1", "--path", "long.txt").stdout
        assert f"hunk {lines // 3}/{lines // 3} of long.txt" in shown
        assert "  1  -line 59997\n  2  +LINE 59997\n" in shown

        plan = recorded.plan_hunks(1, "long.txt", f"1-{lines // 3}")
        assert plan.files[0].content == before
        some = recorded.plan_hunks(1, "long.txt", "2,20000:2")
        assert some.files[0].content == after.replace(b"LINE 3\n", b"line 3\n").replace(
            b"LINE 59997\n", b""
        )

    def test_a_last_line_without_its_newline_is_a_change_of_its_own(self, project: Path) -> None:
        recorded = turn(project, "f.txt", b"a\nb\nx\nc", b"a\nB\nx\nc\n")
        hunks = recorded.hunks(1, "f.txt")
        assert [(hunk.removed, hunk.added) for hunk in hunks] == [
            ([b"b\n"], [b"B\n"]),
            ([b"c"], [b"c\n"]),
        ]
        assert recorded.plan_hunks(1, "f.txt", "2").files[0].content == b"a\nB\nx\nc"
