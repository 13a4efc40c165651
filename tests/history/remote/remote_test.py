"""Sessions through real git remotes (docs/remote.md): a bare repository as a path, a ``file://``
URL, ``git daemon`` and ``git http-backend`` on localhost (tests/support/remote_servers.py), between
two "machines", each its own ``REWIND_HOME`` and ``HOME`` and its own clone of the project.

Everything is the real thing: rewind as a process, git's transport, the remote's own objects
searched for what must never reach it.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import error_line, run_rewind
from tests.support.git import git, git_bytes
from tests.support.remote_servers import (
    KINDS,
    REMOTE_NAME,
    Machine,
    clone,
    new_project,
    served,
    sh,
)

SECRET_ENV = b"API_KEY=sk-env-0123456789-never-leaves\n"
SECRET_IGNORED = b"ignored-secret-9876543210-never-leaves\n"


@pytest.fixture(params=KINDS)
def remote(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty bare repository, reached the way the parameter says."""
    with served(request.param, tmp_path / "served") as url:
        yield url


@pytest.fixture
def bare(tmp_path: Path) -> Path:
    return tmp_path / "served" / REMOTE_NAME


@pytest.fixture
def a(tmp_path: Path) -> Machine:
    return Machine(new_project(tmp_path / "laptop" / "calc"), tmp_path / "laptop-home", "laptop")


@pytest.fixture
def b(tmp_path: Path, a: Machine) -> Machine:
    root = clone(a.root, tmp_path / "work" / "checkouts" / "calc")
    return Machine(root, tmp_path / "work-home", "workstation")


def connect(url: str, *machines: Machine) -> None:
    for machine in machines:
        machine.ok("remote", "add", "backup", url)


def remote_objects(bare: Path) -> dict[str, bytes]:
    """Every object of the bare repository, by id: its content."""
    listed = git_bytes(
        "cat-file", "--batch-all-objects", "--batch-check=%(objectname)", git_dir=bare
    )
    return {oid: git_bytes("cat-file", "-p", oid, git_dir=bare) for oid in listed.decode().split()}


def remote_refs(bare: Path) -> dict[str, str]:
    listed = git("for-each-ref", "--format=%(refname) %(objectname)", git_dir=bare)
    return {ref: oid for ref, _, oid in (line.partition(" ") for line in listed.splitlines())}


def three_turns(a: Machine) -> None:
    a.turn("s1", "add the parser", {"calc.py": b"def parse(text):\n    return text\n"})
    a.turn(
        "s1",
        "handle spaces\n\nand more",
        {"calc.py": b"def parse(text):\n    return text.strip()\n", "notes.md": b"spaces\n"},
    )
    a.turn("s1", "drop the notes", {"notes.md": b"gone\n"})


# push, fetch, read ---------------------------------------------------------------------------


def test_a_session_pushed_from_one_machine_reads_on_the_other_byte_for_byte(
    remote: str, a: Machine, b: Machine
) -> None:
    three_turns(a)
    connect(remote, a, b)
    pushed = a.ok("push")
    assert pushed.startswith("pushed 1 session(s) to backup"), pushed
    fetched = b.ok("fetch")
    assert "1 session(s) of 1 machine(s), 1 new or updated" in fetched, fetched
    for command in (
        ["log"],
        ["show", "2"],
        ["show", "3"],
        ["diff", "1", "3"],
        ["diff", "2", "2"],
    ):
        for as_json in ([], ["--json"]):
            here = a.ok("--no-pager", *command, "--session", "s1", *as_json)
            there = b.ok("--no-pager", *command, "--remote", "backup", "--session", "s1", *as_json)
            assert there == here, (command, as_json)
    listed = b.ok("sessions", "--remote")
    assert "backup  laptop/s1  " in listed and "3 entries" in listed, listed


def test_fetched_sessions_list_the_machine_that_pushed_them(
    tmp_path: Path, a: Machine, b: Machine
) -> None:
    with served("path", tmp_path / "served") as url:
        connect(url, a, b)
        a.turn("s1", "one", {"x.txt": b"1\n"})
        b.turn("b1", "on b", {"y.txt": b"2\n"})
        a.ok("push")
        b.ok("push")
        a.ok("fetch")
        listed = a.json("sessions", "--remote")
        assert isinstance(listed, list)
        names = sorted(f"{s['machine']}/{s['session']}" for s in listed)
        assert names == ["laptop/s1", "workstation/b1"], listed


def test_a_clone_that_only_fetched_is_told_how_to_read_what_it_fetched(
    tmp_path: Path, a: Machine, b: Machine
) -> None:
    with served("path", tmp_path / "served") as url:
        connect(url, a, b)
        a.turn("s1", "one", {"x.txt": b"1\n"})
        a.ok("push")
        b.ok("fetch")
        for command in (["log"], ["show", "1"], ["diff"], ["tui"]):
            line = error_line(b.run(*command))
            assert "has no sessions of its own yet" in line, line
            assert "--remote backup" in line, line
        assert "turn 1" in b.ok("show", "--remote", "backup", "1")


def test_a_push_after_one_more_turn_sends_that_turn_only(
    remote: str, bare: Path, a: Machine, b: Machine
) -> None:
    git("config", "receive.unpackLimit", "1", git_dir=bare)  # every push keeps its pack, to be read
    three_turns(a)
    connect(remote, a, b)
    a.ok("push")
    old_tip = remote_refs(bare)["refs/rewind/" + project_of(a) + "/laptop/sessions/s1"]
    packs_before = packs(bare)
    a.turn("s1", "one more", {"calc.py": b"def parse(text):\n    return text.split()\n"})
    a.ok("push")
    new_tip = remote_refs(bare)["refs/rewind/" + project_of(a) + "/laptop/sessions/s1"]
    assert new_tip != old_tip
    sent = set()
    for pack in packs(bare) - packs_before:
        sent |= pack_objects(bare / "objects" / "pack" / pack)
    # Exactly what git counts as new since the old tip, and all of it the new turn's: its
    # commit, its tree and what that holds (a blob an older turn also held may go again: git
    # compares with the old tip's tree, not every tree of the history).
    assert sent == reachable(bare, new_tip, "--not", old_tip)
    turn = {new_tip} | {
        line.split()[2] for line in git("ls-tree", "-r", "-t", new_tip, git_dir=bare).splitlines()
    }
    turn.add(git("rev-parse", new_tip + "^{tree}", git_dir=bare).strip())
    assert sent <= turn
    history_commits = set(git("rev-list", old_tip, git_dir=bare).split())
    assert len(history_commits) == 3 and not sent & history_commits
    assert a.ok("push").strip().endswith("is up to date.")
    b.ok("fetch")
    assert "one more" in b.ok("--no-pager", "log", "--remote", "backup")


def reachable(bare: Path, *revisions: str) -> set[str]:
    """``git rev-list --objects REVISIONS``: the ids."""
    listed = git("rev-list", "--objects", *revisions, git_dir=bare)
    return {line.split(" ")[0] for line in listed.splitlines()}


def project_of(machine: Machine) -> str:
    data = machine.json("push", "--dry-run", "--all")
    assert isinstance(data, dict)
    project = data["project"]
    assert isinstance(project, str)
    return project


def packs(bare: Path) -> set[str]:
    return {n for n in os.listdir(bare / "objects" / "pack") if n.endswith(".idx")}


def pack_objects(index: Path) -> set[str]:
    listed = subprocess.run(
        ["git", "show-index"], stdin=index.open("rb"), capture_output=True, check=True
    ).stdout.decode()
    return {line.split()[1] for line in listed.splitlines()}


def session_ref(machine: Machine, session: str, kind: str = "sessions") -> str:
    return f"refs/rewind/{project_of(machine)}/{machine.name}/{kind}/{session}"


def test_labels_are_pushed_and_their_removal_too(
    tmp_path: Path, bare: Path, a: Machine, b: Machine
) -> None:
    with served("file", tmp_path / "served") as url:
        connect(url, a, b)
        three_turns(a)
        a.ok("label", "--session", "s1", "2", "good-one")
        a.ok("push")
        label = session_ref(a, "s1", "labels") + "/good-one"
        assert label in remote_refs(bare)
        b.ok("fetch")
        assert "[good-one]" in b.ok("--no-pager", "log", "--remote", "backup")
        a.ok("label", "--session", "s1", "2", "good-one", "--remove")
        assert "pushed 1 session(s)" in a.ok("push")
        assert label not in remote_refs(bare)
        assert session_ref(a, "s1") in remote_refs(bare)
        b.ok("fetch")
        assert "good-one" not in b.ok("--no-pager", "log", "--remote", "backup")


def test_an_open_turn_is_not_pushed_until_it_ends(tmp_path: Path, a: Machine, b: Machine) -> None:
    with served("path", tmp_path / "served") as url:
        connect(url, a, b)
        a.turn("s1", "closed", {"x.txt": b"1\n"})
        a.open_turn("s1", "still going", {"x.txt": b"2\n"})
        dry = a.json("push", "--dry-run")
        assert isinstance(dry, dict)
        [pending] = dry["sessions"]
        assert pending["open_turn_held"] is True
        assert [e["prompt"] for e in pending["entries"]] == ["closed"]
        assert "turn 2 is still open and goes with the next push" in a.ok("push")
        b.ok("fetch")
        prompts = [e["prompt"] for e in log_entries(b)]
        assert prompts == ["closed"]
        a.ok("end", "--session", "s1")
        a.ok("push")
        b.ok("fetch")
        prompts = [e["prompt"] for e in log_entries(b)]
        assert prompts == ["closed", "still going"]


def log_entries(machine: Machine) -> list[dict[str, object]]:
    entries = machine.json("log", "--remote", "backup")
    assert isinstance(entries, list)
    return entries


def private_turn(a: Machine) -> None:
    a.turn(
        "s1",
        "configure",
        {".env": SECRET_ENV, "debug.log": SECRET_IGNORED, "app.py": b"print('hi')\n"},
    )
    a.turn("s1", "more", {".env": SECRET_ENV + b"MORE=1\n", "app.py": b"print('hello')\n"})


def test_private_contents_never_reach_the_remote_but_the_files_show(
    tmp_path: Path, bare: Path, a: Machine, b: Machine
) -> None:
    with served("path", tmp_path / "served") as url:
        connect(url, a, b)
        private_turn(a)
        a.ok("push")
        everything = b"".join(remote_objects(bare).values())
        assert b"print('hello')" in everything  # the search does see contents
        for secret in (SECRET_ENV, SECRET_IGNORED, b"sk-env-0123456789", b"ignored-secret"):
            assert secret not in everything
        b.ok("fetch")
        log = b.ok("--no-pager", "log", "--remote", "backup")
        not_shared = "  content not shared (private on the machine that recorded it)\n"
        assert log.count("  .env" + not_shared) == 2, log
        assert log.count("  debug.log" + not_shared) == 1, log
        assert "A app.py  +1 -0\n" in log and "M app.py  +1 -1\n" in log, log
        shown = b.ok("--no-pager", "show", "--remote", "backup", "1")
        assert "sk-env" not in shown and "ignored-secret" not in shown
        assert "print('hi')" in shown


def test_push_dry_run_lists_what_would_go_marks_the_private_files_and_sends_nothing(
    tmp_path: Path, bare: Path, a: Machine
) -> None:
    with served("path", tmp_path / "served") as url:
        connect(url, a)
        private_turn(a)
        text = a.ok("push", "--dry-run")
        assert text.splitlines()[0] == (
            f"would push to backup ({url}) as machine laptop of project {project_of(a)}:"
        )
        assert "session s1: 2 entries" in text
        assert "      .env  (not shared: matches .env)" in text
        assert "      debug.log  (not shared: ignored by git)" in text
        assert "      app.py\n" in text
        data = a.json("push", "--dry-run")
        assert isinstance(data, dict) and data["format"] == 1
        [session] = data["sessions"]
        files = {f["path"]: f for f in session["entries"][0]["files"]}
        assert files[".env"] == {"path": ".env", "shared": False, "why_not": "matches .env"}
        assert files["debug.log"]["why_not"] == "ignored by git"
        assert files["app.py"] == {"path": "app.py", "shared": True, "why_not": None}
        assert remote_refs(bare) == {} and remote_objects(bare) == {}
        assert not os.path.exists(a.store() / "rewind" / "pushed")


def test_the_project_own_origin_asks_once(tmp_path: Path, bare: Path, a: Machine) -> None:
    with served("path", tmp_path / "served") as url:
        sh(a.root, "git", "remote", "add", "origin", url)
        added = a.ok("remote", "add", "backup", "origin")
        assert f"added remote backup: {url}" in added and "own remote 'origin'" in added
        a.turn("s1", "one", {"x.txt": b"1\n"})
        refused = error_line(a.run("push"))
        assert "--yes" in refused and "origin" in refused
        assert remote_refs(bare) == {}
        assert "pushed 1 session(s)" in a.ok("push", "--yes")
        a.turn("s1", "two", {"x.txt": b"2\n"})
        assert "pushed 1 session(s)" in a.ok("push")


def test_the_project_id_is_the_root_commit_on_every_clone_unless_set(
    a: Machine, b: Machine
) -> None:
    root = sh(a.root, "git", "rev-list", "--max-parents=0", "HEAD").strip()
    for machine in (a, b):
        machine.ok("remote", "add", "backup", "/nonexistent/remote.git")
    assert project_of(a) == project_of(b) == "git-" + root[:16]
    (b.root / "rewind.toml").write_text('project_id = "calc-7f3a"\n')
    assert project_of(b) == "calc-7f3a"


def test_a_shallow_clone_without_project_id_is_told_to_set_one(tmp_path: Path, a: Machine) -> None:
    sh(a.root, "git", "commit", "-q", "--allow-empty", "-m", "second")
    root = clone(a.root, tmp_path / "ci" / "calc", "--depth", "1", "--no-local")
    ci = Machine(root, tmp_path / "ci-home", "ci")
    with served("path", tmp_path / "served") as url:
        ci.ok("remote", "add", "backup", url)
        ci.turn("s1", "one", {"x.txt": b"1\n"})
        line = error_line(ci.run("push"))
        assert "shallow clone" in line and "project_id" in line and "rewind.toml" in line
        (root / "rewind.toml").write_text('project_id = "calc-ci"\n')
        assert "pushed 1 session(s)" in ci.ok("push")


def test_projects_do_not_see_each_other_but_machines_of_one_project_do(
    tmp_path: Path, a: Machine, b: Machine
) -> None:
    other = Machine(new_project(tmp_path / "laptop" / "other"), a.home, "laptop")
    (other.root / "rewind.toml").write_text('project_id = "other"\n')
    with served("daemon", tmp_path / "served") as url:
        connect(url, a, b, other)
        a.turn("s1", "calc on the laptop", {"x.txt": b"1\n"})
        b.turn("s2", "calc on the workstation", {"y.txt": b"1\n"})
        other.turn("s3", "the other project", {"z.txt": b"1\n"})
        for machine in (a, b, other):
            machine.ok("push")
        for machine in (a, b):
            machine.ok("fetch")
            listed = machine.json("sessions", "--remote")
            assert isinstance(listed, list)
            assert sorted(f"{s['machine']}/{s['session']}" for s in listed) == [
                "laptop/s1",
                "workstation/s2",
            ]
        other.ok("fetch")
        listed = other.json("sessions", "--remote")
        assert isinstance(listed, list)
        assert [f"{s['machine']}/{s['session']}" for s in listed] == ["laptop/s3"]


def test_a_history_cut_by_retention_is_pushed_cut(tmp_path: Path, a: Machine, b: Machine) -> None:
    with served("path", tmp_path / "served") as url:
        connect(url, a, b)
        for number in range(1, 7):
            a.turn("old", f"old {number}", {"a.txt": f"a {number}\n".encode()})
        a.turn("new", "new 1", {"b.txt": b"b\n"})
        a.ok("push", "--all")
        (a.root / "rewind.toml").write_text("[retention]\nkeep_days = 0\nkeep_last = 2\n")
        assert "retention dropped session old" in a.ok("gc")
        a.turn("old", "old 7", {"a.txt": b"a 7\n"})
        a.ok("push", "--all")
        b.ok("fetch")
        here = a.ok("--no-pager", "log", "--session", "old")
        there = b.ok("--no-pager", "log", "--remote", "backup", "--session", "old")
        assert there == here
        assert [line.split()[0] for line in there.splitlines()[1:] if "old " in line] == [
            "5",
            "6",
            "7",
        ]


def test_removing_a_remote_deletes_its_mirror_and_pushed_refs(
    tmp_path: Path, bare: Path, a: Machine, b: Machine
) -> None:
    with served("path", tmp_path / "served") as url:
        connect(url, a, b)
        a.turn("s1", "one", {"x.txt": b"1\n"})
        a.ok("push")
        b.ok("fetch")
        mirror = b.store() / "rewind" / "remotes" / "backup"
        assert (mirror / "HEAD").exists()
        pushed = git("for-each-ref", "refs/rewind/pushed/", git_dir=a.store())
        assert "refs/rewind/pushed/backup/sessions/s1" in pushed
        for machine in (a, b):
            assert "removed remote backup" in machine.ok("remote", "remove", "backup")
            assert machine.ok("remote").startswith("no remotes yet")
        assert not mirror.exists()
        assert git_bytes("for-each-ref", "refs/rewind/pushed/", git_dir=a.store()) == b""
        assert not (a.store() / "rewind" / "pushed" / "backup.json").exists()
        assert session_ref_on(bare, "s1")  # the remote itself is unchanged


def session_ref_on(bare: Path, session: str) -> bool:
    return any(ref.endswith(f"/sessions/{session}") for ref in remote_refs(bare))


def store_state(machine: Machine) -> dict[str, bytes]:
    """The store's refs and rewind's own files about remotes, by path."""
    store = machine.store()
    found = {"refs": git_bytes("for-each-ref", git_dir=store)}
    for folder in ("rewind/pushed", "rewind/remotes"):
        for top, _, names in os.walk(store / folder):
            for name in names:
                found[os.path.join(top, name)] = Path(top, name).read_bytes()
    return found


@pytest.mark.parametrize("kind", ["missing path", "closed port"])
def test_a_push_to_an_unreachable_remote_fails_in_one_sentence_and_changes_nothing(
    tmp_path: Path, a: Machine, kind: str
) -> None:
    from tests.support.remote_servers import free_port

    url = (
        str(tmp_path / "nowhere.git")
        if kind == "missing path"
        else (f"git://127.0.0.1:{free_port()}/remote.git")
    )
    connect(url, a)
    a.turn("s1", "one", {"x.txt": b"1\n"})
    before = store_state(a)
    line = error_line(a.run("push"))
    assert line.startswith("rewind: pushing to backup") and line.endswith("."), line
    assert store_state(a) == before
    line = error_line(a.run("fetch"))
    assert line.startswith("rewind: fetching from backup"), line


def test_where_the_agents_conversation_stood_travels_without_the_conversation(
    tmp_path: Path, bare: Path, a: Machine, b: Machine
) -> None:
    """A turn's cut point is part of its record, like its prompt and its paths: pushed with it,
    the commit unchanged; the transcript itself never leaves (only a fingerprint of it)."""
    transcript = a.home / ".claude" / "projects" / "calc" / "conversation-s9.jsonl"
    transcript.parent.mkdir(parents=True)
    transcript.write_text('{"type": "user", "uuid": "u0", "secret": "sk-transcript-42"}\n')
    payload = {
        "hook_event_name": "UserPromptSubmit",
        "session_id": "s9",
        "cwd": str(a.root),
        "transcript_path": str(transcript),
        "prompt": "add the parser",
    }
    done = run_rewind("hook", "claude-code", cwd=a.root, env=a.env, input=json.dumps(payload))
    assert done.returncode == 0, done
    a.ok("track", "--session", "s9", "calc.py")
    (a.root / "calc.py").write_text("def parse(text):\n    return text\n")
    a.ok("end", "--session", "s9")
    local = json.loads(a.ok("show", "1", "--session", "s9", "--json"))["conversation"]
    assert local["transcript"] == str(transcript) and local["offset"] == transcript.stat().st_size
    with served("path", tmp_path / "served") as url:
        connect(url, a, b)
        a.ok("push")
        everything = b"".join(remote_objects(bare).values())
        assert b"sk-transcript-42" not in everything
        b.ok("fetch")
        shown = json.loads(b.ok("show", "1", "--remote", "backup", "--session", "s9", "--json"))
        assert shown["conversation"] == local
