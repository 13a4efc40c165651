"""``rewind resume TURN --remote NAME``, proven with the real clients: three prompts on one
machine that keeps and shares its conversation (``[conversation] keep`` and ``share``), pushed;
on another machine (its own home, its own clone at another path, its own model server), the
session fetched and the conversation resumed from before the second turn with one more prompt.
The model then sees the first turn and the new prompt, nothing of the second or third."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.clients.conftest import MakeWorld
from tests.clients.resume_test import CASES, FORK, PROMPTS, resume, script, sent_with
from tests.clients.scenario import Prompt, Script, done

SETTINGS = 'project_id = "shared-calc"\n\n[conversation]\nkeep = true\nshare = true\n'


@pytest.mark.parametrize("agent", ["claude-code", "gemini"])
def test_a_conversation_fetched_from_another_machine_resumes_there(
    make_world: MakeWorld, agent: str, tmp_path: Path
) -> None:
    case = CASES[agent]
    program = case.program()
    recorded = script(case)
    laptop = make_world(case.make(program), Script(recorded.prompts[: len(PROMPTS)]))
    workstation = make_world(case.make(program), Script([Prompt(FORK, (done("Reply fork."),))]))
    bare = tmp_path / "shared.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    for world in (laptop, workstation):
        (world.root / "rewind.toml").write_text(SETTINGS)
        world.ok("remote", "add", "backup", str(bare))

    session = laptop.prompt(PROMPTS[0])
    for text in PROMPTS[1:]:
        laptop.prompt(text, session)
    turns = [entry for entry in laptop.log(session) if entry["agent"]]
    assert "with its kept conversation" in laptop.ok("push", "backup", "--session", session)

    workstation.ok("fetch", "backup")
    where = ("--remote", "backup", "--session", session)
    done_run = resume(workstation, program, turns[1]["turn"], *case.arguments, options=where)
    assert done_run.returncode == 0, (done_run.stdout[-2000:], done_run.stderr[-3000:])
    forked = sent_with(workstation, FORK)
    assert forked, "the resumed client sent the model nothing with the new prompt"
    for body in forked:
        assert PROMPTS[0] in body and "Reply 1." in body, body[-3000:]
        assert PROMPTS[1] not in body and PROMPTS[2] not in body, body[-3000:]
    assert not sent_with(laptop, FORK)  # the branch ran on the workstation alone
