"""Putting files back: restore plans, the restore engine and its journal, hunks, versions, apply and
extract, and the paths a restore may write. May read the record (insight) and record (recording).
"""
