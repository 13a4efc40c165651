"""Kilo Code's CLI itself, from npm, driven by a scripted model: rewind's OpenCode plugin, as
``rewind install kilo`` puts it in ``.kilo/plugins/``, records each prompt as a turn of Kilo's
(a new file; an edit, a shell command that deletes a file and one that writes one), and a
restore to before each turn gives the files back byte for byte. One test: a Kilo prompt costs
about 10 s of processor time, and the plugin is OpenCode's, whose every scenario runs live."""

from __future__ import annotations

from tests.clients.clients import KILO
from tests.clients.conftest import MakeWorld
from tests.clients.kilo import Kilo
from tests.clients.opencode import bash, edit, write
from tests.clients.scenario import Prompt, Script, calls, done

PROMPTS = ["Write the plan", "Revise the plan and tidy up"]


def test_each_prompt_is_a_turn_of_kilos_that_rewinds(make_world: MakeWorld) -> None:
    script = Script(
        [
            Prompt(PROMPTS[0], (calls(write("plan.txt", "draft\n")), done())),
            Prompt(
                PROMPTS[1],
                (
                    calls(edit("plan.txt", "draft", "final")),
                    calls(bash("rm old.txt && echo made > made.txt")),
                    done(),
                ),
            ),
        ]
    )
    world = make_world(Kilo(KILO.program()), script)
    (world.root / "old.txt").write_text("the person's\n")
    session = world.prompt(PROMPTS[0])
    assert world.prompt(PROMPTS[1], session) == session
    assert (world.root / "plan.txt").read_text() == "final\n"
    assert not (world.root / "old.txt").exists()
    assert {entry["agent"] for entry in world.log(session)} == {"kilo"}
    world.check_every_turn_rewinds(session, PROMPTS)
