"""Kilo Code's CLI, the real client: ``kilo run PROMPT`` (then with ``-s SESSION``) against the
scripted Messages API, as a provider of the person's own in ``~/.config/kilo/kilo.json``, the
models list not fetched from the network. Kilo is built on OpenCode: the same tools, the same
``--format json`` events, its project from ``$PWD``; it loads rewind's OpenCode plugin from
``.kilo/plugins/`` and installs no package there (it writes a ``.gitignore``)."""

from __future__ import annotations

from tests.clients.opencode import OpenCode


class Kilo(OpenCode):
    agent = "kilo"
    app, prefix = "kilo", "KILO"
    installs_its_package = False
