"""Keeping a store healthy and small: retention, what gc must keep, and the restore drill.
The top of the history: may use every other part of it.
"""
