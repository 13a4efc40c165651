"""``rewind mcp``: the project's history served to the agent over the Model Context Protocol
(stdio), so that the agent can read and use it (docs/mcp.md).

Built on the official SDK (the optional ``mcp`` package, the ``mcp`` extra: ``pip install
'.[mcp]'`` from the checkout), imported only here: the base install and the hook path never
load it.
"""
