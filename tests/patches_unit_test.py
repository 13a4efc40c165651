"""The files a patch names (rewind.patches), read in this process: Codex's ``apply_patch``
format as Codex reads it, and unified diffs as GNU ``patch`` and ``git apply`` read them."""

from __future__ import annotations

import time

import pytest

from rewind.patches import diff_paths, patch_moves, patch_paths
from rewind.store.input_limits import PATCH_NAME_CHARACTERS

pytestmark = pytest.mark.unit

# Codex's apply_patch format ---------------------------------------------------------------------

FULL = """*** Begin Patch
*** Add File: added.txt
+a new file
*** Update File: updated.txt
@@
-old line
+new line
*** Delete File: deleted.txt
*** Update File: old_name.txt
*** Move to: new_name.txt
@@
-moved
+moved and changed
*** End Patch
"""


def test_every_file_a_patch_adds_updates_deletes_or_moves_in_order() -> None:
    assert patch_paths(FULL) == [
        "added.txt",
        "updated.txt",
        "deleted.txt",
        "old_name.txt",
        "new_name.txt",
    ]
    assert patch_moves(FULL) == {"new_name.txt": "old_name.txt"}


@pytest.mark.parametrize(
    ("patch", "paths"),
    [
        ("*** Add File: a b.txt\n", ["a b.txt"]),
        ("  *** Update File: indented.txt  \n", ["indented.txt"]),  # a header line is trimmed
        ("*** Delete File: crlf.txt\r\n", ["crlf.txt"]),
        ("*** Add File: x\n+*** Add File: content.txt\n", ["x"]),  # content, not a header
        ("text *** Add File: not-at-the-start\n", []),
        ("*** Add File: \n", []),
        ("*** Update File: a\n*** Move to: b \n", ["a", "b ", "b"]),  # kept as written, and trimmed
        ("*** Update File: a\n*** Update File: a\n", ["a"]),
        ("", []),
        ("no markers at all\n*** End Patch\n", []),
        # OpenCode's reading: the rest after the colon, trimmed, with or without a space
        ("*** Add File:a.txt\n*** Delete File:\tb.txt \n", ["a.txt", "b.txt"]),
        ("*** Update File:c\n*** Move to:d\n", ["c", "d"]),
        ("*** Add File:  two spaces\n", [" two spaces", "two spaces"]),  # Codex's, and trimmed
    ],
)
def test_headers_are_read_as_codex_reads_them(patch: str, paths: list[str]) -> None:
    assert patch_paths(patch) == paths


@pytest.mark.parametrize(
    ("patch", "moves"),
    [
        ("*** Update File: a\n*** Move to: b\n", {"b": "a"}),
        ("*** Add File: a\n*** Move to: b\n", {}),  # only an update moves
        ("*** Update File: a\n@@\n-x\n+y\n*** Move to: b\n", {"b": "a"}),
        ("*** Update File: a\n*** Delete File: c\n*** Move to: b\n", {}),
        ("*** Move to: b\n", {}),
        ("*** Update File:a\n*** Move to:\tb\n", {"b": "a"}),  # OpenCode's, no space
        (
            "*** Update File: a\n*** Move to: b\n*** Update File: c\n*** Move to: d\n",
            {"b": "a", "d": "c"},
        ),
    ],
)
def test_a_move_follows_the_update_it_belongs_to(patch: str, moves: dict[str, str]) -> None:
    assert patch_moves(patch) == moves


def test_content_holding_markers_costs_nothing_to_skip() -> None:
    patch = "*** Add File: big.txt\n" + "+*** Add File: no\n" * 200_000
    started = time.perf_counter()
    assert patch_paths(patch) == ["big.txt"]
    assert time.perf_counter() - started < 2.0


# unified diffs ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("diff", "strip", "paths"),
    [
        ("--- a/src/x.py\n+++ b/src/x.py\n", 1, ["src/x.py"]),
        ("--- a/src/x.py\n+++ b/src/x.py\n", 0, ["a/src/x.py", "b/src/x.py"]),
        ("--- a/src/x.py\n+++ b/src/x.py\n", None, ["x.py"]),  # no -p: the last component
        ("--- a/src/x.py\n+++ b/src/x.py\n", 2, ["x.py"]),
        ("--- a/x.py\n+++ b/x.py\n", 2, []),  # nothing left after stripping: skipped
        ("--- old.txt\t2026-01-01 10:00\n+++ new.txt\t2026-01-02\n", 0, ["old.txt", "new.txt"]),
        ("--- /dev/null\n+++ b/created.txt\n", 1, ["created.txt"]),
        ("--- a/gone.txt\n+++ /dev/null\n", 1, ["gone.txt"]),
        ("+++ b/alone.txt\n", 1, []),  # a +++ line without --- before it names nothing
        ('--- "a/with\\ttab"\n+++ "b/with\\ttab"\n', 1, ["with\ttab"]),
        ('--- "a/caf\\303\\251"\n+++ "b/caf\\303\\251"\n', 1, ["café"]),
        ("--- a/x\r\n+++ b/x\r\n", 1, ["x"]),
    ],
)
def test_the_headers_of_a_diff(diff: str, strip: int | None, paths: list[str]) -> None:
    assert diff_paths(diff, strip) == paths


@pytest.mark.parametrize(
    ("diff", "strip", "paths"),
    [
        ("diff --git a/src/x.py b/src/x.py\n", 1, ["src/x.py"]),
        ("diff --git a/has space.txt b/has space.txt\n", 1, ["has space.txt"]),
        ('diff --git "a/q\\"uote" "b/q\\"uote"\n', 1, ['q"uote']),
        ("diff --git a/old b/new\nrename from old\nrename to new\n", 1, ["old", "new"]),
        (
            "diff --git a/src/old b/src/new\nrename from src/old\nrename to src/new\n",
            2,
            ["old", "new"],
        ),
        (
            "diff --git a/a b/copy\ncopy from a\ncopy to copy\n",
            1,
            ["copy"],
        ),  # a copy's source is only read
        ("diff --git a/x b/y\n", 1, []),  # unquoted and not the same file: left to ---/+++
    ],
)
def test_gits_extended_headers(diff: str, strip: int | None, paths: list[str]) -> None:
    assert diff_paths(diff, strip) == paths


def test_every_name_once_across_several_files() -> None:
    diff = (
        "diff --git a/one b/one\n--- a/one\n+++ b/one\n@@ -1 +1 @@\n-1\n+2\n"
        "diff --git a/two b/two\n--- a/two\n+++ b/two\n"
    )
    assert diff_paths(diff, 1) == ["one", "two"]


def test_a_quoted_name_longer_than_any_path_names_no_file() -> None:
    long = '"a/' + "x" * PATCH_NAME_CHARACTERS + '"'
    assert diff_paths(f"--- {long}\n+++ {long}\n", 1) == []
    assert diff_paths(f"diff --git {long} {long}\n", 1) == []


def test_a_very_long_git_line_is_left_to_the_lines_that_follow() -> None:
    name = "d/" * 3000 + "f"
    diff = f"diff --git a/{name} b/{name}\n--- a/{name}\n+++ b/{name}\n"
    assert diff_paths(diff, 1) == [name]


def test_a_diff_of_many_megabytes_is_read_quickly() -> None:
    diff = "--- a/big\n+++ b/big\n@@ -1,200000 +1,200000 @@\n" + "-x\n+y\n" * 400_000
    started = time.perf_counter()
    assert diff_paths(diff, 1) == ["big"]
    assert time.perf_counter() - started < 2.0
