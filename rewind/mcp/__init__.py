"""``rewind mcp``: the project's history served to the agent over the Model Context Protocol
(stdio), so that the agent can read and use it (docs/mcp.md).

Built on the official SDK (the optional ``mcp`` package: ``pip install 'rewind-files[mcp]'``),
imported only here: the base install and the hook path never load it.
"""
