"""Fetched records a remote made up (issue 20): numbers out of every range, and records that
name another session than their ref.

- every number of an entry's record (``number``, ``started``, ``ended``, each file's ``at``,
  each state's ``mode``, ``size``, ``mtime_ns``, ``missing_dirs``, the counts of watch mode's
  storms, a restore's target) that is NaN, infinite, negative, 1e300, a 40-digit integer or a
  boolean makes that one entry damaged, said in one sentence, and the listing of every fetched
  session, and every other session, read on;
- the ref names the session: a record that names another one is that entry damaged, alone, and
  one that claims a sibling's name leaves the sibling as it was;
- the command a damaged fetched entry's message names, to list every damaged entry, does list
  it (``rewind check --remote NAME``: plain ``rewind check`` reads the project's own sessions).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rewind.history.entry import entry_from_record
from rewind.store.input_limits import DEPTH, RECORD_BYTES
from tests.conftest import RewindResult
from tests.faults.hostile_remote_test import (
    PROJECT,
    Forge,
    change,
    honest_session,
    local_state,
    record,
    tolerable,
    victim_machine,
)
from tests.support.remote_servers import Machine, bare_repository

NAN = float("nan")
INF = float("inf")
HUGE = 10**40


@pytest.fixture
def forge(tmp_path: Path) -> Forge:
    return Forge(bare_repository(tmp_path / "hostile.git"))


@pytest.fixture
def victim(tmp_path: Path, forge: Forge) -> Machine:
    return victim_machine(tmp_path, forge.bare)


def _fetched_names(victim: Machine) -> set[str]:
    listed = json.loads(victim.ok("sessions", "--remote", "--json"))
    return {f"{s['machine']}/{s['session']}" for s in listed}


def _read(victim: Machine, *arguments: str) -> RewindResult:
    result = victim.run("--no-pager", *arguments)
    tolerable(result)
    return result


def _with_state(**numbers: object) -> dict[str, object]:
    """A record of one file whose after-state holds ``numbers`` besides its own."""
    one = change("a.txt")
    after = one["after"]
    assert isinstance(after, dict)
    return {"files": [{**one, "after": {**after, **numbers}}]}


def _with_change(**fields: object) -> dict[str, object]:
    return {"files": [{**change("a.txt"), **fields}]}


# Each: what replaces the fields of an honest record (session and leaf are the key).
OUT_OF_RANGE: dict[str, dict[str, object]] = {
    "started-1e300": {"started": 1e300},
    "ended-1e300": {"ended": 1e300},
    "started-nan": {"started": NAN},
    "ended-nan": {"ended": NAN},
    "started-infinity": {"started": INF},
    "ended-minus-infinity": {"ended": -INF},
    "started-negative": {"started": -86400.0},
    "started-40-digits": {"started": HUGE},
    "started-true": {"started": True},
    "number-1e300": {"number": 1e300},
    "number-40-digits": {"number": HUGE},
    "number-negative": {"number": -3},
    "number-true": {"number": True},
    "number-missing": {"number": None},
    "at-nan": _with_change(at=NAN),
    "at-1e300": _with_change(at=1e300),
    "mode-40-digits": _with_state(mode=HUGE),
    "mode-negative": _with_state(mode=-1),
    "mode-not-permissions": _with_state(mode=0o100644),
    "mode-1e300": _with_state(mode=1e300),
    "size-40-digits": _with_state(size=HUGE),
    "size-negative": _with_state(size=-5),
    "size-true": _with_state(size=True),
    "mtime-40-digits": _with_state(kind="too-large", mtime_ns=HUGE),
    "missing-dirs-40-digits": {
        "files": [{**change("a/b.txt"), "before": {"kind": "absent", "missing_dirs": HUGE}}]
    },
    "storm-counts": {
        "unrecorded": [{"at": 1.0, "files": "many", "cap": 3, "directories": {"src/": "x"}}]
    },
    "storm-infinity": {"unrecorded": [{"at": INF, "files": 3, "cap": 3, "directories": {}}]},
    "target-nan": {"kind": "restore", "target": {"entry": "0123456789ab", "number": NAN}},
}


def _hostile_record(leaf: str) -> bytes:
    # json.dumps spells NaN and the infinities as JavaScript does, as a remote can.
    return json.dumps({**record(leaf, change("a.txt")), **OUT_OF_RANGE[leaf]}).encode()


@pytest.mark.parametrize("leaf", list(OUT_OF_RANGE))
def test_a_number_out_of_range_makes_the_record_damaged(leaf: str) -> None:
    """Where a record becomes an entry, for every reader at once (rewind.history.bounds)."""
    with pytest.raises(ValueError, match=r"turn\.json has the wrong shape") as refused:
        entry_from_record(_hostile_record(leaf))
    assert len(str(refused.value)) < 200  # one sentence, not a 40-digit number
    assert "\n" not in str(refused.value)


# One of each way such a number crashed a reader before: the time a listing or log shows, the
# index's NOT NULL columns, a count it cannot hold, a mode chmod refuses, watch mode's storms.
CRASHED = (
    "started-1e300",
    "ended-1e300",
    "started-nan",
    "at-nan",
    "number-40-digits",
    "mode-40-digits",
    "size-40-digits",
    "missing-dirs-40-digits",
    "storm-counts",
)


def test_a_fetched_number_out_of_range_damages_its_entry_and_nothing_else(
    forge: Forge, victim: Machine, tmp_path: Path
) -> None:
    honest_session(forge)
    for leaf in CRASHED:
        forge.session("numbers", leaf, _hostile_record(leaf), **{"0.after": b"evil\n"})
    before = local_state(victim)
    victim.ok("fetch")
    assert _read(victim, "sessions", "--remote").returncode == 0
    names = _fetched_names(victim)
    assert names == {"honest/fine"} | {f"numbers/{leaf}" for leaf in CRASHED}
    for leaf in CRASHED:
        shown = _read(victim, "log", "--remote", "backup", "--session", leaf)
        assert shown.returncode == 1 and "is damaged" in shown.stderr, (leaf, shown)
    for leaf in ("started-nan", "mode-40-digits", "missing-dirs-40-digits"):
        for command in (["show", "1"], ["diff", "1"]):
            _read(victim, *command, "--remote", "backup", "--session", leaf)
        _read(victim, "apply", "--remote", "backup", leaf, "1", "--dry-run")
        _read(victim, "extract", "--remote", "backup", "--session", leaf, "1", str(tmp_path / leaf))
    honest = _read(victim, "log", "--remote", "backup", "--session", "honest/fine")
    assert honest.returncode == 0 and "ok.txt" in honest.stdout, honest
    assert local_state(victim) == before


def test_a_number_out_of_range_in_the_middle_of_a_session_is_one_damaged_entry(
    forge: Forge, victim: Machine
) -> None:
    hostile = json.dumps({**record("chain", change("a.txt")), "started": NAN}).encode()
    first = forge.commit(forge.tree({"turn.json": hostile, "files/0.after": b"evil\n"}))
    honest = json.dumps({**record("chain", change("b.txt"), prompt="second"), "number": 2})
    tree = forge.tree({"turn.json": honest.encode(), "files/0.after": b"evil\n"})
    forge.ref(f"refs/rewind/{PROJECT}/numbers/sessions/chain", forge.commit(tree, parent=first))
    victim.ok("fetch")
    for as_json in ([], ["--json"]):
        shown = _read(victim, "log", "--remote", "backup", "--session", "chain", *as_json)
        assert shown.returncode == 0 and "second" in shown.stdout, shown
        assert "damaged entry: its turn.json has the wrong shape: " in shown.stdout
        assert "holds nan, not a time" in shown.stdout
    for command in (["show", "2"], ["diff", "1"], ["show", "1"]):
        _read(victim, *command, "--remote", "backup", "--session", "chain")
    assert "b.txt" in _read(victim, "show", "2", "--remote", "backup", "--session", "chain").stdout


def test_the_command_a_damaged_fetched_entry_names_lists_it(
    forge: Forge, victim: Machine, tmp_path: Path
) -> None:
    """Every message about a damaged entry said "'rewind check' lists every damaged entry",
    and for a fetched session 'rewind check' listed nothing: it reads the project's own
    sessions only."""
    forge.session("numbers", "tip", b"not json", **{"0.after": b"evil\n"})
    first = forge.commit(forge.tree({"turn.json": b"{broken", "files/0.after": b"evil\n"}))
    honest = json.dumps({**record("chain", change("b.txt"), prompt="second"), "number": 2})
    tree = forge.tree({"turn.json": honest.encode(), "files/0.after": b"evil\n"})
    forge.ref(f"refs/rewind/{PROJECT}/numbers/sessions/chain", forge.commit(tree, parent=first))
    victim.ok("fetch")
    damaged = {"tip": "backup:numbers/tip entry 1", "chain": "backup:numbers/chain entry 1"}
    for leaf, command in (
        ("tip", ["log"]),
        ("tip", ["show", "1"]),
        ("chain", ["log"]),  # read on, and warned of on standard error
        ("chain", ["show", "1"]),
        ("chain", ["diff", "1"]),
    ):
        said = _read(victim, *command, "--remote", "backup", "--session", leaf).stderr
        [named] = re.findall(r"'(rewind check[^']*)'", said) or [said]
        assert named == "rewind check --remote backup", (command, said)
        listed = victim.run(*named.split()[1:])
        assert listed.returncode == 1 and damaged[leaf] in listed.stderr, listed
    applied = _read(victim, "apply", "--remote", "backup", "chain", "1", "--dry-run").stderr
    assert "('rewind check --remote backup' lists what is damaged)" in applied, applied
    every = json.loads(victim.run("check", "--remote", "--json").stdout)
    assert every["sessions"] == 2 and len(every["problems"]) == 2, every
    own = victim.run("check")  # the project's own sessions are fine, and say so
    assert own.returncode == 0 and "0 problem(s)" in own.stdout, own


# the ref names the session --------------------------------------------------------------------


def test_a_record_naming_another_session_than_its_ref_is_damaged_alone(
    forge: Forge, victim: Machine
) -> None:
    honest_session(forge)  # honest/fine
    forge.session("honest", "elsewhere", record("nowhere", change("b.txt")))
    forge.session("honest", "thief", record("fine", change("c.txt"), prompt="stolen"))
    victim.ok("fetch")
    names = _fetched_names(victim)
    assert names == {"honest/fine", "honest/elsewhere", "honest/thief"}
    for name in ("fine", "honest/fine"):
        shown = _read(victim, "log", "--remote", "backup", "--session", name)
        assert shown.returncode == 0 and "ok.txt" in shown.stdout, shown
        assert "stolen" not in shown.stdout and "c.txt" not in shown.stdout
    for name in ("elsewhere", "honest/thief"):
        shown = _read(victim, "log", "--remote", "backup", "--session", name)
        assert shown.returncode == 1 and "names another session" in shown.stderr, shown


def test_an_entry_naming_a_sibling_in_the_middle_of_a_session_leaves_the_sibling_alone(
    forge: Forge, victim: Machine
) -> None:
    """Entries are indexed by the session they belong to: one that claims a sibling's name
    must not take the place of the sibling's own entry of that number."""
    one = json.dumps(record("fine", change("ok.txt"), prompt="first")).encode()
    first = forge.commit(forge.tree({"turn.json": one, "files/0.after": b"evil\n"}))
    two = json.dumps({**record("fine", change("two.txt"), prompt="next"), "number": 2}).encode()
    tree = forge.tree({"turn.json": two, "files/0.after": b"evil\n"})
    forge.ref(f"refs/rewind/{PROJECT}/honest/sessions/fine", forge.commit(tree, parent=first))
    claimed = json.dumps(record("fine", change("stolen.txt"), prompt="stolen")).encode()
    first = forge.commit(forge.tree({"turn.json": claimed, "files/0.after": b"evil\n"}))
    second = json.dumps({**record("thief", change("b.txt"), prompt="second"), "number": 2})
    tree = forge.tree({"turn.json": second.encode(), "files/0.after": b"evil\n"})
    forge.ref(f"refs/rewind/{PROJECT}/honest/sessions/thief", forge.commit(tree, parent=first))
    victim.ok("fetch")
    honest = victim.ok("--no-pager", "log", "--remote", "backup", "--session", "fine", "--json")
    thief = _read(victim, "log", "--remote", "backup", "--session", "thief")
    again = victim.ok("--no-pager", "log", "--remote", "backup", "--session", "fine", "--json")
    assert again == honest and "stolen" not in again
    assert thief.returncode == 0 and "second" in thief.stdout, thief
    assert "names another session" in thief.stdout and "stolen" not in thief.stdout


@pytest.mark.parametrize(
    ("hostile", "said"),
    [
        # inflates from about 64 KiB fetched to 64 MiB: measured first, never inflated
        (b" " * (RECORD_BYTES + 1), "its turn.json is larger than 64 MiB"),
        (b"[" * 100_000 + b"]" * 100_000, "JSON nested too deeply (more than 512 levels)"),
        (b'{"files": ' + b"[" * (DEPTH + 1) + b"]" * (DEPTH + 1) + b"}", "more than 512 levels"),
    ],
    ids=["inflates-past-the-limit", "nested-100000", "nested-513"],
)
def test_a_fetched_record_past_the_limits_is_one_damaged_entry(
    forge: Forge, victim: Machine, hostile: bytes, said: str
) -> None:
    first = forge.commit(forge.tree({"turn.json": hostile}))
    honest = json.dumps({**record("chain", change("b.txt"), prompt="second"), "number": 2})
    tree = forge.tree({"turn.json": honest.encode(), "files/0.after": b"evil\n"})
    forge.ref(f"refs/rewind/{PROJECT}/big/sessions/chain", forge.commit(tree, parent=first))
    victim.ok("fetch")
    shown = _read(victim, "log", "--remote", "backup", "--session", "chain")
    assert shown.returncode == 0 and "second" in shown.stdout, shown
    assert "damaged entry: " in shown.stdout and said in shown.stdout, shown
