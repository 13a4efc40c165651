"""Kilo Code's CLI, the real client: ``kilo run PROMPT`` (then with ``-s SESSION``) against the
scripted Messages API, as a provider of the person's own in ``~/.config/kilo/kilo.json``, the
models list not fetched from the network. Kilo is built on OpenCode: the same tools, the same
``--format json`` events, its project from ``$PWD``; it loads rewind's OpenCode plugin from
``.kilo/plugins/`` and installs no package there (it writes a ``.gitignore``)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from tests.clients.opencode import MODEL, PROVIDER, OpenCode

if TYPE_CHECKING:
    from tests.clients.world import World


class Kilo(OpenCode):
    agent = "kilo"

    def prepare(self, world: World) -> None:
        config_folder = world.home / ".config" / "kilo"
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
        (config_folder / "kilo.json").write_text(json.dumps(config, indent=2))

    def environment(self, world: World) -> dict[str, str]:
        home = world.home
        return {
            "PWD": str(world.root),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "XDG_STATE_HOME": str(home / ".local" / "state"),
            "KILO_DISABLE_MODELS_FETCH": "1",
            "KILO_DISABLE_AUTOUPDATE": "1",
            "KILO_DISABLE_LSP_DOWNLOAD": "1",
        }
