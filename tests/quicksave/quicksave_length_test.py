"""The quicksave of long command lines: read in time linear in their length, and within bounds
(past them, what was read is recorded and the rest is named in a warning).

The timing tests compare two sizes with a wide factor rather than a fixed time: reading a
command line twice as long must take about twice as long, not four times."""

from __future__ import annotations

import os
import random
import shlex
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from rewind.quicksave import QuicksaveLimits, QuicksavePlan, paths_at_risk
from rewind.quicksave.analysis import MAX_COMMANDS_READ
from rewind.quicksave.lexer import split_words
from rewind.quicksave.prepass import MAX_READ_LENGTH, prepared

TEXT_BOUND_WARNING = f"the command is longer than {MAX_READ_LENGTH // 1024} KiB"


def plan_of(command: str, cwd: Path) -> QuicksavePlan:
    return paths_at_risk(command, os.fsencode(cwd), QuicksaveLimits())


def names(plan: QuicksavePlan, project: Path) -> set[str]:
    return {os.path.relpath(os.fsdecode(path), project) for path in plan.paths}


def short_commands(first: int, count: int) -> str:
    return "".join(f"rm a{number}; " for number in range(first, first + count))


def long_command(size: int) -> str:
    """About ``size`` characters: short commands, a commit message as agents write it (a
    here-document inside a quoted ``$( ... )``), a long quoted string and a long word, then a
    last command."""
    message = "".join(f"line {number}: rm body; more words\n" for number in range(size // 80))
    text = "".join(f"word {number} ; rm quoted | x\n" for number in range(size // 80))
    return (
        short_commands(0, size // 40)
        + f"git commit -q -m \"$(cat <<'EOF'\n{message}EOF\n)\"\n"
        + f"printf '%s' '{text}' > printed.txt\n"
        + f"echo {'w' * (size // 10)} > echoed.txt\n"
        + "rm last\n"
    )


def best_time(command: str, cwd: Path, runs: int = 3) -> float:
    """The fastest of a few runs: the one least disturbed by other work on the machine."""
    times: list[float] = []
    for _ in range(runs):
        started = time.perf_counter()
        plan_of(command, cwd)
        times.append(time.perf_counter() - started)
    return min(times)


# linear time ----------------------------------------------------------------------------------


def test_a_long_command_finds_its_paths(project: Path) -> None:
    for name in ("a0", "a1000", "last", "body", "quoted", "printed.txt"):
        (project / name).write_text(name)
    plan = plan_of(long_command(100_000), project)
    assert plan.understood
    assert plan.warnings == []
    # Not "body" nor "quoted": they are words of a message and of a quoted string.
    assert names(plan, project) == {"a0", "a1000", "printed.txt", "echoed.txt", "last"}


def test_reading_a_command_takes_time_linear_in_its_length(project: Path) -> None:
    small = long_command(30_000)
    large = long_command(240_000)  # 8 times as long, within the length that is read
    assert len(large) < MAX_READ_LENGTH
    assert plan_of(large, project).warnings == []
    small_time, large_time = best_time(small, project), best_time(large, project)
    # Linear: about 8 times as long (up to 4 times that, for a busy machine).
    assert large_time < 32 * small_time + 0.05, (small_time, large_time)


@pytest.mark.unit
def test_splitting_words_takes_time_linear_in_their_length() -> None:
    def words(size: int) -> str:
        return f"printf '{'a b;' * (size // 8)}' \"{'c d' * (size // 8)}\" {'e' * (size // 4)} ; x"

    def best_split_time(text: str) -> float:
        times: list[float] = []
        for _ in range(5):
            started = time.perf_counter()
            split_words(text)
            times.append(time.perf_counter() - started)
        return min(times)

    small, large = words(100_000), words(1_600_000)
    assert split_words(large)[-3:] == ["e" * 400_000, ";", "x"]
    small_time, large_time = best_split_time(small), best_split_time(large)
    # Linear: 16 times as long; quadratic (stdlib shlex grows a word a character at a time):
    # 256 times.
    assert large_time < 64 * small_time + 0.02, (small_time, large_time)


def test_a_command_of_megabytes_is_read_within_seconds(project: Path) -> None:
    (project / "a0").write_text("x")
    command = long_command(2_000_000)
    started = time.perf_counter()
    plan = plan_of(command, project)
    assert time.perf_counter() - started < 5
    assert plan.understood
    assert names(plan, project) == {"a0"}
    assert plan.warnings[0].startswith(TEXT_BOUND_WARNING)


def test_a_long_here_document_does_not_count_towards_the_length_read(project: Path) -> None:
    (project / "before").write_text("x")
    (project / "after").write_text("x")
    body = "rm before\n" * (2 * MAX_READ_LENGTH // 10)
    plan = plan_of(f"rm before; cat > notes.md <<'EOF'\n{body}EOF\nrm after\n", project)
    assert plan.warnings == []
    assert names(plan, project) == {"before", "notes.md", "after"}


# bounds ---------------------------------------------------------------------------------------


def test_past_the_length_that_is_read_the_commands_before_are_recorded(project: Path) -> None:
    count = 2 * MAX_READ_LENGTH // len("rm a00000; ")
    for number in (0, 100, count - 1):
        (project / f"a{number}").write_text("x")
    command = short_commands(0, count)
    plan = plan_of(command, project)
    assert plan.understood
    assert names(plan, project) == {"a0", "a100"}  # a{count - 1} is past the length read
    [warning] = plan.warnings
    assert warning.startswith(TEXT_BOUND_WARNING)
    unread = int(warning.split("its last ")[1].split()[0])
    assert len(command) - MAX_READ_LENGTH <= unread < len(command) - MAX_READ_LENGTH + 20


@pytest.mark.unit
def test_the_text_read_ends_between_two_commands() -> None:
    command = "rm a; (rm b; rm c); echo 'x; y' > d\nrm e"
    for length in range(len(command)):
        text = prepared(command, length).text
        assert text in ("", "rm a", "rm a; (rm b; rm c)", "rm a; (rm b; rm c); echo 'x; y' > d")
    whole = prepared(command, len(command))
    assert (whole.text, whole.unread) == ("rm a; (rm b; rm c); echo 'x; y' > d ; rm e", 0)


def test_a_first_command_past_the_length_read_records_nothing(project: Path) -> None:
    plan = plan_of(f"echo '{'x' * MAX_READ_LENGTH}' > out.txt", project)
    assert plan.understood
    assert plan.paths == []
    assert plan.warnings[0].startswith(TEXT_BOUND_WARNING)


def test_bash_c_of_a_string_past_the_length_read_warns_too(project: Path) -> None:
    (project / "a0").write_text("x")
    half = short_commands(0, 3 * MAX_READ_LENGTH // 4 // len("rm a00000; "))
    plan = plan_of(f'X={shlex.quote(half)}; bash -c "$X$X"', project)
    assert names(plan, project) == {"a0"}
    [warning] = plan.warnings
    assert warning.startswith(f"bash -c: {TEXT_BOUND_WARNING}")


def test_a_loop_over_many_commands_stops_after_the_most_commands_read(project: Path) -> None:
    (project / "w0").mkdir()
    (project / "w0" / "0").write_text("x")
    words = " ".join(f"w{number}" for number in range(500))
    body = "".join(f"rm $f/{number}; " for number in range(2 * MAX_COMMANDS_READ // 500))
    started = time.perf_counter()
    plan = plan_of(f"for f in {words}; do {body}done", project)
    assert time.perf_counter() - started < 10
    assert names(plan, project) == {"w0/0"}
    assert plan.warnings == [
        f"the command runs more than {MAX_COMMANDS_READ} commands (a loop's once per run): the "
        "rest were not read (nothing in them was recorded)"
    ]


def test_many_warnings_are_cut_to_the_first_hundred(project: Path) -> None:
    plan = plan_of("".join(f"echo > $x{number}; " for number in range(250)), project)
    assert len(plan.warnings) == 101
    assert plan.warnings[0] == "> $x0: a path only the running shell knows was not recorded"
    assert plan.warnings[-1] == "and 150 more warnings, not shown"


# the same words as before ---------------------------------------------------------------------


def shlex_words(text: str) -> list[str]:
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    return list(lexer)


def outcome(split: Callable[[str], list[str]], text: str) -> tuple[str, object]:
    try:
        return "words", split(text)
    except ValueError as error:
        return "error", str(error)


@pytest.mark.unit
def test_the_lexer_splits_words_as_shlex_does() -> None:
    pieces = [*"ab ;&|()<>'\"\\\t\n\r=$*#~-.{}", "\0", "é", "&&", "\\\n", "''"]
    chooser = random.Random(9)
    for _ in range(20_000):
        text = "".join(chooser.choice(pieces) for _ in range(chooser.randint(0, 16)))
        assert outcome(split_words, text) == outcome(shlex_words, text), text


def test_a_here_string_is_not_a_here_document(project: Path) -> None:
    (project / "x").write_text("x")
    plan = plan_of("cat <<< hi\nrm x\nhi", project)
    assert names(plan, project) == {"x"}
