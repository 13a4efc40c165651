"""Sessions through git remotes: the private-file rules, export, push, fetch, identity and backup.
Imports only the history's core.
"""
