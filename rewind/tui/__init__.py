"""The terminal user interface (``rewind tui``): browse a session's turns, diff them, rewind.

Only ``rewind tui`` imports this package; the hook path never loads textual.
"""
