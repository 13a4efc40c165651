"""OpenCode, the real client: ``opencode run PROMPT`` (then with ``-s SESSION``) against the
scripted Messages API, as a provider of the person's own in ``~/.config/opencode/opencode.json``
(its ``@ai-sdk/anthropic`` is bundled in 1.18.33: nothing is fetched for it), the models list
not fetched from the network.

OpenCode takes its project from ``$PWD`` (a child started elsewhere with the parent's ``PWD``
runs in the parent's folder). At its start it installs its plugin package with npm into every
config folder when one of them holds a plugin (``rewind install opencode`` puts one in the
project's ``.opencode/``), and waits for it: a minute from the network, seconds from npm's cache,
in each new home. :func:`seed_plugin_package` puts there what that install leaves
(``package.json``, ``package-lock.json``, its ``.gitignore``, and ``node_modules/`` as a link
to one copy in the clients' cache, made once by npm as OpenCode makes it), so that OpenCode
finds it done, as on a person's second start.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.clients.anthropic import AnthropicServer
from tests.clients.clients import OPENCODE
from tests.clients.model_server import ModelServer
from tests.clients.npm_install import cache_dir, npm_command, with_node
from tests.clients.scenario import Call, Script, Tools

if TYPE_CHECKING:
    from tests.clients.world import World

PROVIDER, MODEL = "scripted", "scripted-model"
PLUGIN_PACKAGE = "@opencode-ai/plugin"
# What OpenCode 1.18.33 writes as the .gitignore of a config folder.
GITIGNORE = "node_modules\npackage.json\npackage-lock.json\nbun.lock\n.gitignore"
# The person's permission rules for the failing scenario: edits of secret.txt refused.
DENY_SECRETS = {"edit": {"*": "allow", "*secret.txt": "deny"}, "bash": "allow"}


def plugin_package() -> Path:
    """A folder holding OpenCode's plugin package as OpenCode installs it into a config folder
    (npm, scripts ignored, the version pinned exactly), made once in the clients' cache."""
    OPENCODE.program()
    folder = cache_dir() / f"opencode-plugin-package@{OPENCODE.version}"
    with open(cache_dir() / "lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (folder / "installed").exists():
            return folder
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        (folder / "package.json").write_text("{}\n")
        env = with_node(dict(os.environ))
        env.update(
            HOME=str(cache_dir() / "npm-home"),
            npm_config_cache=str(cache_dir() / "npm-cache"),
            npm_config_update_notifier="false",
        )
        subprocess.run(
            [
                *npm_command(),
                "install",
                "--prefix",
                str(folder),
                f"{PLUGIN_PACKAGE}@{OPENCODE.version}",
                "--save-exact",
                "--ignore-scripts",
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
            ],
            env=env,
            capture_output=True,
            timeout=900,
            check=True,
        )
        (folder / "installed").write_text(OPENCODE.version)
    return folder


def seed_plugin_package(config: Path) -> None:
    """What OpenCode's own install of its plugin package leaves in the config folder
    ``config``."""
    package = plugin_package()
    config.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(package / name, config / name)
    (config / ".gitignore").write_text(GITIGNORE)
    (config / "node_modules").symlink_to(package / "node_modules")


class OpenCode:
    agent = OPENCODE.agent
    # The client's name for its config folder and file, and its environment's prefix.
    app, prefix = "opencode", "OPENCODE"
    # Whether it installs its plugin package into a config folder holding a plugin.
    installs_its_package = True

    def __init__(
        self, program: Path, permission: dict[str, Any] | None = None, started: bool = False
    ) -> None:
        self.program = program
        # The person's permission rules (None: OpenCode's defaults, which allow every tool).
        self.permission = permission
        # Whether OpenCode has run in the home before (its database made): two first starts at
        # once make it twice, and one fails ("Unexpected error", a failed CREATE TABLE).
        self.started = started

    def server(self, script: Script) -> ModelServer:
        return AnthropicServer(script)

    def prepare(self, world: World) -> None:
        config_folder = world.home / ".config" / self.app
        provider = {
            "npm": "@ai-sdk/anthropic",
            "options": {"baseURL": f"{world.server.url}/v1", "apiKey": "sk-scripted"},
            "models": {MODEL: {}},
        }
        config: dict[str, Any] = {
            "provider": {PROVIDER: provider},
            "model": f"{PROVIDER}/{MODEL}",
            "autoupdate": False,
            "share": "disabled",
        }
        if self.permission is not None:
            config["permission"] = self.permission
        config_folder.mkdir(parents=True, exist_ok=True)
        (config_folder / f"{self.app}.json").write_text(json.dumps(config, indent=2))
        if self.installs_its_package:
            seed_plugin_package(config_folder)
            seed_plugin_package(world.root / f".{self.app}")
        if self.started:
            done = subprocess.run(
                [str(self.program), "session", "list"],
                cwd=world.root,
                env=world.env,
                capture_output=True,
                text=True,
                timeout=120,
                stdin=subprocess.DEVNULL,
            )
            assert done.returncode == 0, done.stderr[-2000:]

    def environment(self, world: World) -> dict[str, str]:
        home = world.home
        return {
            "PWD": str(world.root),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "XDG_STATE_HOME": str(home / ".local" / "state"),
            f"{self.prefix}_DISABLE_MODELS_FETCH": "1",
            f"{self.prefix}_DISABLE_AUTOUPDATE": "1",
            f"{self.prefix}_DISABLE_LSP_DOWNLOAD": "1",
        }

    def argv(self, world: World, prompt: str, session: str | None) -> list[str]:
        resume = ["-s", session] if session else []
        return [str(self.program), "run", prompt, *resume, "--format", "json"]

    def session_of(self, world: World, completed: subprocess.CompletedProcess[str]) -> str:
        """The session of the run's events; returned once rewind has recorded the run's end,
        which OpenCode does not wait for (the plugin's child records it after OpenCode exits,
        while a person reads the answer)."""
        sessions = [
            json.loads(line)["sessionID"]
            for line in completed.stdout.splitlines()
            if line.startswith("{") and '"sessionID"' in line
        ]
        assert sessions, f"OpenCode ran no session: {completed.stdout[-2000:]}"
        wait_for_the_runs_end(world, sessions[-1])
        return str(sessions[-1])


def wait_for_the_runs_end(world: World, session: str, seconds: float = 30.0) -> None:
    """Waits until the last turn rewind recorded of ``session`` has ended (at once when rewind
    recorded none: no plugin)."""
    deadline = time.monotonic() + seconds
    while True:
        done = subprocess.run(
            [world.rewind.rewind, "log", "--json", "--session", session],
            cwd=world.root,
            env=world.rewind.env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        turns = json.loads(done.stdout) if done.returncode == 0 else []
        if not turns or turns[-1]["ended"] is not None:
            return
        assert time.monotonic() < deadline, f"the run's end was not recorded: {turns[-1]}"
        time.sleep(0.2)


def tool_calls(completed: subprocess.CompletedProcess[str]) -> dict[str, tuple[str, str]]:
    """The tool calls of an ``opencode run --format json``, by tool: how each ended
    (``completed`` or ``error``) and its output or error."""
    found = {}
    for line in completed.stdout.splitlines():
        event = json.loads(line) if line.startswith("{") else {}
        part = event.get("part") or {}
        if event.get("type") == "tool_use" and isinstance(part.get("state"), dict):
            state = part["state"]
            said = state.get("output", state.get("error", ""))
            found[part["tool"]] = (state.get("status"), json.dumps(said))
    return found


def exported(world: World, session: str) -> dict[str, str]:
    """The session as ``opencode export`` gives it out (its messages and their parts), as a
    digest: OpenCode keeps it in a database of its own."""
    done = subprocess.run(
        [str(OPENCODE.program()), "export", session],
        cwd=world.root,
        env=world.env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads(done.stdout[done.stdout.index("{") :])
    messages = json.dumps(data["messages"], sort_keys=True).encode()
    return {session: hashlib.sha256(messages).hexdigest()}


def write(path: str, content: str) -> Call:
    return Call("write", {"filePath": "{root}/" + path, "content": content})


def edit(path: str, old: str, new: str) -> Call:
    return Call("edit", {"filePath": "{root}/" + path, "oldString": old, "newString": new})


def read(path: str) -> Call:
    return Call("read", {"filePath": "{root}/" + path})


def bash(command: str) -> Call:
    return Call("bash", {"command": command, "description": "run"})


TOOLS = Tools(write, edit, read, bash)
