"""What a person or an agent asks of rewind, done once for every interface: the command line,
the TUI, the MCP server and the Python API call these in their own process, and print, draw
or answer what comes back; none of them carries rules of its own.

- :mod:`rewind.actions.changes`: restore, undo, redo, a version, some hunks, ``rewind apply``:
  a plan first, then carried out under a :class:`~rewind.actions.changes.Policy` (who asks,
  whether files changed outside rewind may be overwritten); the open turn's files, conflicts,
  the stats and the journal are handled here once.
- :mod:`rewind.actions.reading`: log, show, diff, a file's history, blame, as typed outcomes.
- :mod:`rewind.actions.status`: the project's status.
- :mod:`rewind.actions.resuming`: the agent's conversation resumed from before a turn.
- :mod:`rewind.actions.records`: the one JSON record of each outcome, which ``--json`` prints
  and the MCP server answers.
- :mod:`rewind.actions.projects`, :mod:`rewind.actions.stores`: which project, store and
  session a request reads (the hook path opens its store through ``stores``, which is light).
- :mod:`rewind.actions.when`: the times people type (``--since``).

The interfaces reach the restore engine through this package; tests/layers_test.py says so.
"""
