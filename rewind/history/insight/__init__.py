"""Reading the record: diffs, line counts, a file's story and blame, tallies and labels.
Writes nothing to the work tree; imports only the history's core.
"""
