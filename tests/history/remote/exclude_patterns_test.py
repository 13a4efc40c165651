"""The private-file patterns (rewind.history.remote.exclude_patterns) match what git's own ignore
rules match: each pattern is written into the ``.gitignore`` of a folder of its own, and one
``git check-ignore --no-index`` says which paths below each folder it ignores, case by case
(``core.ignorecase=false``) and in any case (``true``, as on macOS and Windows)."""

from __future__ import annotations

import os
import subprocess
import unicodedata
from pathlib import Path

import pytest

from rewind.history.remote.exclude_patterns import BadPattern, ExcludePatterns
from rewind.store.config import DEFAULT_REMOTE_EXCLUDE

PATTERNS = [
    *DEFAULT_REMOTE_EXCLUDE,
    "**/*.secret",
    "/:memo",
    ":memo",
    "/top.txt",
    "docs/*.txt",
    "secrets/",
    "secrets",
    "a/**/b",
    "a/**",
    "**/b",
    "**",
    "**/",
    "a**b",
    "a/**b",
    "a/**/**/b",
    "***/b",
    "foo/**/",
    "*/x",
    "/a/b",
    "a/b/",
    "**/c/",
    "?x",
    "a\\*b",
    "\\#x",
    "\\!x",
    "x\\ ",
    "x  ",
    "[abc]x",
    "[!abc]x",
    "[^abc]x",
    "[a-c]x",
    "[]]x",
    "[!]]x",
    "[a-]x",
    "[-a]x",
    "[z-a]x",
    "[!z-a]x",
    "[[]x",
    "[[:]x",
    "[x-]",
    "[[:digit:]]x",
    "[[:alpha:][:digit:]]y",
    "[[:upper:]]q",
    "[[:space:]]s",
    "[A-Z]x",
    "a/[b]/c",
    "*.KEY",
    "K*",
]

PATHS = [
    ".env",
    "a/.env",
    ".env.local",
    ".ENV",
    "x/.Env.Prod",
    ".env/inside",
    "k.pem",
    "K.PEM",
    "id_rsa",
    "ID_RSA.pub",
    "home/.netrc",
    ".Git-Credentials",
    "top.secret",
    "a/b/top.secret",
    "TOP.SECRET",
    ":memo",
    "sub/:memo",
    "top.txt",
    "sub/top.txt",
    "docs/a.txt",
    "docs/sub/a.txt",
    "x/docs/a.txt",
    "secrets",
    "secrets/x",
    "a/secrets/y/z",
    "a/b",
    "a/x/b",
    "a/x/y/b",
    "b",
    "c/b",
    "a/c",
    "axb",
    "ax/yb",
    "a/xb",
    "ax",
    "dx",
    "]x",
    "-x",
    "1x",
    "ay",
    "1y",
    "#x",
    "!x",
    "x ",
    "x",
    "a*b",
    "aab",
    "q/x",
    "a/b/c",
    "c/d",
    "y/c/d",
    "Kx",
    "kx",
    "foo/bar/baz",
    "foo/f",
    "c.key",
    "C.Key",
    "[x",
    "x-",
    ":x",
    "a/b/c/d",
    "Aq",
    "aq",
    " s",
    "\ts",
]


def ignored_by_git(folder: Path, ignore_case: bool) -> dict[str, set[str]]:
    """For each pattern, the paths git ignores with it in a .gitignore."""
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    for number, pattern in enumerate(PATTERNS):
        (folder / f"p{number}").mkdir()
        (folder / f"p{number}" / ".gitignore").write_text(pattern + "\n")
    asked = b"".join(
        os.fsencode(f"./p{number}/{path}") + b"\0"
        for number in range(len(PATTERNS))
        for path in PATHS
    )
    setting = f"core.ignorecase={str(ignore_case).lower()}"
    done = subprocess.run(
        ["git", "-c", setting, "check-ignore", "--no-index", "-z", "--stdin"],
        cwd=folder,
        input=asked,
        capture_output=True,
        check=True,
    )
    found: dict[str, set[str]] = {pattern: set() for pattern in PATTERNS}
    for answer in done.stdout.decode().split("\0"):
        if answer:
            folder_name, _, path = answer.removeprefix("./p").partition("/")
            found[PATTERNS[int(folder_name)]].add(path)
    return found


@pytest.mark.parametrize("ignore_case", [False, True], ids=["case by case", "any case"])
def test_each_pattern_matches_what_git_ignores(tmp_path: Path, ignore_case: bool) -> None:
    by_git = ignored_by_git(tmp_path, ignore_case)
    assert sum(map(len, by_git.values())) > 200  # git did answer
    differ = {}
    for pattern in PATTERNS:
        patterns = ExcludePatterns([pattern], ignore_case=ignore_case)
        ours = {path for path in PATHS if patterns.matching(path) is not None}
        if ours != by_git[pattern]:
            differ[pattern] = (sorted(ours - by_git[pattern]), sorted(by_git[pattern] - ours))
    assert differ == {}


@pytest.mark.unit
def test_the_first_matching_pattern_is_named_and_names_compare_composed() -> None:
    patterns = ExcludePatterns(["*.pem", "caf\u00e9/", "**/*.secret"])
    assert patterns.matching("keys/Server.PEM") == "*.pem"
    assert patterns.matching(unicodedata.normalize("NFD", "caf\u00e9/menu.txt")) == "caf\u00e9/"
    assert patterns.matching("top.secret") == "**/*.secret"
    assert patterns.matching("secret") is None
    assert patterns.matching("caf\u00e9") is None  # a file: 'café/' names folders
    # Where git reads a comment, rewind reads a name: the list is TOML, with comments of its own.
    assert ExcludePatterns(["#notes"]).matching("#notes") == "#notes"


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        ("!.env.example", "starts with '!'"),
        ("[abc", "without its ']'"),
        ("x[[:alpha:]", "without its ']'"),
        ("x[", "without its ']'"),
        ("[[:nothing:]]", "the class [:nothing:]"),
        ("notes\\", "ends with a backslash"),
        ("[a\\", "ends with a backslash"),
    ],
)
@pytest.mark.unit
def test_patterns_that_would_share_or_never_match_are_refused(pattern: str, why: str) -> None:
    with pytest.raises(BadPattern, match=r"^'.*' .*") as refused:
        ExcludePatterns(["*.pem", pattern])
    assert why in str(refused.value) and repr(pattern) in str(refused.value)
