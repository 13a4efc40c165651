"""What the commands show: text for people, the --json outputs, hunks, the pager, and the
questions asked before a change. Used by the commands only.
"""
