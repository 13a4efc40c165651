"""What a person or an agent asks of rewind, done once for every interface: the command line,
the TUI, the MCP server and the Python API call these, and print, draw or answer what comes
back; none of them carries rules of its own.

- :mod:`rewind.actions.changes`: restore, undo, redo, a version, some hunks: a plan first,
  then carried out under a :class:`~rewind.actions.changes.Policy` (who asks, whether files
  changed outside rewind may be overwritten), the open turn's files, conflicts, the stats and
  the journal handled here once.

The interfaces reach the history through this package; tests/layers_test.py says so.
"""
