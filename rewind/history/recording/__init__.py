"""Recording turns: the hook path's writes (begin a turn, track paths, record after-states) and
the check for changes made outside rewind between turns. Imports only the history's core.
"""
